/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Paths under an untrusted directory (beneath.h), fuzzed against a real
 * tree made once in a scratch dir: a home with a file, a directory, a FIFO
 * and symlinks out of it (relative, absolute, to ..), beside an "outside"
 * dir with one file. The first byte picks the operation (read, create,
 * remove, open a directory), whether to replace, and the resolver (the
 * kernel's openat2() or botdesk's own walk); the rest is the path. Whatever the path, an
 * fd handed back is on an inode inside the home, and nothing outside it
 * appears, changes or goes away.
 */
#undef NDEBUG
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "beneath.h"
#include "util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char root[] = "/tmp/fuzz-beneath.XXXXXX";
static char home_path[sizeof root + 8];
static int home = -EBADF, outside = -EBADF;

static void cleanup(void) {
        int fd;

        home = safe_close(home);
        outside = safe_close(outside);
        fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

        /* The scratch dir mkdtemp made, and nothing else. */
        if (fd >= 0) {
                (void) remove_tree_at(fd, "home");
                (void) remove_tree_at(fd, "outside");
                close(fd);
                (void) rmdir(root);
        }
}

/* The fixtures, put back where an operation removed one. */
static void fixtures(void) {
        char target[sizeof root + 16];
        int fd;

        (void) mkdirat(home, "d", 0700);
        (void) mkfifoat(home, "fifo", 0600);
        (void) symlinkat("../outside", home, "out");
        (void) symlinkat("..", home, "up");
        (void) symlinkat("d/../a", home, "in");
        snprintf(target, sizeof target, "%s/outside", root);
        (void) symlinkat(target, home, "abs");
        fd = openat(home, "a", O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
        if (fd >= 0)
                close(fd);
}

static void setup(void) {
        int scratch, fd;

        if (!mkdtemp(root))
                abort();
        atexit(cleanup);
        snprintf(home_path, sizeof home_path, "%s/home", root);
        scratch = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (scratch < 0 || mkdirat(scratch, "home", 0700) < 0 || mkdirat(scratch, "outside", 0700) < 0)
                abort();
        home = openat(scratch, "home", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        outside = openat(scratch, "outside", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        fd = openat(outside, "secret", O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
        if (home < 0 || outside < 0 || fd < 0 || write_all(fd, "secret", 6) < 0)
                abort();
        close(fd);
        close(scratch);
}

/* An fd botdesk handed back must be on something inside the home. */
static void check_inside(int fd) {
        _cleanup_free_ char *path = NULL;
        size_t n = strlen(home_path);

        if (fd_get_path(fd, &path) < 0)
                abort();
        if (strncmp(path, home_path, n) != 0 || (path[n] != '/' && path[n] != '\0'))
                abort();
}

/* The outside dir holds its one file, unchanged. */
static void check_outside(void) {
        _cleanup_free_ char *text = NULL;
        _cleanup_(closedirp) DIR *d = NULL;
        unsigned n = 0;
        size_t size;

        if (read_full_file_at(outside, "secret", &text, &size, 64) < 0 || !streq(text, "secret"))
                abort();
        if (dir_open_at(outside, ".", &d) < 0)
                abort();
        for (struct dirent *de; (de = readdir(d));)
                n += !streq(de->d_name, ".") && !streq(de->d_name, "..");
        if (n != 1)
                abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        _cleanup_free_ char *path = NULL;
        struct beneath_file f;
        uint64_t length;
        int fd, r;

        if (size < 1 || size > 512)
                return 0;
        if (home < 0)
                setup();
        fixtures();
        path = strndup((const char *) data + 1, size - 1);
        if (!path)
                return 0;
        /* A NUL inside is the caller's to refuse; what follows it never reaches the kernel. */
        if (strlen(path) != size - 1 && !beneath_path_problem((const char *) data + 1, size - 1))
                abort();
        beneath_force_walk(data[0] & 8);
        switch (data[0] % 4) {
        case 0:
                fd = beneath_open_read(home, path, 1 << 20, &length);
                if (fd >= 0) {
                        check_inside(fd);
                        close(fd);
                }
                break;
        case 1:
                r = beneath_create(home, path, data[0] & 4, 0600, &f);
                if (r >= 0) {
                        check_inside(f.dirfd);
                        if (beneath_commit(&f) >= 0)
                                (void) beneath_remove(home, path);
                        beneath_file_done(&f);
                }
                break;
        case 2:
                (void) beneath_remove(home, path);
                break;
        case 3:
                fd = beneath_open_dir(home, path);
                if (fd >= 0) {
                        check_inside(fd);
                        close(fd);
                }
                break;
        }
        check_outside();
        return 0;
}
