/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <fcntl.h>
#include <poll.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "adoption.h"
#include "config.h"
#include "log.h"
#include "net-policy.h"
#include "pool.h"
#include "record.h"
#include "socket-util.h"
#include "spawn.h"
#include "unit.h"
#include "util.h"

/* An adoption takes milliseconds; a helper that does not answer in this
 * long is stuck, and the start goes on cold. */
#define ADOPT_REPLY_TIMEOUT_MS 10000

static bool spare_stale(int dirfd, const char *settings) {
        _cleanup_free_ char *text = NULL;

        if (!settings)
                return false;
        return read_full_file_at(dirfd, SPARE_SETTINGS_FILE, &text, NULL, 65536) < 0 || !streq(text, settings);
}

int pool_list(const char *settings, struct pool_spare **ret, size_t *ret_n) {
        _cleanup_close_ int base = paths_runtime_base_open(false, NULL);
        _cleanup_closedir_ DIR *d = NULL;
        _cleanup_free_ struct pool_spare *list = NULL;
        struct dirent *de;
        size_t n = 0;
        int r;

        *ret = NULL;
        *ret_n = 0;
        if (base == -ENOENT)
                return 0;
        if (base < 0)
                return base;
        r = dir_open_at(base, ".", &d);
        if (r < 0)
                return r;
        while ((de = readdir(d))) {
                _cleanup_(helper_record_done) struct helper_record rec = {};
                _cleanup_close_ int fd = -EBADF;
                enum helper_phase phase;
                struct pool_spare *grown;

                /* A link under a spare's name leads to the profile that adopted it. */
                if (!spare_name_valid(de->d_name) || de->d_type != DT_DIR)
                        continue;
                fd = dir_open_verified_at(base, de->d_name, getuid());
                if (fd < 0)
                        continue;
                phase = helper_phase_at(fd, &rec);
                if (phase == HELPER_NONE)
                        continue;
                grown = realloc(list, (n + 1) * sizeof *list);
                if (!grown)
                        return -ENOMEM;
                list = grown;
                list[n] = (struct pool_spare) {
                        .phase = phase, .display = rec.display, .pid = rec.pid, .stale = spare_stale(fd, settings),
                };
                memcpy(list[n].name, de->d_name, SPARE_NAME_SIZE); /* spare_name_valid: it fits, NUL included */
                n++;
        }
        *ret = TAKE_PTR(list);
        *ret_n = n;
        return 0;
}

/* One exchange with a spare's helper: 0 adopted, -EAGAIN when it did not
 * take the request (gone, busy, taken), -errno with *ret_why when it refused. */
static int adopt_request(int base, const char *spare, const char *profile, char **ret_why) {
        _cleanup_close_ int fd = -EBADF, dir = -EBADF;
        struct pollfd pfd;
        char msg[ADOPT_MESSAGE_MAX];
        unsigned long long v;
        const char *rest;
        char *end;
        ssize_t n;
        int r;

        /* connect() follows the path: checked first that it is a spare's own dir. */
        dir = dir_open_verified_at(base, spare, getuid());
        if (dir < 0)
                return -EAGAIN;
        fd = socket_connect_at(dir, ADOPT_SOCKET, SOCK_SEQPACKET);
        if (fd == -ENAMETOOLONG || fd == -ENOMEM || fd == -EMFILE || fd == -ENFILE)
                return fd;
        if (fd < 0)
                return -EAGAIN;
        n = snprintf(msg, sizeof msg, ADOPT_REQUEST "%s", profile);
        if (send(fd, msg, (size_t) n, MSG_NOSIGNAL) != n)
                return -EAGAIN;
        pfd = (struct pollfd) { .fd = fd, .events = POLLIN };
        while ((r = poll(&pfd, 1, ADOPT_REPLY_TIMEOUT_MS)) < 0 && errno == EINTR)
                ;
        if (r <= 0)
                return -EAGAIN;
        n = recv(fd, msg, sizeof msg - 1, 0);
        if (n <= 0)
                return -EAGAIN;
        msg[n] = 0;
        if (streq(msg, ADOPT_OK))
                return 0;
        rest = startswith(msg, ADOPT_NO);
        if (!rest)
                return -EAGAIN;
        errno = 0;
        v = strtoull(rest, &end, 10);
        if (errno != 0 || end == rest || v == 0 || v > 4095)
                return -EAGAIN;
        if (v == EBUSY)
                /* No longer a ready spare: another start was faster. */
                return -EAGAIN;
        *ret_why = strdup(*end == ' ' ? end + 1 : end);
        return -(int) v;
}

