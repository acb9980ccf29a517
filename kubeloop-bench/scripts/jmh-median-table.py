#!/usr/bin/env python3
# Median table of kubeloop vs client-java from several JMH JSON result files (-rf json -rff FILE).
# Usage: python3 jmh-median-table.py run1.json run2.json ...
import json, sys, statistics, re, collections
runs = sys.argv[1:]
scores = collections.defaultdict(list)   # (bench, workers, keys, impl) -> [run score]
for f in runs:
    for r in json.load(open(f)):
        name = r['benchmark'].split('.')[-2] + '.' + r['benchmark'].split('.')[-1]
        m = re.match(r'(\w+)\.(\w+)_(\d)worker', name)
        bench, workers = m.group(1), int(m.group(3))
        p = r['params']
        scores[(bench, workers, p['keys'], p['impl'])].append(r['primaryMetric']['score'])
rows = sorted({k[:3] for k in scores}, key=lambda k: (k[0] != 'WorkQueueBenchmark', k[2], k[1]))
print('| benchmark | workers | keys | kubeloop Mops/s (median; min–max) | client-java Mops/s (median; min–max) | ratio (of medians) | per-run ratios | ≥ 3×? |')
print('|---|---|---|---|---|---|---|---|')
for b, w, k in rows:
    kl, cj = scores[(b, w, k, 'kubeloop')], scores[(b, w, k, 'client-java')]
    mk, mc = statistics.median(kl), statistics.median(cj)
    per = [a / c for a, c in zip(kl, cj)]
    name = {'WorkQueueBenchmark': 'add/get/done', 'RateLimitedCycleBenchmark': 'addRateLimited+forget'}[b]
    print(f'| {name} | {w} | {k} | {mk:.2f} ({min(kl):.2f}–{max(kl):.2f}) | {mc:.2f} ({min(cj):.2f}–{max(cj):.2f}) | {mk/mc:.2f}× | {" ".join(f"{x:.1f}" for x in per)} | {"yes" if mk/mc >= 3 else "**no**"} |')
print('runs:', len(runs))
