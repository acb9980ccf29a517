#!/usr/bin/env bash
# The controller benchmark (BENCHMARKS.md, "Controllers"; notebook: kubeloop-bench/results/2026-12-02-controller/):
# one server JVM (the embedded API server holding the ConfigMaps, ControllerBenchServer), then one measured JVM
# per (repeat, runner) running ControllerBench with that library's controller. Results: one JSON line per run in
# OUT/results.jsonl; kubeloop-bench/scripts/controller-table.py prints the median table.
#
#   kubeloop-bench/scripts/controller-bench.sh [--objects 10000] [--repeats 3] [--xmx 2g]
#       [--runners "kubeloop kubeloop:50 client-java josdk"] [--phases "sync burst held"]
#       [--latency-writes 0] [--load 1000] [--round 900] [--out DIR]
#
# A runner is a library (kubeloop, client-java, josdk), optionally with ":W" for W workers (default: the
# library's own default: kubeloop 1, client-java 16, JOSDK 50). josdk runs on its own class path
# (kubeloop-bench/josdk/pom.xml: JOSDK 5 with fabric8 7 and Jackson 2). Phases as in ControllerBench's Javadoc;
# add "latency" with --latency-writes W (W/2 at rest, W/2 under --load writes/s).
# Needs kubeloop-bench built: ./kubeloop jmh -l (or mvn -q -DskipTests -pl kubeloop-bench -am package).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
OBJECTS=10000 REPEATS=3 XMX=2g LATENCY_WRITES=0 LOAD=1000 ROUND=900
RUNNERS="kubeloop kubeloop:50 client-java josdk"
PHASES="sync burst held"
OUT=""
while [ $# -gt 0 ]; do
  case "$1" in
    --objects) OBJECTS="$2"; shift 2 ;;
    --repeats) REPEATS="$2"; shift 2 ;;
    --runners) RUNNERS="$2"; shift 2 ;;
    --phases) PHASES="$2"; shift 2 ;;
    --xmx) XMX="$2"; shift 2 ;;
    --latency-writes) LATENCY_WRITES="$2"; shift 2 ;;
    --load) LOAD="$2"; shift 2 ;;
    --round) ROUND="$2"; shift 2 ;;
    --out) OUT="$2"; shift 2 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
OUT="${OUT:-$ROOT/kubeloop-bench/results/controller-$(date -u +%Y%m%d-%H%M%S)}"
source "$ROOT/kubeloop-bench/scripts/bench-lib.sh"
JVM_FLAGS=(-XX:+UseG1GC "-Xmx$XMX" -Dorg.slf4j.simpleLogger.defaultLogLevel=warn)
bench_start "$OUT" "objects=$OBJECTS repeats=$REPEATS runners=$RUNNERS phases=$PHASES xmx=$XMX latencyWrites=$LATENCY_WRITES load=$LOAD round=$ROUND"
bench_server io.kubeloop.bench.controller.ControllerBenchServer --objects "$OBJECTS"
API="$(ready_field api)" CONTROL="$(ready_field control)"

for r in $(seq 1 "$REPEATS"); do
  for runner in $RUNNERS; do
    library="${runner%%:*}" workers=0
    [ "$library" != "$runner" ] && workers="${runner#*:}"
    bench_classpath "$library"
    # The result's runner field names the library; the workers it ran with are in the "workers" field.
    bench_run "$r" "$(echo "$PHASES" | tr ' ' '+')-w$workers" io.kubeloop.bench.controller.ControllerBench \
      --url "$API" --control "$CONTROL" --objects "$OBJECTS" --workers "$workers" --round "$ROUND" \
      --latency-writes "$LATENCY_WRITES" --load "$LOAD" --phases "$PHASES"
  done
done
echo "results: $OUT/results.jsonl" >&2
