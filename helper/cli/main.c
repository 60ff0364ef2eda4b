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
#include "verbs.h"
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

static int start_unit(const struct cli_args *a, sd_bus *bus, const char *profile, int dirfd) {
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
        o.timeout_usec = (unsigned long long) a->timeout * 1000000ULL;
        if (!a->quiet && !a->json && isatty(STDERR_FILENO))
                fprintf(stderr, "Starting %s%s through the user manager...\n", unit, o.transient ? " (transient)" : "");
        r = unit_start(bus, unit, &o, &result);
        if (r >= 0)
                return 0;
        if (r == -ETIMEDOUT) {
                _cleanup_free_ char *stop_result = NULL;

                /* As in standalone mode: a start that missed its deadline is undone. */
                (void) unit_stop(bus, unit, &stop_result);
                log_error("Desktop %s was not ready within %u s (--timeout); stopped %s. See: journalctl --user -u %s",
                          profile, a->timeout, unit, unit);
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
static int start_desktop(const struct cli_args *a, const char *profile, struct bd_config *c,
                         struct bd_status *ret_st) {
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
                r = start_unit(a, bus, profile, dirfd);
                sd_bus_flush_close_unref(bus);
                if (r < 0)
                        return EXIT_FAILED;
        } else {
                progress = !a->quiet && !a->json && isatty(STDERR_FILENO);
                r = standalone_start(profile, &p, dirfd, &lock, a->timeout ?: c->start_timeout + 5, progress, &error,
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

int verb_start(const struct cli_args *a) {
        _cleanup_(config_done) struct bd_config c = {};
        const char *profile = a->operand;
        struct bd_status st;
        int r;

        r = start_desktop(a, profile, &c, &st);
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
        start_args.quiet = true;
        return start_desktop(&start_args, profile, &c, NULL);
}

int cli_start_on_demand(const char *profile, bool flag) {
        /* The module's verbs parse their own options: start's are all unset. */
        return verb_start_on_demand(&(const struct cli_args) {}, profile, flag);
}

int verb_stop(const struct cli_args *a) {
        _cleanup_(config_done) struct bd_config c = {};
        const char *profile = a->operand;
        _cleanup_(paths_done) struct bd_paths p = {};
        _cleanup_close_ int dirfd = -EBADF, lock = -EBADF;
        sd_bus *bus = NULL;
        int r;

        r = open_profile_locked(profile, &c, &p, &dirfd, &lock);
        if (r != EXIT_OK)
                return r;
        if (!a->force && human_has_control(dirfd, "stop"))
                return EXIT_REFUSED;
        if (a->force) {
                /* A stopped desktop keeps no human in control: the next start and idle stop work again. */
                r = lease_end_at(dirfd, "ended by botdesk stop --force", NULL);
                if (r < 0)
                        log_warning_errno(r, "Cannot end the human's control lease of %s (%m); the next start may be refused.",
                                          profile);
                else if (r > 0 && !a->quiet)
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
        if (!a->quiet)
                printf("%s: %s\n", profile, r == 1 ? "not running" : "stopped");
        return EXIT_OK;
}

int verb_restart(const struct cli_args *a) {
        int r = verb_stop(a);

        if (r != EXIT_OK)
                return r;
        return verb_start(a);
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

int verb_env(const struct cli_args *a) {
        const char *profile = a->operand;
        _cleanup_(paths_done) struct bd_paths p = {};
        _cleanup_strv_free_ char **env = NULL;
        _cleanup_close_ int dirfd = -EBADF;
        _cleanup_(helper_record_done) struct helper_record rec = {};
        int r;

        if (cli_check_profile(profile) < 0)
                return EXIT_USAGE;
        r = verb_start_on_demand(a, profile, a->start);
        if (r != EXIT_OK)
                return r;
        r = running_env(profile, &p, &dirfd, &env, &rec);
        if (r != EXIT_OK)
                return r;
        activity_stamp(dirfd);
        if (a->json) {
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

int verb_exec(const struct cli_args *a) {
        const char *profile = a->operand;
        char **cmd = a->command;
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
        r = verb_start_on_demand(a, profile, a->start);
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
        for (size_t i = 0; i < a->n_pass_env; i++)
                if (strv_push(&pass, strdup(a->pass_env[i])) < 0)
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

/* ---- the table and the parser ----------------------------------------------------------- */

/* The options after the verb. */
enum {
        OPT_JSON,
        OPT_QUIET,
        OPT_FORCE,
        OPT_YES,
        OPT_TIMEOUT,
        OPT_PROFILE,
        OPT_VIEWER,
        OPT_REASON,
        OPT_UNTIL,
        OPT_START,
        OPT_PASSWORD_STDIN,
        OPT_ENV,
        _OPT_MAX,
};

#define OPT(id) (1u << (id))

/* Every verb takes these, as it always has: scripts pass --json, --quiet or
 * --timeout to verbs that ignore them, and must keep working. */
#define OPTS_COMMON                                                                                            \
        (OPT(OPT_JSON) | OPT(OPT_QUIET) | OPT(OPT_FORCE) | OPT(OPT_YES) | OPT(OPT_TIMEOUT) | OPT(OPT_PROFILE) | \
         OPT(OPT_VIEWER) | OPT(OPT_REASON) | OPT(OPT_UNTIL))

static const struct cli_option {
        const char *name;
        const char *short_name;
        bool takes_value;
} cli_options[_OPT_MAX] = {
        [OPT_JSON] = { "--json" },
        [OPT_QUIET] = { "--quiet", "-q" },
        [OPT_FORCE] = { "--force", "-f" },
        [OPT_YES] = { "--yes", "-y" },
        [OPT_TIMEOUT] = { "--timeout", NULL, true },
        [OPT_PROFILE] = { "--profile", NULL, true },
        [OPT_VIEWER] = { "--viewer", NULL, true },
        [OPT_REASON] = { "--reason", NULL, true },
        [OPT_UNTIL] = { "--until", NULL, true },
        [OPT_START] = { "--start" },
        [OPT_PASSWORD_STDIN] = { "--password-stdin" },
        /* Also --env=NAME. */
        [OPT_ENV] = { "--env", NULL, true },
};

struct verb {
        const char *name;
        /* Its lines of botdesk --help, in the table's order; NULL: not listed. */
        const char *synopsis;
        /* The options it takes beyond OPTS_COMMON. */
        unsigned options;
        /* lease: a second word (its action) */
        bool action;
        /* exec: the words after PROFILE are the command */
        bool command;
        int (*run)(const struct cli_args *a);
        /* Instead of run: a verb that parses its own words (verbs.h). */
        int (*run_argv)(int argc, char **argv);
};

static int verb_help(const struct cli_args *a) {
        return cli_usage(stdout, EXIT_OK);
}

/* The verbs of botdesk-x11.so, loaded for them alone. */
static int verb_x11(int argc, char **argv) {
        int r = x11_verb_run(argv[0], argc, argv);

        if (r == -ENOENT) {
                /* Only a module of another build lacks one: the version check refuses those first. */
                log_error("Unknown command \"%s\"; see botdesk --help.", argv[0]);
                return EXIT_USAGE;
        }
        return r;
}

static const struct verb verbs[] = {
        { "start", "  start PROFILE [--timeout S]   start or adopt, wait until ready, print status\n",
          .run = verb_start },
        { "stop",
          "  stop PROFILE [--force]        stop; returns when nothing of it runs (--force: even\n"
          "                                while a human holds the lease)\n",
          .run = verb_stop },
        { "restart", "  restart PROFILE\n", .run = verb_restart },
        { "status", "  status [PROFILE] [--json]     one profile, or all known profiles\n", .run = verb_status },
        { "list", "  list [--json]\n", .run = verb_list },
        { "env",
          "  env PROFILE [--start] [--json] export lines for eval \"$(botdesk env P)\"\n"
          "                                (--start: start the desktop first when it is not running)\n",
          .options = OPT(OPT_START), .run = verb_env },
        { "exec",
          "  exec PROFILE [--start] [--env NAME]... -- CMD [ARG...]\n"
          "                                run CMD on that screen, inside the desktop, with the\n"
          "                                desktop's environment (--env NAME: also the caller's NAME)\n",
          .options = OPT(OPT_START) | OPT(OPT_ENV), .command = true, .run = verb_exec },
        { "lease",
          "  lease PROFILE [show|take|release|request] [--viewer ID] [--reason TEXT] [--json]\n"
          "                                who controls the screen: the agent or a human viewer\n"
          "  lease PROFILE wait [--timeout S]  until the agent holds control (3 on timeout)\n",
          .action = true, .run = verb_lease },
        { "rfb", "  rfb PROFILE [--viewer ID]     RFB on stdin/stdout, input only while ID holds the lease\n",
          .run = verb_rfb },
        { "web",
          "  web [--listen SPEC]           noVNC and RFB over WebSocket for a browser (web ticket PROFILE --viewer ID)\n",
          .run_argv = verb_web },
        { "thumbnail",
          "  thumbnail PROFILE [-o FILE] [--size WxH] [--format png|jpeg] [--data-url] [--quality N]\n",
          .run_argv = verb_x11 },
        { "input",
          "  input PROFILE ACTION ... [--start] [--json]\n"
          "                                move X Y | click [X Y] [--button N] [--double] | drag X1 Y1 X2 Y2\n"
          "                                | scroll DX DY | key COMBO... | type TEXT | down/up KEY|buttonN\n",
          .run_argv = verb_x11 },
        { "windows",
          "  windows PROFILE [--json]      the window manager's windows: id, title, class, geometry, active\n",
          .run_argv = verb_x11 },
        { "cursor", "  cursor PROFILE [--json]       the pointer position\n", .run_argv = verb_x11 },
        { "watch",
          "  watch [PROFILE] [--json] [--until ready|stopped|agent]\n"
          "                                a line per change of status or lease, the first the current state\n",
          .run = verb_watch },
        { "lookup", "  lookup PROFILE [--json]       the profile's logind session (logind tier)\n",
          .run = verb_lookup },
        { "doctor", "  doctor [--json]               what this host has and lacks\n", .run = verb_doctor },
        { "install",
          "  install [-y] [--timeout S] [--password-stdin]\n"
          "                                install the missing programs with the distribution's tool\n"
          "                                (one at a time; sudo -S gets the password from stdin)\n",
          .options = OPT(OPT_PASSWORD_STDIN), .run = verb_install },
        { "config", "  config check|show [--profile P]\n", .run = verb_config },
        { "help", .run = verb_help },
};

int cli_usage(FILE *f, int status) {
        fputs("Usage: botdesk COMMAND [ARGS]\n"
              "\n"
              "A private headless desktop (TigerVNC + Xfce) per agent profile.\n"
              "\n",
              f);
        for (size_t i = 0; i < ELEMENTSOF(verbs); i++)
                if (verbs[i].synopsis)
                        fputs(verbs[i].synopsis, f);
        fputs("\n"
              "Exit codes: 0 ok, 1 failed, 2 usage/configuration, 3 refused, 4 not running.\n",
              f);
        return status;
}

static const struct verb *verb_find(const char *name) {
        for (size_t i = 0; i < ELEMENTSOF(verbs); i++)
                if (streq(verbs[i].name, name))
                        return &verbs[i];
        return NULL;
}

/* The option of verb that word names: its id, with "--env=NAME"'s value in *ret_inline; -1 for none. */
static int option_find(const struct verb *v, const char *word, const char **ret_inline) {
        unsigned accepted = OPTS_COMMON | v->options;

        *ret_inline = NULL;
        for (int id = 0; id < _OPT_MAX; id++) {
                const struct cli_option *o = &cli_options[id];

                if (!(accepted & OPT(id)))
                        continue;
                if (streq(word, o->name) || (o->short_name && streq(word, o->short_name)))
                        return id;
                if (id == OPT_ENV && startswith(word, "--env=")) {
                        *ret_inline = word + strlen("--env=");
                        return id;
                }
        }
        return -1;
}

/* Sets option id of a to value (NULL: none followed). Returns an exit code, said. */
static int option_apply(struct cli_args *a, int id, const char *value) {
        unsigned long long v;

        switch (id) {
        case OPT_JSON:
                a->json = true;
                return EXIT_OK;
        case OPT_QUIET:
                a->quiet = true;
                return EXIT_OK;
        case OPT_FORCE:
                a->force = true;
                return EXIT_OK;
        case OPT_YES:
                a->yes = true;
                return EXIT_OK;
        case OPT_START:
                a->start = true;
                return EXIT_OK;
        case OPT_PASSWORD_STDIN:
                a->password_stdin = true;
                return EXIT_OK;
        case OPT_ENV:
                if (!value || !env_key_valid(value)) {
                        log_error("--env needs a variable name ([A-Za-z_][A-Za-z0-9_]*), got \"%s\".", strnull(value));
                        return EXIT_USAGE;
                }
                if (a->n_pass_env >= ELEMENTSOF(a->pass_env) - 1) {
                        log_error("Too many --env options (at most %zu).", ELEMENTSOF(a->pass_env) - 1);
                        return EXIT_USAGE;
                }
                a->pass_env[a->n_pass_env++] = (char *) value;
                return EXIT_OK;
        }

        if (!value) {
                log_error("%s needs a value.", cli_options[id].name);
                return EXIT_USAGE;
        }
        switch (id) {
        case OPT_PROFILE:
                a->profile_opt = value;
                break;
        case OPT_VIEWER:
                a->viewer = value;
                break;
        case OPT_REASON:
                a->reason = value;
                break;
        case OPT_UNTIL:
                a->until = value;
                break;
        case OPT_TIMEOUT:
                if (parse_uint(value, 86400, &v) < 0 || v == 0) {
                        log_error("Invalid --timeout \"%s\": give whole seconds, 1-86400.", value);
                        return EXIT_USAGE;
                }
                a->timeout = (unsigned) v;
                break;
        }
        return EXIT_OK;
}

/*
 * The words after the verb, options anywhere among them: the operand (and
 * lease's action), exec's command after PROFILE or after "--". A verb
 * outside the table is parsed as one without options of its own, so that
 * its words are judged before its name. Returns an exit code, said.
 */
static int parse_args(const struct verb *v, const char *verb, char **words, struct cli_args *a) {
        for (size_t i = 0; words[i]; i++) {
                const char *w = words[i], *value;
                int id, r;

                if (streq(w, "--")) {
                        a->command = words + i + 1;
                        break;
                }
                if (w[0] == '-' && w[1]) {
                        id = option_find(v, w, &value);
                        if (id < 0) {
                                log_error("Unknown option %s for %s.", w, verb);
                                return EXIT_USAGE;
                        }
                        if (cli_options[id].takes_value && !value && words[i + 1])
                                value = words[++i];
                        r = option_apply(a, id, value);
                        if (r != EXIT_OK)
                                return r;
                } else if (!a->operand)
                        a->operand = w;
                else if (!a->action && v->action)
                        a->action = w;
                else if (v->command) {
                        a->command = words + i;
                        break;
                } else {
                        log_error("Unexpected argument \"%s\".", w);
                        return EXIT_USAGE;
                }
        }
        return EXIT_OK;
}

int main(int argc, char **argv) {
        enum { OPT_VERSION = 0x100 };
        /* Before the verb only these; every other option follows the verb
         * (each verb knows its own), and is parsed below. */
        static const struct option options[] = {
                { "help", no_argument, NULL, 'h' },
                { "version", no_argument, NULL, OPT_VERSION },
                {}
        };
        static const struct verb unknown = {};
        struct cli_args a = {};
        const struct verb *v;
        const char *verb;
        int c, r;

        log_setup("botdesk");
        /* "+": stop at the first non-option so that exec's command keeps its own options. */
        opterr = 0;
        while ((c = getopt_long(argc, argv, "+h", options, NULL)) >= 0) {
                switch (c) {
                case 'h':
                        return cli_usage(stdout, EXIT_OK);
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
                return cli_usage(stderr, EXIT_USAGE);
        verb = argv[optind++];
        /* A profile placed elsewhere (placement = exec) runs the verb there. */
        c = remote_dispatch(verb, argv + optind);
        if (c >= 0)
                return c;
        v = verb_find(verb);
        if (v && v->run_argv)
                return v->run_argv(argc - optind + 1, argv + optind - 1);
        r = parse_args(v ?: &unknown, verb, argv + optind, &a);
        if (r != EXIT_OK)
                return r;
        if (!v) {
                log_error("Unknown command \"%s\"; see botdesk --help.", verb);
                return EXIT_USAGE;
        }
        return v->run(&a);
}
