/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * botdesk watch [PROFILE] [--json [--full]] [--until ready|stopped|agent]
 *
 * One line per change of a profile's status or lease, the first line of
 * each profile its current state. Driven by inotify on the runtime dirs
 * (the helper and the lease writers replace files there) and by a pidfd on
 * each live helper, which says when a helper dies without tidying up. No
 * polling: between changes it sleeps in poll() without a timeout. With
 * --full each line is the whole of `status --json` as well, read at the
 * change, so that a gateway's pane needs no status call of its own.
 *
 * Every watch also follows `botdesk install` (install-progress.h): the
 * progress file in the runtime base, watched by inotify on the base, one
 * line per line of the package manager's output and one at the end. It
 * is no profile's, so it is shown whichever profiles are watched.
 */
#include <fcntl.h>
#include <poll.h>
#include <sys/inotify.h>
#include <sys/pidfd.h>
#include <sys/stat.h>
#include <time.h>

#include "cli.h"
#include "verbs.h"
#include "install-progress.h"
#include "json.h"
#include "lease-watch.h"
#include "log.h"
#include "profile.h"
#include "status.h"
#include "term-escape.h"
#include "util.h"
#include "watch.h"

#define WATCH_MAX_PROFILES 256
#define DIR_MASK (IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_CREATE | IN_DELETE | IN_ONLYDIR)
/* The base: a profile's dir appearing, and the install's file, appended to in place, closed by its
 * writer (which may have died without its end record) and replaced by rename for each install. One mask
 * serves both, whether every profile is watched or one. */
#define BASE_MASK (IN_CREATE | IN_MOVED_TO | IN_MODIFY | IN_CLOSE_WRITE | IN_ONLYDIR)

struct watched {
        char name[64];
        int dirfd, wd, pidfd;
        pid_t pid;              /* the helper pidfd refers to */
        bool reported;
        struct watch_state last;
};

struct watcher {
        int ino;
        int base_wd;            /* -1 when one profile is watched */
        char *base;
        int base_fd;            /* the runtime base, where installs publish; -EBADF: not followed */
        int install_wd;         /* the base's watch (base_wd's when every profile is watched) */
        struct install_follow install;
        struct watched *w;      /* WATCH_MAX_PROFILES of them */
        size_t n;
        bool json, full;
        enum watch_until until;
};

/* Files whose change can change what we report; the rest (activity, locks, sockets) is noise. */
static bool interesting(const char *name) {
        return streq(name, "env") || streq(name, "helper") || streq(name, "last-error") || streq(name, "lease");
}

static void now_string(char ret[static 32]) {
        struct timespec ts;
        struct tm tm;

        clock_gettime(CLOCK_REALTIME, &ts);
        if (!gmtime_r(&ts.tv_sec, &tm) ||
            strftime(ret, 32, "%Y-%m-%dT%H:%M:%S", &tm) == 0)
                ret[0] = 0;
        else
                snprintf(ret + strlen(ret), 32 - strlen(ret), ".%03ldZ", ts.tv_nsec / 1000000);
}

/* --full's line: the event's word, time, status and reason, then everything status --json says. */
static int emit_full(const struct watched *p, const char *event, const char *time) {
        _cleanup_(config_done) struct bd_config c = {};
        _cleanup_(status_done) struct bd_status st = {};
        struct json j;
        int r;

        if (cli_load_config(p->name, &c) < 0)
                return -EINVAL;
        r = status_collect(p->name, &c, &st);
        if (r < 0)
                return r;
        json_init(&j, stdout);
        json_object_begin(&j);
        json_kv_string(&j, "event", event);
        json_kv_string(&j, "time", time);
        json_kv_string(&j, "status", watch_status_to_string(p->last.status));
        json_kv_string(&j, "reason", p->last.reason[0] ? p->last.reason : NULL);
        status_json_fields(&j, &st);
        json_object_end(&j);
        putchar('\n');
        return 0;
}

