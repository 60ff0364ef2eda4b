/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/*
 * An install's progress, published for `botdesk watch`. An install is no
 * profile's, so its progress lives beside the profiles, in the user's
 * RUNTIME_BASE/install-progress, where every watch of the user looks.
 * One file per install: install creates it under a temporary name, takes
 * an flock on it that it holds until it ends, and renames it into place
 * before the package manager runs. So a new inode is a new install, and a
 * locked file is an install still running. Then one record a line, each
 * one write(2) through O_APPEND:
 *
 *     "| TEXT\n"   a line of the package manager's output, cut to
 *                  INSTALL_PROGRESS_LINE_MAX bytes
 *     "= N\n"      the end: N the package manager's exit status as install
 *                  reports it (128 + the signal that ended it, the
 *                  deadline's kill too; -1 when it could not be run or
 *                  outlived the kills)
 *
 * A reader skips records of any other kind, so the format can grow. An
 * install killed before its end record leaves its file unlocked without
 * one: the reader reports that end itself, as INSTALL_EXIT_UNKNOWN.
 */
#define INSTALL_PROGRESS_FILE "install-progress"
#define INSTALL_PROGRESS_LINE_MAX 4096
#define INSTALL_EXIT_UNKNOWN (-1)       /* no status known: not run, outlived the kills, or install was killed */

/* The writer: a new progress file in place, locked, opened O_APPEND; the fd, or -errno. */
int install_progress_begin(void);
/* One line (without its newline), cut to INSTALL_PROGRESS_LINE_MAX; 0 or -errno. */
int install_progress_line(int fd, const char *s, size_t n);
/* The end record; 0 or -errno. Closing fd then lets the lock go. */
int install_progress_done(int fd, int status);

/*
 * The reader: follows the progress file of dirfd (the runtime base) from
 * install to install. Each record is handed to on_record as it is read:
 * a line (done false), or the end (line NULL, done true, its exit).
 */
typedef void (*install_record_fn)(const char *line, bool done, int exit, void *userdata);

struct install_follow {
        int fd;                 /* the file followed, -EBADF before the first */
        dev_t dev;
        ino_t ino;
        char buf[INSTALL_PROGRESS_LINE_MAX + 64];
        size_t len;
        bool skipping;          /* dropping the rest of a record too long for buf */
        bool ended;             /* its end was reported (or it had ended before we came) */
        install_record_fn on_record;
        void *userdata;
};

void install_follow_init(struct install_follow *f, install_record_fn on_record, void *userdata);
void install_follow_done(struct install_follow *f);

/*
 * Start following: the install that runs now from its first line (a watch
 * started midway shows all of it), a finished one not at all. 0 also when
 * there is no file yet; -errno.
 */
int install_follow_start(struct install_follow *f, int dirfd);

/*
 * Read what was appended; with look, also whether another install's file
 * took the name (its inotify IN_MOVED_TO, or an overflow): what is left of
 * the old one is read first, then the new one from its first line. A file
 * whose writer let its lock go without an end record (its close makes an
 * IN_CLOSE_WRITE) is ended with INSTALL_EXIT_UNKNOWN. 0 or -errno.
 */
int install_follow_update(struct install_follow *f, int dirfd, bool look);
