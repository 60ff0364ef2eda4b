/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <sys/file.h>

#include "procfs.h"
#include "cgroup.h"
#include "envfile.h"
#include "profile.h"
#include "record.h"
#include "token-kill.h"
#include "util.h"

void helper_record_done(struct helper_record *r) {
        free(r->cgroup);
        free(r->token);
        free(r->placement);
        free(r->unit);
        free(r->alias);
        *r = (struct helper_record) { .display = -1 };
}

int helper_record_write_at(int dirfd, const struct helper_record *r) {
        _cleanup_free_ char *text = strdup_printf(
                "PID=%d\nSTARTTIME=%llu\nCGROUP=%s\nTOKEN=%s\nPLACEMENT=%s\nUNIT=%s\nDISPLAY=%d\nSTARTED_AT=%llu\n%s%s%s",
                (int) r->pid, r->starttime, r->cgroup ?: "", r->token ?: "", r->placement ?: "",
                r->unit ?: "", r->display, r->started_at, r->alias ? "ALIAS=" : "", r->alias ?: "",
                r->alias ? "\n" : "");

        if (!text)
                return -ENOMEM;
        return write_file_atomic_at(dirfd, HELPER_RECORD_FILE, text, strlen(text), 0600);
}

static char *nonempty_dup(const char *s) {
        return s && *s ? strdup(s) : NULL;
}

int helper_record_read_at(int dirfd, struct helper_record *r) {
        _cleanup_free_ char *text = NULL;
        _cleanup_strv_free_ char **env = NULL;
        unsigned long long v;
        const char *s;
        size_t size;
        unsigned line;
        int k;

        *r = (struct helper_record) { .display = -1 };
        k = read_full_file_at(dirfd, HELPER_RECORD_FILE, &text, &size, 4096);
        if (k < 0)
                return k;
        k = envfile_parse(text, size, &env, &line);
        if (k < 0)
                return k;
        s = strv_env_get(env, "PID");
        if (!s || parse_uint(s, INT32_MAX, &v) < 0 || v == 0)
                return -EBADMSG;
        r->pid = (pid_t) v;
        s = strv_env_get(env, "STARTTIME");
        if (!s || parse_uint(s, ULLONG_MAX, &r->starttime) < 0)
                return -EBADMSG;
        s = strv_env_get(env, "DISPLAY");
        if (s && parse_uint(s, 65535, &v) >= 0)
                r->display = (int) v;
        s = strv_env_get(env, "STARTED_AT");
        if (s)
                (void) parse_uint(s, ULLONG_MAX, &r->started_at);
        r->cgroup = nonempty_dup(strv_env_get(env, "CGROUP"));
        r->token = nonempty_dup(strv_env_get(env, "TOKEN"));
        r->placement = nonempty_dup(strv_env_get(env, "PLACEMENT"));
        r->unit = nonempty_dup(strv_env_get(env, "UNIT"));
        s = strv_env_get(env, "ALIAS");
        if (s && spare_name_valid(s))
                r->alias = strdup(s);
        return 0;
}

int helper_reap_after_stop(struct helper_record *r) {
        if (streq_ptr(r->placement, "user-unit")) {
                free(r->cgroup);
                r->cgroup = NULL;
        }
        return r->pid > 0 ? helper_reap_leftovers(r) : 0;
}

int helper_lock_take(int dirfd) {
        return lock_file_at(dirfd, HELPER_LOCK_FILE, false);
}

int helper_lock_held(int dirfd) {
        /* O_NONBLOCK: a FIFO in its place must not hang a status. */
        _cleanup_close_ int fd = openat(dirfd, HELPER_LOCK_FILE, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);

        if (fd < 0)
                return errno == ENOENT ? 0 : negative_errno();
        if (flock(fd, LOCK_SH | LOCK_NB) < 0)
                return errno == EWOULDBLOCK ? 1 : negative_errno();
        return 0;
}

int helper_alive(int dirfd, const struct helper_record *r) {
        unsigned long long st;

        if (helper_lock_held(dirfd) <= 0)
                return 0;
        if (r->pid <= 0 || pid_starttime(r->pid, &st) < 0)
                return 0;
        return st == r->starttime;
}

int helper_reap_leftovers(const struct helper_record *r) {
        int ret = 0, k;

        /* The record is a file: only a botdesk cgroup is ever killed from it,
         * never one a unit owns (systemd kills those, and the next
         * generation may already live there), never one that holds us. */
        if (r->cgroup && cgroup_is_botdesk(r->cgroup) && !streq_ptr(r->placement, "user-unit") &&
            !cgroup_contains_self(r->cgroup)) {
                k = cgroup_destroy(r->cgroup, 5 * 1000000ULL);
                if (k < 0)
                        ret = k;
        }
        /* The token is how processes are found where no cgroup holds them;
         * a desktop with a cgroup (its own, or its unit's) needs no walk of
         * every process on the host. */
        if (r->token && !r->cgroup) {
                k = kill_by_token(r->token, getuid(), false);
                if (k < 0 && ret >= 0)
                        ret = k;
        }
        if (r->alias && ret >= 0)
                paths_remove_spare_alias(r->alias);
        return ret;
}
