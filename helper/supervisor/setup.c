/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <systemd/sd-daemon.h>
#include <unistd.h>

#include "adopt.h"
#include "adopt-state.h"
#include "adoption.h"
#include "botdesk-config.h"
#include "browser.h"
#include "record.h"
#include "log.h"
#include "placement.h"
#include "session.h"
#include "setup.h"
#include "spawn.h"
#include "teardown.h"
#include "util.h"
#include "wallpaper.h"
#include "xauth.h"

static void reap_previous(struct supervisor *s) {
        struct helper_record old;

        /* We hold the helper lock, so whatever the record names is dead: a
         * SIGKILLed helper's desktop may still run, and goes now. */
        if (helper_record_read_at(s->runtime_fd, &old) >= 0) {
                int r = helper_reap_leftovers(&old);
                if (r < 0)
                        log_warning_errno(r, "Could not fully reap the leftovers of helper %d: %m", (int) old.pid);
                else
                        log_info("Reaped the leftovers of a previous helper (pid %d).", (int) old.pid);
                helper_record_done(&old);
        }
        (void) unlinkat(s->runtime_fd, "env", 0);
        (void) unlinkat(s->runtime_fd, RFB_SOCKET, 0);
        (void) unlinkat(s->runtime_fd, "bus", 0);
        (void) unlinkat(s->runtime_fd, HELPER_RECORD_FILE, 0);
}

static int make_token(char token[33]) {
        uint8_t raw[16];
        int r = xauth_cookie_new(raw);

        if (r < 0)
                return r;
        for (size_t i = 0; i < sizeof raw; i++)
                snprintf(token + 2 * i, 3, "%02x", raw[i]);
        return 0;
}

/* Whether the session state is a fresh session's before this start seeds
 * or rewrites any of it: none yet, or what its manifest recorded. A
 * manifest that no longer holds goes: the state is the profile's own. */
