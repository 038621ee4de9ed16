#!/bin/sh
# fanout jobs on the real corpus: one line per job render makes (render's own count,
# from its JSON rendering), the same jobs from the sources and from the rendering read
# back, totals per runner; SGLang's matrix jobs with their part= values and runner.
set -eu
C="$SHARED/corpus"
[ -d "$C/vllm/test_areas" ] || { echo "no corpus at $C; skipped"; exit 77; }
command -v python3 >/dev/null 2>&1 || { echo "python3 is not installed; skipped"; exit 77; }
"$FANOUT" render --format json "$C/vllm/test_areas" 2>/dev/null >rendered.json
want=$(python3 -c '
import json, sys
def jobs(steps):
    return sum(jobs(s["steps"]) if isinstance(s, dict) and "group" in s else 1 for s in steps)
print(jobs(json.load(open("rendered.json"))["steps"]))')
"$FANOUT" jobs "$C/vllm/test_areas" 2>/dev/null >jobs.txt
got=$(grep -c 'test_areas/.*\.yaml:[0-9]*$' jobs.txt)
[ "$got" = "$want" ] || { echo "test areas: $got job lines, render makes $want"; exit 1; }
grep -Eq "^total +$want\$" jobs.txt || { echo "test areas: no total $want"; tail -3 jobs.txt; exit 1; }
grep -Eq '^h100 +[0-9]+$' jobs.txt || { echo "test areas: no h100 total"; exit 1; }
# the rendering, read back from stdin, holds the same jobs (but for where they are written)
"$FANOUT" render "$C/vllm/test_areas" 2>/dev/null | "$FANOUT" jobs --format tsv - 2>/dev/null | cut -f1-6 >back.tsv
"$FANOUT" jobs --format tsv "$C/vllm/test_areas" 2>/dev/null | cut -f1-6 >sources.tsv
cmp -s back.tsv sources.tsv || { echo "jobs of the rendering differ:"; diff sources.tsv back.tsv | head; exit 1; }

"$FANOUT" jobs --format json "$C/sglang/workflows" 2>/dev/null >sglang.json
python3 - <<'PY' || exit 1
import json
d = json.load(open("sglang.json"))
parts = [j for j in d["jobs"] if j["fanout"]["values"] and "part" in j["fanout"]["values"]]
assert len(parts) > 10, len(parts)
assert all(j["runs_on"] for j in parts), [j["id"] for j in parts if not j["runs_on"]]
assert all(1 <= j["fanout"]["part"] <= j["fanout"]["parts"] for j in d["jobs"])
assert d["totals"]["jobs"] == len(d["jobs"]) == sum(d["totals"]["runs_on"].values())
PY
