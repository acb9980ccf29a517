#!/usr/bin/env bash
# As launch-ab.sh, niced (-10) so that the other builds on the machine delay it less.
cd /work/wt/startup; export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64
for r in $(seq 1 ${1:-5}); do
  for l in kubeloop-old kubeloop; do
    echo "$r $l $(nice -n -10 /tmp/st/first-answer.sh 18443 ./$l apiserver --port 18443 --kubeconfig-out /tmp/st/kc) $(cut -d' ' -f1 /proc/loadavg)"
    sleep 1
  done
done
