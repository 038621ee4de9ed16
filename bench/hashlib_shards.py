# python3 bench/hashlib_shards.py IDS [N]: pytest-shard's assignment of each node id of
# IDS (one a line) into N shards (default 4), counts only: what pytest-shard runs per id
# (hashlib.sha256 of the id, read little-endian, mod N), the peer of `fanout shards
# assign` in make bench.
import hashlib
import sys

count = int(sys.argv[2]) if len(sys.argv) > 2 else 4
n = [0] * count
for line in open(sys.argv[1], encoding="utf-8"):
    n[int.from_bytes(hashlib.sha256(line.rstrip("\n").encode()).digest(), "little") % count] += 1
print(n)
