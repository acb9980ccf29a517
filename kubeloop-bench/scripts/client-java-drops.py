#!/usr/bin/env python3
# Fraction of client-java addAfter hand-offs refused by its full 1,000-slot hand-off queue, per measurement
# iteration, from the console output of RateLimitedCycleBenchmark (the " [client-java: ... droppedSoFar=N] " lines).
# Usage: python3 client-java-drops.py run.txt ...
import re, sys, collections
# client-java cycle rows: fraction of addAfter hand-offs dropped, per measurement iteration (2 s each).
res = collections.defaultdict(list)
for f in sys.argv[1:]:
    bench = params = None; prev = None
    for line in open(f):
        m = re.match(r'# Benchmark: .*\.(\w+)$', line)
        if m: bench = m.group(1); prev = None
        m = re.match(r'# Parameters: \((.*)\)', line)
        if m: params = m.group(1); prev = None
        m = re.search(r'droppedSoFar=(\d+)\] ([\d.]+) ops/us', line)
        if m and bench and bench.startswith('addRateLimited'):
            d, s = int(m.group(1)), float(m.group(2))
            if prev is not None and line.startswith('Iteration'):
                res[(bench, params)].append((d - prev) / (s * 2e6))
            prev = d
for k, v in sorted(res.items()):
    v.sort()
    print(k, 'median dropped fraction %.0f%% (min %.0f%%, max %.0f%%, n=%d)' % (100*v[len(v)//2], 100*v[0], 100*v[-1], len(v)))
