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
# The machinery (server JVM, one measured JVM per run, class paths, results) is bench-lib.sh, shared with
# controller-bench.sh.
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
source "$ROOT/kubeloop-bench/scripts/bench-lib.sh"
JVM_FLAGS=(-XX:+UseG1GC "-Xmx$XMX" -Dorg.slf4j.simpleLogger.defaultLogLevel=warn)
bench_start "$OUT" "pods=$PODS events=$EVENTS repeats=$REPEATS runners=$RUNNERS phases=$PHASES xmx=$XMX ${SERVER_ARGS[*]}"
bench_server io.kubeloop.bench.informer.InformerBenchServer --pods "$PODS" --events "$EVENTS" "${SERVER_ARGS[@]}"
API="$(ready_field api)" REPLAY="$(ready_field replay)" REPLAY_NOMF="$(ready_field replayNoManagedFields)"

for r in $(seq 1 "$REPEATS"); do
  for phase in $PHASES; do
    for runner in $RUNNERS; do
      case "$phase" in
        sync) args=(--phase sync --url "$REPLAY" --data managedFields) ;;
        nomf) args=(--phase sync --url "$REPLAY_NOMF" --data noManagedFields) ;;
        burst) args=(--phase burst --url "$REPLAY" --data managedFields --events "$EVENTS") ;;
        latency) args=(--phase latency --url "$API" --control "$REPLAY" --data api --writes "$WRITES" --load "$LOAD") ;;
      esac
      bench_classpath "$runner"
      bench_run "$r" "$phase" io.kubeloop.bench.informer.InformerBenchRunner --pods "$PODS" "${args[@]}"
    done
  done
done
echo "results: $OUT/results.jsonl" >&2
