/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * botdesk web: a profile placed through an exec prefix (placement = exec).
 * Its desktop runs elsewhere, so each piece of its service is a child of
 * botdesk's own CLI, which runs the verb through the prefix: the stream is
 * `botdesk rfb P --viewer ID` on a socketpair, the lease followed from the
 * first stream on by `botdesk watch P --json`, the buttons `botdesk lease P
 * take|release --json`. A job is one such child: its stdout (bounded)
 * and the tail of its stderr are read on the loop, its exit is a child
 * source, and its callback runs once with all three (a watch's stdout goes
 * to a callback line by line instead, as it comes). Nothing here blocks: a
 * cancelled job is sent SIGTERM (the CLI passes it on to the prefix),
 * SIGKILL a grace later, and is reaped all the same.
 */
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "json.h"
#include "log.h"
#include "util.h"
#include "web.h"

#define JOB_OUT_MAX (64U * 1024U)
#define JOB_ERR_MAX 1024U
#define JOB_LINE_MAX 4096U
/* Long enough for a CLI to end its prefix and exit, a sanitizer build included. */
#define JOB_KILL_GRACE_USEC (5ULL * 1000000ULL)

struct web_job {
        struct web_server *server;
        pid_t pid;
        int out_fd, err_fd;
        sd_event_source *child, *out_io, *err_io, *kill_timer;
        web_job_done_t done;            /* NULL once cancelled */
        web_job_line_t on_line;         /* NULL: stdout kept for done */
        void *userdata;
        char line[JOB_LINE_MAX + 1];
        size_t line_len;
        bool line_long;                 /* the line so far is past JOB_LINE_MAX: dropped at its end */
        char *out;
        size_t out_len;
        char err[JOB_ERR_MAX + 1];
        size_t err_len;
        struct web_job *next;
};

static void job_free(struct web_job *job) {
        struct web_server *s = job->server;

        for (struct web_job **i = &s->jobs; *i; i = &(*i)->next)
                if (*i == job) {
                        *i = job->next;
                        break;
                }
        s->n_jobs--;
        sd_event_source_disable_unref(job->child);
        sd_event_source_disable_unref(job->out_io);
        sd_event_source_disable_unref(job->err_io);
        sd_event_source_disable_unref(job->kill_timer);
        safe_close(job->out_fd);
        safe_close(job->err_fd);
        free(job->out);
        free(job);
}

static void out_lines(struct web_job *job, const char *buf, size_t n) {
        for (size_t i = 0; i < n && job->on_line && job->done; i++) {
                if (buf[i] != '\n') {
                        if (job->line_len < JOB_LINE_MAX)
                                job->line[job->line_len++] = buf[i];
                        else
                                job->line_long = true;
                        continue;
                }
                job->line[job->line_len] = '\0';
                if (!job->line_long)
                        job->on_line(job->line, job->userdata);
                job->line_len = 0;
                job->line_long = false;
        }
}

static void out_append(struct web_job *job, const char *buf, size_t n) {
        /* Past the bound, the rest is dropped: no answer of these verbs is that long. */
        size_t take = n < JOB_OUT_MAX - job->out_len ? n : JOB_OUT_MAX - job->out_len;
        char *o;

        if (take == 0)
                return;
        o = realloc(job->out, job->out_len + take + 1);
        if (!o)
                return;
        memcpy(o + job->out_len, buf, take);
        job->out_len += take;
        o[job->out_len] = '\0';
        job->out = o;
}

static void err_append(struct web_job *job, const char *buf, size_t n) {
        /* The tail: the prefix's own error is its last words. */
        size_t keep = n < JOB_ERR_MAX ? n : JOB_ERR_MAX;

        if (job->err_len + keep > JOB_ERR_MAX) {
                size_t drop = job->err_len + keep - JOB_ERR_MAX;

                memmove(job->err, job->err + drop, job->err_len - drop);
                job->err_len -= drop;
        }
        memcpy(job->err + job->err_len, buf + n - keep, keep);
        job->err_len += keep;
        job->err[job->err_len] = '\0';
}

