/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <errno.h>

#include <syslog.h>
#include "util.h"

/*
 * Logging for the two binaries. The helper logs to stderr, which is the
 * journal under systemd (then lines carry a "<N>" priority prefix that the
 * journal understands) or the profile's log file in standalone mode. The CLI
 * prints "botdesk: message" to stderr.
 */

struct stat;

void log_setup(const char *program);
/* Does JOURNAL_STREAM's "DEVICE:INODE" value name the file st describes? */
bool journal_stream_matches(const char *value, const struct stat *st);
void log_set_max_level(int level);
int log_get_max_level(void);

/* From now on keep the first message of level LOG_ERR or worse (its first 511 bytes), which
 * log_first_error() returns (NULL before one): the CLI's --json error object says it. */
void log_keep_first_error(void);
const char *log_first_error(void);

/* Returns -abs(error) so that callers can write `return log_error_errno(r, ...)`. */
int log_full_errno(int level, int error, const char *fmt, ...) _printf_(3, 4);

#define log_debug(...) log_full_errno(LOG_DEBUG, 0, __VA_ARGS__)
#define log_info(...) log_full_errno(LOG_INFO, 0, __VA_ARGS__)
#define log_notice(...) log_full_errno(LOG_NOTICE, 0, __VA_ARGS__)
#define log_warning(...) log_full_errno(LOG_WARNING, 0, __VA_ARGS__)
#define log_error(...) log_full_errno(LOG_ERR, 0, __VA_ARGS__)
#define log_debug_errno(e, ...) log_full_errno(LOG_DEBUG, e, __VA_ARGS__)
#define log_warning_errno(e, ...) log_full_errno(LOG_WARNING, e, __VA_ARGS__)
#define log_error_errno(e, ...) log_full_errno(LOG_ERR, e, __VA_ARGS__)
/* "Out of memory.", said once the same way everywhere; returns -ENOMEM. */
#define log_oom() log_full_errno(LOG_ERR, ENOMEM, "Out of memory.")
