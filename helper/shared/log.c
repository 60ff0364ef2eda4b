/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <stdarg.h>

#include "log.h"

static const char *log_program = "botdesk";
static int log_max_level = LOG_INFO;
static bool log_prefix_priority;

void log_setup(const char *program) {
        const char *e;

        log_program = program;
        /* stderr connected to the journal: "<N>" prefixes carry the priority. */
        log_prefix_priority = getenv("JOURNAL_STREAM") != NULL;
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
        vfprintf(stderr, fmt, ap);
        va_end(ap);
        fputc('\n', stderr);
        errno = saved;
        return -error;
}