/* Read what fd has now; false at its end (or an error). */
static bool job_read(struct web_job *job, int fd) {
        for (;;) {
                char buf[4096];
                ssize_t n = read(fd, buf, sizeof buf);

                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0 && errno == EAGAIN)
                        return true;
                if (n <= 0)
                        return false;
                if (fd == job->out_fd && job->on_line)
                        out_lines(job, buf, (size_t) n);
                else if (fd == job->out_fd)
                        out_append(job, buf, (size_t) n);
                else
                        err_append(job, buf, (size_t) n);
        }
}

static int on_job_output(sd_event_source *src, int fd, uint32_t revents, void *userdata) {
        struct web_job *job = userdata;

        if (!job_read(job, fd))
                (void) sd_event_source_set_enabled(src, SD_EVENT_OFF);
        return 0;
}

static int on_job_exit(sd_event_source *src, const siginfo_t *si, void *userdata) {
        struct web_job *job = userdata;
        int status = si->si_code == CLD_EXITED ? si->si_status : 128 + si->si_status;

        /* What it wrote before it exited is in the pipes now. */
        if (job->out_fd >= 0)
                (void) job_read(job, job->out_fd);
        if (job->err_fd >= 0)
                (void) job_read(job, job->err_fd);
        job->pid = 0;
        if (job->done) {
                /* Trailing newlines are no part of a message. */
                while (job->err_len > 0 && job->err[job->err_len - 1] == '\n')
                        job->err[--job->err_len] = '\0';
                job->done(status, job->out ?: "", job->err, job->userdata);
        }
        job_free(job);
        return 0;
}

static int on_job_kill(sd_event_source *src, uint64_t usec, void *userdata) {
        struct web_job *job = userdata;

        if (job->pid > 0)
                (void) kill(job->pid, SIGKILL);
        return 0;
}

static const char *self_exe(char *buf, size_t size) {
        static const char deleted[] = " (deleted)";
        ssize_t n = readlink("/proc/self/exe", buf, size - 1);

        /* A binary replaced since it started: its old inode still runs through /proc. */
        if (n <= 0 || (size_t) n >= size - 1)
                return "/proc/self/exe";
        buf[n] = '\0';
        if ((size_t) n >= sizeof deleted - 1 && streq(buf + n - (sizeof deleted - 1), deleted))
                return "/proc/self/exe";
        return buf;
}

int web_job_start(struct web_server *s, char *const *args, int stdio_fd, web_job_done_t done, void *userdata,
                  struct web_job **ret) {
        _cleanup_close_ int out_r = -EBADF, out_w = -EBADF, err_r = -EBADF, err_w = -EBADF;
        _cleanup_strv_free_ char **argv = NULL;
        struct web_job *job;
        char exe[4096];
        int fds[2], r;

        if (s->exiting)
                return -ESHUTDOWN;
        if (s->n_jobs >= WEB_JOBS_MAX)
                return -EAGAIN;
        r = strv_push(&argv, strdup(self_exe(exe, sizeof exe)));
        for (size_t i = 0; r >= 0 && args[i]; i++)
                r = strv_push(&argv, strdup(args[i]));
        if (r < 0)
                return r;
        if (pipe2(fds, O_CLOEXEC | O_NONBLOCK) < 0)
                return negative_errno();
        err_r = fds[0];
        err_w = fds[1];
        if (stdio_fd < 0) {
                if (pipe2(fds, O_CLOEXEC | O_NONBLOCK) < 0)
                        return negative_errno();
                out_r = fds[0];
                out_w = fds[1];
        }
        job = calloc(1, sizeof *job);
        if (!job)
                return -ENOMEM;
        job->server = s;
        job->out_fd = job->err_fd = -EBADF;
        job->done = done;
        job->userdata = userdata;

        r = s->spawn ? s->spawn(argv, stdio_fd, out_w, err_w, &job->pid) : -EOPNOTSUPP;
        if (r < 0) {
                free(job);
                return r;
        }
        job->err_fd = TAKE_FD(err_r);
        job->out_fd = TAKE_FD(out_r);
        job->next = s->jobs;
        s->jobs = job;
        s->n_jobs++;
        r = sd_event_add_child(s->event, &job->child, job->pid, WEXITED, on_job_exit, job);
        if (r >= 0)
                r = sd_event_add_io(s->event, &job->err_io, job->err_fd, EPOLLIN, on_job_output, job);
        if (r >= 0 && job->out_fd >= 0)
                r = sd_event_add_io(s->event, &job->out_io, job->out_fd, EPOLLIN, on_job_output, job);
        if (r < 0) {
                /* Without its child source nobody reaps it: now, after SIGKILL. */
                (void) kill(job->pid, SIGKILL);
                (void) waitpid(job->pid, NULL, 0);
                job_free(job);
                return r;
        }
        if (ret)
                *ret = job;
        return 0;
}

