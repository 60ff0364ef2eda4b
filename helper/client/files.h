/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "json.h"
#include "profile.h"

/*
 * Files between an agent and its desktop (botdesk files, the MCP tools
 * file_upload, file_download, file_list and downloads): every path is the
 * desktop's home's, its state dir ($XDG_STATE_HOME/botdesk/PROFILE, where
 * its settings, its browser profile and its Downloads live), resolved
 * beneath it by the kernel (beneath.h). Written whole or not at all, 0600.
 * The callers gate them with the lease and journal them: name, size and
 * SHA-256, never the content.
 */

/* The browser's download folder in the home: the desktop's XDG_DOWNLOAD_DIR (desktop/session.c seeds it). */
#define FILES_DOWNLOADS_DIR PROFILE_DOWNLOADS_DIR
/* How long a wait for a download may be asked to take: under an MCP client's 60 s request timeout. */
#define FILES_WAIT_MS_MAX 50000u

/* Room for a time as files.c writes it (RFC 3339, UTC, milliseconds). */
#define FILES_TIME_MAX 32

struct files_transfer {
        char *path;             /* where, in the home */
        uint64_t size;
        char sha256[65];        /* hex */
};

void files_transfer_done(struct files_transfer *t);

/* The home of profile's desktop, opened (O_DIRECTORY, never through a symlink). The fd, or a negative errno. */
int files_home_open(const char *profile);

/* Why a path cannot be used, in words naming the rule, for r (a beneath.h error); NULL for those the callers word (-EEXIST, -EFBIG). */
const char *files_error_rule(int r);

/* Asked just before a file written into the home takes its name (the lease's
 * check): false leaves nothing written, -ESTALE. NULL: no check. */
struct files_gate {
        bool (*still)(void *userdata);
        void *userdata;
};

/*
 * Into the home at dest: the bytes of src_fd (at most max) or data.
 * When dest is a directory of the home (or empty), the file goes into it
 * under name. Refused with -EEXIST when it exists and replace is false.
 */
int files_put_fd(int home, const char *dest, const char *name, int src_fd, uint64_t max, bool replace,
                 const struct files_gate *gate, struct files_transfer *ret);
int files_put_data(int home, const char *dest, const void *data, size_t size, bool replace,
                   const struct files_gate *gate, struct files_transfer *ret);

/* Out of the home: the file at src to dst_fd, or into memory (new, *ret_data). At most max bytes. */
int files_get_fd(int home, const char *src, uint64_t max, int dst_fd, struct files_transfer *ret);
int files_get_data(int home, const char *src, uint64_t max, uint8_t **ret_data, struct files_transfer *ret);

/* An entry of a directory of the home, as ls shows it. */
struct files_entry {
        char *name;
        const char *type;       /* file, directory, symlink or other */
        uint64_t size;
        char mtime[FILES_TIME_MAX];     /* RFC 3339, UTC, to the millisecond */
};

/* The entries of the directory dir (NULL or "": the home itself), by name. */
int files_list(int home, const char *dir, struct files_entry **ret, size_t *ret_n);
void files_entries_free(struct files_entry *e, size_t n);
/* {"path": dir, "entries": [{name, type, size, mtime}]} through j. */
void files_list_write(struct json *j, const char *dir, const struct files_entry *e, size_t n);

/* Removes the file (or the symlink itself) at path. */
int files_remove(int home, const char *path);

/* A point in the downloads' history: what `downloads` answers as "cursor", and takes as since. */
int files_cursor_parse(const char *s, struct timespec *ret);

/*
 * What appeared in Downloads after since (finished: not a browser's
 * partial file), oldest first, as {"files": [{name, path, size, time}],
 * "cursor"} through j; *ret_count how many. With wait_ms and none yet,
 * first waits (inotify, at most wait_ms) for one to finish.
 */
int files_downloads(int home, const struct timespec *since, unsigned wait_ms, struct json *j, unsigned *ret_count);

/* The MIME type a file's name suggests (for MCP's resource blobs): a few common ones, else application/octet-stream. */
const char *files_mime_type(const char *name);