static void emit(const struct watcher *wt, const struct watched *p, const char *event) {
        char time[32];

        now_string(time);
        if (wt->json && wt->full && emit_full(p, event, time) >= 0) {
                fflush(stdout);
                return;
        }
        if (wt->json) {
                struct json j;

                json_init(&j, stdout);
                watch_json(&j, p->name, event, time, &p->last);
                putchar('\n');
        } else {
                const struct lease *l = &p->last.lease;

                printf("%s %s %s%s%s%s, %s holds control (epoch %llu)%s\n", time, p->name,
                       watch_status_to_string(p->last.status), p->last.reason[0] ? " (" : "", p->last.reason,
                       p->last.reason[0] ? ")" : "", l->failed ? "nobody (unreadable lease)" : lease_holder_to_string(l->holder),
                       l->epoch, l->pending[0] ? ", a request is pending" : "");
        }
        fflush(stdout);
}

/* An install's line or its end. Text: "TIME install: LINE", "TIME install done, exit N". */
static void on_install(const char *line, bool done, int exit, void *userdata) {
        const struct watcher *wt = userdata;

        if (wt->json) {
                struct json j;

                json_init(&j, stdout);
                json_object_begin(&j);
                json_kv_string(&j, "event", done ? "install_done" : "install");
                if (done)
                        json_kv_int(&j, "exit", exit);
                else
                        json_kv_string(&j, "line", line);
                json_object_end(&j);
                putchar('\n');
        } else {
                _cleanup_free_ char *buf = NULL;
                char time[32];

                now_string(time);
                if (done)
                        printf("%s install done, exit %d\n", time, exit);
                else
                        /* The package manager's words: escaped on a terminal, which would obey them. */
                        printf("%s install: %s\n", time, strnull(term_field(stdout, line, &buf)));
        }
        fflush(stdout);
}

/* Keep a pidfd on the live helper, so that its death wakes us. */
static void follow_helper(struct watched *p) {
        if (p->pid == p->last.helper_pid)
                return;
        p->pidfd = safe_close(p->pidfd);
        p->pid = p->last.helper_pid;
        if (p->pid > 0) {
                p->pidfd = pidfd_open(p->pid, 0);
                if (p->pidfd < 0)
                        p->pid = 0; /* gone already: the next snapshot says so */
        }
}

/* Read the state again and report what changed. Returns 1 when --until is reached. */
static int refresh(struct watcher *wt, struct watched *p) {
        struct watch_state cur;
        unsigned d;

        (void) watch_snapshot_at(p->dirfd, p->reported ? &p->last : NULL, &cur);
        if (!p->reported) {
                p->last = cur;
                p->reported = true;
                emit(wt, p, "state");
        } else {
                d = watch_diff(&p->last, &cur);
                if ((d & WATCH_CHANGED_STATUS) && watch_start_unseen(&p->last, &cur)) {
                        /* Ready before a look saw it started (an adopted
                         * spare publishes at once): it was started all the same. */
                        p->last = cur;
                        p->last.status = WATCH_STARTED;
                        emit(wt, p, "status");
                }
                p->last = cur;
                if (d & WATCH_CHANGED_STATUS)
                        emit(wt, p, "status");
                if (d & WATCH_CHANGED_LEASE)
                        emit(wt, p, "lease");
        }
        follow_helper(p);
        return watch_until_reached(wt->until, &p->last);
}

static int add_profile(struct watcher *wt, const char *name, const char *dir, struct watched **ret) {
        struct watched *p;
        struct stat st;
        int fd;

        for (size_t i = 0; i < wt->n; i++)
                if (streq(wt->w[i].name, name)) {
                        *ret = NULL;
                        return 0;
                }
        if (wt->n >= WATCH_MAX_PROFILES)
                return -E2BIG;
        /* The next slot, counted only once it is filled. */
        p = &wt->w[wt->n];
        *p = (struct watched) { .dirfd = -EBADF, .pidfd = -EBADF };
        if (strscpy(p->name, sizeof p->name, name) < 0)
                return -E2BIG;
        fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
        if (fd < 0)
                return negative_errno();
        if (fstat(fd, &st) < 0 || st.st_uid != getuid() || (st.st_mode & 077)) {
                safe_close(fd);
                return -EPERM;
        }
        p->dirfd = fd;
        /* The watch before the first read: no change between them is lost. */
        p->wd = inotify_add_watch(wt->ino, dir, DIR_MASK);
        if (p->wd < 0) {
                int r = negative_errno();
                safe_close(fd);
                return r;
        }
        wt->n++;
        *ret = p;
        return 0;
}

