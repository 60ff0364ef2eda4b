/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * botdesk: the command line. Thin verbs over the library; this file is where
 * errors become one line on stderr and an exit code:
 *   0 success, 1 failed, 2 usage or configuration, 3 refused by policy,
 *   4 not running.
 */
#include <fcntl.h>
#include <getopt.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <systemd/sd-daemon.h>

#include "cli.h"
#include "cli-remote.h"
#include "botdesk-config.h"
#include "cgroup.h"
#include "commands.h"
#include "commands-lookup.h"
#include "commands-web.h"
#include "config.h"
#include "doctor-inotify.h"
#include "envfile.h"
#include "exec-env.h"
#include "identity.h"
#include "json.h"
#include "lease.h"
#include "log.h"
#include "memory.h"
#include "packages.h"
#include "profile.h"
#include "spawn.h"
#include "launch.h"
#include "status.h"
#include "unit.h"
#include "util.h"
#include "x11-verbs.h"

struct options {
        bool json;
        bool quiet;
        bool force;
        bool yes;
        bool start;            /* env, exec: --start */
        bool password_stdin;   /* install */
        unsigned timeout;      /* 0 = start_timeout + margin */
        const char *profile_opt;
        const char *viewer;
        const char *reason;
        const char *until;
        char *pass_env[65];    /* exec --env NAME, NULL-terminated; pointers into argv */
        size_t n_pass_env;
};

static struct options arg;

static int usage(FILE *f, int status) {
        fputs("Usage: botdesk COMMAND [ARGS]\n"
              "\n"
              "A private headless desktop (TigerVNC + Xfce) per agent profile.\n"
              "\n"
              "  start PROFILE [--timeout S]   start or adopt, wait until ready, print status\n"
              "  stop PROFILE [--force]        stop; returns when nothing of it runs (--force: even\n"
              "                                while a human holds the lease)\n"
              "  restart PROFILE\n"
              "  status [PROFILE] [--json]     one profile, or all known profiles\n"
              "  list [--json]\n"
              "  env PROFILE [--start] [--json] export lines for eval \"$(botdesk env P)\"\n"
              "                                (--start: start the desktop first when it is not running)\n"
              "  exec PROFILE [--start] [--env NAME]... -- CMD [ARG...]\n"
              "                                run CMD on that screen, inside the desktop, with the\n"
              "                                desktop's environment (--env NAME: also the caller's NAME)\n"
              "  lease PROFILE [show|take|release|request] [--viewer ID] [--reason TEXT] [--json]\n"
              "                                who controls the screen: the agent or a human viewer\n"
              "  lease PROFILE wait [--timeout S]  until the agent holds control (3 on timeout)\n"
              "  rfb PROFILE [--viewer ID]     RFB on stdin/stdout, input only while ID holds the lease\n"
              "  web [--listen SPEC]           noVNC and RFB over WebSocket for a browser (web ticket PROFILE --viewer ID)\n"
              "  thumbnail PROFILE [-o FILE] [--size WxH] [--format png|jpeg] [--data-url] [--quality N]\n"
              "  input PROFILE ACTION ... [--start] [--json]\n"
              "                                move X Y | click [X Y] [--button N] [--double] | drag X1 Y1 X2 Y2\n"
              "                                | scroll DX DY | key COMBO... | type TEXT | down/up KEY|buttonN\n"
              "  windows PROFILE [--json]      the window manager's windows: id, title, class, geometry, active\n"
              "  cursor PROFILE [--json]       the pointer position\n"
              "  watch [PROFILE] [--json] [--until ready|stopped|agent]\n"
              "                                a line per change of status or lease, the first the current state\n"
              "  lookup PROFILE [--json]       the profile's logind session (logind tier)\n"
              "  doctor [--json]               what this host has and lacks\n"
              "  install [-y] [--timeout S] [--password-stdin]\n"
              "                                install the missing programs with the distribution's tool\n"
              "                                (one at a time; sudo -S gets the password from stdin)\n"
              "  config check|show [--profile P]\n"
              "\n"
              "Exit codes: 0 ok, 1 failed, 2 usage/configuration, 3 refused, 4 not running.\n",
              f);
        return status;
}

/* One status, as JSON with --json, else as text. */
static void emit_status(const struct bd_status *st) {
        struct json j;

        if (!arg.json) {
                status_print(stdout, st);
                return;
        }
        json_init(&j, stdout);
        status_json(&j, st);
        putchar('\n');
}

