"""The Buildkite reading differential (bkread.sh): random pipelines whose keys and values
are spelled as YAML lets one spell them (booleans, octal, hex, underscores, floats that
lose digits, nulls, timestamps, quoted look-alikes, merges), rendered by fanout, each
input and rendering read by go-pipeline's ordered package (oracle.go). A case agrees when
both refuse it, or fanout renders it and the agent reads the rendering to the values it
reads the input to (oracle.go's typed reading), and the rendering already holds every
string the agent makes (its raw reading is its typed one, but for a null string field,
which fanout keeps and the agent zeroes). A finding of fanout's (exit 1: the official
schema's check of the rendering: a key with a space, a number label in a step the agent
uploads as written) is counted apart, and shown with BKREAD_SHOW_FINDINGS=1.
Usage: differential.py FANOUT ORACLE TMPDIR CASES SEED"""
import json
import os
import random
import subprocess
import sys

fanout, oracle, tmp, cases, seed = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
rng = random.Random(seed)

# Keys by the one key the agent reads them as: a mapping takes one of a group, and now and
# then a second of its first key's group after it (or the same spelling again), which the
# agent keeps in the first one's place with the last value, as fanout's rendering must.
KEY_GROUPS = [["A"], ["NAME"], ["true", "TRUE", "'true'"], ["False"], ["yes"], ["on"], ["0x10", "16"],
              ["010", "8"], ['"010"'], ["1_000"], ["1.5"], ["3.10"], ["1e3"], [".inf"], ["2001-12-14"],
              ["1e400"], ["-0"], ["+7"], ["0b11"], ["null", "~"]]
VALUES = ["x", "make test", "3.10", "3.1", "11.00", "0", "00", "0123", "0123456789", "08", "0x1F", "0o17",
          "0b101", "1_000", "1__0", "+4", "-0", "-0.0", "1e3", "1E3", "1e-7", "1e400", "-1e400", ".5", "1.",
          ".inf", "-.Inf", ".nan", "true", "True", "FALSE", "yes", "no", "on", "y", "~", "null", "NULL", "",
          "2001-12-14", "2001-12-14 21:59:43.10 -5", "12:30", "9223372036854775807", "9223372036854775808",
          "18446744073709551616", '"3.10"', "'0123'", '"true"', '""', "[1.0, 2]", "{a: 1.50}"]
SCALARS = [v for v in VALUES if not v.startswith(("[", "{"))]
NUMBERS = ["3", "010", "0x1F", "0o17", "0b101", "1_0", "+4", "30.0", "1e1", "08"]
BOOLEANS = ["true", "True", "TRUE", "false", "False", "FALSE"]
FIELDS = {"timeout_in_minutes": NUMBERS, "priority": NUMBERS, "soft_fail": BOOLEANS, "skip": BOOLEANS,
          "allow_dependency_failure": BOOLEANS, "label": SCALARS, "key": SCALARS, "name": SCALARS, "id": SCALARS}


def scalar(vals=VALUES):
    return rng.choice(vals)


def mapping(indent, n):
    groups = rng.sample(KEY_GROUPS, n)
    keys = [rng.choice(g) for g in groups]
    if rng.random() < 0.2:
        keys.insert(rng.randint(1, len(keys)), rng.choice(groups[0]))
    return "".join("%s%s: %s\n" % (" " * indent, k, scalar()) for k in keys)


def pipeline():
    out = []
    if rng.random() < 0.3:
        out.append("x-base: &base\n  env:\n" + mapping(4, rng.randint(1, 2)))
    if rng.random() < 0.5:
        out.append("env:\n" + mapping(2, rng.randint(1, 3)))
    if out and out[0].startswith("x-base") and rng.random() < 0.5:
        out.append("<<: *base\n")
    out.append("steps:\n")
    for i in range(rng.randint(1, 2)):
        step = ["  - command: %s\n" % (scalar(SCALARS) if rng.random() < 0.7 else
                                      "[%s, %s]" % (scalar(SCALARS), scalar(SCALARS)))]
        for f in rng.sample(sorted(FIELDS), rng.randint(0, 3)):
            if f in ("key", "id") and i:
                continue
            step.append("    %s: %s\n" % (f, scalar(FIELDS[f])))
            if rng.random() < 0.1:  # the field again: the agent keeps the last value
                step.append("    %s: %s\n" % (f, scalar(FIELDS[f])))
        if rng.random() < 0.6:
            step.append("    env:\n" + mapping(6, rng.randint(1, 3)))
        if rng.random() < 0.4:
            step.append("    agents:\n" + mapping(6, rng.randint(1, 2)))
        if rng.random() < 0.2:
            step.append("    cache:\n      name: %s\n      paths: [%s]\n" % (scalar(SCALARS), scalar(SCALARS)))
        out.append("".join(step))
    return "".join(out)


