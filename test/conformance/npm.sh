# Sourced by the differential tests and bench/bench.sh: the oracles are npm packages at
# versions a lock file pins, installed once into a directory under build/npm.
#
# npm_pinned LABEL SPEC_DIR NPM_DIR: returns 0 when every package SPEC_DIR's
# package-lock.json lists directly is in NPM_DIR at its pinned version, installing them
# (npm ci) when not; returns 1 after printing "LABEL: skipped, ..." when node, or npm
# needed for the install, is missing, or when the install fails.
npm_pinned() {
    if ! command -v node >/dev/null 2>&1; then
        echo "$1: skipped, node not found"
        return 1
    fi
    node -e "
        const lock = require('$2/package-lock.json').packages;
        for (const name of Object.keys(lock['']['dependencies'] || {})) {
            let have = '';
            try { have = require('$3/node_modules/' + name + '/package.json').version } catch {}
            if (have !== lock['node_modules/' + name].version) process.exit(1);
        }" && return 0
    if ! command -v npm >/dev/null 2>&1; then
        echo "$1: skipped, npm not found (needed once, to install $(cd "$2" && node -p "Object.keys(require('./package.json').dependencies).join(', ')"))"
        return 1
    fi
    mkdir -p "$3"
    cp "$2/package.json" "$2/package-lock.json" "$3/"
    (cd "$3" && npm ci --no-audit --no-fund --loglevel=error >/dev/null) && return 0
    echo "$1: skipped, npm ci of $2 failed"
    return 1
}
