#!/usr/bin/env bash
# Interleaved: base (no archive), cds (dynamic AppCDS archive), aot (JDK 25 AOT cache); prints mode wall cpu load
J=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java; CP=$(cat /tmp/st/cp.txt)
for r in $(seq 1 ${1:-4}); do
  for mode in base cds aot; do
    case $mode in
      base) opts=() ;;
      cds) opts=(-XX:SharedArchiveFile=/tmp/st/cds.jsa -XX:+AutoCreateSharedArchive -Xlog:cds=off) ;;
      aot) opts=(-XX:AOTCache=/tmp/st/app.aot -Xlog:cds=off -Xlog:aot=error) ;;
    esac
    echo "$r $mode $(/tmp/st/first-answer.sh 18443 $J "${opts[@]}" -cp "$CP" io.kubeloop.cli.Main apiserver --port 18443 --kubeconfig-out /tmp/st/kc) $(cut -d' ' -f1 /proc/loadavg)"
  done
done
