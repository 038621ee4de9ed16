# The rule names fanout's messages can carry, read from the C sources (headers first).
# A message gets its rule from the `rule` argument of diag_report or diag_vreport, or of
# a wrapper: a function with a `const char *rule` or `const char *keyword` parameter that
# passes it on to one of those (or to another wrapper), or stores it in a field of that
# name that a report reads back (the schema validator's `e->keyword`). Prints one line
# per call:
#   rule|keyword NAME FILE:LINE     a string literal (or a macro of one), or each of them
#                                   in a conditional;
#   UNKNOWN ARG FILE:LINE           anything else (a rule the sources cannot name).
# Plain POSIX awk (mawk).

FNR == 1 { files[++nf] = FILENAME }
{ raw[nf] = raw[nf] $0 "\n" }

END {
    roots["diag_report"] = 1
    roots["diag_vreport"] = 1
    for (f = 1; f <= nf; f++) {
        T[f] = strip(raw[f])
        find_defines(f)
        find_calls(f)
        find_definitions(f)
    }
    # wrappers: until no definition becomes one
    do {
        changed = 0
        for (d = 1; d <= nd; d++) {
            if (carrier[d])
                continue
            if (stores_field(d) || forwards(d)) {
                carrier[d] = 1
                changed = 1
            }
        }
    } while (changed)
    for (f = 1; f <= nf; f++)
        for (c = 1; c <= ncalls[f]; c++)
            report_call(f, c)
}

# The text without comments (strings and newlines kept, for line numbers).
function strip(text,   out, n, i, c, q) {
    out = ""; n = length(text); q = ""
    for (i = 1; i <= n; i++) {
        c = substr(text, i, 1)
        if (q != "") {
            out = out c
            if (c == "\\") { out = out substr(text, i + 1, 1); i++ }
            else if (c == q) q = ""
        } else if (c == "\"" || c == "'") {
            q = c; out = out c
        } else if (c == "/" && substr(text, i + 1, 1) == "*") {
            for (i += 2; i <= n && substr(text, i, 2) != "*/"; i++)
                if (substr(text, i, 1) == "\n") out = out "\n"
            i++
        } else if (c == "/" && substr(text, i + 1, 1) == "/") {
            while (i <= n && substr(text, i, 1) != "\n") i++
            out = out "\n"
        } else
            out = out c
    }
    return out
}

# `#define NAME "text"` of file f: define[f, NAME]
function find_defines(f,   n, i, L, w) {
    n = split(T[f], L, "\n")
    for (i = 1; i <= n; i++)
        if (L[i] ~ /^#define [A-Za-z_0-9]+ "[^"]*"[ \t]*$/) {
            split(L[i], w, " ")
            define[f, w[2]] = w[3]
        }
}

