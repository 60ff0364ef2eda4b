/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

/*
 * Paths a caller names under a directory whose contents it does not trust
 * (the desktop's home, where the desktop's programs put what they like:
 * symlinks, FIFOs, device nodes), resolved by the kernel with openat2()'s
 * RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS: no "..", absolute path or
 * symlink leads out of it, whatever the tree looks like when the call
 * runs. No check on the string stands in for the kernel's; the string is
 * only refused where the kernel would read it differently from the caller
 * (a NUL inside, an absolute path, a name that is a directory's).
 *
 * Errors: -EINVAL a path refused as written (beneath_path_problem() says
 * why), -EXDEV it leads out, -ELOOP a symlink loop or a /proc magic link,
 * -ENOENT, -EISDIR a directory where a file is wanted (-ENOTDIR the
 * reverse), -ENODEV not a regular file (a FIFO, a device, a socket),
 * -EFBIG more than the cap, -EEXIST the file is there and replacing was not
 * asked.
 */

/* Why path (len bytes, from a JSON string that may hold a NUL) is refused as written, or NULL. */
const char *beneath_path_problem(const char *path, size_t len);

/* The directory at path ("" or ".": root itself), O_RDONLY|O_DIRECTORY. The fd, or a negative errno. */
int beneath_open_dir(int rootfd, const char *path);

/* The regular file at path, opened for reading, at most max bytes long (its size in *ret_size). The fd. */
int beneath_open_read(int rootfd, const char *path, uint64_t max, uint64_t *ret_size);

/* Whether path (written beneath root) names a directory there: 1, 0 (anything else, or nothing), or an error. */
int beneath_is_dir(int rootfd, const char *path);

/*
 * A file being written at path: created 0600 under a random name beside
 * it, renamed over path by beneath_commit() only once it is whole, so a
 * reader never sees half of it. Refused up front when path is there and
 * replace is false (-EEXIST), or is there and not a regular file or a
 * symlink (replacing puts the new file in the link's place, never writes
 * through it).
 */
struct beneath_file {
        int dirfd;
        int fd;                 /* write the content here */
        bool replace;
        char leaf[NAME_MAX + 1];
        char tmp[NAME_MAX + 1];
};

int beneath_create(int rootfd, const char *path, bool replace, mode_t mode, struct beneath_file *ret);
/* Renames the temporary file over path (never over a file that appeared meanwhile, unless replacing). */
int beneath_commit(struct beneath_file *f);
/* Closes it; the temporary file is removed when it was not committed. */
void beneath_file_done(struct beneath_file *f);

/* Removes the regular file (or the symlink itself, never its target) at path. */
int beneath_remove(int rootfd, const char *path);

/*
 * The same resolution without openat2() (beneath-walk.c): a component at
 * a time, for kernels before 5.6 and for valgrind, which does not know the
 * call. Every function above falls back to it on -ENOSYS; the tests run
 * their corpus through both (beneath_force_walk()).
 */
int beneath_walk_open(int rootfd, const char *path, int flags);
void beneath_force_walk(bool on);
