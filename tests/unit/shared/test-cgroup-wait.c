/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The wait for an empty cgroup when inotify is unavailable (EMFILE: the
 * user's fs.inotify.max_user_instances used up). A fixture tree stands in
 * for the cgroup file system; this test plays the kernel: it rewrites
 * cgroup.procs and cgroup.events, then lets the process go, in the order the
 * kernel does (a process leaves its cgroup before its exit is reported).
 */
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "cgroup.h"
#include "cgroup-wait.h"
#include "tap.h"
#include "util.h"

static char root[] = "/tmp/botdesk-cgwait.XXXXXX";

static void put(const char *dir, const char *file, const char *text) {
        _cleanup_close_ int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

        if (dfd < 0 || write_file_atomic_at(dfd, file, text, strlen(text), 0644) < 0) {
                printf("Bail out! cannot write %s/%s\n", dir, file);
                exit(1);
        }
}

static void remove_group(const char *dir) {
        _cleanup_close_ int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

        if (dfd >= 0) {
                (void) unlinkat(dfd, "cgroup.procs", 0);
                (void) unlinkat(dfd, "cgroup.events", 0);
        }
        (void) rmdir(dir);
}

static void set_group(const char *dir, bool populated, const char *procs) {
        put(dir, "cgroup.procs", procs);
        put(dir, "cgroup.events", populated ? "populated 1\nfrozen 0\n" : "populated 0\nfrozen 0\n");
}

/* A process that only waits to be killed. */
static pid_t sleeper(void) {
        pid_t pid = fork();

        if (pid == 0) {
                for (;;)
                        pause();
        }
        return pid;
}

static void end(pid_t pid) {
        kill(pid, SIGKILL);
        (void) waitpid(pid, NULL, 0);
}

/* Run the wait in a child with inotify "failing" with EMFILE; its exit code is -r. */
static pid_t waiter(const char *cg, unsigned long long timeout_usec, int *ret_pidfd) {
        pid_t pid = fork();

        if (pid == 0) {
                int r = cgroup_wait_empty_with(cg, timeout_usec, -EMFILE);
                _exit(r < 0 ? (-r & 0xff) : 0);
        }
        *ret_pidfd = (int) syscall(SYS_pidfd_open, pid, 0);
        return pid;
}

/* 1 when the waiter ended within ms (its status in *status), 0 when it still waits. */
static int ended_within(pid_t pid, int pidfd, int ms, int *status) {
        struct pollfd pfd = { .fd = pidfd, .events = POLLIN };

        if (poll(&pfd, 1, ms) <= 0)
                return 0;
        (void) waitpid(pid, status, 0);
        return 1;
}

/* The real kernel, where this process may create a cgroup next to itself. */
static void real_cgroup(void) {
        _cleanup_free_ char *mount = NULL, *self = NULL, *cg = NULL;
        pid_t c;
        int r;

        if (cgroup_v2_mount(&mount) < 0 || cgroup_path_of(0, &self) < 0 ||
            !(cg = strdup_printf("%s%s/botdesk-%u-cgwait-%d", mount, streq(self, "/") ? "" : self,
                                 (unsigned) getuid(), (int) getpid())) ||
            cgroup_create(cg) < 0) {
                printf("ok %u - # SKIP no writable cgroup v2 sub-tree here for a real cgroup\n", ++tap_n);
                return;
        }
        c = sleeper();
        r = cgroup_attach(cg, c);
        if (r < 0) {
                end(c);
                (void) cgroup_remove(cg);
                printf("ok %u - # SKIP cannot move a process into %s: %s\n", ++tap_n, cg, strerror(-r));
                return;
        }
        TAP_EQ_INT(cgroup_wait_empty_with(cg, 200000, -EMFILE), -ETIMEDOUT,
                   "a real populated cgroup without inotify: the wait times out while its process lives");
        /* Not our child's exit via waitpid: the kernel's own order decides. */
        kill(c, SIGKILL);
        TAP_EQ_INT(cgroup_wait_empty_with(cg, 5000000, -EMFILE), 0,
                   "a real cgroup without inotify: the wait returns once its process is killed");
        TAP_EQ_INT(cgroup_populated(cg), 0, "and the cgroup is indeed empty then");
        (void) waitpid(c, NULL, 0);
        TAP_EQ_INT(cgroup_remove(cg), 0, "and can be removed");
}

/* Fixed buffers, not the heap: the waiter children exit without freeing. */
static char cg[128], sub[192], gone[192], p1[32], p2[32];

static const char *procs_of(char *buf, size_t size, pid_t a) {
        snprintf(buf, size, "%d\n", (int) a);
        return buf;
}

int main(void) {
        unsigned long long t0;
        pid_t c1, c2, w;
        int wfd, status = -1, r;

        if (!mkdtemp(root)) {
                printf("Bail out! mkdtemp: %s\n", strerror(errno));
                return 1;
        }
        snprintf(cg, sizeof cg, "%s/botdesk-0-fixture", root);
        snprintf(sub, sizeof sub, "%s/x11", cg);
        snprintf(gone, sizeof gone, "%s/never-created", root);
        if (mkdir(cg, 0755) < 0 || mkdir(sub, 0755) < 0) {
                printf("Bail out! cannot build the fixture tree\n");
                return 1;
        }

        TAP_EQ_INT(cgroup_wait_empty_with(gone, 1000000, -EMFILE), 0,
                   "without inotify, a cgroup that does not exist is empty");
        set_group(cg, false, "");
        set_group(sub, false, "");
        TAP_EQ_INT(cgroup_wait_empty_with(cg, 1000000, -EMFILE), 0,
                   "without inotify, an unpopulated cgroup is empty at once");

        /* Everything below waits on pidfds (valgrind 3.19 lacks the syscall). */
        {
                int probe = (int) syscall(SYS_pidfd_open, getpid(), 0);

                if (probe < 0 && errno == ENOSYS) {
                        TAP_EQ_INT(cgroup_wait_empty_with(gone, 1000000, -EMFILE), 0,
                                   "without pidfds either, a missing cgroup is still empty");
                        printf("ok %u # SKIP pidfd_open is not available here (ENOSYS): no pidfd waits to test\n",
                               ++tap_n);
                        remove_group(sub);
                        remove_group(cg);
                        (void) rmdir(root);
                        return tap_done();
                }
                safe_close(probe);
        }

        /* One process that stays: the wait must not pretend it is gone. */
        c1 = sleeper();
        set_group(cg, true, procs_of(p1, sizeof p1, c1));
        t0 = now_usec();
        r = cgroup_wait_empty_with(cg, 300000, -EMFILE);
        TAP_EQ_INT(r, -ETIMEDOUT, "without inotify, a process that stays makes the wait time out");
        tap_ok(now_usec() - t0 >= 300000 && now_usec() - t0 < 3000000,
               "the timed-out wait lasted its timeout (%llu ms), not less, not much more", (now_usec() - t0) / 1000);

        /* Two processes, one in a sub-group: the wait returns only after both left. */
        c2 = sleeper();
        set_group(sub, true, procs_of(p2, sizeof p2, c2));
        w = waiter(cg, 10000000, &wfd);
        tap_ok(wfd >= 0 && !ended_within(w, wfd, 300, &status),
               "without inotify, the wait blocks while two processes remain");
        /* The kernel's order: out of the cgroup first, then the exit. */
        set_group(cg, true, "");
        end(c1);
        tap_ok(!ended_within(w, wfd, 300, &status),
               "the wait still blocks after one exit while a sub-group keeps a process");
        set_group(sub, false, "");
        set_group(cg, false, "");
        end(c2);
        tap_ok(ended_within(w, wfd, 5000, &status), "the wait returns once the last process exited (within 5 s)");
        TAP_EQ_INT(WIFEXITED(status) ? WEXITSTATUS(status) : -1, 0, "and says the cgroup is empty");
        safe_close(wfd);

        remove_group(sub);
        remove_group(cg);
        real_cgroup();
        (void) rmdir(root);
        return tap_done();
}
