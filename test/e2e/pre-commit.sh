# The hooks of .pre-commit-hooks.yaml, installed and run by a real pre-commit.
set -eu
if ! command -v pre-commit >/dev/null 2>&1; then
    echo "pre-commit is not installed (Debian package pre-commit); hook test skipped"
    exit 77
fi
if ! git -C "$ROOT" rev-parse HEAD >/dev/null 2>&1 || [ -n "$(git -C "$ROOT" status --porcelain .pre-commit-hooks.yaml)" ]; then
    echo "the hooks file is not committed in $ROOT; hook test skipped"
    exit 77
fi
rev=$(git -C "$ROOT" rev-parse HEAD)
. "$ROOT/test/e2e/lib/git.sh"
git_scratch "hook test"
export PRE_COMMIT_HOME="$PWD/pre-commit-home"
git config --global --add safe.directory '*'
mkdir -p bin repo/.buildkite repo/.github/workflows repo/docs
ln -s "$FANOUT" bin/fanout
PATH="$PWD/bin:$PATH"
cd repo
git init -q .
cp "$ROOT/fixtures/demo/pipeline.yml" .buildkite/pipeline.yml
printf 'on: push\njobs:\n  test:\n    runs-on: ubuntu-latest\n    steps:\n      - run: make test\n' >.github/workflows/ci.yml
# YAML outside the CI directories is no hook's business
printf 'not: [a pipeline\n' >docs/broken.yml
fanout render -o .buildkite/rendered.yml .buildkite/pipeline.yml
cat >.pre-commit-config.yaml <<YAML
repos:
  - repo: $ROOT
    rev: $rev
    hooks:
      - id: fanout-lint
        exclude: ^\.buildkite/rendered\.yml$
      - id: fanout-check
        args: [.buildkite/pipeline.yml, --rendered, .buildkite/rendered.yml]
      - id: fanout-validate
        exclude: ^\.buildkite/rendered\.yml$
YAML
git add -A
git commit -qm init
pre-commit install >/dev/null
pre-commit run --all-files >run.txt 2>&1 || { cat run.txt; exit 1; }
grep -q 'fanout lint.*Passed' run.txt
grep -q 'fanout check.*Passed' run.txt
grep -q 'fanout validate.*Passed' run.txt
# A source change without a new rendering: the commit is refused, with the diff.
sed -i 's/parallelism: 3/parallelism: 2/' .buildkite/pipeline.yml
git add .buildkite/pipeline.yml
if git commit -qm stale >commit.txt 2>&1; then
    echo "a stale rendering was committed"; cat commit.txt; exit 1
fi
grep -q 'fanout check.*Failed' commit.txt
grep -q 'is stale' commit.txt
grep -q '^+      - pytest -v -s models/language/pooling --num-shards=2 --shard-id=1$' commit.txt
git checkout -q .buildkite/pipeline.yml
# A typo in a workflow: lint and validate refuse it, each once, at its line.
sed -i 's/      - run: make test/      - runn: make test/' .github/workflows/ci.yml
git add .github/workflows/ci.yml
if git commit -qm typo >commit.txt 2>&1; then
    echo "a workflow with a typo was committed"; cat commit.txt; exit 1
fi
grep -q 'fanout lint.*Failed' commit.txt
grep -q 'fanout validate.*Failed' commit.txt
grep -q "^.github/workflows/ci.yml:6:9: error: /jobs/test/steps/0: unexpected key 'runn', did you mean 'run'? \[workflow-key\]" commit.txt
