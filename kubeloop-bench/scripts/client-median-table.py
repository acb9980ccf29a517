#!/usr/bin/env python3
# Median table of the client benchmarks (ClientListBenchmark, ClientWatchDecodeBenchmark) from several JMH JSON
# files (-rf json -rff FILE, run with -prof gc). One row per benchmark method; the ratio compares kubeloop with the
# faster of fabric8 and official (for list times, peer/kubeloop; for events/s, kubeloop/peer: >1 = kubeloop faster).
# Usage: python3 client-median-table.py run1.json run2.json ...
import json, sys, statistics, collections
score = collections.defaultdict(list)   # (class, method) -> [score]
iters = collections.defaultdict(list)   # (class, method) -> [every measured iteration of every run]
alloc = collections.defaultdict(list)   # (class, method) -> [bytes/op]
units = {}
for f in sys.argv[1:]:
    for r in json.load(open(f)):
        cls, meth = r['benchmark'].split('.')[-2:]
        score[(cls, meth)].append(r['primaryMetric']['score'])
        units[(cls, meth)] = r['primaryMetric']['scoreUnit']
        iters[(cls, meth)] += [x for fork in r['primaryMetric']['rawData'] for x in fork]
        g = r.get('secondaryMetrics', {}).get('gc.alloc.rate.norm')
        if g:
            alloc[(cls, meth)].append(g['score'])

def size(b):
    return f'{b / 1e6:,.1f} MB' if b >= 1e6 else f'{b / 1e3:,.1f} KB' if b >= 1e3 else f'{b:,.0f} B'

def med(xs):
    return statistics.median(xs) if xs else float('nan')

print('| benchmark | library | score (median of runs; min–max of all iterations) | allocated per op (median) | kubeloop vs faster peer |')
print('|---|---|---|---|---|')
for cls in sorted({c for c, _ in score}):
    methods = sorted(m for c, m in score if c == cls)
    for m in methods:
        k = (cls, m)
        lower_is_better = units[k].endswith('/op')
        s = med(score[k])
        if cls == 'ClientListBenchmark':
            suffix = m.partition('_')[2]
            peers = [med(score[(cls, f'{p}_{suffix}')]) for p in ('fabric8', 'official') if (cls, f'{p}_{suffix}') in score]
        else:
            peers = [med(score[(cls, p)]) for p in ('fabric8', 'official') if (cls, p) in score]
        best = min(peers) if lower_is_better else max(peers)
        ratio = (best / s) if lower_is_better else (s / best)
        mark = f'{ratio:.2f}×' if m.startswith('kubeloop') else ''
        a = med(alloc[k])
        print(f'| {cls}.{m} | {m.partition("_")[0]} | {s:,.1f} {units[k]} ({min(iters[k]):,.1f}–{max(iters[k]):,.1f}) '
              f'| {size(a)} | {mark} |')
print('runs:', len(sys.argv) - 1)
