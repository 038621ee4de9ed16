# ray's rayci files that run with another config than ray-pr: release/ with the builtin
# ray-branch config, release-automation/ with its own config file (-config
# .buildkite/release-automation/config.yml, transcribed below from ray-project/ray at
# 1ec2b33). Without --rayci-config they render with rayci warnings (exit 0, 1 with
# --strict); with their config, cleanly; with ray-pr named, they are refused as rayci
# refuses them.
set -eu
R="$SHARED/corpus/realworld/ray-project+ray/.buildkite"
[ -d "$R/release-automation" ] || { echo "no ray corpus at $R"; exit 77; }
cat >config.yml <<'YAML'
name: ray-release-automation
artifacts_bucket: ray-ci-artifact-pr-public
ci_temp: s3://ray-ci-artifact-pr-public/ci-temp/
ci_work_repo: 029272617770.dkr.ecr.us-west-2.amazonaws.com/rayproject/citemp
forge_prefix: cr.ray.io/rayproject/
builder_queues:
  builder: builder_queue_pr
  builder-arm64: builder_queue_arm64_pr
  builder-windows: builder_queue_windows_pr
runner_queues:
  default: runner_queue_small_pr
  medium-arm64: runner_queue_arm64_medium_pr
  macos: macos
  macos-arm64: macos-pr-arm64
  windows: windows_queue_pr
  small_branch: runner_queue_small_branch
builder_priority: 5
runner_priority: 5
buildkite_dirs:
  - .buildkite/release-automation
env:
  RAYCI_SKIP_UPLOAD: "true"
skip_tags:
  - disabled
allow_trigger_step: true
YAML
ra="$R/release-automation/forge.rayci.yml $R/release-automation/pre_release.rayci.yml $R/release-automation/wheels.rayci.yml"

# shellcheck disable=SC2086  # a list of files
"$FANOUT" render $ra >default.yml 2>default.err
grep -q "warning: unknown instance type 'small_branch'.*--rayci-config" default.err
grep -q "warning: rayci's ray-pr config takes no trigger step" default.err
if grep -q 'error:' default.err; then exit 1; fi
rc=0; "$FANOUT" validate --strict $ra >/dev/null 2>&1 || rc=$?
[ "$rc" = 1 ] || { echo "validate --strict: exit $rc"; exit 1; }

# with ray's config: no rayci finding, its queues, priorities and env
"$FANOUT" render --rayci-config config.yml $ra >ra.yml 2>ra.err
if grep -q '\[rayci\]' ra.err; then cat ra.err; exit 1; fi
grep -q 'queue: runner_queue_small_branch' ra.yml
grep -q 'priority: 5' ra.yml
grep -q 'RAYCI_SKIP_UPLOAD: "true"' ra.yml
grep -q '^      - trigger: ' ra.yml
"$FANOUT" validate --rayci-config config.yml $ra
rc=0; "$FANOUT" render --rayci-config ray-pr $ra >/dev/null 2>refused.err || rc=$?
[ "$rc" = 1 ] && grep -q "error: unknown instance type 'small_branch' (rayci's ray-pr config has no runner queue for it)" refused.err

# release/: the ray-branch config's queue
"$FANOUT" render --rayci-config ray-branch "$R/release/build.rayci.yml" >branch.yml 2>branch.err
if grep -q '\[rayci\]' branch.err; then cat branch.err; exit 1; fi
grep -q 'queue: release_queue_medium' branch.yml
"$FANOUT" render "$R/release/build.rayci.yml" 2>&1 >/dev/null |
    grep -q "rayci's ray-branch config maps it to 'release_queue_medium'; written as queue 'release-medium'"

# a .fanout.yml default, and the command line's option over it
mkdir cfg && cd cfg
printf 'defaults:\n  render:\n    rayci_config: ray-branch\n' >.fanout.yml
"$FANOUT" render "$R/release/build.rayci.yml" 2>/dev/null | grep -q 'queue: release_queue_medium'
rc=0; "$FANOUT" render --rayci-config ray-pr "$R/release/build.rayci.yml" >/dev/null 2>&1 || rc=$?
[ "$rc" = 1 ] || { echo "--rayci-config ray-pr over the default: exit $rc"; exit 1; }
