#!/bin/sh
# The test-area differential (testarea/differential.py): fanout's reading of a test-area
# step against vLLM's generator's own step model, read at run time from a
# vllm-project/ci-infra checkout (CI_INFRA: a work tree, or a git directory whose HEAD is
# read), with PyYAML and pydantic 2 from the Python installed. Neither is a Debian package
# (pydantic 2 is not), so the differential is skipped, with a message, when either is
# missing. TESTAREA_CASES (default 2000) and TESTAREA_SEED (default 1) pick the steps.
# Usage: testarea.sh PATH/TO/fanout
set -eu
fanout=$1
here=$(cd "$(dirname "$0")" && pwd)
skip() { echo "testarea differential: skipped ($1)"; exit 0; }
[ -n "${CI_INFRA:-}" ] || skip "set CI_INFRA to a vllm-project/ci-infra checkout"
python3 -c 'import yaml, pydantic, sys; sys.exit(int(pydantic.VERSION.split(".")[0]) < 2)' 2>/dev/null ||
    skip "needs python3 with PyYAML and pydantic 2"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
step=buildkite/pipeline_generator/step.py
if [ -f "$CI_INFRA/$step" ]; then
    cp "$CI_INFRA/$step" "$tmp/step.py"
else
    git --git-dir="$CI_INFRA" show "HEAD:$step" >"$tmp/step.py" 2>/dev/null || skip "no $step in $CI_INFRA"
fi
python3 "$here/testarea/differential.py" "$fanout" "$tmp/step.py" "${TESTAREA_CASES:-2000}" "${TESTAREA_SEED:-1}"
