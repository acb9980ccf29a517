#!/usr/bin/env python3
"""Median tables of the informer benchmark (BENCHMARKS.md, "Informers").

usage: informer-table.py results.jsonl [more.jsonl ...]

One row per (pods, runner); each cell is the median over the runs, with min-max. The ratio columns compare each
row with the better of the two peers (fabric8, client-java) on that metric, in that set of results:
speed-up for times (peer / row), factor for events/s (row / peer), share for heap (row / peer).
"""
import json
import statistics
import sys

PEERS = ("fabric8", "client-java")


def load(paths):
    rows = []
    for path in paths:
        with open(path) as f:
            rows.extend(json.loads(line) for line in f if line.startswith("{"))
    return rows


def get(row, path):
    for part in path.split("."):
        if not isinstance(row, dict) or part not in row:
            return None
        row = row[part]
    return row


def cell(values, fmt):
    if not values:
        return "—"
    m = statistics.median(values)
    if len(values) == 1:
        return fmt.format(m) + " (1 run)"
    return f"{fmt.format(m)} ({fmt.format(min(values))}–{fmt.format(max(values))})"


def table(rows, title, selector, metrics):
    """metrics: (header, path, fmt, ratio kind: 'time' | 'rate' | 'heap' | None)."""
    chosen = [r for r in rows if selector(r)]
    if not chosen:
        return
    groups = {}
    for r in chosen:
        groups.setdefault((r["pods"], r["runner"]), []).append(r)
    print(f"\n#### {title}\n")
    header = ["N", "runner", "runs"]
    for name, _, _, kind in metrics:
        header.append(name)
        if kind:
            header.append(f"{name}: vs best peer")
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for pods in sorted({k[0] for k in groups}):
        medians = {}
        for (p, runner), rs in groups.items():
            if p == pods:
                for name, path, _, _ in metrics:
                    vals = [v for v in (get(r, path) for r in rs) if v is not None]
                    if vals:
                        medians[(runner, name)] = statistics.median(vals)
        order = sorted({k[1] for k in groups if k[0] == pods}, key=lambda n: (n in PEERS, n))
        for runner in order:
            rs = groups[(pods, runner)]
            out = [f"{pods:,}", runner, str(len(rs))]
            for name, path, fmt, kind in metrics:
                vals = [v for v in (get(r, path) for r in rs) if v is not None]
                out.append(cell(vals, fmt))
                if kind:
                    peer_vals = [medians[(p, name)] for p in PEERS if (p, name) in medians]
                    mine = medians.get((runner, name))
                    if not peer_vals or mine is None or runner in PEERS or mine == 0:
                        out.append("")
                        continue
                    if kind == "time":
                        best = min(peer_vals)
                        out.append(f"{best / mine:.2f}× faster")
                    elif kind == "rate":
                        best = max(peer_vals)
                        out.append(f"{mine / best:.2f}×")
                    elif kind == "heap":
                        best = min(peer_vals)
                        out.append(f"{mine / best:.2f}×")
            print("| " + " | ".join(out) + " |")


def main():
    rows = load(sys.argv[1:])
    loads = [r["load1"] for r in rows if "load1" in r]
    if loads:
        print(f"runs: {len(rows)}; 1-minute load average at the runs: median {statistics.median(loads):.1f}, "
              f"{min(loads):.1f}–{max(loads):.1f}")
    table(rows, "Sync and retained heap, pods as served (with managedFields)",
          lambda r: r["phase"] == "sync" and r.get("data") == "managedFields",
          [("start→synced s", "syncSeconds", "{:.2f}", "time"),
           ("start→N-th onAdd s", "addsSeconds", "{:.2f}", "time"),
           ("CPU s to sync", "syncCpuSeconds", "{:.1f}", None),
           ("retained bytes/pod", "heapBytesPerPod", "{:,.0f}", "heap")])
    table(rows, "Sync and retained heap, server without managedFields",
          lambda r: r["phase"] == "sync" and r.get("data") == "noManagedFields",
          [("start→synced s", "syncSeconds", "{:.2f}", "time"),
           ("retained bytes/pod", "heapBytesPerPod", "{:,.0f}", "heap")])
    table(rows, "Burst of MODIFIED events to one handler",
          lambda r: r["phase"] == "burst",
          [("events/s", "eventsPerSecond", "{:,.0f}", "rate"),
           ("CPU s for the burst", "burstCpuSeconds", "{:.1f}", None),
           ("updates delivered", "updatesDelivered", "{:,.0f}", None)])
    table(rows, "Write → handler latency (embedded API server)",
          lambda r: r["phase"] == "latency",
          [("at rest p50 ms", "atRest.p50Millis", "{:.1f}", None),
           ("at rest p99 ms", "atRest.p99Millis", "{:.1f}", None),
           ("under load p50 ms", "underLoad.p50Millis", "{:.1f}", None),
           ("under load p99 ms", "underLoad.p99Millis", "{:.1f}", None),
           ("background writes/s reached", "underLoad.load.perSecond", "{:,.0f}", None),
           ("lost", "underLoad.lost", "{:.0f}", None)])


if __name__ == "__main__":
    main()
