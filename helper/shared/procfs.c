/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "procfs.h"
#include "util.h"

/* The unsigned number at p, up to a space or the end. */
static int field_uint(const char *p, unsigned long long *ret) {
        char field[24];
        size_t l = strcspn(p, " \n");

        if (l == 0 || l >= sizeof field)
                return -EBADMSG;
        memcpy(field, p, l);
        field[l] = 0;
        return parse_uint(field, ULLONG_MAX, ret) < 0 ? -EBADMSG : 0;
}

int proc_stat_parse(const char *text, struct proc_stat *ret) {
        const char *p;

        /* comm may contain spaces and ')' itself, so the fields are found
         * after the last ')'. Nothing after comm can contain one. */
        p = strrchr(text, ')');
        if (!p || p[1] != ' ' || !p[2])
                return -EBADMSG;
        *ret = (struct proc_stat) { .state = p[2] };
        /* state is field 3, flags field 9, starttime field 22. */
        p += 2;
        for (int f = 3; f < 22; f++) {
                p = strchr(p, ' ');
                if (!p)
                        return -EBADMSG;
                p++;
                if (f + 1 == 9 && field_uint(p, &ret->flags) < 0)
                        return -EBADMSG;
        }
        return field_uint(p, &ret->starttime);
}

static bool state_dead(char state) {
        return state == 'Z' || state == 'X' || state == 'x';
}

int pid_starttime(pid_t pid, unsigned long long *ret) {
        _cleanup_free_ char *text = NULL;
        struct proc_stat st;
        char path[64];
        int r;

        snprintf(path, sizeof path, "/proc/%d/stat", (int) pid);
        r = read_full_file(path, &text, NULL, 4096);
        if (r < 0)
                return r;
        r = proc_stat_parse(text, &st);
        if (r < 0)
                return r;
        if (state_dead(st.state))
                return -ESRCH;
        *ret = st.starttime;
        return 0;
}

int pidfd_get_pid(int pidfd, pid_t *ret) {
        _cleanup_free_ char *text = NULL;
        char path[64], *line;
        long long v;
        int r;

        snprintf(path, sizeof path, "/proc/self/fdinfo/%d", pidfd);
        r = read_full_file(path, &text, NULL, 4096);
        if (r < 0)
                return r;
        line = strstr(text, "\nPid:\t");
        if (!line)
                return -ENOTTY; /* not a pidfd */
        line += strlen("\nPid:\t");
        line[strcspn(line, "\n")] = 0;
        r = parse_int(line, INT32_MAX, &v);
        if (r < 0)
                return r;
        if (v < 0)
                return -ESRCH;
        if (v == 0)
                return -EREMOTE;
        *ret = (pid_t) v;
        return 0;
}

int pid_comm(pid_t pid, char **ret) {
        _cleanup_free_ char *text = NULL;
        char path[64];
        int r;

        snprintf(path, sizeof path, "/proc/%d/comm", (int) pid);
        r = read_full_file(path, &text, NULL, 64);
        if (r < 0)
                return r;
        text[strcspn(text, "\n")] = '\0';
        *ret = TAKE_PTR(text);
        return 0;
}

int pid_namespace(pid_t pid, const char *kind, ino_t *ret) {
        char path[64];
        struct stat st;

        snprintf(path, sizeof path, "/proc/%d/ns/%s", (int) pid, kind);
        if (stat(path, &st) < 0)
                return negative_errno();
        *ret = st.st_ino;
        return 0;
}

bool pid_alive(const char *proc_root, pid_t pid) {
        _cleanup_free_ char *path = NULL;
        _cleanup_close_ int fd = -EBADF;
        struct proc_stat st;
        char buf[4096];
        ssize_t len;

        if (pid <= 0)
                return false;
        if (!proc_root)
                proc_root = "/proc";

        path = strdup_printf("%s/%d/stat", proc_root, (int) pid);
        if (!path)
                return true; /* cannot tell: assume alive */

        fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
        if (fd < 0) {
                if (errno != ENOENT && errno != ESRCH)
                        return true;
                /* With hidepid= another user's processes vanish from /proc;
                 * the real pid space still knows them (EPERM = exists). */
                if (streq(proc_root, "/proc"))
                        return kill(pid, 0) == 0 || errno == EPERM;
                return false;
        }

        len = read_small(fd, buf, sizeof(buf) - 1);
        if (len == -EFBIG)
                len = sizeof(buf) - 1;
        if (len < 0)
                return len == -ESRCH ? false : true;
        buf[len] = '\0';
        if (proc_stat_parse(buf, &st) < 0)
                return true; /* cannot tell: assume alive */
        return !state_dead(st.state);
}

int pid_environ_has(pid_t pid, const char *entry) {
        _cleanup_free_ char *text = NULL;
        size_t size, len = strlen(entry);
        char path[64];
        int r;

        if (pid <= 0)
                return -EINVAL;
        snprintf(path, sizeof path, "/proc/%d/environ", (int) pid);
        r = read_full_file(path, &text, &size, 1 << 20);
        if (r < 0)
                return r;
        for (size_t i = 0; i < size; i += strnlen(text + i, size - i) + 1)
                if (strnlen(text + i, size - i) == len && memcmp(text + i, entry, len) == 0)
                        return 1;
        return 0;
}