int web_job_start_stream(struct web_server *s, char *const *args, web_job_done_t done, void *userdata,
                         struct web_job **ret_job, int *ret_fd) {
        int sv[2], r;

        if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
                return negative_errno();
        r = web_job_start(s, args, sv[1], done, userdata, ret_job);
        safe_close(sv[1]);
        if (r >= 0 && (r = fd_nonblock(sv[0], true)) < 0) {
                web_job_cancel(*ret_job);
                *ret_job = NULL;
        }
        if (r < 0) {
                safe_close(sv[0]);
                return r;
        }
        *ret_fd = sv[0];
        return 0;
}

void web_job_on_line(struct web_job *job, web_job_line_t on_line) {
        job->on_line = on_line;
}

void web_job_cancel(struct web_job *job) {
        if (!job || !job->done)
                return;
        job->done = NULL;
        if (job->pid <= 0)
                return;
        (void) kill(job->pid, SIGTERM);
        if (sd_event_add_time_relative(job->server->event, &job->kill_timer, CLOCK_MONOTONIC, JOB_KILL_GRACE_USEC, 0,
                                       on_job_kill, job) < 0)
                (void) kill(job->pid, SIGKILL);
}

/* Reap every job that has exited; whether any is left running. */
static bool jobs_reap(struct web_server *s) {
        bool left = false;

        for (struct web_job *job = s->jobs; job; job = job->next) {
                pid_t r;

                if (job->pid <= 0)
                        continue;
                r = waitpid(job->pid, NULL, WNOHANG);
                if (r == job->pid || (r < 0 && errno == ECHILD))
                        job->pid = 0;
                else
                        left = true;
        }
        return left;
}

void web_jobs_done(struct web_server *s) {
        /* At exit: nothing of ours outlives the server. SIGTERM first, as a
         * cancel does, so that each CLI ends its prefix and exits as it
         * would (a SIGKILL in the middle of its exit, a sanitizer's leak
         * check say, leaves that half done); SIGKILL what is left a grace
         * later. SIGCHLD is blocked (web-server.c): each exit wakes the wait. */
        unsigned long long deadline = now_usec() + JOB_KILL_GRACE_USEC, now;
        sigset_t chld;

        sigemptyset(&chld);
        sigaddset(&chld, SIGCHLD);
        for (struct web_job *job = s->jobs; job; job = job->next) {
                job->done = NULL;
                if (job->pid > 0)
                        (void) kill(job->pid, SIGTERM);
        }
        while (jobs_reap(s) && (now = now_usec()) < deadline) {
                struct timespec left = usec_timespec(deadline - now);

                (void) sigtimedwait(&chld, NULL, &left);
        }
        while (s->jobs) {
                struct web_job *job = s->jobs;

                if (job->pid > 0) {
                        (void) kill(job->pid, SIGKILL);
                        (void) waitpid(job->pid, NULL, 0);
                }
                job_free(job);
        }
}

