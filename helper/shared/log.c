/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <limits.h>
#include <stdarg.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "log.h"

static const char *log_program = "botdesk";
static int log_max_level = LOG_INFO;
static bool log_prefix_priority;
/* The first error said, kept for a --json error object (log_keep_first_error()). */
static bool log_keep;
static char log_first[512];

bool journal_stream_matches(const char *value, const struct stat *st) {
        _cleanup_free_ char *dev = NULL;
        unsigned long long d, i;
        const char *colon;

        if (!value || !st || !(colon = strchr(value, ':')))
                return false;
        dev = strndup(value, (size_t) (colon - value));
        if (!dev || parse_uint(dev, ULLONG_MAX, &d) < 0 || parse_uint(colon + 1, ULLONG_MAX, &i) < 0)
                return false;
        return (dev_t) d == st->st_dev && (ino_t) i == st->st_ino;
}

void log_setup(const char *program) {
        struct stat st;
        const char *e;

        log_program = program;
        /* stderr connected to the journal: "<N>" prefixes carry the priority.
         * JOURNAL_STREAM is inherited by everything below the unit, so it
         * counts only when it names the stream our stderr still is (see
         * systemd.exec(5)): a child whose stderr went elsewhere must not
         * print "<3>" into a terminal or a file. */
        log_prefix_priority = fstat(STDERR_FILENO, &st) == 0 &&
                              journal_stream_matches(getenv("JOURNAL_STREAM"), &st);
        e = getenv("BOTDESK_LOG_LEVEL");
        if (e && streq(e, "debug"))
                log_max_level = LOG_DEBUG;
}

void log_set_max_level(int level) {
        log_max_level = level;
}

int log_get_max_level(void) {
        return log_max_level;
}

void log_keep_first_error(void) {
        log_keep = true;
}

const char *log_first_error(void) {
        return log_first[0] ? log_first : NULL;
}

int log_full_errno(int level, int error, const char *fmt, ...) {
        int saved = errno;
        va_list ap;

        error = error < 0 ? -error : error;
        if (level > log_max_level) {
                errno = saved;
                return -error;
        }
        if (log_prefix_priority)
                fprintf(stderr, "<%d>", level);
        else
                fprintf(stderr, "%s: ", log_program);
        /* %m in fmt should name the error we were given, not a stale errno. */
        errno = error;
        va_start(ap, fmt);
        if (log_keep && level <= LOG_ERR && !log_first[0]) {
                va_list copy;

                va_copy(copy, ap);
                (void) vsnprintf(log_first, sizeof log_first, fmt, copy);
                va_end(copy);
                errno = error;
        }
        vfprintf(stderr, fmt, ap);
        va_end(ap);
        fputc('\n', stderr);
        errno = saved;
        return -error;
}
