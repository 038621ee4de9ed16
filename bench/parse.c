/* The floor under fanout's parsing: libfyaml's event parser over the same files, read the
 * same way (a FILE, not mmap) with the same flags (src/yaml/stream.c: sloppy flow
 * indentation, which real workflows GitHub runs need), every event fetched and freed,
 * nothing built. */
#include <libfyaml.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    unsigned long long events = 0;

    for (int i = 1; i < argc; i++) {
        struct fy_parse_cfg cfg = {.flags = FYPCF_QUIET | FYPCF_SLOPPY_FLOW_INDENTATION};
        struct fy_parser *fyp = fy_parser_create(&cfg);
        FILE *fp = fopen(argv[i], "rb");
        struct fy_event *fye;

        if (!fyp || !fp || fy_parser_set_input_fp(fyp, argv[i], fp) != 0) {
            fprintf(stderr, "parse: cannot read %s\n", argv[i]);
            return 2;
        }
        while ((fye = fy_parser_parse(fyp)) != NULL) {
            events++;
            fy_parser_event_free(fyp, fye);
        }
        if (fy_parser_get_stream_error(fyp)) {
            fprintf(stderr, "parse: %s: invalid YAML\n", argv[i]);
            return 1;
        }
        fy_parser_destroy(fyp);
        fclose(fp);
    }
    fprintf(stderr, "%llu events\n", events);
    return 0;
}