/* ---- the lease, as the far side's `botdesk lease --json` says ------------------------------ */

static bool viewer_has_hash(const char *viewer, const char *hash) {
        char h[LEASE_HASH_LEN + 1];

        lease_viewer_hash(viewer, h);
        return streq(h, hash);
}

int web_placed_lease_parse(const char *out, const struct web_profile *p, const char *viewer, struct lease *ret,
                           char ret_hash[]) {
        struct json_value *v = NULL;
        const struct json_value *o;
        char vh[LEASE_HASH_LEN + 1];
        size_t n = strlen(out);
        int r;

        while (n > 0 && out[n - 1] == '\n')
                n--;
        if (json_parse(out, n, &v) < 0)
                return -EBADMSG;
        /* A line of `botdesk watch --json` holds the lease as "lease". */
        o = json_get(v, "lease");
        if (!o || o->type != JSON_OBJECT)
                o = v;
        r = lease_from_json(o, ret, vh);
        if (r < 0 || ret->holder == LEASE_AGENT)
                goto out;
        if (!viewer || !viewer_has_hash(viewer, vh))
                for (struct web_stream *st = p ? p->streams : NULL; st; st = web_stream_next(st))
                        if (viewer_has_hash(web_stream_viewer(st), vh)) {
                                viewer = web_stream_viewer(st);
                                break;
                        }
        web_placed_lease_for(ret, vh, viewer, ret);
out:
        if (r >= 0 && ret_hash)
                (void) strscpy(ret_hash, LEASE_HASH_LEN + 1, vh);
        json_value_free(v);
        return r;
}

void web_placed_lease_for(const struct lease *l, const char *hash, const char *viewer, struct lease *ret) {
        *ret = *l;
        if (ret->holder != LEASE_HUMAN)
                return;
        /* The far side names its holder by a hash only: the viewer of ours
         * that has it, or else a name no viewer can have (a control
         * character), for a human who is nobody here. */
        if (viewer && viewer_has_hash(viewer, hash) && strscpy(ret->viewer, sizeof ret->viewer, viewer) >= 0)
                return;
        ret->viewer[0] = '\x01';
        ret->viewer[1] = '\0';
}

/* ---- following the lease there ------------------------------------------------------------- */

static void on_watch_line(const char *line, void *userdata) {
        struct web_profile *p = userdata;
        char hash[LEASE_HASH_LEN + 1];
        struct lease l;

        if (web_placed_lease_parse(line, p, NULL, &l, hash) < 0)
                return;
        p->watch_live = true;
        web_profile_placed_lease(p, &l, hash);
}

static void on_watch_done(int status, const char *out, const char *err, void *userdata) {
        struct web_profile *p = userdata;

        /* Each request asks the far side again from now on. */
        p->watch = NULL;
        p->watch_live = false;
        log_info("Following the lease of %s through its exec prefix ended (exit %d)%s%s", p->name, status,
                 err[0] ? ": " : ".", err);
}

void web_profile_placed_watch(struct web_profile *p) {
        /* --until stopped: a prefix may leave the far side's watch running
         * when its own client goes (podman exec's session outlives a killed
         * podman exec), so the watch ends with the desktop at the latest. */
        char *args[] = { (char *) "watch", p->name, (char *) "--json", (char *) "--until", (char *) "stopped", NULL };
        int r;

        if (!p->placed || p->watch)
                return;
        r = web_job_start(p->server, args, -1, on_watch_done, p, &p->watch);
        if (r < 0) {
                log_warning_errno(r, "Cannot follow the lease of %s there, ignoring: %m", p->name);
                return;
        }
        web_job_on_line(p->watch, on_watch_line);
}
