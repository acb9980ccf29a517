#!/usr/bin/env bash
# The informer benchmark (BENCHMARKS.md, "Informers"; method: kubeloop-bench/results/NOTES.md): one server JVM, then one measured JVM per
# (repeat, phase, data, runner), one after another. Results: one JSON line per run in OUT/results.jsonl;
# kubeloop-bench/scripts/informer-table.py prints the median table.
#
#   kubeloop-bench/scripts/informer-bench.sh [--pods 10000] [--events 100000] [--repeats 3]
#       [--runners "baseline fabric8 client-java kubeloop kubeloop-strip"] [--phases "sync nomf burst latency"]
#       [--xmx 8g] [--writes 200] [--load 5000] [--unique-managed-fields] [--out DIR] [--before DIR]
#
# phases: sync = start -> synced and retained heap, pods as served (with managedFields); nomf = the same with a
# server that sends no managedFields; burst = 100k MODIFIED events to the handler; latency = write -> handler
# at rest and under background load, against the embedded API server itself. --unique-managed-fields: each
# replayed pod's managedFields name its own pod IP (as in a cluster) instead of repeating its seed pod's.
# --before DIR: a runner named NAME@before runs NAME from an earlier build kept in DIR (DIR/classpath.txt, the
# whole class path), so that a change is measured against its parent in the same run; its results say NAME@before.
# Needs kubeloop-bench built: ./kubeloop jmh -l (or mvn -q -DskipTests -pl kubeloop-bench -am package).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
PODS=10000 EVENTS=100000 REPEATS=3 XMX=8g WRITES=200 LOAD=5000
RUNNERS="baseline fabric8 client-java kubeloop kubeloop-strip"
PHASES="sync nomf burst latency"
OUT=""
BEFORE=""
SERVER_ARGS=()
while [ $# -gt 0 ]; do
  case "$1" in
    --pods) PODS="$2"; shift 2 ;;
    --events) EVENTS="$2"; shift 2 ;;
    --repeats) REPEATS="$2"; shift 2 ;;
    --runners) RUNNERS="$2"; shift 2 ;;
    --phases) PHASES="$2"; shift 2 ;;
    --xmx) XMX="$2"; shift 2 ;;
    --writes) WRITES="$2"; shift 2 ;;
    --load) LOAD="$2"; shift 2 ;;
    --out) OUT="$2"; shift 2 ;;
    --before) BEFORE="$2"; shift 2 ;;
    --unique-managed-fields) SERVER_ARGS+=(--unique-managed-fields); shift ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
OUT="${OUT:-$ROOT/kubeloop-bench/results/informer-$(date -u +%Y%m%d-%H%M%S)}"
mkdir -p "$OUT"
JAVA="${JAVA_HOME:?set JAVA_HOME to a JDK 21+}/bin/java"
CP="$ROOT/kubeloop-bench/target/classes:$(cat "$ROOT/kubeloop-bench/target/classpath.txt")"
GC_FLAGS=(-XX:+UseG1GC "-Xmx$XMX" -Dorg.slf4j.simpleLogger.defaultLogLevel=warn)

{ echo "date: $(date -u)"; echo "nproc: $(nproc)"; echo "uptime: $(uptime)"; "$JAVA" -version 2>&1 | head -1;
  echo "args: pods=$PODS events=$EVENTS repeats=$REPEATS runners=$RUNNERS phases=$PHASES xmx=$XMX ${SERVER_ARGS[*]}"; } >"$OUT/machine.txt"

SCRATCH="$(mktemp -d)"
mkfifo "$SCRATCH/server.in"
"$JAVA" -Xmx6g -XX:+UseG1GC -Dorg.slf4j.simpleLogger.defaultLogLevel=warn -cp "$CP" \
  io.kubeloop.bench.informer.InformerBenchServer --pods "$PODS" --events "$EVENTS" \
  --ready-file "$OUT/ready.txt" "${SERVER_ARGS[@]}" <"$SCRATCH/server.in" >"$OUT/server.log" 2>&1 &
SERVER_PID=$!
exec 3>"$SCRATCH/server.in"   # the server runs until this is closed
stop_server() { exec 3>&- || true; wait "$SERVER_PID" 2>/dev/null || true; rm -rf "$SCRATCH"; }
trap stop_server EXIT
for _ in $(seq 1 1800); do
  [ -s "$OUT/ready.txt" ] && break
  kill -0 "$SERVER_PID" 2>/dev/null || { cat "$OUT/server.log" >&2; exit 1; }
  sleep 1
done
READY="$(cat "$OUT/ready.txt")"
echo "$READY" | tee -a "$OUT/machine.txt"
field() { echo "$READY" | tr ' ' '\n' | sed -n "s/^$1=//p"; }
API="$(field api)" REPLAY="$(field replay)" REPLAY_NOMF="$(field replayNoManagedFields)"

for r in $(seq 1 "$REPEATS"); do
  for phase in $PHASES; do
    for runner in $RUNNERS; do
      case "$phase" in
        sync) args=(--phase sync --url "$REPLAY" --data managedFields) ;;
        nomf) args=(--phase sync --url "$REPLAY_NOMF" --data noManagedFields) ;;
        burst) args=(--phase burst --url "$REPLAY" --data managedFields --events "$EVENTS") ;;
        latency) args=(--phase latency --url "$API" --control "$REPLAY" --data api --writes "$WRITES" --load "$LOAD") ;;
      esac
      name="$runner" cp="$CP" label=""
      if [ "${runner%@before}" != "$runner" ]; then
        name="${runner%@before}" cp="$(cat "${BEFORE:?--before DIR is needed for $runner}/classpath.txt")" label="@before"
      fi
      echo "$(date -u +%H:%M:%S) run $r $phase $runner (load: $(cut -d' ' -f1-3 /proc/loadavg))" >&2
      if line="$("$JAVA" "${GC_FLAGS[@]}" -cp "$cp" io.kubeloop.bench.informer.InformerBenchRunner \
            --runner "$name" --pods "$PODS" "${args[@]}" 2>"$SCRATCH/last-run.err" | grep '^RESULT ')"; then
        echo "${line#RESULT }" | sed "s/^{/{\"repeat\":$r,\"load1\":$(cut -d' ' -f1 /proc/loadavg),/" \
          | sed "s/\"runner\":\"$name\"/\"runner\":\"$name$label\"/" | tee -a "$OUT/results.jsonl"
      else
        echo "FAILED: $runner $phase (stderr in $OUT/failed-$r-$phase-$runner.err)" >&2
        cp "$SCRATCH/last-run.err" "$OUT/failed-$r-$phase-$runner.err"
      fi
    done
  done
done
echo "results: $OUT/results.jsonl" >&2
