/* pipediff_junit: `diff --durations` from a JUnit XML report, the file CI jobs already
 * write (`pytest --junitxml`), so a reviewer need not turn it into a table. Each
 * <testsuite> is one job's run: its `name` is the job's id and its `time` (seconds) how
 * long it took, else the sum of its <testcase> elements' `time`. pytest's junitxml.py
 * (pytest-dev/pytest, src/_pytest/junitxml.py, commit 03fd05ad) writes one suite a run,
 * named by the ini option `junit_suite_name` (default "pytest": a job names it after
 * itself with `-o junit_suite_name=KEY`), `time` its duration in seconds, and a testcase
 * for each test with `classname` and `name` (its node id mangled: `tests/a.py::T::t` is
 * classname `tests.a.T`, name `t`) and `time`. Those are tests, not jobs: diff reads only
 * their times. Read with libxml2's streaming reader: memory holds the open suites, not
 * the document (a report's captured output can be large); no network, no external
 * entity. libxml2 is loaded when a report is read, not linked: linked, it and the ICU
 * it needs doubled every command's start-up (300 `fanout --version`: 3.4 -> 7.0 s).
 * docs/diff.md, "Runners". */
#include "pipediff_internal.h"

#include <dlfcn.h>
#include <libxml/xmlreader.h>
#include <stdlib.h>
#include <string.h>

/* The libxml2 functions read here, as its headers declare them. */
static struct xml_api {
    __typeof__(xmlReaderForFile) *reader_for_file;
    __typeof__(xmlTextReaderSetStructuredErrorHandler) *set_error_handler;
    __typeof__(xmlTextReaderRead) *read;
    __typeof__(xmlTextReaderNodeType) *node_type;
    __typeof__(xmlTextReaderConstLocalName) *local_name;
    __typeof__(xmlTextReaderGetAttribute) *attribute;
    __typeof__(xmlTextReaderIsEmptyElement) *is_empty;
    __typeof__(xmlTextReaderCurrentNode) *current_node;
    __typeof__(xmlGetLineNo) *line_no;
    __typeof__(xmlFreeTextReader) *free_reader;
    __typeof__(xmlSetGenericErrorFunc) *set_generic_error;
    xmlFreeFunc *free; /* the variable xmlFree */
} xml;

static void say_nothing(void *ctx, const char *msg, ...)
{
    (void)ctx;
    (void)msg;
}

/* Loads libxml2 once (the handle kept for the run). 0, or -1 after the message. */
static int xml_load(struct pd_durations *m)
{
    static const char *const names[] = {"xmlReaderForFile", "xmlTextReaderSetStructuredErrorHandler",
                                        "xmlTextReaderRead", "xmlTextReaderNodeType",
                                        "xmlTextReaderConstLocalName", "xmlTextReaderGetAttribute",
                                        "xmlTextReaderIsEmptyElement", "xmlTextReaderCurrentNode",
                                        "xmlGetLineNo", "xmlFreeTextReader", "xmlSetGenericErrorFunc", "xmlFree"};
    void *syms[sizeof(names) / sizeof(names[0])];
    void *h;
    char msg[256];

    _Static_assert(sizeof(syms) == sizeof(xml), "one symbol a member");
    if (xml.free)
        return 0;
    if (!(h = dlopen("libxml2.so.2", RTLD_NOW | RTLD_LOCAL))) {
        snprintf(msg, sizeof(msg), "reading a JUnit XML report needs libxml2: %s", dlerror());
        return pd_durations_error(m, 1, 1, msg);
    }
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        if (!(syms[i] = dlsym(h, names[i]))) {
            snprintf(msg, sizeof(msg), "reading a JUnit XML report needs libxml2's %s", names[i]);
            dlclose(h);
            return pd_durations_error(m, 1, 1, msg);
        }
    }
    /* a data pointer to a function pointer: POSIX's dlsym guarantees it works */
    memcpy(&xml, syms, sizeof(xml));
    /* what libxml2 says outside the reader's handler (an encoding it cannot convert:
     * "I/O error : encoder error") would be lines of its own on stderr; the reader's
     * error, at its place, is the one line said */
    xml.set_generic_error(NULL, say_nothing);
    return 0;
}

#define SUITE_DEPTH 32 /* suites open inside one another, at most */

/* A suite being read: its id, its own time (has_time) or its testcases' so far. */
struct suite {
    xmlChar *name;
    double seconds;
    bool has_time;
    unsigned line;
};

