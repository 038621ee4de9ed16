#!/bin/sh
# bench/head.sh BASE HEAD: writes HEAD, BASE with one change per 100 steps (every 100th
# `parallelism: 2` made 3: a re-shard), the edit the diff benchmarks measure.
set -eu
awk '/parallelism: 2/ { n++; if (n % 100 == 0) sub(/parallelism: 2/, "parallelism: 3") } { print }' "$1" >"$2"
