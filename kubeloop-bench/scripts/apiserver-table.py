#!/usr/bin/env python3
# Median table of apiserver-before-after.sh's runs: per benchmark, the median score before and after, the ratio,
# and the median bytes allocated per operation (JMH's gc.alloc.rate.norm, all JVM threads: server and client).
# Usage: python3 apiserver-table.py OUT_DIR
import glob, json, os, statistics, sys
out = sys.argv[1]
scores, alloc, units = {}, {}, {}
for side in ('before', 'after'):
    for f in sorted(glob.glob(os.path.join(out, side + '-*.json'))):
        for r in json.load(open(f)):
            name = '.'.join(r['benchmark'].split('.')[-2:])
            if 'pods' in (r.get('params') or {}):
                name += ' (' + r['params']['pods'] + ' pods)'
            scores.setdefault((name, side), []).append(r['primaryMetric']['score'])
            units[name] = r['primaryMetric']['scoreUnit']
            norm = r['secondaryMetrics'].get('·gc.alloc.rate.norm') or r['secondaryMetrics'].get('gc.alloc.rate.norm')
            if norm:
                alloc.setdefault((name, side), []).append(norm['score'])
print('| benchmark | unit | before (median; runs) | after (median; runs) | after/before | alloc/op before → after |')
print('|---|---|---|---|---|---|')
for name in sorted(units):
    b, a = scores.get((name, 'before'), []), scores.get((name, 'after'), [])
    if not b or not a:
        continue
    mb, ma = statistics.median(b), statistics.median(a)
    ab, aa = alloc.get((name, 'before')), alloc.get((name, 'after'))
    al = f'{statistics.median(ab)/1024:.1f} → {statistics.median(aa)/1024:.1f} KiB' if ab and aa else ''
    fmt = lambda xs: ' '.join(f'{x:,.1f}' for x in xs)
    print(f'| {name} | {units[name]} | {mb:,.1f} ({fmt(b)}) | {ma:,.1f} ({fmt(a)}) | {ma/mb:.2f} | {al} |')