struct junit {
    struct pd_durations *m;
    struct suite open[SUITE_DEPTH];
    size_t depth, suites;
    char error[256]; /* libxml2's first error, and where */
    unsigned error_line, error_col;
};

static void on_error(void *user, xmlErrorPtr e)
{
    struct junit *j = user;
    size_t len;

    if (!e || j->error[0])
        return;
    snprintf(j->error, sizeof(j->error), "not a JUnit XML report: %s", e->message ? e->message : "malformed XML");
    len = strlen(j->error);
    while (len && (j->error[len - 1] == '\n' || j->error[len - 1] == ' '))
        j->error[--len] = '\0';
    j->error_line = e->line > 0 ? (unsigned)e->line : 1;
    j->error_col = e->int2 > 0 ? (unsigned)e->int2 : 1;
}

/* Seconds from attribute `time` of the reader's element: *has says whether it has one;
 * -1 when it is no number of seconds. */
static double time_of(xmlTextReaderPtr r, bool *has)
{
    xmlChar *t = xml.attribute(r, BAD_CAST "time");
    double v;

    *has = t != NULL;
    if (!t)
        return 0;
    v = pd_minutes_of((const char *)t, strlen((const char *)t));
    (*xml.free)(t);
    return v;
}

/* A suite ends: the job it names took its time. 0, or -1 after the message. */
static int suite_end(struct junit *j)
{
    struct suite *s = &j->open[--j->depth];
    int rc = 0;

    if (!s->name || !*s->name)
        rc = pd_durations_error(j->m, s->line, 1, "a <testsuite> has a name: the job's id");
    else
        rc = pd_durations_add(j->m, (const char *)s->name, strlen((const char *)s->name), s->seconds / 60, s->line, 1);
    (*xml.free)(s->name);
    s->name = NULL;
    return rc;
}

/* The reader's element: a suite begins (and ends, when empty), a testcase adds its time
 * to a suite that has none. 0, or -1 after the message. */
static int element(struct junit *j, xmlTextReaderPtr r)
{
    const char *name = (const char *)xml.local_name(r);
    long at = xml.line_no(xml.current_node(r));
    unsigned line = at > 0 ? (unsigned)at : 1;
    bool has;
    double seconds;

    if (!strcmp(name, "testsuite")) {
        struct suite *s;

        if (j->depth == SUITE_DEPTH)
            return pd_durations_error(j->m, line, 1, "<testsuite> elements nest more than 32 deep");
        s = &j->open[j->depth++];
        j->suites++;
        s->name = xml.attribute(r, BAD_CAST "name");
        s->seconds = time_of(r, &s->has_time);
        s->line = line;
        if (s->seconds < 0)
            return pd_durations_error(j->m, line, 1, "a <testsuite> time is a number of seconds (0 or more)");
        return xml.is_empty(r) ? suite_end(j) : 0;
    }
    if (strcmp(name, "testcase") || !j->depth || j->open[j->depth - 1].has_time)
        return 0;
    if ((seconds = time_of(r, &has)) < 0)
        return pd_durations_error(j->m, line, 1, "a <testcase> time is a number of seconds (0 or more)");
    j->open[j->depth - 1].seconds += seconds;
    return 0;
}

int pd_junit_read(struct pd_durations *m, const char *path)
{
    struct junit j = {.m = m};
    xmlTextReaderPtr r;
    int more = 1, rc = 0;

    if (xml_load(m) != 0)
        return -1;
    /* no network, no entity substituted, libxml2's messages ours */
    if (!(r = xml.reader_for_file(path, NULL, XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING)))
        return pd_durations_error(m, 1, 1, "cannot read it as XML");
    xml.set_error_handler(r, on_error, &j);
    while (rc == 0 && (more = xml.read(r)) == 1) {
        int type = xml.node_type(r);

        if (type == XML_READER_TYPE_ELEMENT)
            rc = element(&j, r);
        else if (type == XML_READER_TYPE_END_ELEMENT && j.depth &&
                 !strcmp((const char *)xml.local_name(r), "testsuite"))
            rc = suite_end(&j);
    }
    if (rc == 0 && more < 0)
        rc = pd_durations_error(m, j.error_line ? j.error_line : 1, j.error_col ? j.error_col : 1,
                                j.error[0] ? j.error : "not a JUnit XML report");
    else if (rc == 0 && !j.suites)
        rc = pd_durations_error(m, 1, 1, "a JUnit XML report has <testsuite> elements: the jobs' runs");
    while (j.depth)
        (*xml.free)(j.open[--j.depth].name);
    xml.free_reader(r);
    return rc;
}
