# vLLM's real test areas rendered by the generator's rules (ci-infra buildkite_step.py,
# step.py; docs/testarea.md), each checked against an independent reading of the source
# files in Python, not against fanout's own code.
set -eu
TA="$SHARED/corpus/vllm/test_areas"
command -v python3 >/dev/null || { echo "python3 not installed: generator-rule checks skipped"; exit 77; }
"$FANOUT" render "$TA" >review.yml 2>review.err
"$FANOUT" render --upload "$TA" >upload.yml 2>/dev/null
"$FANOUT" validate --schema "$SHARED/schemas-upstream/buildkite-pipeline.schema.json" upload.yml

python3 - "$TA" review.yml upload.yml <<'PY'
import glob, os, sys, yaml
ta, review, upload = sys.argv[1], yaml.safe_load(open(sys.argv[2])), yaml.safe_load(open(sys.argv[3]))
AMD_GPUS = {f"mi{m}_{n}" for m in (250, 300, 325, 355) for n in (1, 2, 4, 8)}
def derive(label):
    k = label.replace(" ", "-").lower()
    for c in "()%": k = k.replace(c, "")
    for c in ",+:./": k = k.replace(c, "-")
    return k
def jobs(doc):
    return {s["key"]: (g["group"], s) for g in doc["steps"] for s in g["steps"]}
rv, up = jobs(review), jobs(upload)
assert len(rv) == 340, f"{len(rv)} jobs"
bad = []
for path in sorted(glob.glob(os.path.join(ta, "*.yaml"))):
    f = yaml.safe_load(open(path))
    dep = f.get("depends_on")
    for step in f["steps"]:
        key = step.get("key") or derive(step["label"])
        first = key if key in rv else key + "-0"
        if first not in rv: bad.append(f"{key}: not rendered"); continue
        group, job = rv[first]
        if step.get("device") in AMD_GPUS:
            want = f"AMD: {step['label']} ({step['device']})"
            if group != "Hardware-AMD Tests" or job["label"] != want:
                bad.append(f"{key}: {group!r} {job['label']!r}")
        wd = step.get("working_dir") or ("/vllm-workspace/tests" if dep else None)
        cd = wd and not step["label"].startswith(":docker:") and (step.get("num_nodes") or 0) < 2
        cmds = up[first][1]["commands"]
        if bool(cd) != cmds[0].startswith("cd ") or (cd and cmds[0] != f"cd {wd}"):
            bad.append(f"{key}: directory {wd!r}, upload commands start {cmds[0]!r}")
        mirror = (step.get("mirror") or {}).get("amd")
        if mirror and step.get("device") not in AMD_GPUS:
            parent = list(step.get("source_file_dependencies") or [])
            if dep: parent.append(".buildkite/test_areas/" + os.path.basename(path))
            want = list(mirror.get("source_file_dependencies") or [])
            want += [d for d in parent if d not in want]
            amd = "amd-" + key
            got = rv[amd if amd in rv else amd + "-0"][1].get("source_file_dependencies")
            if mirror.get("source_file_dependencies") and got != want:
                bad.append(f"{amd}: sources {got} != {want}")
            if "retry" in rv[amd if amd in rv else amd + "-0"][1]:
                bad.append(f"{amd}: inherited retry")
print("\n".join(bad)); sys.exit(1 if bad else 0)
PY

# A generator without ci-infra#473 runs Extended Pooling's AMD mirror with the parent's 4.
set +e
"$FANOUT" diff --mirror-parallelism inherit --mirror-parallelism own "$TA" "$TA" >mp.txt 2>/dev/null
rc=$?
set -e
[ $rc = 1 ]
sed -E 's/ \[[^]]*\]:/:/' mp.txt | grep -qx 'language-models-test-extended-pooling: mirror amd: 4 -> 2 (shards 2-3 removed)'
grep -q 'models_language.yaml:160:20: note: the AMD mirror runs 2 jobs with ci-infra#473' review.err
