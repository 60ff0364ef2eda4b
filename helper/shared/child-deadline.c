/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <sys/pidfd.h>
#include <sys/signalfd.h>
#include <sys/wait.h>

#include "child-deadline.h"
#include "util.h"

struct watch {
        const struct child_deadline *d;
        pid_t pid;
        int pidfd;
        int chldfd;             /* without pidfds: a signalfd of SIGCHLD */
        bool exited;
        siginfo_t si;
};

/* Before the child is reaped its pid is still its own: kill() is safe then too. */
static void signal_child(const struct watch *w, int sig) {
        if (w->d->group)
                (void) kill(-w->pid, sig);
        else if (w->pidfd >= 0)
                (void) pidfd_send_signal(w->pidfd, sig, NULL, 0);
        else
                (void) kill(w->pid, sig);
}

/* Reads what fd has and hands it on; false at EOF or on a hard error. */
static bool drain(const struct child_deadline *d, int fd, enum child_stream stream) {
        char buf[4096];
        ssize_t n = read(fd, buf, sizeof buf);

        if (n < 0)
                return errno == EINTR || errno == EAGAIN;
        if (n == 0)
                return false;
        if (d->on_output)
                d->on_output(stream, buf, (size_t) n, d->userdata);
        return true;
}

static bool reap(struct watch *w, int options) {
        int r;

        w->si = (siginfo_t) {};
        r = w->pidfd >= 0 ? waitid(P_PIDFD, (id_t) w->pidfd, &w->si, WEXITED | options)
                          : waitid(P_PID, (id_t) w->pid, &w->si, WEXITED | options);
        if (r < 0 || w->si.si_pid == 0)
                return false;
        w->exited = true;
        return true;
}

static int watch_loop(struct watch *w, int sfd, int out_r, int err_r, bool *ret_timed_out) {
        const struct child_deadline *d = w->d;
        unsigned long long deadline = d->timeout_usec ? now_usec() + d->timeout_usec : 0;
        bool out_open = out_r >= 0, err_open = err_r >= 0;
        unsigned stage = 0;    /* 1 after SIGTERM, 2 after SIGKILL */

        while (!w->exited || out_open || err_open) {
                struct pollfd p[4] = {
                        { .fd = w->exited ? -1 : w->pidfd >= 0 ? w->pidfd : w->chldfd, .events = POLLIN },
                        { .fd = sfd, .events = POLLIN },
                        { .fd = out_open ? out_r : -1, .events = POLLIN },
                        { .fd = err_open ? err_r : -1, .events = POLLIN },
                };
                int wait_ms = -1, r;

                if (w->exited)
                        /* The child is gone; a grandchild may still hold the
                         * pipes: read what is there, do not wait for it. */
                        wait_ms = 0;
                else if (deadline) {
                        unsigned long long now = now_usec();

                        if (now >= deadline) {
                                if (stage == 2)
                                        return 0;   /* out of our reach: stop waiting */
                                *ret_timed_out = true;
                                signal_child(w, stage == 0 ? SIGTERM : SIGKILL);
                                stage++;
                                deadline = now + d->grace_usec;
                                continue;
                        }
                        unsigned long long ms = (deadline - now + 999) / 1000;

                        wait_ms = ms > INT32_MAX ? INT32_MAX : (int) ms;
                }
                r = poll(p, ELEMENTSOF(p), wait_ms);
                if (r < 0) {
                        if (errno == EINTR)
                                continue;
                        return negative_errno();
                }
                if (r == 0 && w->exited)
                        break;
                if (p[0].revents & POLLIN) {
                        struct signalfd_siginfo si;

                        if (w->pidfd < 0)
                                while (read(w->chldfd, &si, sizeof si) == (ssize_t) sizeof si)
                                        ;
                        (void) reap(w, WNOHANG);
                }
                if (p[1].revents & POLLIN) {
                        struct signalfd_siginfo si;

                        while (read(sfd, &si, sizeof si) == (ssize_t) sizeof si)
                                if (!w->exited)
                                        signal_child(w, (int) si.ssi_signo);
                }
                if (p[2].revents & (POLLIN | POLLHUP | POLLERR))
                        out_open = drain(d, out_r, CHILD_STDOUT);
                if (p[3].revents & (POLLIN | POLLHUP | POLLERR))
                        err_open = drain(d, err_r, CHILD_STDERR);
        }
        return 0;
}

