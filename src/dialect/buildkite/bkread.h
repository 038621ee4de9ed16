/* bkread: a pipeline's items as Buildkite's agent reads them, before interpolation and
 * before any field is looked at. buildkite/go-pipeline (ordered/yaml.go, at fd45720551e8)
 * reads a pipeline into ordered maps of gopkg.in/yaml.v3's values:
 * - every mapping key is a string (canonicalMapKey): a plain key yaml.v3 types otherwise
 *   becomes the text Go prints of its value: a boolean `true`/`false` (`TRUE: x` sets the
 *   variable `true`), an integer in decimal (`0x10` is "16", `010` "8"), a float in Go's
 *   %e (`1.5` is "1.500000e+00"), a timestamp as written. A null key fails the upload
 *   ("null not supported as a map key"). Two keys that become one are a `duplicate-key`
 *   error, as two written alike are (the agent keeps the last value);
 * - every other plain scalar is the value yaml.v3 reads, which the agent sends (JSON) or
 *   prints (fmt.Sprint, in a field its step types keep as a string: `MIN: 11.00` gives
 *   the job MIN=11, `label: 3.10` is "3.1"; a null is "", and an empty key or label of a
 *   command step is left out, as `omitempty` leaves it). The rendering writes that
 *   value: the string, or booleans `true`/`false`, integers in decimal, floats in Go's
 *   shortest form, and a scalar yaml.v3 keeps a string that YAML 1.2 would read as a
 *   number (`1e400`, past float64) quoted. An infinity or NaN outside a string field is
 *   an error (the agent's JSON has none: the upload fails); a timestamp or an integer
 *   past int64 in a string field too in the pipeline's env, and a warning in a step,
 *   which the agent then uploads as written (and which is read so). Other nulls and
 *   timestamps stay as written (the agent reads them again alike).
 * docs/buildkite.md, "Keys and values as the agent reads them". */
#ifndef FANOUT_BKREAD_H
#define FANOUT_BKREAD_H

#include "fanout/diag.h"
#include "fanout/stream.h"
#include "fanout/strset.h"
#include "fanout/ynode.h"

struct bkread;

struct bkread *bkread_create(void);
void bkread_destroy(struct bkread *k);

/* A pass over files named `names`, reporting to `d`. */
void bkread_begin(struct bkread *k, struct diag *d, const char *const *names);

/* The first key of mapping `map` whose text an earlier key of it has, in *repeated, with
 * `seen` (cleared first) holding the keys: 1 when one has, 0 when none does, -1 when out
 * of memory (*repeated: the key being added). Two keys that become one when the agent
 * reads them (bkread) or interpolates them (bkinterp) are checked by it. */
int bkread_repeated_key(struct strset *seen, const struct ynode *map, const struct ynode **repeated);

/* Leaves out of `step` the fields the agent omits when empty (`omitempty`: a command
 * step's key and label, a group's key) that interpolation made empty (`key: $EMPTY`),
 * as read_step's typing of the step keeps them. */
void bkread_omit_empty(struct ynode *step);

/* The item's keys and plain scalars as the agent reads them (`k`: the struct bkread, as
 * dialect_input's `read` is told it): 0, or -1 after an error. */
int bkread_item(void *k, struct stream_item *item);

#endif