static int print_status(const char *profile, const struct bd_config *c) {
        struct bd_status st;
        int r;

        r = status_collect(profile, c, &st);
        if (r < 0)
                return log_error_errno(r, "Cannot read the status of %s: %m", profile);
        if (st.unverified && arg.json)
                log_warning("%s is not a private directory of uid %u; reading %s as not running.", st.unverified,
                            (unsigned) getuid(), profile);
        emit_status(&st);
        status_done(&st);
        return 0;
}

/* ---- start / stop ------------------------------------------------------------------------- */

/* Configuration, paths, runtime dir and the profile's lock, which
 * serialises starts and stops: a second start waits, then adopts. Returns
 * an exit code; on EXIT_OK the caller owns *ret_dirfd and *ret_lock. */
static int open_profile_locked(const char *profile, struct bd_config *c, struct bd_paths *p, int *ret_dirfd,
                               int *ret_lock) {
        if (cli_check_profile(profile) < 0 || cli_load_config(profile, c) < 0)
                return EXIT_USAGE;
        if (cli_open_profile(profile, p, ret_dirfd) < 0)
                return EXIT_FAILED;
        *ret_lock = profile_lock(*ret_dirfd);
        if (*ret_lock < 0) {
                log_error_errno(*ret_lock, "Cannot lock profile %s: %m", profile);
                return EXIT_FAILED;
        }
        return EXIT_OK;
}

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
                                pkg_manager_detect(NULL), geteuid() == 0, executable_in_path("sudo", NULL),
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

static bool want_standalone(void) {
        const char *e = getenv("BOTDESK_PLACEMENT");
        return e && streq(e, "standalone");
}

/* Variables a transient unit inherits from the caller: botdesk's own. */
static int transient_environment(char ***ret) {
        extern char **environ;
        _cleanup_strv_free_ char **env = NULL;

        for (char **e = environ; *e; e++)
                if (startswith(*e, "BOTDESK_") && !startswith(*e, "BOTDESK_PLACEMENT=") &&
                    strv_push(&env, strdup(*e)) < 0)
                        return -ENOMEM;
        *ret = TAKE_PTR(env);
        return 0;
}