# Every `name(` of file f: callname[f, i], callat[f, i] (offset after the '(').
function find_calls(f,   rest, off, name) {
    rest = T[f]; off = 0
    while (match(rest, /[A-Za-z_][A-Za-z_0-9]*[ \t\n]*\(/)) {
        name = substr(rest, RSTART, RLENGTH)
        sub(/[ \t\n]*\($/, "", name)
        off += RSTART + RLENGTH - 1
        rest = substr(rest, RSTART + RLENGTH)
        ncalls[f]++
        callname[f, ncalls[f]] = name
        callat[f, ncalls[f]] = off + 1
    }
}

# Function definitions of file f with a `const char *rule|keyword` parameter:
# dfile, dname, dstatic, didx (its position), dparam (its name), dfrom..dto (the body).
function find_definitions(f,   c, n, j, k, p, body, before) {
    for (c = 1; c <= ncalls[f]; c++) {
        n = parse_args(f, callat[f, c])
        for (j = 1; j <= n; j++)
            if (A[j] ~ /^const char \*(rule|keyword)$/)
                break
        if (j > n)
            continue
        k = j
        p = skip_space(f, END_AT + 1)
        if (substr(T[f], p, 13) == "__attribute__") {
            parse_args(f, index(substr(T[f], p), "(") + p)
            p = skip_space(f, END_AT + 1)
        }
        if (substr(T[f], p, 1) != "{")
            continue
        body = close_brace(f, p)
        before = substr(T[f], 1, callat[f, c] - 1)
        sub(/.*[;}]/, "", before)
        nd++
        dfile[nd] = f
        dname[nd] = callname[f, c]
        dstatic[nd] = before ~ /(^|[^A-Za-z_])static[ \t\n]/
        didx[nd] = k
        dparam[nd] = A[k]
        sub(/.*\*/, "", dparam[nd])
        dfrom[nd] = p
        dto[nd] = body
    }
}

function skip_space(f, p) {
    while (substr(T[f], p, 1) ~ /[ \t\n]/)
        p++
    return p
}

# The offset of the '}' that closes the '{' at p.
function close_brace(f, p,   n, depth, c, q) {
    n = length(T[f]); depth = 0; q = ""
    for (; p <= n; p++) {
        c = substr(T[f], p, 1)
        if (q != "") {
            if (c == "\\") p++
            else if (c == q) q = ""
        } else if (c == "\"" || c == "'")
            q = c
        else if (c == "{")
            depth++
        else if (c == "}" && --depth == 0)
            return p
    }
    return n
}

# The arguments of the call whose '(' ends before offset `start` of file f: A[1..n],
# trimmed, blanks squeezed; END_AT is the offset of its ')'.
function parse_args(f, start,   n, i, c, depth, q, cur, count) {
    n = length(T[f]); depth = 0; q = ""; cur = ""; count = 0
    for (i = start; i <= n; i++) {
        c = substr(T[f], i, 1)
        if (q != "") {
            cur = cur c
            if (c == "\\") { cur = cur substr(T[f], i + 1, 1); i++ }
            else if (c == q) q = ""
            continue
        }
        if (c == "\"" || c == "'") {
            q = c; cur = cur c; continue
        }
        if (c == "(" || c == "[" || c == "{")
            depth++
        else if (c == ")" || c == "]" || c == "}") {
            if (depth == 0) {
                A[++count] = trim(cur)
                END_AT = i
                return count == 1 && A[1] == "" ? 0 : count
            }
            depth--
        } else if (c == "," && depth == 0) {
            A[++count] = trim(cur); cur = ""; continue
        }
        cur = cur c
    }
    END_AT = n
    return count
}

function trim(s) {
    gsub(/^[ \t\n]+|[ \t\n]+$/, "", s)
    gsub(/[ \t\n]+/, " ", s)
    return s
}

# The rule argument's position of `name` called in file f (a root, a wrapper of the
# file, or a wrapper of another file that is not static), or 0; KIND is its parameter's
# name (rule or keyword).
function rule_index(f, name,   d, other) {
    KIND = "rule"
    if (name in roots)
        return 7
    other = 0
    for (d = 1; d <= nd; d++) {
        if (!carrier[d] || dname[d] != name)
            continue
        if (dfile[d] == f) {
            KIND = dparam[d]
            return didx[d]
        }
        if (!dstatic[d]) {
            other = didx[d]
            KIND = dparam[d]
        }
    }
    return other
}

# Whether definition d passes its parameter on to a reporting function.
function forwards(d,   f, c, k) {
    f = dfile[d]
    for (c = 1; c <= ncalls[f]; c++) {
        if (callat[f, c] < dfrom[d] || callat[f, c] > dto[d])
            continue
        if (!(k = rule_index(f, callname[f, c])))
            continue
        if (parse_args(f, callat[f, c]) >= k && A[k] == dparam[d])
            return 1
    }
    return 0
}

# Whether definition d stores its parameter in a field of its name (`e->keyword =
# keyword;`), which a report reads back (stored[NAME]).
function stores_field(d,   body) {
    body = substr(T[dfile[d]], dfrom[d], dto[d] - dfrom[d] + 1)
    if (!match(body, "(->|\\.)" dparam[d] " = " dparam[d] ";"))
        return 0
    stored[dparam[d]] = 1
    return 1
}

# The rule of call c of file f to a reporting function, printed.
function report_call(f, c,   k, n, arg, d, kind, where, s, field) {
    if (!(k = rule_index(f, callname[f, c])))
        return
    kind = KIND
    n = parse_args(f, callat[f, c])
    if (n < k || A[k] ~ /^const char \*/)
        return # a declaration
    arg = A[k]
    # passed on by a wrapper: its callers are read
    for (d = 1; d <= nd; d++)
        if (carrier[d] && dfile[d] == f && callat[f, c] >= dfrom[d] && callat[f, c] <= dto[d] &&
            arg == dparam[d])
            return
    field = arg
    sub(/^.*(->|\.)/, "", field)
    if (arg ~ /(->|\.)[A-Za-z_][A-Za-z_0-9]*$/ && field in stored)
        return
    if ((f, arg) in define)
        arg = define[f, arg]
    s = substr(T[f], 1, callat[f, c])
    where = files[f] ":" (1 + gsub(/\n/, "", s))
    if (arg !~ /^("[^"]*"|[^"]*\? *"[^"]*" *: *"[^"]*")$/) {
        print "UNKNOWN " arg " " where
        return
    }
    while (match(arg, /"[^"]*"/)) {
        print kind " " substr(arg, RSTART + 1, RLENGTH - 2) " " where
        arg = substr(arg, RSTART + RLENGTH)
    }
}
