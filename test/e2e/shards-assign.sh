#!/bin/sh
# shards assign and plan against independent computations in Python (hashlib for
# pytest-shard's SHA-256/MD5, a plain LPT, pytest-split's two algorithms and the
# round-robin fallback, written from ../shared/notes/sharding.md, not from our C).
set -eu
command -v python3 >/dev/null || { echo "python3 is not installed (make deps installs it)"; exit 77; }
IDS="$ROOT/fixtures/shards-assign/ids.txt"
TSV="$SHARED/corpus/sglang/test-srt-run_suite-suites.tsv"

# pytest-shard, both versions, several counts: every id in the shard Python picks, in
# collection order, and 120/120 covered.
for case in "pytest-shard@0.1.2 4" "pytest-shard@0.1.2 3" "pytest-shard@0.1.2 7" "pytest-shard@0.1.1 4" "pytest-shard@0.1.1 5"; do
    set -- $case
    "$FANOUT" shards assign --tests "$IDS" --algo "$1" -n "$2" --format json > out.json
    python3 - "$IDS" "$1" "$2" out.json <<'PY'
import hashlib, json, sys
ids = open(sys.argv[1], encoding="utf-8").read().splitlines()
algo, n = sys.argv[2], int(sys.argv[3])
got = json.load(open(sys.argv[4], encoding="utf-8"))
def shard(i):
    if algo.endswith("0.1.2"):
        return int.from_bytes(hashlib.sha256(i.encode()).digest(), "little") % n
    return int(hashlib.md5(i.encode()).hexdigest(), 16) % n
want = [[i for i in ids if shard(i) == s] for s in range(n)]
assert [s["tests"] for s in got["shards"]] == want, (algo, n)
assert [s["index"] for s in got["shards"]] == list(range(n))
assert (got["collected"], got["covered"], got["overlaps"]) == (120, 120, 0), got
PY
done
"$FANOUT" shards assign --tests "$IDS" -n 4 | grep -qx 'proof: 120/120 tests covered, 0 in two shards or more'

# the prefix for another rootdir: the ids without `tests/` hash elsewhere
sed 's|^tests/||' "$IDS" > short.txt
"$FANOUT" shards assign --tests short.txt --nodeid-prefix tests/ -n 4 --format json > prefixed.json
"$FANOUT" shards assign --tests "$IDS" -n 4 --format json > plain.json
cmp -s prefixed.json plain.json

# pytest --collect-only -q output: the summary line is not a test
"$FANOUT" shards assign --tests "$ROOT/fixtures/shards-assign/collect-only.txt" -n 2 --format json |
    python3 -c 'import json,sys; d=json.load(sys.stdin); assert d["collected"] == 10, d'

# SGLang's per-commit-1-gpu suite: the legacy runner's LPT with 15 partitions, the plan,
# and the budget question, each against Python.
"$FANOUT" shards assign --durations "$TSV" --suite per-commit-1-gpu --algo sglang-lpt@legacy -n 15 --format json > lpt.json
"$FANOUT" shards plan --durations "$TSV" --suite per-commit-1-gpu -n 15 > plan.json
"$FANOUT" shards assign --durations "$TSV" --suite per-commit-1-gpu --budget 30m --overhead 2m --format json > budget.json
"$FANOUT" shards assign --durations "$TSV" --suite per-commit-1-gpu --algo round-robin -n 4 --format json > rr.json
"$FANOUT" shards assign --durations "$TSV" --suite per-commit-1-gpu --algo pytest-split@least_duration -n 4 --format json > least.json
"$FANOUT" shards assign --durations "$TSV" --suite per-commit-1-gpu --algo pytest-split@duration_based_chunks -n 4 --format json > chunks.json
python3 - "$TSV" <<'PY'
import csv, hashlib, json, math, sys
rows = [r for r in csv.DictReader(open(sys.argv[1], encoding="utf-8"), delimiter="\t")
        if r["suite"] == "per-commit-1-gpu"]
files = [r["file"] for r in rows]
est = {r["file"]: float(r["est_time_s"]) for r in rows}

def lpt(items, n, tie):
    order = sorted(range(len(items)), key=lambda k: (-est[items[k]], tie(k)))
    bins, sums = [[] for _ in range(n)], [0.0] * n
    for k in order:
        b = min(range(n), key=lambda j: (sums[j], j))
        bins[b].append(items[k]); sums[b] += est[items[k]]
    return bins, sums

