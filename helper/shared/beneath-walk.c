/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS where openat2() is missing (a
 * kernel before 5.6, or valgrind, which does not know the call): the path
 * walked a component at a time from root, each directory opened with
 * O_NOFOLLOW and kept, so ".." pops back to where the walk came from and
 * never above root, and a symlink is read and its target walked in its
 * place, refused when absolute as the kernel refuses it (-EXDEV). A change
 * of the tree during the walk makes an open fail (O_NOFOLLOW, O_DIRECTORY);
 * it never leads out.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "beneath.h"
#include "util.h"

/* As the kernel's: so many symlinks in one lookup, then -ELOOP. */
#define WALK_SYMLINKS_MAX 40
/* Directories deep: every one is an fd held during the walk. */
#define WALK_DEPTH_MAX 256

struct walk {
        int fds[WALK_DEPTH_MAX];        /* fds[0] is root's (not ours), the rest opened on the way */
        size_t depth;
};

static void walk_done(struct walk *w) {
        for (size_t i = 1; i <= w->depth; i++)
                safe_close(w->fds[i]);
        w->depth = 0;
}

int beneath_walk_open(int rootfd, const char *path, int flags) {
        _cleanup_free_ char *todo = strdup(path);
        struct walk w = { .fds = { rootfd } };
        unsigned links = 0;
        char *rest;
        int r = -EINVAL;

        if (!todo)
                return -ENOMEM;
        if (beneath_path_problem(path, strlen(path)))
                return -EINVAL;
        rest = todo;
        for (;;) {
                int cur = w.fds[w.depth], fd;
                bool last, want_dir;
                char *comp = rest;
                struct stat st;

                /* The next component, and whether it is the last (a trailing "/" makes it a directory's). */
                rest = comp + strcspn(comp, "/");
                want_dir = *rest == '/';
                if (*rest)
                        *rest++ = '\0';
                while (*rest == '/')
                        rest++;
                last = !*rest;
                if (!*comp || streq(comp, ".")) {
                        if (!last)
                                continue;
                        r = fd_reopen(cur, flags | O_DIRECTORY);
                        break;
                }
                if (streq(comp, "..")) {
                        if (w.depth == 0) {
                                r = -EXDEV;
                                break;
                        }
                        safe_close(w.fds[w.depth--]);
                        if (!last)
                                continue;
                        r = fd_reopen(w.fds[w.depth], flags | O_DIRECTORY);
                        break;
                }
                if (fstatat(cur, comp, &st, AT_SYMLINK_NOFOLLOW) < 0) {
                        r = negative_errno();
                        break;
                }
                if (S_ISLNK(st.st_mode)) {
                        char target[PATH_MAX];
                        _cleanup_free_ char *joined = NULL;
                        ssize_t n;

                        if (++links > WALK_SYMLINKS_MAX) {
                                r = -ELOOP;
                                break;
                        }
                        n = readlinkat(cur, comp, target, sizeof target - 1);
                        if (n < 0) {
                                r = negative_errno();
                                break;
                        }
                        target[n] = '\0';
                        if (target[0] == '/') {
                                r = -EXDEV;     /* RESOLVE_BENEATH's answer to an absolute symlink */
                                break;
                        }
                        /* The target in the link's place, the rest after it. */
                        joined = strdup_printf("%s%s%s", target, *rest || want_dir ? "/" : "", rest);
                        if (!joined) {
                                r = -ENOMEM;
                                break;
                        }
                        free(todo);
                        todo = TAKE_PTR(joined);
                        rest = todo;
                        continue;
                }
                if (last) {
                        r = openat(cur, comp, flags | O_NOFOLLOW | O_CLOEXEC | (want_dir ? O_DIRECTORY : 0) |
                                                      ((flags & O_PATH) ? 0 : O_NOCTTY));
                        r = r < 0 ? negative_errno() : r;
                        break;
                }
                if (!S_ISDIR(st.st_mode)) {
                        r = -ENOTDIR;
                        break;
                }
                if (w.depth + 1 >= WALK_DEPTH_MAX) {
                        r = -ENAMETOOLONG;
                        break;
                }
                fd = openat(cur, comp, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
                if (fd < 0) {
                        r = negative_errno();
                        break;
                }
                w.fds[++w.depth] = fd;
        }
        walk_done(&w);
        return r;
}
