/* diag_internal: what diag.c asks of diag_sarif.c, the SARIF log of a process. */
#ifndef FANOUT_DIAG_INTERNAL_H
#define FANOUT_DIAG_INTERNAL_H

#include "fanout/diag.h"

/* The log begins on `out` (its opening written now), unless one has begun. */
void sarif_begin(FILE *out);

/* A message into the log begun: a result when `file` names a file, else a notification
 * of the invocation (written when the log ends). */
void sarif_write(enum diag_severity sev, const char *file, unsigned line, unsigned col, enum rule_id rule,
                 const char *msg);

#endif
