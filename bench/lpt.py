# python3 bench/lpt.py DURATIONS N: an LPT plan of the tests of DURATIONS (node id, tab,
# seconds, one a line) into N shards: longest first, each onto the least loaded shard
# (a heap), every test's shard kept; prints each shard's time. The peer of `fanout
# shards plan` in make bench.
import heapq
import sys

tests = []
for line in open(sys.argv[1], encoding="utf-8"):
    node_id, _, seconds = line.rstrip("\n").rpartition("\t")
    tests.append((float(seconds), node_id))
tests.sort(key=lambda t: -t[0])
heap = [(0.0, s) for s in range(int(sys.argv[2]))]
shard_of = {}
for seconds, node_id in tests:
    load, s = heap[0]
    shard_of[node_id] = s
    heapq.heapreplace(heap, (load + seconds, s))
print(sorted(heap, key=lambda h: h[1]))
