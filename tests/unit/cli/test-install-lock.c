/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The install lock is not holdable by another uid: root's lock file (in a
 * fixture standing for /run/botdesk) is 0600 and root's, even when an older
 * one was 0644, so a second uid cannot open it, let alone flock it; anyone
 * else's lock is in their own 0700 runtime dir.
 */
#include <errno.h>
#include <grp.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "install-lock.h"
#include "tap.h"
#include "util.h"

/* In a child of uid 65534: 0 when it could open and lock path, else its errno. */
static int lock_as_nobody(const char *path) {
        int status;
        pid_t pid = fork();

        if (pid == 0) {
                int fd;

                if (setgroups(0, NULL) < 0 || setgid(65534) < 0 || setuid(65534) < 0)
                        _exit(100);
                fd = open(path, O_RDONLY | O_CLOEXEC);
                if (fd < 0)
                        _exit(errno);
                _exit(flock(fd, LOCK_EX | LOCK_NB) < 0 ? errno : 0);
        }
        if (pid < 0 || waitpid(pid, &status, 0) < 0 || !WIFEXITED(status))
                return -1;
        return WEXITSTATUS(status);
}

int main(void) {
        char dir[] = "/tmp/botdesk-install-lock.XXXXXX", run[64], lock[96], rt[96];
        _cleanup_free_ char *path = NULL;
        struct stat st;
        int fd, r;

        if (!mkdtemp(dir))
                return 1;
        snprintf(run, sizeof run, "%s/run", dir);
        snprintf(lock, sizeof lock, "%s/install.lock", run);
        snprintf(rt, sizeof rt, "%s/xdg", dir);
        (void) mkdir(rt, 0700);
        setenv("XDG_RUNTIME_DIR", rt, 1);

        if (geteuid() != 0) {
                fd = install_lock_take("/nonexistent", &path);
                tap_ok(fd >= 0 && path && strncmp(path, rt, strlen(rt)) == 0,
                       "a user's install lock is in the user's own runtime dir (%s)", strnull(path));
                tap_ok(fd >= 0 && fstat(fd, &st) == 0 && (st.st_mode & 077) == 0, "and it is 0600");
                tap_skip_host("root's lock file is 0600 and no other uid can hold it # SKIP needs root (a second uid)");
        } else {
                /* /run/botdesk as root made it, holding the 0644 file of an older tmpfiles.d. */
                (void) mkdir(run, 0755);
                (void) chmod(run, 0755);
                fd = open(lock, O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
                (void) fchmod(fd, 0644);
                safe_close(fd);
                (void) chmod(dir, 0755);

                fd = install_lock_take(run, &path);
                TAP_EQ_STR(path, lock, "root's install takes the lock in the root-made run dir");
                st = (struct stat) {};
                if (fd >= 0)
                        (void) fstat(fd, &st);
                tap_ok(fd >= 0 && (st.st_mode & 07777) == 0600 && st.st_uid == 0,
                       "root's lock file is 0600 and root's, the older 0644 one narrowed (mode %04o)",
                       (unsigned) (st.st_mode & 07777));
                safe_close(fd);
                r = lock_as_nobody(lock);
                TAP_EQ_INT(r, EACCES, "another uid cannot open root's lock file (EACCES), so cannot hold it");
                free(path);
                path = NULL;
                fd = install_lock_take(run, &path);
                tap_ok(fd >= 0, "and root's next install takes it");
                safe_close(fd);
                (void) unlink(lock);
                (void) rmdir(run);
        }
        (void) rmdir(rt);
        (void) rmdir(dir);
        return tap_done();
}
