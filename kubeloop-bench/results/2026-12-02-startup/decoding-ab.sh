#!/usr/bin/env bash
# usage: run.sh ROUNDS OUTFILE "sizes" "runners" "modes"
set -u
ROUNDS=$1 OUT=$2 SIZES=$3 RUNNERS=$4 MODES=$5
JAVA=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java
CP="$(cat /tmp/dec/cp.txt)"
for r in $(seq 1 $ROUNDS); do
  modes=$MODES; [ $((r % 2)) -eq 0 ] && modes=$(echo $MODES | tr ' ' '\n' | tac | tr '\n' ' ')
  for n in $SIZES; do
    url=$(tr ' ' '\n' < /tmp/dec/ready-$n.txt | sed -n 's/^replay=//p')
    for runner in $RUNNERS; do
      for mode in $modes; do
        off=""; [ "$mode" != on ] && off="$mode"
        line=$($JAVA -XX:+UseG1GC -Xmx4g -Dorg.slf4j.simpleLogger.defaultLogLevel=warn -Dkubeloop.experiment.decodingOff=$off \
          -cp "$CP" io.kubeloop.bench.informer.InformerBenchRunner --runner $runner --pods $n --phase sync --url $url --data managedFields 2>/tmp/dec/last.err | grep '^RESULT ')
        echo "{\"round\":$r,\"mode\":\"$mode\",\"load1\":$(cut -d' ' -f1 /proc/loadavg),${line#RESULT \{}" | tee -a $OUT
      done
    done
  done
done
