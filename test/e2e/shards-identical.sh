#!/bin/sh
# shards assign and plan give the same bytes as before their speed-ups (issue 27 item 6:
# hashing each id once, the proof sorted by radix, the budget search), on a generated
# list big enough for the budget search's doubling and bisection (past its one-by-one
# counts: 200 of them for 5,000 tests). Each case's exit code and the SHA-256 of its
# stdout and stderr (16 hex digits) were taken from the binary of c35f776, whose outputs
# test/e2e/shards-assign.sh checks against Python; a change that moves one byte fails
# here and names the case.
set -eu
command -v sha256sum >/dev/null || { echo "sha256sum is not installed"; exit 77; }
# 5,000 timed tests (ties, ids given twice, an unstable id, one test near the budget), the
# same without the repeated ids, and a collected list with 300 more (untimed) in reverse
# order, each id collected twice where the durations give it twice
awk 'BEGIN {
    for (i = 0; i < 5000; i++) {
        id = sprintf("tests/m%d/test_f%d.py::test_c%d[p%d]", i % 37, i % 211, i, i % 5)
        if (i % 997 == 0) id = sprintf("tests/m0/test_x.py::test_obj[<Obj at 0x7f3a%06d>]", i)
        if (i % 500 == 499) id = sprintf("tests/m%d/test_f%d.py::test_c%d[p%d]", (i - 250) % 37, (i - 250) % 211, i - 250, (i - 250) % 5)
        printf "%s\t%s\n", id, i == 1234 ? "480" : sprintf("%.1f", 1 + (i * 7919 % 1000) / 10)
    } }' >d.tsv
awk -F '\t' '!seen[$1]++' d.tsv >u.tsv
{ awk -F '\t' '{ print $1 }' d.tsv | sort -r; awk 'BEGIN { for (i = 0; i < 300; i++) printf "tests/new/test_n.py::test_%d\n", i }'; } >ids.txt
# name <TAB> exit code <TAB> stdout <TAB> stderr <TAB> fanout shards arguments
tab=$(printf '\t')
bad=0
while IFS="$tab" read -r name rc out err args; do
    # shellcheck disable=SC2086  # args is a word list on purpose
    if "$FANOUT" shards $args >o 2>e; then got=0; else got=$?; fi
    got="$got$tab$(sha256sum <o | cut -c1-16)$tab$(sha256sum <e | cut -c1-16)"
    if [ "$got" != "$rc$tab$out$tab$err" ]; then
        echo "$name: fanout shards $args: got $(echo "$got" | tr "$tab" " "), want $rc $out $err"
        head -c 300 e
        bad=1
    fi
done <<'CASES'
plan-8	1	20582731036ddf18	e3b0c44298fc1c14	plan --durations d.tsv -n 8
plan-unique	0	4840f1bc879fe883	e3b0c44298fc1c14	plan --durations u.tsv -n 13
plan-budget	1	ef02808a1984c9b2	e3b0c44298fc1c14	plan --durations d.tsv --budget 501 --overhead 1
plan-30m	0	1d38ade9cb816a95	e3b0c44298fc1c14	plan --durations u.tsv --budget 30m
streamed	0	129d2d7a3b4081c0	e3b0c44298fc1c14	assign --tests ids.txt -n 7
streamed-json	0	2c08c262a00adb70	e3b0c44298fc1c14	assign --tests ids.txt -n 7 --format json
streamed-md5	0	4efcbd551030eb62	e3b0c44298fc1c14	assign --tests ids.txt -n 3 --algo pytest-shard@0.1.1 --format json
streamed-timed	0	b50925b28ba11f37	e3b0c44298fc1c14	assign --tests ids.txt --durations d.tsv -n 5 --format json
streamed-prefix	0	b7635d39401ba898	e3b0c44298fc1c14	assign --tests ids.txt --nodeid-prefix x/ -n 4 --format markdown
sha-json	0	ed7ccfa40549f9ac	e3b0c44298fc1c14	assign --durations d.tsv -n 9 --format json
least-json	1	a31f3b8c1ce94c6f	e3b0c44298fc1c14	assign --durations d.tsv -n 9 --algo pytest-split@least_duration --format json
chunks-json	1	eca81de263f71388	e3b0c44298fc1c14	assign --durations d.tsv -n 9 --algo pytest-split@duration_based_chunks --format json
legacy-json	1	610c1837b538f090	e3b0c44298fc1c14	assign --durations d.tsv -n 9 --algo sglang-lpt@legacy --format json
registry-json	0	ab8e92281e008804	e3b0c44298fc1c14	assign --durations u.tsv -n 9 --algo sglang-lpt@registry --format json
registry-tests	1	ce8874eccb8eaf1d	e3b0c44298fc1c14	assign --tests ids.txt --durations d.tsv -n 6 --algo sglang-lpt@registry --format json
contiguous-json	0	4d99d846e89df2c6	e3b0c44298fc1c14	assign --durations u.tsv --algo ci-infra-contiguous --format json
rr-json	1	586a1b3fde581a8b	e3b0c44298fc1c14	assign --durations d.tsv -n 9 --algo round-robin --format json
budget-sha	0	838083d3274e838e	e3b0c44298fc1c14	assign --durations d.tsv --budget 30m --overhead 2m --format json
budget-near	1	0a455389cdcf27a4	43161564a165e5cf	assign --durations u.tsv --budget 501
budget-lpt	0	22456ece959e3c26	e3b0c44298fc1c14	assign --durations u.tsv --budget 501 --algo sglang-lpt@registry --format json
budget-least	1	0a7b8c28f274be06	e3b0c44298fc1c14	assign --durations d.tsv --budget 20m --algo pytest-split@least_duration
budget-chunks	1	b6d0cc358532bdba	e3b0c44298fc1c14	assign --durations d.tsv --budget 20m --algo pytest-split@duration_based_chunks
budget-legacy	0	a0b8c0dd9cb9a17c	e3b0c44298fc1c14	assign --durations u.tsv --budget 20m --algo sglang-lpt@legacy --format markdown
budget-rr	1	9abb5de180349556	e3b0c44298fc1c14	assign --durations d.tsv --budget 20m --algo round-robin
budget-tests	0	4117323d03841a9b	e3b0c44298fc1c14	assign --tests ids.txt --durations d.tsv --budget 1h --format json
CASES
exit $bad
