#!/usr/bin/env bash
# The embedded API server's create, list and watch throughput at an earlier commit and at this checkout, side by
# side in one run: REPEATS rounds, each running the same JMH benchmarks once on the earlier build ("before") and
# once on this one ("after"), alternating, so that the machine's noise falls on both alike. The benchmark code is
# this checkout's in both (it uses only EmbeddedApiServer's public API); only the server under it differs.
#
#   kubeloop-bench/scripts/apiserver-before-after.sh BASE_COMMIT [REPEATS] [OUT_DIR]
#
# Writes OUT_DIR/{before,after}-N.json (JMH JSON) and prints the median table (apiserver-table.py). BENCHES (a JMH
# regex) and JMH_ARGS override the benchmarks and their options, e.g. for the client's decoding benchmarks.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
BASE="${1:?usage: apiserver-before-after.sh BASE_COMMIT [REPEATS] [OUT_DIR]}"
REPEATS="${2:-3}"
OUT="${3:-$ROOT/kubeloop-bench/results/$(date -u +%F)-apiserver-validation}"
JAVA="${JAVA_HOME:?set JAVA_HOME to a JDK 21+}/bin/java"
BENCHES="${BENCHES:-io.kubeloop.bench.(ApiServerBenchmark.(create_1client|createPod_1client|list)|WatchFanOutBenchmark)}"
read -r -a JMH_ARGS <<<"${JMH_ARGS:--f 1 -wi 2 -w 2s -i 4 -r 2s -p pods=10000 -prof gc}"
JMH_ARGS+=(-rf json)
mkdir -p "$OUT"
BEFORE_DIR="$(mktemp -d)"
trap 'git -C "$ROOT" worktree remove --force "$BEFORE_DIR/src" >/dev/null 2>&1 || true; rm -rf "$BEFORE_DIR"' EXIT
git -C "$ROOT" worktree add -q --detach "$BEFORE_DIR/src" "$BASE"
(cd "$BEFORE_DIR/src" && mvn -B -ntp -o -q -DskipTests -Dspotless.check.skip=true -pl kubeloop-bench -am package)
(cd "$ROOT" && mvn -B -ntp -o -q -DskipTests -pl kubeloop-bench -am package)
AFTER_CP="$ROOT/kubeloop-bench/target/classes:$(cat "$ROOT/kubeloop-bench/target/classpath.txt")"
BEFORE_CP="$ROOT/kubeloop-bench/target/classes:$(cat "$BEFORE_DIR/src/kubeloop-bench/target/classpath.txt")"
{ echo "date: $(date -u)"; echo "nproc: $(nproc)"; echo "uptime: $(uptime)"; "$JAVA" -version 2>&1 | head -1
  echo "before: $(git -C "$ROOT" rev-parse --short "$BASE")  after: $(git -C "$ROOT" rev-parse --short HEAD)"
  echo "jmh: $BENCHES ${JMH_ARGS[*]}"; } >"$OUT/machine.txt"
for i in $(seq 1 "$REPEATS"); do
  for side in before after; do
    cp="$BEFORE_CP"; [ "$side" = after ] && cp="$AFTER_CP"
    echo "round $i: $side" >&2
    "$JAVA" -cp "$cp" org.openjdk.jmh.Main "$BENCHES" "${JMH_ARGS[@]}" -rff "$OUT/$side-$i.json" \
      >"$OUT/$side-$i.log" 2>&1
  done
done
echo "uptime at end: $(uptime)" >>"$OUT/machine.txt"
python3 "$ROOT/kubeloop-bench/scripts/apiserver-table.py" "$OUT" | tee "$OUT/table.md"
