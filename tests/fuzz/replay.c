/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Replays every file given (or every file of the directories given) through
 * a fuzz target, for compilers without libFuzzer: the corpus, crashes found
 * earlier included, runs in every build as a regression test.
 */
#include <dirent.h>
#include <stdint.h>
#include <sys/stat.h>

#include "util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int replay_file(const char *path) {
        _cleanup_free_ char *data = NULL;
        size_t size;
        int r = read_full_file(path, &data, &size, 1 << 22);

        if (r < 0) {
                fprintf(stderr, "replay: cannot read %s: %s\n", path, strerror(-r));
                return r;
        }
        LLVMFuzzerTestOneInput((const uint8_t *) data, size);
        printf("ok - %s\n", path);
        return 0;
}

int main(int argc, char **argv) {
        unsigned n = 0;

        for (int i = 1; i < argc; i++) {
                struct stat st;
                _cleanup_closedir_ DIR *d = NULL;
                struct dirent *de;

                if (stat(argv[i], &st) < 0 || !S_ISDIR(st.st_mode)) {
                        if (replay_file(argv[i]) < 0)
                                return 1;
                        n++;
                        continue;
                }
                d = opendir(argv[i]);
                while (d && (de = readdir(d))) {
                        _cleanup_free_ char *p = NULL;

                        if (de->d_name[0] == '.')
                                continue;
                        p = strdup_printf("%s/%s", argv[i], de->d_name);
                        if (!p || replay_file(p) < 0)
                                return 1;
                        n++;
                }
        }
        printf("1..%u\n", n);
        return 0;
}