legacy, _ = lpt(files, 15, lambda k: k)
got = json.load(open("lpt.json"))
assert [s["tests"] for s in got["shards"]] == legacy
registry, sums = lpt(files, 15, lambda k: files[k])
plan = json.load(open("plan.json"))
assert plan["partition_count"] == 15
assert [p["items"] for p in plan["partitions"]] == registry
assert [p["estimated_time"] for p in plan["partitions"]] == sums
assert max(sums) == 1099 and min(sums) == 1090  # the notes' worked example

# the budget: 30 min with 2 min of overhead per shard leaves 1680 s for tests
avail = 1800 - 120
def fewest(assign):
    n = max(1, math.ceil(sum(est.values()) / avail))
    while True:
        if max(assign(n)) <= avail:
            return n
        n += 1
def hashed(n):
    s = [0.0] * n
    for f in files:
        s[int.from_bytes(hashlib.sha256(f.encode()).digest(), "little") % n] += est[f]
    return s
b = json.load(open("budget.json"))["budget"]
assert b["shards"] == fewest(hashed), b
assert b["lpt_shards"] == fewest(lambda n: lpt(files, n, lambda k: files[k])[1]), b

rr = json.load(open("rr.json"))
ordered = sorted(files, key=lambda f: f.encode())
assert [s["tests"] for s in rr["shards"]] == [ordered[i::4] for i in range(4)]

# pytest-split: least_duration sorts by short name, then by duration (stable), fills
# the lightest group, and keeps collection order inside a group
short = lambda f: f.split("::")[-1]
order = sorted(range(len(files)), key=lambda k: short(files[k]))
order = sorted(order, key=lambda k: -est[files[k]])
groups, sums = [[] for _ in range(4)], [0.0] * 4
for k in order:
    g = min(range(4), key=lambda j: (sums[j], j))
    groups[g].append(k); sums[g] += est[files[k]]
least = json.load(open("least.json"))
assert [s["index"] for s in least["shards"]] == [1, 2, 3, 4]
assert [s["tests"] for s in least["shards"]] == [[files[k] for k in sorted(g)] for g in groups]

# duration_based_chunks: the next group starts once this one reached total/N
per = sum(est.values()) / 4
chunks, g, acc = [[] for _ in range(4)], 0, 0.0
for f in files:
    if acc >= per and g < 3:
        g, acc = g + 1, 0.0
    chunks[g].append(f); acc += est[f]
got = json.load(open("chunks.json"))
assert [s["tests"] for s in got["shards"]] == chunks, [len(s["tests"]) for s in got["shards"]]
PY

# Extreme durations: every JSON output parses as strict JSON (no NaN or Infinity), the
# streamed path's lower bound counts the durations, and sums past the largest double are
# an input error with nothing on stdout.
strict='import json, sys
def refuse(c): raise ValueError("not JSON: " + c)
for f in sys.argv[1:]:
    json.load(open(f, encoding="utf-8"), parse_constant=refuse)'
printf 'a\t1e300\nb\t1e300\nc\t0\nd\t5e-324\n' > extreme.tsv
cut -f1 extreme.tsv > extreme.txt
"$FANOUT" shards assign --durations extreme.tsv -n 3 --format json > e1.json
"$FANOUT" shards assign --durations extreme.tsv --tests extreme.txt -n 3 --format json > e2.json
"$FANOUT" shards assign --durations extreme.tsv --budget 1e299 --format json > e3.json || [ $? = 1 ]
"$FANOUT" shards plan --durations extreme.tsv -n 2 > e4.json
python3 -c "$strict" e1.json e2.json e3.json e4.json
python3 -c 'import json; d = json.load(open("e2.json")); assert d["lower_bound"] == 1e300, d["lower_bound"]'
printf 'a\t1e308\nb\t1e308\n' > over.tsv
for cmd in "assign --format json -n 2" "assign -n 1 --tests extreme.txt" "plan -n 1"; do
    # shellcheck disable=SC2086  # cmd is a word list on purpose
    if "$FANOUT" shards $cmd --durations over.tsv > over.out 2> over.err; then exit 1; else [ $? = 2 ]; fi
    [ ! -s over.out ] && grep -q 'add up to more than' over.err
done