static int add_from_base(struct watcher *wt, const char *name) {
        _cleanup_free_ char *dir = NULL;
        struct watched *p;
        int r;

        if (!profile_name_valid(name))
                return 0;
        dir = strdup_printf("%s/%s", wt->base, name);
        if (!dir)
                return -ENOMEM;
        r = add_profile(wt, name, dir, &p);
        if (r < 0 || !p)
                return r == -ENOENT || r == -ENOTDIR ? 0 : r;
        return refresh(wt, p);
}

struct drain {
        struct watcher *wt;
        bool dirty[WATCH_MAX_PROFILES];
        bool install;           /* the install's file was appended to */
        bool install_new;       /* ... or maybe replaced by another install's */
};

/* A new profile's dir is watched at once; the others' changes are read once the queue is empty. */
static int on_event(const struct inotify_event *ev, void *userdata) {
        struct drain *d = userdata;
        struct watcher *wt = d->wt;

        if ((ev->mask & IN_Q_OVERFLOW) ||
            (ev->wd == wt->install_wd && wt->install_wd >= 0 && ev->len > 0 && streq(ev->name, INSTALL_PROGRESS_FILE))) {
                d->install = true;
                d->install_new |= (ev->mask & (IN_Q_OVERFLOW | IN_MOVED_TO | IN_CREATE)) != 0;
                if (!(ev->mask & IN_Q_OVERFLOW))
                        return 0;
        }
        if (ev->wd == wt->base_wd && wt->base_wd >= 0)
                return ev->len > 0 && (ev->mask & IN_ISDIR) ? add_from_base(wt, ev->name) : 0;
        for (size_t i = 0; i < wt->n; i++)
                if ((ev->mask & IN_Q_OVERFLOW) || (wt->w[i].wd == ev->wd && ev->len > 0 && interesting(ev->name)))
                        d->dirty[i] = true;
        return 0;
}

/* The install's file cannot be read (something else took its name): the profiles are still watched. */
static void stop_installs(struct watcher *wt, int error) {
        log_warning_errno(error, "Cannot follow installs through %s: %m, ignoring.", INSTALL_PROGRESS_FILE);
        install_follow_done(&wt->install);
        wt->base_fd = safe_close(wt->base_fd);
}

static int handle_inotify(struct watcher *wt) {
        struct drain d = { .wt = wt };
        int r;

        r = inotify_drain(wt->ino, on_event, &d);
        if (r != 0)
                return r;
        for (size_t i = 0; i < wt->n; i++)
                if (d.dirty[i] && (r = refresh(wt, &wt->w[i])) != 0)
                        return r;
        if (d.install && wt->base_fd >= 0 && (r = install_follow_update(&wt->install, wt->base_fd, d.install_new)) < 0)
                stop_installs(wt, r);
        return 0;
}

/*
 * Follow installs in the runtime base: its watch first (every watch of
 * the base shares one, so when every profile is watched it is the base's
 * own), then the file, so that an install that starts between the two is
 * not missed. One that cannot be followed leaves the profiles watched.
 */
static void follow_installs(struct watcher *wt, const char *base) {
        int r;

        wt->base_fd = dir_open_verified_at(AT_FDCWD, base, getuid());
        if (wt->base_fd < 0) {
                log_warning_errno(wt->base_fd, "Cannot follow installs in %s: %m, ignoring.", base);
                return;
        }
        wt->install_wd = wt->base_wd >= 0 ? wt->base_wd : inotify_add_watch_fd(wt->ino, wt->base_fd, BASE_MASK);
        if (wt->install_wd < 0) {
                log_warning_errno(wt->install_wd, "Cannot follow installs in %s: %m, ignoring.", base);
                wt->base_fd = safe_close(wt->base_fd);
                return;
        }
        r = install_follow_start(&wt->install, wt->base_fd);
        if (r < 0)
                stop_installs(wt, r);
}

