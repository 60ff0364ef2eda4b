/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Replays every file given (or every file of the directories given) through
 * a fuzz target, for compilers without libFuzzer: the corpus, crashes found
 * earlier included, runs in every build as a regression test. A corpus
 * that cannot be read, or holds no input, is a failure: a replay of nothing
 * would pass while proving nothing.
 */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <sys/stat.h>

#include "util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int replay_file(const char *path) {
        _cleanup_free_ char *data = NULL;
        size_t size;
        int r = read_full_file(path, &data, &size, 1 << 22);

        if (r < 0) {
                printf("Bail out! cannot read %s: %s\n", path, strerror(-r));
                return r;
        }
        LLVMFuzzerTestOneInput((const uint8_t *) data, size);
        printf("ok - %s\n", path);
        return 0;
}

/* Replays every input of directory dir. Returns how many, or -errno. */
static int replay_dir(const char *dir) {
        _cleanup_closedir_ DIR *d = NULL;
        struct dirent *de;
        int n = 0;

        d = opendir(dir);
        if (!d) {
                int r = -errno;

                printf("Bail out! cannot open the corpus %s: %s\n", dir, strerror(-r));
                return r;
        }
        while ((errno = 0, de = readdir(d))) {
                _cleanup_free_ char *p = NULL;
                int r;

                if (de->d_name[0] == '.')
                        continue;
                p = strdup_printf("%s/%s", dir, de->d_name);
                if (!p)
                        return -ENOMEM;
                r = replay_file(p);
                if (r < 0)
                        return r;
                n++;
        }
        if (errno != 0) {
                int r = -errno;

                printf("Bail out! cannot list the corpus %s: %s\n", dir, strerror(-r));
                return r;
        }
        if (n == 0) {
                printf("Bail out! the corpus %s holds no input\n", dir);
                return -ENOENT;
        }
        return n;
}

int main(int argc, char **argv) {
        unsigned n = 0;

        if (argc < 2) {
                printf("Bail out! no corpus given\n");
                return 1;
        }
        for (int i = 1; i < argc; i++) {
                struct stat st;
                int r;

                if (stat(argv[i], &st) < 0) {
                        printf("Bail out! the corpus %s is missing: %s\n", argv[i], strerror(errno));
                        return 1;
                }
                if (!S_ISDIR(st.st_mode)) {
                        if (replay_file(argv[i]) < 0)
                                return 1;
                        n++;
                        continue;
                }
                r = replay_dir(argv[i]);
                if (r < 0)
                        return 1;
                n += (unsigned) r;
        }
        printf("1..%u\n", n);
        return 0;
}