int pool_adopt(const char *profile, char **ret_why) {
        _cleanup_free_ struct pool_spare *list = NULL;
        _cleanup_close_ int base = -EBADF;
        size_t n;
        int r;

        *ret_why = NULL;
        /* The helper judges the profile's settings against its own. */
        r = pool_list(NULL, &list, &n);
        if (r < 0)
                return r;
        base = paths_runtime_base_open(false, NULL);
        if (base < 0)
                return base == -ENOENT ? -ENOENT : base;
        for (size_t i = 0; i < n; i++) {
                if (list[i].phase != HELPER_READY)
                        continue;
                r = adopt_request(base, list[i].name, profile, ret_why);
                if (r != -EAGAIN)
                        return r;
        }
        return -ENOENT;
}

static unsigned long long generation_read(int base) {
        _cleanup_free_ char *text = NULL;
        unsigned long long v;

        if (read_full_file_at(base, POOL_GENERATION_FILE, &text, NULL, 32) < 0)
                return 0;
        text[strcspn(text, "\n")] = 0;
        return parse_uint(text, UINT64_MAX, &v) >= 0 ? v : 0;
}

/* Spawned before a drain that has happened since: the drain had the last word. */
static bool drained_since_spawn(int base) {
        const char *since = getenv(POOL_SINCE_ENV);
        unsigned long long v;

        return since && parse_uint(since, UINT64_MAX, &v) >= 0 && v != generation_read(base);
}

static int pool_lock(int base) {
        return lock_file_at(base, POOL_LOCK_FILE, true);
}

/* The failures so far and until when the next attempt waits. */
static void backoff_read(int base, unsigned *ret_failures, unsigned long long *ret_until) {
        _cleanup_free_ char *text = NULL;
        unsigned long long f = 0, u = 0;

        *ret_failures = 0;
        *ret_until = 0;
        if (read_full_file_at(base, POOL_BACKOFF_FILE, &text, NULL, 64) < 0 ||
            sscanf(text, "%llu %llu", &f, &u) != 2 || f > 64)
                return;
        /* Failures long past are forgotten: a streak is what backs off. */
        if (u + POOL_BACKOFF_MAX_SEC * 1000000ULL < realtime_usec())
                return;
        *ret_failures = (unsigned) f;
        *ret_until = u;
}

static void backoff_note_failure(int base, unsigned failures) {
        /* 1 s, doubling up to the cap (and no shift past it). */
        unsigned sec = failures < 16 && (1u << failures) < POOL_BACKOFF_MAX_SEC ? 1u << failures : POOL_BACKOFF_MAX_SEC;
        char text[64];
        int n;

        n = snprintf(text, sizeof text, "%u %llu\n", failures + 1, realtime_usec() + sec * 1000000ULL);
        (void) write_file_atomic_at(base, POOL_BACKOFF_FILE, text, (size_t) n, 0600);
}

/* Stop one spare, through bus (may be NULL: opened here when one answers). */
static int spare_stop(const char *name, sd_bus *bus) {
        _cleanup_(paths_done) struct bd_paths p = {};
        _cleanup_close_ int dirfd = -EBADF, lock = -EBADF;
        sd_bus *own = NULL;
        int r;

        r = paths_for_profile(name, &p);
        if (r < 0)
                return r;
        dirfd = paths_open_runtime(&p, NULL);
        if (dirfd < 0)
                return dirfd == -ENOENT ? 0 : dirfd;
        lock = profile_lock(dirfd);
        if (!bus && !launch_standalone_forced() && unit_bus_open(&own) >= 0)
                bus = own;
        r = desktop_stop(&p, dirfd, 30, bus, name);
        sd_bus_flush_close_unref(own);
        return r;
}

