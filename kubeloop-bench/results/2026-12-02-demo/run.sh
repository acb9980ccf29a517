#!/usr/bin/env bash
# The main job's latency target (issue 19): pod gone → replacement created, p99 < 50 ms at rest on loopback, with the
# cluster's clock at normal speed. Runs `kubeloop demo --scenario kill-pods --speed 1` ROUNDS times (3 pods deleted
# every 5 s of real time, 36 incidents per 60 s run), one JVM per run, and prints each run's stage percentiles, its
# CPU seconds, and the medians over the runs.
#
#   kubeloop-bench/results/2026-12-02-demo/run.sh [ROUNDS] [DURATION_SECONDS]
set -euo pipefail
ROUNDS="${1:-5}"
DURATION="${2:-60}"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
OUT="${OUT:-$(mktemp -d)}"
"$ROOT/kubeloop" version >/dev/null # build first, outside the measurement
for i in $(seq 1 "$ROUNDS"); do
  /usr/bin/time -f "%e %U %S" -o "$OUT/time-$i.txt" \
    "$ROOT/kubeloop" demo --scenario kill-pods --speed 1 --duration "$DURATION" --replicas 20 --nodes 3 \
      --seed "$i" --quiet --report "$OUT/report-$i.json" >"$OUT/out-$i.txt" 2>&1 || echo "run $i failed: see $OUT/out-$i.txt"
done
python3 - "$OUT" "$ROUNDS" <<'PY'
import json, statistics, sys
out, rounds = sys.argv[1], int(sys.argv[2])
rows = {}
cpu = []
print(f"{'run':>3} {'passed':>6} {'incid':>5} {'gone→seen p99':>13} {'gone→created p50':>16} {'p95':>7} {'p99':>7} {'max':>7} {'CPU-s':>6}")
for i in range(1, rounds + 1):
    try:
        r = json.load(open(f"{out}/report-{i}.json"))
    except Exception as e:
        print(f"{i:>3} no report ({e})"); continue
    st = {s["stage"]: s for s in r["stages"]}
    gc, gs = st["gone→created"], st["gone→seen"]
    e, u, s = map(float, open(f"{out}/time-{i}.txt").read().split())
    cpu.append(u + s)
    for k in ("p50Ms", "p95Ms", "p99Ms", "maxMs"):
        rows.setdefault(k, []).append(gc[k])
    rows.setdefault("seen99", []).append(gs["p99Ms"])
    print(f"{i:>3} {str(r['passed']):>6} {len(r['incidents']):>5} {gs['p99Ms']:>13.2f} {gc['p50Ms']:>16.2f} {gc['p95Ms']:>7.2f} {gc['p99Ms']:>7.2f} {gc['maxMs']:>7.2f} {u+s:>6.1f}")
if cpu:
    m = {k: statistics.median(v) for k, v in rows.items()}
    print(f"median gone→seen p99 {m['seen99']:.2f} ms; gone→created p50 {m['p50Ms']:.2f}, p95 {m['p95Ms']:.2f}, "
          f"p99 {m['p99Ms']:.2f}, max {m['maxMs']:.2f} ms; CPU {statistics.median(cpu):.1f} s per run")
print(f"reports in {out}")
PY
