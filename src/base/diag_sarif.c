/* diag_sarif: the messages of `--error-format sarif`, one SARIF 2.1.0 log of one run.
 * The other formats print a line per message as it comes; a SARIF log is one JSON
 * document, so its results are streamed into a `results` array opened with the log, and
 * what can only be known at the end (the rules named, the invocation's notifications
 * and exit code) follows them when the log ends (JSON members have no order). */
#include <stdlib.h>
#include <string.h>

#include "diag_internal.h"

#define SARIF_SCHEMA "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"

/* One log a process: the diags of a run (and the dialects' options, and the usage
 * errors) all write into the log on stderr. */
static struct {
    FILE *out;              /* NULL: no log begun */
    bool any_result;        /* the next result follows a comma */
    bool named[RULE_COUNT]; /* the rules of the results and notifications, for the driver */
    FILE *notes;            /* the notifications so far (a memstream over notes_buf) */
    char *notes_buf;
    size_t notes_len;
    bool any_note;
    const char *version, *uri; /* the driver's */
} sarif;

void diag_sarif_open(FILE *out)
{
    /* SARIF's columns count UTF-16 code units unless told; fanout's count characters */
    fputs("{\"$schema\":\"" SARIF_SCHEMA "\",\"version\":\"2.1.0\",\"runs\":[{\"columnKind\":"
          "\"unicodeCodePoints\",\"results\":[",
          out);
}

void sarif_begin(FILE *out)
{
    if (sarif.out)
        return;
    sarif.out = out;
    diag_sarif_open(out);
}

/* Whether `file` names a file of the inputs or outputs, rather than standing for none
 * (NULL, "fanout") or for a stream (`<stdin>`, `<stdout>`, `<expr>`), which no URI names. */
bool diag_sarif_is_artifact(const char *file)
{
    size_t len = file ? strlen(file) : 0;

    return len && strcmp(file, "fanout") && !(file[0] == '<' && file[len - 1] == '>');
}

/* `path` as a URI reference (RFC 3986): a relative path stays relative (GitHub's code
 * scanning reads it from the repository's root), an absolute one becomes a file: URI;
 * every byte that is not unreserved nor `/` percent-encoded (a `:` would read as a
 * scheme). */
static void write_uri(FILE *out, const char *path)
{
    fputc('"', out);
    if (path[0] == '/')
        fputs("file://", out);
    for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
        if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
            strchr("-._~/", *p))
            fputc(*p, out);
        else
            fprintf(out, "%%%02X", *p);
    }
    fputc('"', out);
}

static const char *level(enum diag_severity sev)
{
    return sev == DIAG_ERROR ? "error" : sev == DIAG_WARNING ? "warning" : "note";
}

/* A message about no file, or a stream, is a notification of the invocation (with the
 * stream's name and place in its text): a result needs a location that names an
 * artifact, and GitHub's code scanning refuses a result without one. */
static void write_notification(enum diag_severity sev, const char *file, unsigned line, unsigned col,
                               enum rule_id rule, const char *msg)
{
    char text[1100];

    if (!sarif.notes && !(sarif.notes = open_memstream(&sarif.notes_buf, &sarif.notes_len)))
        return; /* out of memory: the message is lost, the exit code says it all the same */
    if (!file || !strcmp(file, "fanout"))
        snprintf(text, sizeof(text), "%s", msg);
    else if (line)
        snprintf(text, sizeof(text), "%.40s:%u:%u: %s", file, line, col, msg);
    else
        snprintf(text, sizeof(text), "%.40s: %s", file, msg);
    fprintf(sarif.notes, "%s\n{\"level\":\"%s\",\"message\":{\"text\":", sarif.any_note ? "," : "",
            level(sev));
    diag_write_json_string(sarif.notes, text);
    fputc('}', sarif.notes);
    if (rule != RULE_NONE)
        fprintf(sarif.notes, ",\"associatedRule\":{\"id\":\"%s\"}", rule_name(rule));
    fputc('}', sarif.notes);
    sarif.any_note = true;
}

void sarif_write(enum diag_severity sev, const char *file, unsigned line, unsigned col, enum rule_id rule,
                 const char *msg)
{
    FILE *out = sarif.out;

    if (!out)
        return;
    sarif.named[rule] = true;
    if (!diag_sarif_is_artifact(file)) {
        write_notification(sev, file, line, col, rule, msg);
        return;
    }
    fputs(sarif.any_result ? ",\n" : "\n", out);
    diag_sarif_result(out, rule != RULE_NONE ? rule_name(rule) : NULL, sev, file, line, col, msg);
    sarif.any_result = true;
}

void diag_sarif_result(FILE *out, const char *rule, enum diag_severity sev, const char *file, unsigned line,
                       unsigned col, const char *msg)
{
    fputc('{', out);
    if (rule)
        fprintf(out, "\"ruleId\":\"%s\",", rule);
    fprintf(out, "\"level\":\"%s\",\"message\":{\"text\":", level(sev));
    diag_write_json_string(out, msg);
    fputs("},\"locations\":[{\"physicalLocation\":{\"artifactLocation\":{\"uri\":", out);
    write_uri(out, file);
    fputc('}', out);
    if (line)
        fprintf(out, ",\"region\":{\"startLine\":%u,\"startColumn\":%u}", line, col ? col : 1);
    fputs("}}]}", out);
}

void diag_sarif_driver(const char *version, const char *information_uri)
{
    sarif.version = version;
    sarif.uri = information_uri;
}

/* tool.driver: fanout, and each rule named, with what fires it. */
static void write_driver(FILE *out)
{
    bool first = true;
    char description[RULE_DESCRIPTION_MAX];

    fputs("\n],\"tool\":{\"driver\":{\"name\":\"fanout\"", out);
    if (sarif.version) {
        fputs(",\"version\":", out);
        diag_write_json_string(out, sarif.version);
    }
    if (sarif.uri) {
        fputs(",\"informationUri\":", out);
        diag_write_json_string(out, sarif.uri);
    }
    fputs(",\"rules\":[", out);
    for (int i = RULE_NONE + 1; i < RULE_COUNT; i++) {
        if (!sarif.named[i])
            continue;
        fprintf(out, "%s\n{\"id\":\"%s\",\"shortDescription\":{\"text\":", first ? "" : ",",
                rule_name((enum rule_id)i));
        diag_write_json_string(out, rule_describe((enum rule_id)i, description));
        fputs("}}", out);
        first = false;
    }
    fputs("]}}", out);
}

void diag_sarif_end(int status)
{
    FILE *out = sarif.out;
    const char *version, *uri;

    if (!out)
        return;
    write_driver(out);
    /* a run that found problems ran; one that exits 2 could not look at everything */
    fprintf(out, ",\"invocations\":[{\"executionSuccessful\":%s,", status == 0 || status == 1 ? "true" : "false");
    if (status >= 128)
        fprintf(out, "\"exitSignalNumber\":%d", status - 128);
    else
        fprintf(out, "\"exitCode\":%d", status);
    if (sarif.notes && fflush(sarif.notes) == 0 && sarif.notes_len) {
        fputs(",\"toolExecutionNotifications\":[", out);
        fwrite(sarif.notes_buf, 1, sarif.notes_len, out);
        fputs("\n]", out);
    }
    fputs("}]}]}\n", out);
    fflush(out);
    if (sarif.notes)
        fclose(sarif.notes);
    free(sarif.notes_buf);
    version = sarif.version;
    uri = sarif.uri;
    memset(&sarif, 0, sizeof(sarif));
    diag_sarif_driver(version, uri);
}