static int watch_loop(struct watcher *wt) {
        struct pollfd pfd[WATCH_MAX_PROFILES + 1];
        size_t idx[WATCH_MAX_PROFILES + 1];
        int r;

        for (;;) {
                size_t n = 0;

                pfd[n++] = (struct pollfd) { .fd = wt->ino, .events = POLLIN };
                for (size_t i = 0; i < wt->n; i++)
                        if (wt->w[i].pidfd >= 0) {
                                idx[n] = i;
                                pfd[n++] = (struct pollfd) { .fd = wt->w[i].pidfd, .events = POLLIN };
                        }
                if (poll(pfd, n, -1) < 0) {
                        if (errno == EINTR)
                                continue;
                        return negative_errno();
                }
                for (size_t k = 1; k < n; k++)
                        if (pfd[k].revents) {
                                struct watched *p = &wt->w[idx[k]];

                                /* The helper exited: the record tells a clean stop from a death. */
                                p->pidfd = safe_close(p->pidfd);
                                p->pid = 0;
                                r = refresh(wt, p);
                                if (r != 0)
                                        return r;
                        }
                if (pfd[0].revents) {
                        r = handle_inotify(wt);
                        if (r != 0)
                                return r;
                }
        }
}

int verb_watch(const struct cli_args *a) {
        const char *profile = a->operand;
        bool json = a->json;
        _cleanup_(paths_done) struct bd_paths p = {};
        _cleanup_closedir_ DIR *d = NULL;
        struct watcher wt = { .ino = -EBADF, .base_wd = -1, .base_fd = -EBADF, .install_wd = -1, .json = json, .full = a->full };
        struct watched *one;
        struct dirent *de;
        int r, fd, ret = EXIT_OK;

        wt.until = a->until;
        if (a->full && !json) {
                log_error("--full is for --json: botdesk watch [PROFILE] --json --full");
                return EXIT_USAGE;
        }
        if (wt.until != WATCH_UNTIL_NONE && !profile) {
                log_error("--until needs a PROFILE: botdesk watch PROFILE --until %s", watch_until_name(wt.until));
                return EXIT_USAGE;
        }

        install_follow_init(&wt.install, on_install, &wt);
        wt.w = calloc(WATCH_MAX_PROFILES, sizeof *wt.w);
        if (!wt.w)
                return log_oom(), EXIT_FAILED;
        wt.ino = inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
        if (wt.ino < 0)
                return free(wt.w), log_error_errno(errno, "Cannot watch the runtime directories: %m"), EXIT_FAILED;

        if (profile) {
                if (cli_open_profile(profile, &p, &fd) < 0)
                        goto fail;
                safe_close(fd);
                r = add_profile(&wt, profile, p.runtime, &one);
                if (r < 0) {
                        log_error_errno(r, "Cannot watch %s: %m", p.runtime);
                        goto fail;
                }
                r = refresh(&wt, one);
                if (r == 0)
                        follow_installs(&wt, p.runtime_base);
        } else {
                r = paths_runtime_base(&wt.base);
                if (r < 0) {
                        log_error_errno(r, "Cannot find the runtime directory: %m");
                        goto fail;
                }
                if (mkdir(wt.base, 0700) < 0 && errno != EEXIST) {
                        log_error_errno(errno, "Cannot create %s: %m", wt.base);
                        goto fail;
                }
                if (dir_is_private(wt.base, getuid()) < 0) {
                        log_error("%s is not a private directory of uid %u; remove it or fix its owner and mode.", wt.base,
                                  (unsigned) getuid());
                        goto fail;
                }
                /* The base's watch first, so that a profile created while we list is not missed. */
                wt.base_wd = inotify_add_watch(wt.ino, wt.base, BASE_MASK);
                if (wt.base_wd < 0) {
                        log_error_errno(errno, "Cannot watch %s: %m", wt.base);
                        goto fail;
                }
                d = opendir(wt.base);
                r = 0;
                while (r == 0 && d && (de = readdir(d)))
                        if (de->d_type == DT_DIR)
                                r = add_from_base(&wt, de->d_name);
                if (r == 0)
                        follow_installs(&wt, wt.base);
        }
        if (r == 0)
                r = watch_loop(&wt);
        if (r < 0) {
                log_error_errno(r, "Cannot go on watching: %m");
                ret = EXIT_FAILED;
        }
        goto done;
fail:
        ret = EXIT_FAILED;
done:
        for (size_t i = 0; i < wt.n; i++) {
                safe_close(wt.w[i].dirfd);
                safe_close(wt.w[i].pidfd);
        }
        install_follow_done(&wt.install);
        safe_close(wt.base_fd);
        safe_close(wt.ino);
        free(wt.base);
        free(wt.w);
        return ret;
}
