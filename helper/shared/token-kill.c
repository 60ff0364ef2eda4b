/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <dirent.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/stat.h>

#include "procfs.h"
#include "pid-signal.h"
#include "token-kill.h"
#include "util.h"

struct token_check {
        const char *needle;
        uid_t uid;
        const struct stat *pidns;       /* ours, or NULL: any */
};

/* Of uid, alive, carrying the token: looked up only once the process is pinned. */
static bool token_check(pid_t pid, void *userdata) {
        const struct token_check *t = userdata;
        struct stat st;
        char path[64];

        snprintf(path, sizeof path, "/proc/%d", (int) pid);
        if (stat(path, &st) < 0 || st.st_uid != t->uid)
                return false;
        if (t->pidns) {
                snprintf(path, sizeof path, "/proc/%d/ns/pid", (int) pid);
                if (stat(path, &st) < 0 || st.st_dev != t->pidns->st_dev || st.st_ino != t->pidns->st_ino)
                        return false;
        }
        return pid_alive("/proc", pid) && pid_environ_has(pid, t->needle) > 0;
}

int kill_by_token(const char *token, uid_t uid, bool own_pid_namespace) {
        _cleanup_free_ char *needle = strdup_printf("BOTDESK_TOKEN=%s", token);
        struct stat pidns;
        int killed = 0;

        if (!needle)
                return -ENOMEM;
        if (own_pid_namespace && stat("/proc/self/ns/pid", &pidns) < 0)
                return negative_errno();
        /* Repeat: a process may fork while we walk. Bounded, since every
         * round kills what it saw. */
        for (int round = 0; round < 10; round++) {
                _cleanup_closedir_ DIR *d = opendir("/proc");
                struct dirent *de;
                int seen = 0;

                if (!d)
                        return negative_errno();
                while ((de = readdir(d))) {
                        struct token_check t = { .needle = needle, .uid = uid,
                                                 .pidns = own_pid_namespace ? &pidns : NULL };
                        unsigned long long v;

                        if (parse_uint(de->d_name, INT32_MAX, &v) < 0 || (pid_t) v == getpid())
                                continue;
                        if (pid_signal_checked((pid_t) v, SIGKILL, token_check, &t) > 0) {
                                seen++;
                                killed++;
                        }
                }
                if (seen == 0)
                        break;
        }
        return killed;
}
