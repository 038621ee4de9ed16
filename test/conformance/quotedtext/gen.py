# Makes cases.txt: random single-quoted scalar bodies and their text as two YAML readers
# read them, PyYAML (python3-yaml) and eemeli/yaml (npm `yaml`, YAML 1.2), kept only where
# the two agree. Run: python3 gen.py SEED COUNT NODE_MODULES_DIR > cases.txt, and with a
# fourth argument `"` for cases-double.txt: double-quoted bodies with 5.7's escapes and
# escaped breaks.
# Each line: the body, a tab, the text; escaped as C escapes (\n \r \t \\ \xNN).
import json, random, subprocess, sys, yaml

seed, count, modules = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
quote = sys.argv[4] if len(sys.argv) > 4 else "'"
random.seed(seed)
atoms = ["a", "b c", " ", "  ", "\t", "''", "''", "''''", "#", ": ", "- ", "\u00e9"] if quote == "'" else \
    ["a", "b c", " ", "  ", "\t", "#", ": ", "\u00e9", r"\\", r"\"", "\\ ", "\\ ", r"\t", "\\\t", r"\n", r"\0",
     r"\x41", r"\xe9", r"\u20ac", r"\U0001F600", r"\/", r"\_", r"\e", r"\r", r"\L", r"\N"]
bodies = []
while len(bodies) < count * 2:
    brk = random.choice(["\n", "\n", "\r\n"])
    lines = []
    for i in range(1 + random.randrange(4)):
        text = "".join(random.choice(atoms) for _ in range(random.randrange(5)))
        if quote == '"' and random.randrange(4) == 0:
            text += "\\"  # an escaped break (or, last, an escaped quote: the readers refuse it)
        lines.append(text if i == 0 else "    " + ("\t" if random.randrange(4) == 0 else "") + text)
    bodies.append(brk.join(lines))
docs = ["k: " + quote + b + quote for b in bodies]
js = "const Y=require('yaml');const d=JSON.parse(require('fs').readFileSync(0,'utf8'));" \
     "console.log(JSON.stringify(d.map(x=>{try{return Y.parse(x).k}catch(e){return null}})))"
node = json.loads(subprocess.run(["node", "-e", js], input=json.dumps(docs), capture_output=True, text=True,
                                 check=True, env={"NODE_PATH": modules}).stdout)

def esc(s):
    out = []
    for ch in s.encode():
        c = chr(ch)
        out.append({"\n": "\\n", "\r": "\\r", "\t": "\\t", "\\": "\\\\"}.get(c) or
                   (c if 32 <= ch < 127 else "\\x%02x" % ch))
    return "".join(out)

kept = 0
for body, doc, theirs in zip(bodies, docs, node):
    try:
        ours = yaml.safe_load(doc)["k"]
    except yaml.YAMLError:
        continue
    if theirs is None or ours != theirs or kept == count:
        continue
    print(esc(body) + "\t" + esc(ours))
    kept += 1