/* One new spare, waited for until it is ready. */
static int spare_start(const struct bd_config *c, bool progress, char **ret_error) {
        _cleanup_(paths_done) struct bd_paths p = {};
        _cleanup_close_ int dirfd = -EBADF, lock = -EBADF;
        char name[SPARE_NAME_SIZE];
        sd_bus *bus = NULL;
        int r, status;

        r = spare_name_new(name);
        if (r >= 0)
                r = paths_for_profile(name, &p);
        if (r >= 0)
                r = paths_ensure(&p);
        if (r < 0)
                return r;
        dirfd = paths_open_runtime(&p, NULL);
        if (dirfd < 0)
                return dirfd;
        lock = profile_lock(dirfd);
        if (lock < 0)
                return lock;
        if (progress)
                fprintf(stderr, "Starting spare %s...\n", name);
        if (!launch_standalone_forced() && unit_bus_open(&bus) >= 0) {
                /* A spare runs open: a profile with a policy of its own never adopts one. */
                r = launch_unit_start(0, progress, bus, name, dirfd, &lock, &(const struct net_policy) {});
                sd_bus_flush_close_unref(bus);
                return r < 0 ? -EIO : 0;
        }
        /* A standalone spare that dies once ready asks this program for its replacement. */
        {
                char self[PATH_MAX];
                ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);

                if (n > 0) {
                        self[n] = 0;
                        (void) setenv(POOL_CLI_ENV, self, 1);
                }
        }
        r = standalone_start(name, &p, dirfd, &lock, c->start_timeout + 5, true, progress, ret_error, &status);
        return r < 0 ? r : 0;
}

/* What spares that are gone left: the runtime dir of one that failed (its
 * reason was said to whoever filled the pool), a state dir without a
 * runtime dir. Under the pool lock: no filler is starting one meanwhile. */
