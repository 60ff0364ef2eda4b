/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * What the tests that build files at run time share: a bail-out for a
 * fixture that cannot be made, paths under a scratch dir, the scratch dir
 * itself (mkdtemp under $TMPDIR, emptied and removed at the end), and a
 * pid that is certainly dead.
 */

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util.h"

_noreturn_ _unused_ static void die(const char *what) {
        printf("Bail out! %s: %s\n", what, strerror(errno));
        exit(99);
}

/* dir/name on the heap; fixture paths are never allowed to be truncated. */
_unused_ static char *path_at(const char *dir, const char *name) {
        char *p = strdup_printf("%s/%s", dir, name);

        if (!p)
                die("strdup_printf");
        return p;
}

/* A new empty dir NAME-XXXXXX under $TMPDIR (or /tmp), its path into buf. */
_unused_ static void scratch_dir_make(char *buf, size_t size, const char *name) {
        const char *tmp = getenv("TMPDIR");

        snprintf(buf, size, "%s/%s-XXXXXX", tmp && *tmp ? tmp : "/tmp", name);
        if (!mkdtemp(buf))
                die("mkdtemp");
}

static int scratch_remove_entry(const char *path, const struct stat *st, int type, struct FTW *ftw) {
        (void) st;
        (void) type;
        if (ftw->level > 0)
                remove(path);
        return 0;
}

/* Everything below dir, not dir itself; symlinks are removed, never followed. */
_unused_ static void dir_empty(const char *dir) {
        nftw(dir, scratch_remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

_unused_ static void scratch_dir_remove(const char *dir) {
        if (!dir || !*dir)
                return;
        dir_empty(dir);
        rmdir(dir);
}

/* text into dir/rel (0644, made or emptied): 0 or -EIO. */
_unused_ static int file_put_at(const char *dir, const char *rel, const char *text) {
        _cleanup_free_ char *path = path_at(dir, rel);
        _cleanup_close_ int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

        return fd >= 0 && write(fd, text, strlen(text)) == (ssize_t) strlen(text) ? 0 : -EIO;
}

/* The dir dir/rel (0755): 0 or -EIO. */
_unused_ static int dir_make_at(const char *dir, const char *rel) {
        _cleanup_free_ char *path = path_at(dir, rel);

        return mkdir(path, 0755) == 0 ? 0 : -EIO;
}

/* The pid of a child that exited and was reaped: certainly dead (until the kernel hands it out again). */
_unused_ static pid_t reaped_pid(void) {
        pid_t pid = fork();

        if (pid < 0)
                die("fork");
        if (pid == 0)
                _exit(0);
        if (waitpid(pid, NULL, 0) != pid)
                die("waitpid");
        return pid;
}

/*
 * A child that runs take(userdata) and says on a pipe whether it took what
 * it takes (0), then holds it for hold_ms and ends (-1: until killed). Its
 * pid once it has said so; a take that failed is a bail-out.
 */
_unused_ static pid_t fork_holder(int (*take)(void *userdata), void *userdata, int hold_ms) {
        int p[2];
        char c;
        pid_t pid;

        if (pipe2(p, O_CLOEXEC) < 0)
                die("pipe");
        pid = fork();
        if (pid < 0)
                die("fork");
        if (pid == 0) {
                c = take(userdata) >= 0 ? 'T' : 'E';
                if (write(p[1], &c, 1) != 1)
                        _exit(2);
                if (hold_ms < 0)
                        for (;;)
                                pause();
                usleep((useconds_t) hold_ms * 1000);
                _exit(0);
        }
        close(p[1]);
        if (read(p[0], &c, 1) != 1 || c != 'T')
                die("holder");
        close(p[0]);
        return pid;
}
