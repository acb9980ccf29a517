#!/usr/bin/env python3
"""Median table of the controller benchmark (BENCHMARKS.md, "Controllers").

usage: controller-table.py results.jsonl [more.jsonl ...]

One column per (runner, workers); each cell is the median over the runs (with min-max when there are several).
The last columns compare kubeloop's columns with the better peer (client-java, josdk) on each row: speed-up for
times and CPU (peer / kubeloop), factor for rates (kubeloop / peer), share for heap (kubeloop / peer).
"""
import json
import statistics
import sys

PEERS = ("client-java", "josdk")
# (label, path, kind): kind "time" (lower is better), "rate" (higher is better), "heap" (lower is better)
ROWS = [
    ("start → first reconcile, s", "firstReconcileSeconds", "time"),
    ("start → all 10k reconciled once, s", "syncSeconds", "time"),
    ("initial flood, reconciles/s (first → last)", "syncReconcilesPerSecond", "rate"),
    ("CPU-s, start → all reconciled", "syncCpuSeconds", "time"),
    ("heap after GC, whole process, MB", "heapAfterGcBytes", "heap"),
    ("heap after GC per object, B", "heapBytesPerObject", "heap"),
    ("burst at the server's write rate, s", "burst.seconds", "time"),
    ("  server writes/s in that burst", "burst.server.perSecond", "info"),
    ("  lag after the last write, s", "burst.lagAfterLastWriteSeconds", "info"),
    ("  CPU-s", "burst.cpuSeconds", "time"),
    ("held burst: drain time of 10k events, s", "held.drainSeconds", "time"),
    ("held burst: reconciles/s", "held.reconcilesPerSecond", "rate"),
    ("held burst: CPU-s (writes included)", "held.cpuSecondsWithWrites", "time"),
    ("latency p50 at rest, ms", "atRest.p50Millis", "time"),
    ("latency p99 at rest, ms", "atRest.p99Millis", "time"),
    ("latency p50 under load, ms", "underLoad.p50Millis", "time"),
    ("latency p99 under load, ms", "underLoad.p99Millis", "time"),
    ("  load reached, writes/s", "underLoad.load.perSecond", "info"),
    ("CPU-s, whole run", "totalCpuSeconds", "time"),
]


def get(row, path):
    for part in path.split("."):
        if isinstance(row, str) and row.startswith("{"):
            row = json.loads(row)
        if not isinstance(row, dict) or part not in row:
            return None
        row = row[part]
    return row


def main(paths):
    rows = []
    for path in paths:
        with open(path) as f:
            rows.extend(json.loads(line) for line in f if line.startswith("{"))
    columns = {}
    for r in rows:
        columns.setdefault(f"{r['runner']} ×{r['workers']}", []).append(r)
    names = sorted(columns, key=lambda c: (c.split()[0] in PEERS, c))
    ours = [c for c in names if c.split()[0] not in PEERS]
    header = [f"{c} (n={len(columns[c])})" for c in names] + [f"{c} vs better peer" for c in ours]
    print("| metric | " + " | ".join(header) + " |")
    print("|---" * (1 + len(names) + len(ours)) + "|")
    for label, path, kind in ROWS:
        medians = {}
        cells = []
        for c in names:
            values = [v for v in (get(r, path) for r in columns[c]) if isinstance(v, (int, float))]
            if not values:
                cells.append("—")
                continue
            m = statistics.median(values)
            medians[c] = m
            scale = 1e6 if path == "heapAfterGcBytes" else 1
            cell = f"{m / scale:,.3g}" if m / scale < 100 else f"{m / scale:,.0f}"
            if len(values) > 1:
                cell += f" ({min(values) / scale:,.3g}–{max(values) / scale:,.3g})"
            cells.append(cell)
        if all(c == "—" for c in cells):
            continue
        ratios = []
        peer_values = [medians[c] for c in names if c.split()[0] in PEERS and c in medians]
        for c in ours:
            if kind == "info" or c not in medians or not peer_values:
                ratios.append("")
                continue
            if kind == "rate":
                better = max(peer_values)
                ratios.append(f"{medians[c] / better:.2f}×" if better else "")
            else:
                better = min(peer_values)
                if kind == "heap":
                    ratios.append(f"{medians[c] / better:.2f}×" if better else "")
                else:
                    ratios.append(f"{better / medians[c]:.2f}× faster" if medians[c] else "")
        print(f"| {label} | " + " | ".join(cells + ratios) + " |")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