int child_deadline_run(const struct child_deadline *d, child_spawn_fn spawn_fn, void *spawn_data,
                       struct child_deadline_result *ret) {
        _cleanup_close_ int sfd = -EBADF, out_r = -EBADF, out_w = -EBADF, err_r = -EBADF, err_w = -EBADF;
        _cleanup_close_ int pidfd = -EBADF, chldfd = -EBADF;
        struct watch w = { .d = d, .pid = -1, .pidfd = -EBADF, .chldfd = -EBADF };
        bool timed_out = false, blocked = false, have_pidfd;
        sigset_t mask, chld, old;
        int r;

        /* Kernels before 5.3 (and valgrind 3.19) have no pidfd_open(): a
         * signalfd of SIGCHLD, blocked before the child exists, then wakes
         * the loop, and waitid() of the pid reaps it. */
        pidfd = pidfd_open(getpid(), 0);
        have_pidfd = pidfd >= 0 || errno != ENOSYS;
        pidfd = safe_close(pidfd);

        *ret = (struct child_deadline_result) { .status = -1 };
        if (!d || !spawn_fn)
                return -EINVAL;
        r = d->read_stdout ? pipe_cloexec(&out_r, &out_w) : 0;
        if (r >= 0 && d->read_stderr && !(d->read_stdout && d->merge_stderr))
                r = pipe_cloexec(&err_r, &err_w);
        if (r < 0)
                return r;
        sigemptyset(&mask);
        if (d->forward_signals) {
                sigaddset(&mask, SIGINT);
                sigaddset(&mask, SIGTERM);
                sigaddset(&mask, SIGHUP);
        }
        sigemptyset(&chld);
        if (!have_pidfd)
                sigaddset(&chld, SIGCHLD);
        if (d->forward_signals || !have_pidfd) {
                sigset_t both = mask;

                if (!have_pidfd)
                        sigaddset(&both, SIGCHLD);
                if (sigprocmask(SIG_BLOCK, &both, &old) < 0)
                        return negative_errno();
                blocked = true;
        }
        if (d->forward_signals && (sfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK)) < 0) {
                r = negative_errno();
                goto finish;
        }
        if (!have_pidfd && (chldfd = signalfd(-1, &chld, SFD_CLOEXEC | SFD_NONBLOCK)) < 0) {
                r = negative_errno();
                goto finish;
        }
        w.chldfd = chldfd;

        r = spawn_fn(out_w, d->read_stderr && d->merge_stderr && out_w >= 0 ? out_w : err_w, &w.pid, spawn_data);
        out_w = safe_close(out_w);
        err_w = safe_close(err_w);
        if (r < 0)
                goto finish;
        pidfd = have_pidfd ? pidfd_open(w.pid, 0) : -EBADF;
        if (have_pidfd && pidfd < 0) {
                r = negative_errno();
                (void) kill(d->group ? -w.pid : w.pid, SIGKILL);
                (void) waitpid(w.pid, NULL, 0);
                goto finish;
        }
        w.pidfd = pidfd;

        r = watch_loop(&w, sfd, out_r, err_r, &timed_out);
        if (r < 0 && !w.exited) {
                signal_child(&w, SIGKILL);
                (void) reap(&w, 0);
        }
        if (w.exited) {
                ret->signaled = w.si.si_code != CLD_EXITED;
                ret->status = ret->signaled ? 128 + w.si.si_status : w.si.si_status;
        }
        ret->timed_out = timed_out;
        if (r >= 0 && timed_out)
                r = -ETIME;
finish:
        if (blocked)
                (void) sigprocmask(SIG_SETMASK, &old, NULL);
        return r;
}
