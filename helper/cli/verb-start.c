/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * botdesk start PROFILE [--timeout S], and the start on demand of env,
 * exec and input: through the user manager where one answers, else
 * standalone (launch.c); either way with the same checks first.
 */
#include <fcntl.h>
#include <systemd/sd-bus.h>
#include <unistd.h>

#include "botdesk-config.h"
#include "bus-cleanup.h"
#include "cli.h"
#include "config.h"
#include "find-executable.h"
#include "record.h"
#include "launch.h"
#include "log.h"
#include "network-proxy.h"
#include "network.h"
#include "packages.h"
#include "pool.h"
#include "profile.h"
#include "running.h"
#include "snapshot.h"
#include "status.h"
#include "unit.h"
#include "util.h"
#include "verbs.h"

/* Refusals and missing programs are decided here, before any unit or helper
 * exists, so that they get their own exit code and message. */
static int precheck(const char *profile, const struct bd_config *c) {
        struct bd_status st;
        int r, ret = EXIT_OK;

        r = status_collect(profile, c, &st);
        if (r < 0)
                return log_error_errno(r, "Cannot check %s: %m", profile), EXIT_FAILED;
        if (!st.running && !st.starting) {
                if (!st.installed) {
                        _cleanup_free_ char *msg = packages_install_message(
                                pkg_manager_detect(NULL), geteuid() == 0, find_executable("sudo", NULL, NULL) >= 0,
                                st.missing, NULL);
                        log_error("%s", msg ?: "Required programs are missing.");
                        ret = EXIT_FAILED;
                } else if (st.blocker) {
                        log_error("%s", st.blocker);
                        ret = EXIT_REFUSED;
                } else if (st.warning)
                        /* The start goes ahead; the caller still hears why it may struggle. */
                        log_warning("%s", st.warning);
        }
        status_done(&st);
        return ret;
}

/* The status a start ends with. A desktop that was ready and is gone (or
 * going) by now must not count as started, nor be printed "starting" with
 * exit 0: the start waits for the helper's verdict and reports it, a stop
 * as "stopped while starting". On EXIT_OK *st is the running status. */
static int confirm_started(const char *profile, const struct bd_config *c, const struct bd_paths *p, int dirfd,
                           struct bd_status *st) {
        _cleanup_free_ char *why = NULL;
        int none = -EBADF, r;

        r = status_collect(profile, c, st);
        if (r < 0)
                return log_error_errno(r, "Cannot read the status of %s: %m", profile), EXIT_FAILED;
        if (st->running)
                return EXIT_OK;
        status_done(st);
        /* Being taken down: the helper says why before it ends. */
        r = standalone_wait_starting(profile, p, dirfd, &none, now_usec() + 30 * 1000000ULL, 30, false, &why);
        if (r == 0) {
                r = status_collect(profile, c, st);
                if (r >= 0 && st->running)
                        return EXIT_OK;
                if (r >= 0)
                        status_done(st);
                r = -ESRCH;
        }
        if (r == -ESRCH)
                log_error("Cannot start %s: stopped while starting: the desktop was stopped as it became ready.", profile);
        else
                log_error("Cannot start %s: it went away as it became ready: %s", profile, why ?: strerror(-r));
        return EXIT_FAILED;
}

/* A ready spare for profile, which has no desktop: whether one took it.
 * A refusal (settings or state of its own) means a cold start, said. */
static bool adopt_spare(const char *profile, int dirfd, bool progress) {
        _cleanup_(helper_record_done) struct helper_record rec = {};
        _cleanup_free_ char *why = NULL;
        unsigned long long t0 = now_usec();
        int r;

        if (helper_phase_at(dirfd, &rec) != HELPER_NONE)
                return false;
        /* A killed helper's desktop may run on without it: what its record
         * names goes first, as a cold start's helper would see to. */
        if (helper_record_read_at(dirfd, &rec) >= 0) {
                r = helper_reap_leftovers(&rec);
                if (r < 0)
                        return false;
        }
        r = pool_adopt(profile, &why);
        if (r == 0) {
                if (progress)
                        fprintf(stderr, "Adopted a spare desktop in %.1f ms.\n", (double) (now_usec() - t0) / 1000.0);
                return true;
        }
        if (r != -ENOENT && progress)
                fprintf(stderr, "Starting cold: %s.\n", why ?: strerror(-r));
        return false;
}

/* Start profile's desktop unless it runs, with start's checks, memory gate
 * and placement; c is left loaded. Returns an exit code, said on stderr;
 * on EXIT_OK, the running status in *ret_st unless that is NULL. */
/* A hibernated desktop or a fork resumes its own snapshot: never a spare in its place. */
static bool snapshot_waits(const struct bd_paths *p) {
        _cleanup_free_ char *dir = strdup_printf("%s/" SNAPSHOT_DIR, p->state);

        return !dir || access(dir, F_OK) >= 0;
}

