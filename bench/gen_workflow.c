/* Writes a synthetic GitHub Actions workflow of at least N bytes to stdout, heavy on
 * matrices as SGLang's are: every job a matrix of python x cuda x part (an exclude, an
 * include that adds a key to every configuration), its name, runs-on, env and steps reading `matrix`,
 * a step `if:` on the matrix, one job in four needing an earlier one. */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    unsigned long long target, written = 0, i;

    if (argc != 2 || (target = strtoull(argv[1], NULL, 10)) == 0) {
        fprintf(stderr, "usage: gen_workflow BYTES\n");
        return 2;
    }
    written += (unsigned long long)printf(
        "name: Synthetic matrix workflow\n"
        "on:\n  push:\n    branches: [main]\n  pull_request:\n\n"
        "concurrency:\n  group: synthetic-${{ github.ref }}\n  cancel-in-progress: true\n\n"
        "env:\n  PYTHONUNBUFFERED: \"1\"\n\njobs:\n");
    for (i = 0; written < target; i++) {
        written += (unsigned long long)printf(
            "  test-%llu:\n"
            "    name: Test area %llu (py${{ matrix.python }}, cu${{ matrix.cuda }}, part ${{ matrix.part }})\n"
            "    runs-on: ${{ matrix.runner }}\n"
            "    timeout-minutes: 30\n"
            "    strategy:\n"
            "      fail-fast: false\n"
            "      matrix:\n"
            "        python: [\"3.10\", \"3.12\"]\n"
            "        cuda: [\"12.6\", \"12.9\"]\n"
            "        part: [0, 1, 2]\n"
            "        runner: [gpu-%llu]\n"
            "        exclude:\n"
            "          - python: \"3.10\"\n"
            "            cuda: \"12.9\"\n"
            "        include:\n"
            "          - runner: gpu-%llu\n"
            "            nightly: true\n"
            "    env:\n"
            "      AREA: \"%llu\"\n"
            "      CUDA_VERSION: ${{ matrix.cuda }}\n"
            "    steps:\n"
            "      - uses: actions/checkout@v4\n"
            "      - name: Set up Python ${{ matrix.python }}\n"
            "        uses: actions/setup-python@v5\n"
            "        with:\n"
            "          python-version: ${{ matrix.python }}\n"
            "      - name: Install\n"
            "        run: |\n"
            "          pip install -e \"python[all]\" --extra-index-url https://download.pytorch.org/whl/cu${{ matrix.cuda }}\n"
            "          pip list\n"
            "      - name: Nightly extras\n"
            "        if: matrix.nightly && matrix.python == '3.12'\n"
            "        run: pip install --pre nightly-extras\n"
            "      - name: Run tests\n"
            "        timeout-minutes: 20\n"
            "        run: |\n"
            "          cd test/srt\n"
            "          python3 run_suite.py --suite area-%llu --auto-partition-id ${{ matrix.part }} --auto-partition-size 3\n",
            i, i, i % 8, i % 8, i, i);
        if (i % 4 == 3)
            written += (unsigned long long)printf("    needs: test-%llu\n", i - 2);
    }
    return 0;
}
