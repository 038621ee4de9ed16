# The layer check (tools/layers.sh, `make layers`) passes on the tree and fails on a
# copy of it with a planted back edge, an include of another folder's private header, an
# include cycle, a cycle in tools/layers.txt, or a module table that misses a module.
set -eu
fresh() {
    rm -rf t
    mkdir -p t/tools t/docs
    cp -R "$ROOT/src" "$ROOT/include" t/
    cp "$ROOT/tools/layers.sh" "$ROOT/tools/layers.txt" t/tools/
    cp "$ROOT/docs/design.md" t/docs/
}
expect_fail() { # expect_fail WHAT MESSAGE-PATTERN
    if sh t/tools/layers.sh t >out.txt 2>&1; then
        echo "layers: passed with $1"; cat out.txt; exit 1
    fi
    grep -q "$2" out.txt || { echo "layers: $1 reported as:"; cat out.txt; exit 1; }
}
fresh
sh t/tools/layers.sh t >out.txt || { cat out.txt; exit 1; }

# yaml is below render: yaml including render.h is a back edge
printf '#include "fanout/render.h"\n' >>t/src/yaml/ynode.c
expect_fail "yaml including render.h" 'src/yaml/ynode.c: includes fanout/render.h (yaml -> render'

# a dialect's private header, by path or as if it were render's own
fresh
printf '#include "dialect/buildkite/steps.h"\n' >>t/src/render/render.c
expect_fail "render including a Buildkite header by path" 'src/render/render.c: includes "dialect/buildkite/steps.h"'
fresh
printf '#include "steps.h"\n' >>t/src/render/render.c
expect_fail "render including a Buildkite header as its own" '"steps.h", which is no header of its own folder'

# two headers of one layer that include each other
fresh
printf '#include "fanout/strset.h"\n' >>t/include/fanout/strhash.h
printf '#include "fanout/strhash.h"\n' >>t/include/fanout/strset.h
expect_fail "an include cycle" 'headers include each other in a cycle'

# an allowed back edge makes the layers a cycle
fresh
sed 's/^yaml: base$/yaml: base render/' "$ROOT/tools/layers.txt" >t/tools/layers.txt
expect_fail "yaml allowed to include render" 'the edges of tools/layers.txt have a cycle'

# the module table of docs/design.md against the tree
fresh
grep -v '^| | `steps` |' "$ROOT/docs/design.md" >t/docs/design.md
expect_fail "a module missing from the table" 'no row for src/dialect/buildkite/steps.c'
fresh
sed 's/^| | `keyindex` |/| | `keyindex`, `gone` |/' "$ROOT/docs/design.md" >t/docs/design.md
expect_fail "a module the tree does not have" 'module `gone` in layer `render` has no src/render/gone.c'