int verb_start_desktop(const struct cli_args *a, const char *profile, struct bd_config *c, struct bd_status *ret_st) {
        _cleanup_(paths_done) struct bd_paths p = {};
        _cleanup_close_ int dirfd = -EBADF, lock = -EBADF;
        _cleanup_free_ char *error = NULL;
        _cleanup_(bus_flush_close_unrefp) sd_bus *bus = NULL;
        _cleanup_(network_texts_done) struct network_texts net_texts = {};
        _cleanup_(net_policy_done) struct net_policy net = {};
        bool progress, standalone;
        int r, status;

        r = launch_open_profile(profile, c, &p, &dirfd, &lock);
        if (r != EXIT_OK)
                return r;
        r = precheck(profile, c);
        if (r != EXIT_OK)
                return r;
        /* The configuration's policy: what `network set` gave an earlier run ends with it. */
        if (network_texts_read(profile, c, -EBADF, &net_texts) < 0)
                return log_oom(), EXIT_FAILED;
        r = network_judge(profile, c, &net_texts, &net);
        if (r != EXIT_OK)
                return r;
        /* An earlier run's live policy and proxy end with it. */
        (void) unlinkat(dirfd, NETWORK_OVERRIDE, 0);
        network_proxy_forget(dirfd);

        progress = !a->quiet && !a->json && isatty(STDERR_FILENO);
        /* A spare started with no policy of this profile's: not one to hand a restricted desktop; nor one
         * outside namespaces of its own to a checkpointable profile. */
        if (c->spares > 0 && !net_policy_restricts(&net) && !c->checkpointable && !snapshot_waits(&p) &&
            adopt_spare(profile, dirfd, progress))
                goto started;
        standalone = launch_standalone_forced() || unit_bus_open(&bus) < 0;
        if (standalone && (r = network_standalone_check(profile, &net)) != EXIT_OK)
                return r;
        if (!standalone) {
                r = launch_unit_start(a->timeout, progress, bus, profile, dirfd, &lock, &net);
                if (r < 0)
                        return r == -EPERM ? EXIT_REFUSED : r == -EINVAL ? EXIT_USAGE : EXIT_FAILED;
                /* Names through the proxy: a desktop whose proxy cannot run is not left reaching nothing by name. */
                if (net.proxy && network_proxy_start(bus, profile, dirfd, p.runtime, &net) < 0) {
                        _cleanup_free_ char *unit = unit_name_for(profile), *result = NULL;

                        if (unit)
                                (void) unit_stop(bus, unit, &result);
                        log_error("Stopped desktop %s: it reaches [network] allow's names only through its proxy.",
                                  profile);
                        return EXIT_FAILED;
                }
        } else {
                r = standalone_start(profile, &p, dirfd, &lock, a->timeout ?: c->start_timeout + 5, !a->timeout, progress, &error,
                                     &status);
                if (r < 0) {
                        log_error("Cannot start %s: %s", profile, error ?: strerror(-r));
                        return status == EXIT_REFUSED ? EXIT_REFUSED : status == EXIT_USAGE ? EXIT_USAGE : EXIT_FAILED;
                }
        }
started:
        lock = safe_close(lock);
        activity_stamp(dirfd);
        {
                struct bd_status st;

                r = confirm_started(profile, c, &p, dirfd, &st);
                if (r != EXIT_OK)
                        return r;
                if (ret_st)
                        *ret_st = st;
                else
                        status_done(&st);
        }
        /* A spare taken (or none yet, at the first start) is replaced
         * without making this start wait. */
        if (c->spares > 0)
                pool_fill_background();
        return EXIT_OK;
}

int verb_start(const struct cli_args *a) {
        _cleanup_(config_done) struct bd_config c = {};
        const char *profile = a->operand;
        struct bd_status st;
        int r;

        r = verb_start_desktop(a, profile, &c, &st);
        if (r != EXIT_OK)
                return r;
        /* The status confirmed running, not one read again: a stop since
         * then is the stop's to report. */
        status_emit(&st, a->json);
        status_done(&st);
        return EXIT_OK;
}

/* Published and owned by a live helper: what env, exec and input need,
 * found without a word on stderr. */
static bool desktop_published(const char *profile) {
        _cleanup_(paths_done) struct bd_paths p = {};
        _cleanup_(helper_record_done) struct helper_record rec = {};
        _cleanup_close_ int dirfd = -EBADF;

        if (paths_for_profile(profile, &p) < 0)
                return false;
        /* Verified as every verb's: a directory that is not ours holds no desktop of ours. */
        dirfd = paths_open_runtime(&p, NULL);
        if (dirfd < 0 || helper_record_read_at(dirfd, &rec) < 0 || helper_alive(dirfd, &rec) <= 0)
                return false;
        return faccessat(dirfd, "env", F_OK, AT_SYMLINK_NOFOLLOW) == 0;
}

int verb_start_on_demand(const struct cli_args *a, const char *profile, bool flag) {
        _cleanup_(config_done) struct bd_config c = {};
        struct cli_args start_args = *a;

        if (desktop_published(profile))
                return EXIT_OK;
        if (!flag) {
                if (cli_load_config(profile, &c) < 0)
                        return EXIT_USAGE;
                if (!c.auto_start)
                        return EXIT_OK;
                config_done(&c);
        }
        /* The verb's own output follows on stdout: start's progress stays off it. */
        start_args.quiet = true;
        return verb_start_desktop(&start_args, profile, &c, NULL);
}

int verb_start_published(const struct cli_args *a, const char *profile, struct bd_paths *p, int *ret_fd,
                         char ***ret_env, struct helper_record *ret_rec) {
        int r;

        r = verb_start_on_demand(a, profile, a->start);
        if (r != EXIT_OK)
                return r;
        return running_desktop_published(profile, p, ret_fd, ret_env, ret_rec);
}

int cli_start_on_demand(const char *profile, bool flag) {
        /* The module's verbs take no option of start's: all unset. */
        return verb_start_on_demand(&(const struct cli_args) {}, profile, flag);
}
