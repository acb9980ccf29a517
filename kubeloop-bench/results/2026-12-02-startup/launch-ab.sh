#!/usr/bin/env bash
cd /work/wt/startup; export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64
for r in $(seq 1 ${1:-4}); do
  for l in kubeloop-old kubeloop; do
    echo "$r $l $(/tmp/st/first-answer.sh 18443 ./$l apiserver --port 18443 --kubeconfig-out /tmp/st/kc) $(cut -d' ' -f1 /proc/loadavg)"
    sleep 2
  done
done
