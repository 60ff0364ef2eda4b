/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * botdesk exec PROFILE [--start] [--env NAME]... -- CMD [ARG...]: CMD on
 * that screen, with the desktop's environment, in the desktop's cgroup (or
 * its unit's) so that it stops with the desktop.
 */
#include <errno.h>
#include <systemd/sd-bus.h>
#include <unistd.h>

#include "cgroup.h"
#include "cli.h"
#include "config.h"
#include "envfile.h"
#include "exec-record.h"
#include "exec-env.h"
#include "exec-tree.h"
#include "lease.h"
#include "record.h"
#include "log.h"
#include "network.h"
#include "profile.h"
#include "spawn.h"
#include "unit.h"
#include "journal-hook.h"
#include "journal-redact.h"
#include "util.h"
#include "verbs.h"

static void journal_exec_args(struct json *j, const struct journal_redact *redact, const void *userdata) {
        /* Arguments carry secrets as typed text does (a token, a password): redacted alike. */
        journal_argv_fields(j, userdata, redact);
}

/*
 * The logind tier's desktop lives in its session's scope, which only root may join: a command started
 * here would run beside it, outside the IP firewall of its network policy. Refused rather than let out.
 */
static int refuse_outside_policy(const char *profile, const struct bd_config *c, int dirfd,
                                 const struct helper_record *rec) {
        _cleanup_(network_texts_done) struct network_texts t = {};
        _cleanup_(net_policy_done) struct net_policy p = {};
        _cleanup_free_ char *problem = NULL;
        int r;

        if (!rec->placement || !streq(rec->placement, "session"))
                return EXIT_OK;
        r = network_texts_read(profile, c, dirfd, &t);
        if (r >= 0)
                r = net_policy_parse(t.mode, t.allow, t.deny, &p, &problem);
        if (r == -ENOMEM)
                return log_oom(), EXIT_FAILED;
        if (r >= 0 && !net_policy_restricts(&p))
                return EXIT_OK;
        log_error("Desktop %s runs in a logind session's scope, which a command of botdesk exec cannot join, so its "
                  "[network] policy would not hold for the command: refused. Start programs from the desktop "
                  "itself, or run the profile under the user manager (botdesk start).", profile);
        return EXIT_REFUSED;
}

/* Into the desktop's cgroup (or its unit's), so that the command stops with the desktop: 0, or -errno (said). */
static int join_cgroup(const struct helper_record *rec) {
        int r = -ENOENT;

        if (rec->unit && rec->placement && streq(rec->placement, "user-unit")) {
                /* Our cgroup and the unit's share no ancestor we may write
                 * to; the user manager moves us. */
                sd_bus *bus = NULL;
                r = unit_bus_open(&bus);
                if (r >= 0)
                        r = unit_attach(bus, rec->unit, "/apps", getpid());
                sd_bus_flush_close_unref(bus);
                if (r < 0)
                        log_warning_errno(r, "Cannot join %s (%m); the command will not stop with the desktop.",
                                          rec->unit);
        } else if (rec->cgroup) {
                _cleanup_free_ char *apps = strdup_printf("%s/apps", rec->cgroup);
                r = apps ? cgroup_attach(apps, 0) : -ENOMEM;
                if (r < 0)
                        log_warning_errno(r, "Cannot join the desktop's cgroup %s (%m); the command will not stop "
                                          "with the desktop.", strnull(apps));
        }
        return r;
}

int verb_exec(const struct cli_args *a) {
        const char *profile = a->operand;
        char **cmd = a->command;
        _cleanup_(config_done) struct bd_config storage = {};
        _cleanup_(paths_done) struct bd_paths p = {};
        _cleanup_strv_free_ char **env = NULL, **full = NULL, **pass = NULL;
        _cleanup_close_ int dirfd = -EBADF;
        _cleanup_(helper_record_done) struct helper_record rec = {};
        extern char **environ;
        const struct bd_config *c;
        struct lease admitted;
        bool moved = false;
        pid_t init;
        int r, k;

        c = cli_config(a->config, profile, &storage);
        if (!c)
                return EXIT_USAGE;
        if (!cmd || !cmd[0]) {
                log_error("Missing command: botdesk exec %s -- CMD [ARG...]", profile);
                return EXIT_USAGE;
        }
        r = verb_start_published(a, profile, &p, &dirfd, &env, &rec);
        if (r != EXIT_OK)
                return r;
        if (cli_action_admit(dirfd, profile, "exec", a->json, &admitted) != EXIT_OK)
                return EXIT_REFUSED;
        r = refuse_outside_policy(profile, c, dirfd, &rec);
        if (r != EXIT_OK)
                return r;
        activity_stamp(dirfd);
        /* The argv, never the output; recorded (and its frame asked for)
         * before this process joins the desktop and becomes CMD. */
        cli_journal_record(profile, &(const struct cli_journal_action) {
                .action = "exec", .result = "ok", .args = journal_exec_args, .userdata = cmd, .config = c,
        });

        /* The desktop's environment, not the caller's: only what the caller
         * names (--env, [session] exec_pass_env) comes along. The token lets
         * the desktop's stop find the command where no cgroup can. */
        for (size_t i = 0; i < a->n_pass_env; i++)
                if (strv_push(&pass, strdup(a->pass_env[i])) < 0)
                        return EXIT_FAILED;
        if (exec_env_names_split(c->exec_pass_env, &pass) < 0 || exec_env_build(environ, env, pass, &full) < 0 ||
            env_set(&full, "BOTDESK_PROFILE", profile) < 0 ||
            (rec.token && env_set(&full, "BOTDESK_TOKEN", rec.token) < 0))
                return EXIT_FAILED;

        /* A checkpointable desktop's tree: the command joins it, so that dumps keep it (exec-tree.h). */
        k = c->checkpointable ? exec_tree_init(rec.pid, &init, &moved) : 0;
        if (k < 0)
                log_warning_errno(k, "Cannot tell whether desktop %s runs in namespaces of its own (%m); the command "
                                  "starts beside it.", profile);
        r = join_cgroup(&rec);
        if (k > 0)
                return exec_tree_run(init, moved, dirfd, profile, cmd, &full);
        /* No cgroup holds it: the stop finds it by its pid, whatever it does to its environment. */
        if (r < 0 && exec_record_add(dirfd, getpid()) < 0)
                log_warning("Cannot record the command for the desktop's stop; a command that drops its environment "
                            "will outlive the desktop.");
        execvpe(cmd[0], cmd, full);
        log_error_errno(errno, "Cannot execute %s: %m", cmd[0]);
        return errno == ENOENT ? EXIT_NOT_FOUND : EXIT_CANNOT_EXECUTE;
}
