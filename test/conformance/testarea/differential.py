"""The test-area differential: random test-area steps read by vLLM's generator's own step
model (ci-infra's buildkite/pipeline_generator/step.py, read from a checkout at run time,
with PyYAML's safe_load and the installed pydantic) and rendered by fanout; each step is
taken by both or refused by both. Where the model takes a step that Buildkite then refuses
(the rendering's Buildkite check says so: a timeout below 1, an integer past 64 bits, the
empty key of an empty label, a key no step defines, a label PyYAML writes plain that
Buildkite reads as a number), fanout's refusal is the platform's, and is counted apart.
Any other disagreement fails.
Usage: differential.py FANOUT STEP_PY CASES SEED"""
import collections
import os
import random
import re
import subprocess
import sys
import tempfile
import types

import yaml
from pydantic import ValidationError

fanout, step_py, cases, seed = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
config = types.ModuleType("global_config")
config.get_global_config = lambda: {}
sys.modules["global_config"] = config
model = types.ModuleType("step")
exec(compile(open(step_py).read(), step_py, "exec"), model.__dict__)
known = set(model.Step.model_fields)

SCALARS = ["4", "010", "0x10", "+4", "1_000", "2.0", "2.5", '"4"', "'010'", "0o10", "1:30", "0b11",
           "1e3", '" 4 "', '"4.0"', "true", "yes", "on", '"yes"', '"1"', "1", "0", "-1", "~", '""',
           "2024-01-01", ".inf", "abc", '"abc"', "3.10", '"off"', "n", "y", "No",
           "99999999999999999999"]
COLLECTIONS = ["[a, b]", "[]", "[1]", "[yes]", '["1"]', "{A: b}", "{A: 1}", '{A: "1"}', "{1: a}",
               "{A: yes}", "{A: ~}", "[a, ~]"]
FIELDS = [f for f in ["timeout_in_minutes", "num_devices", "num_nodes", "parallelism", "concurrency",
                      "concurrency_group", "optional", "soft_fail", "no_plugin", "no_gpu", "dind",
                      "mount_buildkite_agent", "working_dir", "device", "commands", "depends_on",
                      "source_file_dependencies", "env", "agent_tags", "label"] if f in known]
# fanout's refusals of steps the model takes, which Buildkite refuses downstream
DOWNSTREAM = re.compile(r"/steps/0/steps/0/[a-z_]+: must |past 64 bits|\[dangling-depends-on\]"
                        r"|parallelism must be an integer from 1 to 1000|\[depends-on-cycle\]")

rng = random.Random(seed)
tmp = tempfile.mkdtemp()
path = os.path.join(tmp, "step.yaml")
agree, downstream, other = 0, 0, collections.Counter()
examples = {}
for _ in range(cases):
    chosen = rng.sample(FIELDS, rng.randint(1, 3))
    values = {f: rng.choice(SCALARS + COLLECTIONS) for f in chosen}
    lines = ["group: G", "steps:", "  - label: " + values.pop("label", "a")]
    if "commands" not in values:
        lines.append("    commands: [x]")
    lines += ["    %s: %s" % kv for kv in values.items()]
    text = "\n".join(lines) + "\n"
    try:
        model.Step(**yaml.safe_load(text)["steps"][0])
        taken = True
    except (ValidationError, ValueError, TypeError):
        taken = False
    with open(path, "w") as f:
        f.write(text)
    run = subprocess.run([fanout, "render", path], capture_output=True, text=True)
    rendered = run.returncode == 0
    if taken == rendered:
        agree += 1
    elif taken and DOWNSTREAM.search(run.stderr):
        downstream += 1
    else:
        first = run.stderr.strip().split("\n")[0].replace(path, "step.yaml")
        key = ("model takes, fanout refuses" if taken else "model refuses, fanout renders") + ": " + \
            re.sub(r"got .*", "got ...", first)
        other[key] += 1
        examples.setdefault(key, text)
print("testarea differential: %d of %d random steps read alike by fanout and the generator's step model, "
      "%d more taken by the model and refused by Buildkite downstream (fanout says so); %d disagree"
      % (agree, cases, downstream, sum(other.values())))
for key, n in other.most_common():
    print("  %d x %s\n%s" % (n, key, "".join("    | " + l + "\n" for l in examples[key].splitlines())))
sys.exit(1 if other else 0)