static int start_unit(sd_bus *bus, const char *profile, int dirfd) {
        _cleanup_free_ char *unit = unit_name_for(profile), *result = NULL, *why = NULL;
        _cleanup_strv_free_ char **env = NULL;
        struct unit_start_opts o = {};
        int r;

        if (!unit || transient_environment(&env) < 0)
                return -ENOMEM;
        r = unit_template_installed(bus);
        if (r < 0)
                return log_error_errno(r, "Cannot ask the user manager about %s: %m", UNIT_TEMPLATE);
        o.transient = r == 0;
        if (o.transient) {
                _cleanup_free_ char *state = NULL;

                /* A transient unit that exists (a start under way, or done)
                 * cannot be created again; StartUnit joins its start job and
                 * waits for it, as systemctl start does. */
                if (unit_active_state(bus, unit, &state) >= 0 && !streq(state, "inactive") &&
                    !streq(state, "failed"))
                        o.transient = false;
        }
        o.helper_path = getenv("BOTDESK_HELPER") ?: BOTDESK_HELPER_PATH;
        o.environment = env;
        /* --timeout bounds the wait for the job; the unit's own start
         * timeout (from start_timeout) still ends a start systemd runs. */
        o.timeout_usec = (unsigned long long) arg.timeout * 1000000ULL;
        if (!arg.quiet && !arg.json && isatty(STDERR_FILENO))
                fprintf(stderr, "Starting %s%s through the user manager...\n", unit, o.transient ? " (transient)" : "");
        r = unit_start(bus, unit, &o, &result);
        if (r >= 0)
                return 0;
        if (r == -ETIMEDOUT) {
                _cleanup_free_ char *stop_result = NULL;

                /* As in standalone mode: a start that missed its deadline is undone. */
                (void) unit_stop(bus, unit, &stop_result);
                log_error("Desktop %s was not ready within %u s (--timeout); stopped %s. See: journalctl --user -u %s",
                          profile, arg.timeout, unit, unit);
                return -ETIMEDOUT;
        }
        if (read_full_file_at(dirfd, "last-error", &why, NULL, 4096) >= 0)
                why[strcspn(why, "\n")] = 0;
        log_error("Cannot start %s: %s. See: journalctl --user -u %s", unit,
                  why ?: result ?: strerror(-r), unit);
        return -EIO;
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

/* Start profile's desktop unless it runs, with start's checks, memory gate
 * and placement; c is left loaded. Returns an exit code, said on stderr;
 * on EXIT_OK, the running status in *ret_st unless that is NULL. */
static int start_desktop(const char *profile, struct bd_config *c, struct bd_status *ret_st) {
        _cleanup_(paths_done) struct bd_paths p = {};
        _cleanup_close_ int dirfd = -EBADF, lock = -EBADF;
        _cleanup_free_ char *error = NULL;
        sd_bus *bus = NULL;
        bool progress;
        int r, status;

        r = open_profile_locked(profile, c, &p, &dirfd, &lock);
        if (r != EXIT_OK)
                return r;
        r = precheck(profile, c);
        if (r != EXIT_OK)
                return r;

        if (!want_standalone() && unit_bus_open(&bus) >= 0) {
                r = start_unit(bus, profile, dirfd);
                sd_bus_flush_close_unref(bus);
                if (r < 0)
                        return EXIT_FAILED;
        } else {
                progress = !arg.quiet && !arg.json && isatty(STDERR_FILENO);
                r = standalone_start(profile, &p, dirfd, &lock, arg.timeout ?: c->start_timeout + 5, progress, &error,
                                     &status);
                if (r < 0) {
                        log_error("Cannot start %s: %s", profile, error ?: strerror(-r));
                        return status == EXIT_REFUSED ? EXIT_REFUSED : status == EXIT_USAGE ? EXIT_USAGE : EXIT_FAILED;
                }
        }
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
        return EXIT_OK;
}

static int verb_start(const char *profile) {
        _cleanup_(config_done) struct bd_config c = {};
        struct bd_status st;
        int r;

        r = start_desktop(profile, &c, &st);
        if (r != EXIT_OK)
                return r;
        /* The status confirmed running, not one read again: a stop since
         * then is the stop's to report. */
        emit_status(&st);
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

int cli_start_on_demand(const char *profile, bool flag) {
        _cleanup_(config_done) struct bd_config c = {};
        bool quiet = arg.quiet;
        int r;

        if (cli_check_profile(profile) < 0)
                return EXIT_USAGE;
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
        arg.quiet = true;
        r = start_desktop(profile, &c, NULL);
        arg.quiet = quiet;
        return r;
}

static int verb_stop(const char *profile) {
        _cleanup_(config_done) struct bd_config c = {};
        _cleanup_(paths_done) struct bd_paths p = {};
        _cleanup_close_ int dirfd = -EBADF, lock = -EBADF;
        sd_bus *bus = NULL;
        int r;

        r = open_profile_locked(profile, &c, &p, &dirfd, &lock);
        if (r != EXIT_OK)
                return r;
        if (!arg.force && human_has_control(dirfd, "stop"))
                return EXIT_REFUSED;
        if (arg.force) {
                /* A stopped desktop keeps no human in control: the next start and idle stop work again. */
                r = lease_end_at(dirfd, "ended by botdesk stop --force", NULL);
                if (r < 0)
                        log_warning_errno(r, "Cannot end the human's control lease of %s (%m); the next start may be refused.",
                                          profile);
                else if (r > 0 && !arg.quiet)
                        fprintf(stderr, "%s: the human's control lease ended (stop --force).\n", profile);
        }
        if (!want_standalone())
                (void) unit_bus_open(&bus);
        r = desktop_stop(&p, dirfd, 30, bus, profile);
        sd_bus_flush_close_unref(bus);
        if (r < 0) {
                log_error_errno(r, "Cannot stop %s completely: %m; its processes may still run.", profile);
                return EXIT_FAILED;
        }
        if (!arg.quiet)
                printf("%s: %s\n", profile, r == 1 ? "not running" : "stopped");
        return EXIT_OK;
}

static int verb_restart(const char *profile) {
        int r = verb_stop(profile);

        if (r != EXIT_OK)
                return r;
        return verb_start(profile);
}

/* ---- status / list ------------------------------------------------------------------------ */

static int known_profiles(char ***ret) {
        _cleanup_strv_free_ char **names = NULL;
        _cleanup_free_ char *base = NULL;
        _cleanup_closedir_ DIR *d = NULL;
        _cleanup_close_ int fd = -EBADF;
        struct dirent *de;
        int r;

        r = paths_runtime_base(&base);
        if (r < 0)
                return r;
        fd = dir_open_verified_at(AT_FDCWD, base, getuid());
        if (fd == -EPERM)
                log_warning("%s is not a private directory of uid %u; listing no profiles from it.", base,
                            (unsigned) getuid());
        d = fd >= 0 ? fdopendir(fd) : NULL;
        if (d)
                TAKE_FD(fd);
        while (d && (de = readdir(d))) {
                if (!profile_name_valid(de->d_name) || de->d_type != DT_DIR)
                        continue;
                r = strv_push(&names, strdup(de->d_name));
                if (r < 0)
                        return r;
        }
        *ret = TAKE_PTR(names);
        return 0;
}

static int compare_str(const void *a, const void *b) {
        return strcmp(*(char *const *) a, *(char *const *) b);
}

static int verb_status_all(void) {
        _cleanup_strv_free_ char **names = NULL;
        _cleanup_(config_done) struct bd_config c = {};
        struct json j;
        int r;

        if (cli_load_config(NULL, &c) < 0)
                return EXIT_USAGE;
        r = known_profiles(&names);
        if (r < 0) {
                log_error_errno(r, "Cannot list profiles: %m");
                return EXIT_FAILED;
        }
        if (names)
                qsort(names, strv_length(names), sizeof(char *), compare_str);
        json_init(&j, stdout);
        if (arg.json)
                json_array_begin(&j);
        for (char **n = names; n && *n; n++) {
                _cleanup_(config_done) struct bd_config pc = {};
                _cleanup_free_ char *far = NULL;
                struct bd_status st;

                if (cli_load_config(*n, &pc) < 0)
                        return EXIT_USAGE;
                /* A profile placed elsewhere is reported from there. */
                r = remote_status_text(*n, &pc, arg.json, &far);
                if (r > 0) {
                        if (arg.json)
                                json_raw(&j, far);
                        else
                                puts(far);
                        continue;
                }
                if (r < 0)
                        return log_error_errno(r, "Cannot read the status of %s: %m", *n), EXIT_FAILED;
                r = status_collect(*n, &pc, &st);
                if (r < 0) {
                        log_error_errno(r, "Cannot read the status of %s: %m", *n);
                        return EXIT_FAILED;
                }
                if (st.unverified && arg.json)
                        log_warning("%s is not a private directory of uid %u; reading %s as not running.",
                                    st.unverified, (unsigned) getuid(), *n);
                if (arg.json)
                        status_json(&j, &st);
                else
                        status_print(stdout, &st);
                status_done(&st);
        }
        if (arg.json) {
                json_array_end(&j);
                putchar('\n');
        } else if (!names)
                puts("No profiles.");
        return EXIT_OK;
}

static int verb_status(const char *profile) {
        _cleanup_(config_done) struct bd_config c = {};

        if (!profile)
                return verb_status_all();
        if (cli_check_profile(profile) < 0 || cli_load_config(profile, &c) < 0)
                return EXIT_USAGE;
        return print_status(profile, &c) < 0 ? EXIT_FAILED : EXIT_OK;
}

/* ---- env / exec --------------------------------------------------------------------------- */

/* The published env of a running desktop, and its helper record. */
static int running_env(const char *profile, struct bd_paths *p, int *ret_fd, char ***ret_env,
                       struct helper_record *ret_rec) {
        _cleanup_close_ int dirfd = -EBADF;
        int r;

        if (cli_open_profile(profile, p, &dirfd) < 0)
                return EXIT_FAILED;
        r = helper_record_read_at(dirfd, ret_rec);
        if (r < 0 || helper_alive(dirfd, ret_rec) <= 0) {
                log_error("Desktop %s is not running; start it with: botdesk start %s", profile, profile);
                return EXIT_NOT_RUNNING;
        }
        r = envfile_read_at(dirfd, "env", ret_env);
        if (r == -ENOENT) {
                log_error("Desktop %s is still starting; wait for `botdesk start %s` to return.", profile, profile);
                return EXIT_NOT_RUNNING;
        }
        if (r < 0) {
                log_error_errno(r, "Cannot read %s: %m", p->env_file);
                return EXIT_FAILED;
        }
        *ret_fd = TAKE_FD(dirfd);
        return EXIT_OK;
}

static int verb_env(const char *profile) {
        _cleanup_(paths_done) struct bd_paths p = {};
        _cleanup_strv_free_ char **env = NULL;
        _cleanup_close_ int dirfd = -EBADF;
        _cleanup_(helper_record_done) struct helper_record rec = {};
        int r;

        if (cli_check_profile(profile) < 0)
                return EXIT_USAGE;
        r = cli_start_on_demand(profile, arg.start);
        if (r != EXIT_OK)
                return r;
        r = running_env(profile, &p, &dirfd, &env, &rec);
        if (r != EXIT_OK)
                return r;
        activity_stamp(dirfd);
        if (arg.json) {
                struct json j;
                json_init(&j, stdout);
                json_object_begin(&j);
                for (char **e = env; *e; e++) {
                        _cleanup_free_ char *key = strndup(*e, strcspn(*e, "="));
                        if (!key)
                                return EXIT_FAILED;
                        json_kv_string(&j, key, strchr(*e, '=') + 1);
                }
                json_object_end(&j);
                putchar('\n');
                return EXIT_OK;
        }
        for (char **e = env; *e; e++) {
                _cleanup_free_ char *key = strndup(*e, strcspn(*e, "="));
                _cleanup_free_ char *q = shell_quote(strchr(*e, '=') + 1);
                if (!key || !q)
                        return EXIT_FAILED;
                printf("export %s=%s\n", key, q);
        }
        return EXIT_OK;
}

static int verb_exec(const char *profile, char **cmd) {
        _cleanup_(config_done) struct bd_config c = {};
        _cleanup_(paths_done) struct bd_paths p = {};
        _cleanup_strv_free_ char **env = NULL, **full = NULL, **pass = NULL;
        _cleanup_close_ int dirfd = -EBADF;
        _cleanup_(helper_record_done) struct helper_record rec = {};
        extern char **environ;
        int r;

        if (cli_check_profile(profile) < 0 || cli_load_config(profile, &c) < 0)
                return EXIT_USAGE;
        if (!cmd || !cmd[0]) {
                log_error("Missing command: botdesk exec %s -- CMD [ARG...]", profile);
                return EXIT_USAGE;
        }
        r = cli_start_on_demand(profile, arg.start);
        if (r != EXIT_OK)
                return r;
        r = running_env(profile, &p, &dirfd, &env, &rec);
        if (r != EXIT_OK)
                return r;
        if (human_has_control(dirfd, "exec"))
                return EXIT_REFUSED;
        activity_stamp(dirfd);

        /* The desktop's environment, not the caller's: only what the caller
         * names (--env, [session] exec_pass_env) comes along. The token lets
         * the desktop's stop find the command where no cgroup can. */
        for (size_t i = 0; i < arg.n_pass_env; i++)
                if (strv_push(&pass, strdup(arg.pass_env[i])) < 0)
                        return EXIT_FAILED;
        if (exec_env_names_split(c.exec_pass_env, &pass) < 0 || exec_env_build(environ, env, pass, &full) < 0 ||
            env_set(&full, "BOTDESK_PROFILE", profile) < 0 ||
            (rec.token && env_set(&full, "BOTDESK_TOKEN", rec.token) < 0))
                return EXIT_FAILED;

        if (rec.unit && rec.placement && streq(rec.placement, "user-unit")) {
                /* Our cgroup and the unit's share no ancestor we may write
                 * to; the user manager moves us. */
                sd_bus *bus = NULL;
                r = unit_bus_open(&bus);
                if (r >= 0)
                        r = unit_attach(bus, rec.unit, "/apps", getpid());
                sd_bus_flush_close_unref(bus);
                if (r < 0)
                        log_warning_errno(r, "Cannot join %s (%m); the command will not stop with the desktop.", rec.unit);
        } else if (rec.cgroup) {
                _cleanup_free_ char *apps = strdup_printf("%s/apps", rec.cgroup);
                r = apps ? cgroup_attach(apps, 0) : -ENOMEM;
                if (r < 0)
                        log_warning_errno(r, "Cannot join the desktop's cgroup %s (%m); the command will not stop with the desktop.",
                                          apps);
        }
        execvpe(cmd[0], cmd, full);
        log_error_errno(errno, "Cannot execute %s: %m", cmd[0]);
        return errno == ENOENT ? 127 : 126;
}

/* ---- doctor ------------------------------------------------------------------------------- */

static const char *cgroup_mode(void) {
        _cleanup_free_ char *mount = NULL;

        if (cgroup_v2_mount(&mount) < 0)
                return "v1";
        return streq(mount, "/sys/fs/cgroup") ? "unified" : "hybrid";
}

static int verb_doctor(void) {
        _cleanup_(config_done) struct bd_config c = {};
        _cleanup_strv_free_ char **missing = NULL;
        _cleanup_free_ char *install = NULL, *msg = NULL, *mount = NULL, *self = NULL, *cg = NULL;
        struct memory_info mem = {};
        const struct memory_env menv = {};
        enum pkg_manager m = pkg_manager_detect(NULL);
        bool mem_ok, cg_writable = false, have_user_bus, booted, logind;
        const char *guarantee;
        struct json j;
        int r;

        if (cli_load_config(NULL, &c) < 0)
                return EXIT_USAGE;
        r = packages_missing(NULL, &missing);
        if (r < 0)
                return EXIT_FAILED;
        if (strv_length(missing) > 0)
                msg = packages_install_message(m, geteuid() == 0, executable_in_path("sudo", NULL), missing,
                                               &install);
        mem_ok = memory_read(&menv, &mem) >= 0;
        if (cgroup_v2_mount(&mount) >= 0 && cgroup_path_of(0, &self) >= 0) {
                cg = strdup_printf("%s%s", mount, streq(self, "/") ? "" : self);
                /* Can we create a sub-group here and move ourselves? That is what the helper needs. */
                if (cg && access(cg, W_OK) == 0) {
                        _cleanup_free_ char *procs = strdup_printf("%s/cgroup.procs", cg);
                        cg_writable = procs && access(procs, W_OK) == 0;
                }
        }
        {
                sd_bus *bus = NULL;
                have_user_bus = unit_bus_open(&bus) >= 0;
                sd_bus_flush_close_unref(bus);
        }
        booted = sd_booted() > 0;
        /* logind only counts where systemd is PID 1: its runtime dirs can linger elsewhere. */
        logind = booted && access("/run/systemd/seats", F_OK) == 0;
        guarantee = cg_writable ? "cgroup: every process of a desktop is killed through its cgroup"
                                : "process groups + subreaper + token scan: weaker, processes that leave their "
                                  "group and drop the token can escape";

        if (arg.json) {
                json_init(&j, stdout);
                json_object_begin(&j);
                json_kv_bool(&j, "installed", strv_length(missing) == 0);
                json_key(&j, "missing");
                json_array_begin(&j);
                for (char **i = missing; i && *i; i++)
                        json_string(&j, *i);
                json_array_end(&j);
                json_kv_string(&j, "package_manager", pkg_manager_name(m));
                json_kv_string(&j, "install_command", install);
                json_kv_string(&j, "install_message", msg);
                if (mem_ok) {
                        json_kv_int(&j, "memory_available_mb", (long long) mem.available_mb);
                        json_kv_int(&j, "memory_limit_mb", (long long) mem.limit_mb);
                } else {
                        json_kv_null(&j, "memory_available_mb");
                        json_kv_null(&j, "memory_limit_mb");
                }
                json_kv_int(&j, "min_free_memory_mb", c.min_free_memory_mb);
                json_kv_bool(&j, "user_manager", have_user_bus);
                json_kv_bool(&j, "systemd", booted);
                json_kv_string(&j, "cgroup_mode", cgroup_mode());
                json_kv_string(&j, "cgroup", cg);
                json_kv_bool(&j, "cgroup_writable", cg_writable);
                json_kv_string(&j, "placement", have_user_bus ? "user-unit" : "standalone");
                json_kv_string(&j, "reaping", cg_writable ? "cgroup" : "process-group");
                json_kv_bool(&j, "logind", logind);
                json_kv_bool(&j, "selinux", access("/sys/fs/selinux/enforce", F_OK) == 0);
                doctor_inotify(&j, &c, mem_ok ? mem.limit_mb : 0);
                json_object_end(&j);
                putchar('\n');
                return EXIT_OK;
        }
        printf("programs:     %s\n", strv_length(missing) > 0 ? "missing some" : "all present");
        for (char **i = missing; i && *i; i++)
                printf("  missing:    %s\n", *i);
        if (msg)
                printf("  %s\n", msg);
        printf("package mgr:  %s\n", pkg_manager_name(m));
        if (mem_ok)
                printf("memory:       %llu MB available of %llu MB (floor %u MB)\n",
                       (unsigned long long) mem.available_mb, (unsigned long long) mem.limit_mb, c.min_free_memory_mb);
        printf("systemd:      %s\n", booted ? "running" : "not running");
        printf("user manager: %s\n", have_user_bus ? "reachable (desktops run as botdesk@P.service)" : "none (desktops run standalone)");
        printf("cgroups:      %s, %s %s\n", cgroup_mode(), cg ?: "no v2 hierarchy", cg_writable ? "(writable)" : "(not writable)");
        printf("reaping:      %s\n", guarantee);
        printf("logind:       %s\n", logind ? "running" : "not running");
        printf("SELinux:      %s\n", access("/sys/fs/selinux/enforce", F_OK) == 0 ? "enabled" : "disabled");
        doctor_inotify(NULL, &c, mem_ok ? mem.limit_mb : 0);
        return EXIT_OK;
}

/* ---- config ------------------------------------------------------------------------------- */

static int verb_config(const char *what) {
        _cleanup_(config_done) struct bd_config c = {};
        struct config_errors errs = {};
        const struct config_sources src = {};
        int r;

        if (!what || (!streq(what, "check") && !streq(what, "show")))
                return usage(stderr, EXIT_USAGE);
        if (arg.profile_opt && cli_check_profile(arg.profile_opt) < 0)
                return EXIT_USAGE;
        r = config_load(&c, arg.profile_opt, &src, &errs);
        if (r < 0) {
                config_errors_print(&errs, stderr);
                fprintf(stderr, "botdesk: %zu error%s in the configuration.\n", errs.n, errs.n == 1 ? "" : "s");
                config_errors_done(&errs);
                return EXIT_USAGE;
        }
        config_errors_done(&errs);
        if (streq(what, "show"))
                config_dump(&c, stdout);
        else if (!arg.quiet)
                puts("Configuration is valid.");
        return EXIT_OK;
}

/* ---- main --------------------------------------------------------------------------------- */

int main(int argc, char **argv) {
        enum { OPT_VERSION = 0x100 };
        /* Before the verb only these; every other option follows the verb
         * (each verb knows its own), and is parsed below. */
        static const struct option options[] = {
                { "help", no_argument, NULL, 'h' },
                { "version", no_argument, NULL, OPT_VERSION },
                {}
        };
        const char *verb, *operand, *operand2;
        char **rest = NULL;
        int c, r;

        log_setup("botdesk");
        /* "+": stop at the first non-option so that exec's command keeps its own options. */
        opterr = 0;
        while ((c = getopt_long(argc, argv, "+h", options, NULL)) >= 0) {
                switch (c) {
                case 'h':
                        return usage(stdout, EXIT_OK);
                case OPT_VERSION:
                        puts("botdesk " BOTDESK_VERSION);
                        return EXIT_OK;
                default:
                        log_error("Unknown option %s before the verb; options follow it: botdesk VERB PROFILE [OPTIONS] "
                                  "(botdesk --help lists them).", argv[optind - 1]);
                        return EXIT_USAGE;
                }
        }
        if (optind >= argc)
                return usage(stderr, EXIT_USAGE);
        verb = argv[optind++];
        /* A profile placed elsewhere (placement = exec) runs the verb there. */
        c = remote_dispatch(verb, argv + optind);
        if (c >= 0)
                return c;
        /* web has options of its own (--listen, --ttl): it parses them itself. */
        if (streq(verb, "web"))
                return verb_web(argc - optind + 1, argv + optind - 1);
        /* The verbs that speak X (thumbnail, input, windows, cursor) parse
         * their own options (-o, negative scroll steps, text after --), and
         * live in a module loaded for them alone (x11-verbs.h). */
        r = x11_verb_run(verb, argc - optind + 1, argv + optind - 1);
        if (r != -ENOENT)
                return r;

        /* Options may follow the verb and its operand: parse the rest again. */
        operand = operand2 = NULL;
        for (int i = optind; i < argc; i++) {
                const char *a = argv[i];
                unsigned long long v;

                if (streq(a, "--")) {
                        rest = argv + i + 1;
                        break;
                }
                if (streq(a, "--json"))
                        arg.json = true;
                else if (streq(a, "--quiet") || streq(a, "-q"))
                        arg.quiet = true;
                else if (streq(a, "--force") || streq(a, "-f"))
                        arg.force = true;
                else if (streq(a, "--yes") || streq(a, "-y"))
                        arg.yes = true;
                else if (streq(a, "--start") && (streq(verb, "env") || streq(verb, "exec")))
                        arg.start = true;
                else if (streq(a, "--password-stdin") && streq(verb, "install"))
                        arg.password_stdin = true;
                else if (streq(verb, "exec") && (streq(a, "--env") || startswith(a, "--env="))) {
                        const char *name = a[5] == '=' ? a + 6 : i + 1 < argc ? argv[++i] : NULL;

                        if (!name || !env_key_valid(name)) {
                                log_error("--env needs a variable name ([A-Za-z_][A-Za-z0-9_]*), got \"%s\".", strnull(name));
                                return EXIT_USAGE;
                        }
                        if (arg.n_pass_env >= ELEMENTSOF(arg.pass_env) - 1) {
                                log_error("Too many --env options (at most %zu).", ELEMENTSOF(arg.pass_env) - 1);
                                return EXIT_USAGE;
                        }
                        arg.pass_env[arg.n_pass_env++] = (char *) name;
                } else if (streq(a, "--timeout") || streq(a, "--profile") || streq(a, "--viewer") || streq(a, "--reason") ||
                           streq(a, "--until")) {
                        if (i + 1 >= argc) {
                                log_error("%s needs a value.", a);
                                return EXIT_USAGE;
                        }
                        if (streq(a, "--profile"))
                                arg.profile_opt = argv[++i];
                        else if (streq(a, "--viewer"))
                                arg.viewer = argv[++i];
                        else if (streq(a, "--reason"))
                                arg.reason = argv[++i];
                        else if (streq(a, "--until"))
                                arg.until = argv[++i];
                        else if (parse_uint(argv[++i], 86400, &v) < 0 || v == 0) {
                                log_error("Invalid --timeout \"%s\": give whole seconds, 1-86400.", argv[i]);
                                return EXIT_USAGE;
                        } else
                                arg.timeout = (unsigned) v;
                } else if (a[0] == '-' && a[1]) {
                        log_error("Unknown option %s for %s.", a, verb);
                        return EXIT_USAGE;
                } else if (!operand)
                        operand = a;
                else if (!operand2 && streq(verb, "lease"))
                        operand2 = a;
                else if (streq(verb, "exec")) {
                        rest = argv + i;
                        break;
                } else {
                        log_error("Unexpected argument \"%s\".", a);
                        return EXIT_USAGE;
                }
        }

        if (streq(verb, "start"))
                return verb_start(operand);
        if (streq(verb, "stop"))
                return verb_stop(operand);
        if (streq(verb, "restart"))
                return verb_restart(operand);
        if (streq(verb, "status"))
                return verb_status(operand);
        if (streq(verb, "list")) {
                if (operand) {
                        log_error("list takes no profile.");
                        return EXIT_USAGE;
                }
                return verb_status_all();
        }
        if (streq(verb, "env"))
                return verb_env(operand);
        if (streq(verb, "exec"))
                return verb_exec(operand, rest);
        if (streq(verb, "lease"))
                return verb_lease(operand, operand2, arg.viewer, arg.reason, arg.timeout, arg.json);
        if (streq(verb, "rfb"))
                return verb_rfb(operand, arg.viewer);
        if (streq(verb, "watch"))
                return verb_watch(operand, arg.json, arg.until);
        if (streq(verb, "doctor"))
                return verb_doctor();
        if (streq(verb, "config"))
                return verb_config(operand);
        if (streq(verb, "install")) {
                if (operand) {
                        log_error("install takes no argument.");
                        return EXIT_USAGE;
                }
                return verb_install(arg.yes, arg.quiet, arg.timeout, arg.password_stdin);
        }
        if (streq(verb, "lookup"))
                return verb_lookup(operand, arg.json);
        if (streq(verb, "help"))
                return usage(stdout, EXIT_OK);
        log_error("Unknown command \"%s\"; see botdesk --help.", verb);
        return EXIT_USAGE;
}