static void prune_dead(int base) {
        _cleanup_free_ char *state_path = NULL;
        _cleanup_closedir_ DIR *d = NULL;
        _cleanup_close_ int state_base = -EBADF;
        struct dirent *de;

        if (paths_state_base(&state_path) >= 0)
                state_base = open(state_path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (dir_open_at(base, ".", &d) >= 0)
                while ((de = readdir(d))) {
                        _cleanup_(helper_record_done) struct helper_record rec = {};
                        _cleanup_close_ int fd = -EBADF;

                        if (!spare_name_valid(de->d_name) || de->d_type != DT_DIR)
                                continue;
                        fd = dir_open_verified_at(base, de->d_name, getuid());
                        if (fd < 0 || helper_phase_at(fd, &rec) != HELPER_NONE)
                                continue;
                        /* A helper killed as it was adopted may have left its
                         * desktop running under this record alone. */
                        if (helper_record_read_at(fd, &rec) >= 0 && helper_reap_after_stop(&rec) < 0)
                                continue;
                        (void) remove_tree_at(base, de->d_name);
                }
        if (state_base < 0)
                return;
        closedir(TAKE_PTR(d));
        if (dir_open_at(state_base, ".", &d) < 0)
                return;
        while ((de = readdir(d)))
                if (spare_name_valid(de->d_name) && faccessat(base, de->d_name, F_OK, AT_SYMLINK_NOFOLLOW) < 0)
                        (void) remove_tree_at(state_base, de->d_name);
}

int pool_fill(const struct bd_config *c, bool progress, bool quiet) {
        _cleanup_free_ struct pool_spare *list = NULL;
        _cleanup_close_ int base = -EBADF, lock = -EBADF;
        unsigned long long until;
        struct timespec at;
        _cleanup_free_ char *settings = NULL;
        unsigned failures, spares = c->spares;
        size_t n, live;
        int r;

        if (spares == 0)
                return 0;
        {
                _cleanup_(paths_done) struct bd_paths p = {};

                /* The base, made as every start makes it, holds the pool's lock. */
                r = paths_runtime_base(&p.runtime_base);
                if (r >= 0)
                        r = paths_ensure_base(&p);
                if (r < 0)
                        return r;
        }
        base = paths_runtime_base_open(false, NULL);
        if (base < 0)
                return base;
        lock = pool_lock(base);
        if (lock < 0)
                return lock;
        if (drained_since_spawn(base))
                return 0;
        if (getenv(POOL_AFTER_DEATH_ENV)) {
                /* A spare died once ready: that counts as a failure, and its
                 * replacement waits out the back-off, once, for its end. */
                backoff_read(base, &failures, &until);
                backoff_note_failure(base, failures);
                backoff_read(base, &failures, &until);
                lock = safe_close(lock);
                if (!quiet)
                        fprintf(stderr, "A spare died; replacing it in %llu s.\n",
                                (until - realtime_usec()) / 1000000ULL + 1);
                at = usec_timespec(until);
                (void) clock_nanosleep(CLOCK_REALTIME, TIMER_ABSTIME, &at, NULL);
                unsetenv(POOL_AFTER_DEATH_ENV);
                lock = pool_lock(base);
                if (lock < 0)
                        return lock;
                if (drained_since_spawn(base))
                        return 0;
        }
        prune_dead(base);
        settings = config_dump_text(c);
        if (!settings)
                return -ENOMEM;
        r = pool_list(settings, &list, &n);
        if (r < 0)
                return r;
        live = 0;
        for (size_t i = 0; i < n; i++) {
                if (!list[i].stale) {
                        live++;
                        continue;
                }
                /* Started before the configuration changed: no profile may have it. */
                r = spare_stop(list[i].name, NULL);
                if (r < 0 && !quiet)
                        log_warning_errno(r, "Cannot stop the stale spare %s: %m", list[i].name);
        }
        backoff_read(base, &failures, &until);
        if (live < spares && until > realtime_usec()) {
                if (!quiet)
                        fprintf(stderr, "Not starting spares for %llu s more: %u failed before (see %s).\n",
                                (until - realtime_usec()) / 1000000ULL + 1, failures, POOL_BACKOFF_FILE);
                return -EAGAIN;
        }
        for (size_t i = live; i < spares; i++) {
                _cleanup_free_ char *error = NULL;

                r = spare_start(c, progress, &error);
                if (r < 0) {
                        backoff_note_failure(base, failures);
                        if (!quiet)
                                log_error("Cannot start a spare: %s", error ?: strerror(-r));
                        return r;
                }
        }
        /* A spare that dies once ready is no failure of the fill: its streak
         * ends only when it is long past (backoff_read). */
        if (failures == 0)
                (void) unlinkat(base, POOL_BACKOFF_FILE, 0);
        return 0;
}

void pool_fill_background(void) {
        _cleanup_close_ int base = paths_runtime_base_open(false, NULL), log_fd = -EBADF;
        _cleanup_strv_free_ char **env = NULL;
        char *argv[] = { (char *) "/proc/self/exe", (char *) "pool", (char *) "fill", (char *) "--quiet", NULL };
        extern char **environ;
        char since[32];
        pid_t pid;
        int r;

        if (base < 0)
                return;
        snprintf(since, sizeof since, "%llu", generation_read(base));
        if (env_copy_set(environ, POOL_SINCE_ENV, since, &env) < 0)
                return;
        /* Never the caller's stdout: whoever reads it would wait for the filler. */
        log_fd = openat(base, POOL_LOG_FILE, POOL_LOG_OPEN_FLAGS, 0600);
        r = spawn_detached(argv, env, log_fd, &pid);
        if (r < 0)
                log_warning_errno(r, "Cannot start the pool's filler (%m); no spare replaces the one adopted.");
}

int pool_drain(bool quiet) {
        _cleanup_free_ struct pool_spare *list = NULL;
        _cleanup_close_ int base = paths_runtime_base_open(false, NULL), lock = -EBADF;
        sd_bus *bus = NULL;
        size_t n;
        int r, ret = 0;

        if (base == -ENOENT)
                return 0;
        if (base < 0)
                return base;
        /* A filler under way finishes first: nothing it starts outlives the drain. */
        lock = pool_lock(base);
        if (lock < 0)
                return lock;
        {
                char next[32];
                int len = snprintf(next, sizeof next, "%llu\n", generation_read(base) + 1);

                r = write_file_atomic_at(base, POOL_GENERATION_FILE, next, (size_t) len, 0600);
                if (r < 0)
                        return r;
        }
        r = pool_list(NULL, &list, &n);
        if (r < 0)
                return r;
        if (!launch_standalone_forced())
                (void) unit_bus_open(&bus);
        for (size_t i = 0; i < n; i++) {
                r = spare_stop(list[i].name, bus);
                if (r < 0 && ret == 0)
                        ret = r;
                if (r >= 0 && !quiet)
                        printf("%s: stopped\n", list[i].name);
        }
        sd_bus_flush_close_unref(bus);
        return ret;
}
