/* bundled: the schemas of schemas/, compiled into the binary (tools/embed.sh). */
#ifndef FANOUT_BUNDLED_H
#define FANOUT_BUNDLED_H

#include <stddef.h>

/* The text of schemas/<name>.json, or NULL. */
const char *bundled_schema(const char *name, size_t *len);

#endif