static void state_fresh_at_start(struct supervisor *s) {
        _cleanup_close_ int state_fd = -EBADF, xdg = -EBADF;

        state_fd = open(s->paths.state, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (state_fd < 0)
                return;
        xdg = openat(state_fd, SESSION_STATE_DIR, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (xdg < 0) {
                s->state_fresh = errno == ENOENT;
                return;
        }
        s->state_fresh = session_state_manifest_matches(xdg) > 0;
        if (!s->state_fresh)
                (void) unlinkat(xdg, SESSION_FRESH_MANIFEST, 0);
}

int setup_browser(struct supervisor *s, char ***ret_cmd) {
        _cleanup_free_ char *home = NULL;
        int r;

        *ret_cmd = NULL;
        if (!s->browser)
                return 0;
        free(s->browser_profile);
        s->browser_profile = NULL;
        free(s->cdp_socket);
        (void) paths_home(&home);
        r = browser_profile_dir(&s->cfg, getenv("AGENT_BROWSER_PROFILE"), s->paths.state, home, &s->browser_profile);
        if (r < 0)
                return log_error_errno(r, "Cannot resolve the browser's profile dir ([browser] profile_dir \"%s\", "
                                       "AGENT_BROWSER_PROFILE \"%s\"): %m", strempty(s->cfg.browser_profile_dir),
                                       strempty(getenv("AGENT_BROWSER_PROFILE")));
        s->cdp_socket = browser_cdp_socket(s->paths.runtime);
        if (!s->cdp_socket)
                return -ENOMEM;
        return browser_argv(getenv("BOTDESK_BROWSER_LAUNCHER") ?: BOTDESK_BROWSER_PATH, s->cdp_socket, s->browser,
                            s->browser_profile, s->cfg.disk_cache_mb, geteuid() == 0, ret_cmd);
}

int supervisor_setup(struct supervisor *s, enum helper_failure *ret_kind) {
        struct config_errors errs = {};
        const struct config_sources src = {};
        const char *skel;
        _cleanup_strv_free_ char **browser_cmd = NULL;
        int r;

        *ret_kind = HELPER_FAILURE_RUNTIME;
        if (s->spare)
                /* A link under our name is what a killed adopted desktop
                 * left (its unit restarts us): our dirs are made again. */
                paths_remove_spare_alias(s->profile);
        r = paths_for_profile(s->profile, &s->paths);
        if (r < 0)
                return log_error_errno(r, "Cannot compute the paths of profile %s: %m", s->profile);
        r = paths_ensure(&s->paths);
        if (r < 0)
                return log_error_errno(r, "Runtime directory %s is not private to uid %u (%m); remove it or fix its owner and mode.",
                                       s->paths.runtime, (unsigned) getuid());
        s->runtime_fd = open(s->paths.runtime, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
        if (s->runtime_fd < 0)
                return log_error_errno(errno, "Cannot open %s: %m", s->paths.runtime);

        /* A spare is kept for any profile that has no settings of its own. */
        r = config_load(&s->cfg, s->spare ? NULL : s->profile, &src, &errs);
        if (r < 0) {
                for (size_t i = 0; i < errs.n; i++) {
                        _cleanup_free_ char *t = config_error_text(&errs.items[i]);

                        log_error("%s", t ?: errs.items[i].message);
                        if (i == 0 && t)
                                write_last_error(s, t);
                }
                config_errors_done(&errs);
                (void) sd_notifyf(false, "STATUS=Invalid configuration\nERRNO=%d", EINVAL);
                /* The one failure a restart cannot cure: said here, where it is known. */
                *ret_kind = HELPER_FAILURE_CONFIG;
                return -EINVAL;
        }
        config_errors_done(&errs);
        if (s->spare) {
                _cleanup_free_ char *settings = config_dump_text(&s->cfg);

                r = settings ? write_file_atomic_at(s->runtime_fd, SPARE_SETTINGS_FILE, settings, strlen(settings), 0600)
                             : -ENOMEM;
                if (r < 0)
                        return log_error_errno(r, "Cannot write %s/%s: %m", s->paths.runtime, SPARE_SETTINGS_FILE);
        }

        s->helper_lock_fd = helper_lock_take(s->runtime_fd);
        if (s->helper_lock_fd == -EBUSY)
                return log_error_errno(EBUSY, "Another botdesk-helper already runs profile %s.", s->profile);
        if (s->helper_lock_fd < 0)
                return log_error_errno(s->helper_lock_fd, "Cannot lock %s/%s: %m", s->paths.runtime, HELPER_LOCK_FILE);
        reap_previous(s);
        (void) unlinkat(s->runtime_fd, "last-error", 0);

        s->bus_socket = strdup_printf("%s/bus", s->paths.runtime);
        if (!s->bus_socket)
                return -ENOMEM;
        r = session_dirs_for(&s->paths, &s->dirs);
        if (r < 0)
                return r;
        skel = getenv("BOTDESK_SKEL_DIR") ?: BOTDESK_SKEL_DIR;
        {
                _cleanup_free_ char *home = NULL;

                (void) paths_home(&home);
                s->browser = browser_find(&s->cfg, home);
        }
        r = setup_browser(s, &browser_cmd);
        if (r < 0)
                return r;
        state_fresh_at_start(s);
        r = session_prepare_dirs(&s->dirs, skel, browser_cmd);
        if (r < 0)
                return log_error_errno(r, "Cannot prepare %s: %m", s->dirs.config_home);
        if (s->cfg.wallpaper) {
                /* Before the session, whose xfconfd reads the file once. */
                r = wallpaper_apply(s->dirs.config_home, s->cfg.wallpaper);
                if (r == -ENOENT)
                        log_warning("%s/%s has no background of output VNC-0 to put [session] wallpaper on, ignoring.",
                                    s->dirs.config_home, WALLPAPER_XML);
                else if (r < 0)
                        log_warning_errno(r, "Cannot put [session] wallpaper %s on the desktop (%m), ignoring.",
                                          s->cfg.wallpaper);
        }

        r = placement_setup(s);
        if (r < 0)
                return log_error_errno(r, "Cannot set up the desktop's cgroups: %m");
        if (!s->cg_base && prctl(PR_SET_CHILD_SUBREAPER, 1) < 0)
                log_warning_errno(errno, "Cannot become a child subreaper (%m); orphans of the desktop escape to PID 1.");

        r = make_token(s->token);
        if (r >= 0)
                r = xauth_cookie_new(s->cookie);
        if (r < 0)
                return log_error_errno(r, "Cannot get random bytes: %m");
        /* The X server's environment: clean, and carrying the token like
         * every other process of the desktop. The session's follows once
         * the display number is known. */
        {
                _cleanup_free_ char *pv = strdup_printf("BOTDESK_PROFILE=%s", s->profile);
                _cleanup_free_ char *tv = strdup_printf("BOTDESK_TOKEN=%s", s->token);
                char *extra[] = { tv, s->spare ? NULL : pv, NULL };
                extern char **environ;

                if (!pv || !tv)
                        return -ENOMEM;
                r = env_build_clean(environ, extra, &s->env);
                if (r < 0)
                        return r;
        }
        s->started_at = realtime_usec();

        r = placement_write_record(s);
        if (r < 0)
                return log_error_errno(r, "Cannot write %s/%s: %m", s->paths.runtime, HELPER_RECORD_FILE);
        /* Recorded: from now on a start finds this helper and waits for it,
         * and a stop finds it to stop. The `botdesk start` that spawned us
         * lets go of the profile's lock on this. */
        (void) sd_notify(false, "BOTDESK_RECORDED=1");
        return 0;
}