def read(paths, raw=False):
    p = subprocess.run([oracle] + (["-raw"] if raw else []), input="\n".join(paths) + "\n",
                       capture_output=True, text=True, check=True)
    return p.stdout.split("\n")[:len(paths)]


inputs, rendered, outcome = [], [], []
for n in range(cases):
    src = os.path.join(tmp, "in-%d.yml" % n)
    with open(src, "w") as f:
        f.write(pipeline())
    out = os.path.join(tmp, "out-%d.yml" % n)
    with open(out, "w") as f:
        p = subprocess.run([fanout, "render", "-q", "--no-snippet", src], stdout=f, stderr=subprocess.PIPE, text=True)
    inputs.append(src)
    rendered.append(out)
    outcome.append((p.returncode, p.stderr))

agent_in = read(inputs)
agent_out = read(rendered)
raw_out = read(rendered, raw=True)


def value(line):
    """A reading as a value (the agent's maps are ordered, Buildkite's are not: fanout
    writes a step's keys in its own order), or the refusal."""
    return line if line.startswith("ERR") else json.loads(line)


def strings_written(raw, typed):
    """Whether the rendering as it is holds the agent's strings: equal, but where a null
    stays (fanout keeps a null string field, which the agent zeroes to "")."""
    if isinstance(raw, dict) and isinstance(typed, dict):
        return raw.keys() == typed.keys() and all(strings_written(raw[k], typed[k]) for k in raw)
    if isinstance(raw, list) and isinstance(typed, list):
        return len(raw) == len(typed) and all(strings_written(a, b) for a, b in zip(raw, typed))
    return raw == typed or (raw is None and typed == "")


alike = findings = duplicates = 0
disagree = []
for n in range(cases):
    rc, err = outcome[n]
    refused = agent_in[n].startswith("ERR")
    if rc != 0 and refused:
        alike += 1
    elif rc == 2 and "[duplicate-key]" in err and "\n" not in err.strip() and \
            (":1: error:" in err or "written plain once and quoted once" in err):
        # a top-level key twice (a merge's too): fanout's error, it reads in order; or a key
        # written plain and quoted alike, which fanout does not tell one key or two
        duplicates += 1
    elif rc == 1 and not refused:
        findings += 1
    elif rc == 0 and not refused and value(agent_out[n]) == value(agent_in[n]) and \
            strings_written(value(raw_out[n]), value(agent_out[n])):
        alike += 1
    else:
        disagree.append(n)
for n in disagree[:5]:
    with open(inputs[n]) as f:
        print("--- case %d: fanout exit %d %s\n%s" % (n, outcome[n][0], outcome[n][1].strip(), f.read()), end="")
    print("agent, input:     %s\nagent, rendering: %s\nrendering as is:  %s" % (agent_in[n], agent_out[n], raw_out[n]))
if os.environ.get("BKREAD_SHOW_FINDINGS"):
    import collections
    kinds = collections.Counter()
    for n in range(cases):
        rc, err = outcome[n]
        if rc == 1:
            first = [l for l in err.split("\n") if ": error: " in l][:1]
            kinds[first[0].split(": error: ", 1)[1].split(":")[0] + " " + first[0].rsplit("[", 1)[-1] if first else "?"] += 1
    for k, c in kinds.most_common(25):
        print("%5d %s" % (c, k))
    shown = 0
    for n in range(cases):
        if outcome[n][0] == 1 and shown < 8:
            shown += 1
            print(outcome[n][1].strip().split("\n")[0])
            with open(inputs[n]) as f:
                line = int(outcome[n][1].split(":")[1])
                print("   ", f.read().split("\n")[line - 1])
print("bkread differential: %d pipelines, %d alike, %d keys given twice at the top level or plain "
      "and quoted alike (fanout's error; the agent keeps the last), %d findings of fanout's schema check of the rendering, %d disagree"
      % (cases, alike, duplicates, findings, len(disagree)))
sys.exit(1 if disagree else 0)
