/* pyscalar: a test-area value as vLLM's generator reads it. The generator loads each file
 * with PyYAML's SafeLoader (6.0: resolver.py's YAML 1.1 implicit resolvers, constructor.py's
 * construct_yaml_int and construct_yaml_float), then builds ci-infra's pydantic step model
 * (step.py `Step`, pydantic >= 2) in its lax mode, and writes the model's values with
 * yaml.dump. So `010` is 8 (octal), `1:30` 90 (base 60), `0x10` 16, `"30"` and `2.0` are
 * the integer field's 30 and 2, `"yes"` and `1` the boolean field's true, and a string
 * field takes a string only (`label: 3.10` fails the model: PyYAML made it the float 3.1).
 * The table in test/unit/test_pyscalar.c was printed by PyYAML 6.0.3 and pydantic 2.13.4. */
#ifndef FANOUT_PYSCALAR_H
#define FANOUT_PYSCALAR_H

#include <stdbool.h>

#include "fanout/ynode.h"

enum py_type {
    PY_NULL,
    PY_BOOL,
    PY_INT,       /* within int64 */
    PY_BIG_INT,   /* an int past int64 (Python's are unbounded; Buildkite's agent refuses it) */
    PY_FLOAT,
    PY_STR,
    PY_TIMESTAMP, /* a date or a datetime */
    PY_FAILS,     /* the constructor raises (`0b_`: int('', 2)) */
    PY_OTHER,     /* a mapping or a list */
};

/* What PyYAML makes of `n` (a missing node is PY_NULL). */
enum py_type py_scalar_type(const struct ynode *n);

/* pydantic's lax `int`: an int, a bool (0, 1), a float with no fraction, or a string of
 * decimal digits (white space around it, `_` between digits, a `.0` tail allowed). */
bool py_lax_int(const struct ynode *n, long long *out);

/* pydantic's `int` with strict=True: an int and nothing else (not a bool). */
bool py_strict_int(const struct ynode *n, long long *out);

/* pydantic's lax `bool`: a bool, 0 or 1 (int or float), or one of the strings 0, off, f,
 * false, n, no, 1, on, t, true, y, yes in any case. */
bool py_lax_bool(const struct ynode *n, bool *out);

/* What a type is called in a message ("a float"). */
const char *py_type_name(enum py_type t);

#endif
