/* Writes a synthetic Buildkite pipeline of at least N bytes to stdout: keyed command
 * steps, one in three with parallelism 2, some depending on an earlier step. */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    unsigned long long target, written = 0, i;

    if (argc != 2 || (target = strtoull(argv[1], NULL, 10)) == 0) {
        fprintf(stderr, "usage: gen BYTES\n");
        return 2;
    }
    written += (unsigned long long)printf("env:\n  PYTHONUNBUFFERED: \"1\"\nsteps:\n");
    for (i = 0; written < target; i++) {
        written += (unsigned long long)printf(
            "  - label: \":pytest: Test suite %llu shard %%N/%%t\"\n"
            "    key: test-%llu\n"
            "    command: pytest -v tests/area_%llu --shard-id=$$BUILDKITE_PARALLEL_JOB "
            "--num-shards=$$BUILDKITE_PARALLEL_JOB_COUNT\n"
            "    parallelism: %d\n"
            "    agents:\n"
            "      queue: gpu_%llu\n"
            "    env:\n"
            "      AREA: \"%llu\"\n"
            "    timeout_in_minutes: 30\n",
            i, i, i, i % 3 == 0 ? 2 : 1, i % 4, i);
        if (i % 10 == 9)
            written += (unsigned long long)printf("    depends_on: test-%llu\n", i - 5);
    }
    return 0;
}
