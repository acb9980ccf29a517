#!/usr/bin/env bash
# startup.sh [ROUNDS]: `./kubeloop apiserver` from the command to its first answer, with the class-data sharing
# archive and without (KUBELOOP_CDS=0), interleaved. Prints "round variant wall_ms cpu_ms load1" per run.
# Uses first-answer.sh of 2026-12-02-startup (wall and CPU of the command's process, from /proc).
set -u
here="$(cd "$(dirname "$0")" && pwd)"; root="$here/../../.."
probe="$here/../2026-12-02-startup/first-answer.sh"
mkdir -p /tmp/st
cd "$root"
# build if needed, and let the first run write .kubeloop/cds-apiserver.jsa (not counted)
KUBELOOP_CDS=1 "$probe" 18443 ./kubeloop apiserver --port 18443 --kubeconfig-out /tmp/st/kc >/dev/null; sleep 2
for r in $(seq 1 "${1:-5}"); do
  for v in cds nocds; do
    if [ $v = cds ]; then cds=1; else cds=0; fi
    echo "$r $v $(KUBELOOP_CDS=$cds "$probe" 18443 ./kubeloop apiserver --port 18443 --kubeconfig-out /tmp/st/kc) $(cut -d' ' -f1 /proc/loadavg)"
    sleep 1
  done
done
