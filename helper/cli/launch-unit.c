/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A desktop started through the user manager: its unit, or a transient one. */
#include <unistd.h>

#include "botdesk-config.h"
#include "cli.h"
#include "launch.h"
#include "log.h"
#include "unit.h"
#include "unit-network.h"
#include "util.h"

/* The browser the caller names, and the browser identity it pins: passed to
 * the desktop as a standalone start passes them (launch.c). */
static const char *const browser_variables[] = { "AGENT_BROWSER_EXECUTABLE_PATH", "AGENT_BROWSER_PROFILE" };

static bool is_browser_variable(const char *assignment) {
        for (size_t i = 0; i < ELEMENTSOF(browser_variables); i++) {
                const char *v = startswith(assignment, browser_variables[i]);

                if (v && *v == '=')
                        return true;
        }
        return false;
}

/* Variables a transient unit inherits from the caller: botdesk's own, and the browser's. */
static int transient_environment(char ***ret) {
        extern char **environ;
        _cleanup_strv_free_ char **env = NULL;

        for (char **e = environ; *e; e++)
                if (((startswith(*e, "BOTDESK_") && !startswith(*e, "BOTDESK_PLACEMENT=")) || is_browser_variable(*e)) &&
                    strv_push(&env, strdup(*e)) < 0)
                        return -ENOMEM;
        *ret = TAKE_PTR(env);
        return 0;
}

/* StartUnit carries no environment, so an installed unit reads the browser
 * variables its caller sets from EnvironmentFile=-%t/botdesk/%i/start.env
 * (conf/botdesk@.service.in). It is rewritten before each start of a unit
 * that is not running, empty when the caller sets none: one caller's
 * browser does not outlive its desktop into another's start. */
static int start_env_write(int dirfd) {
        _cleanup_free_ char *text = NULL;
        size_t size = 0;
        FILE *f = open_memstream(&text, &size);

        if (!f)
                return -ENOMEM;
        for (size_t i = 0; i < ELEMENTSOF(browser_variables); i++) {
                const char *b = getenv(browser_variables[i]);

                if (b && strchr(b, '\n')) {
                        log_warning("%s holds a newline: not passed to the desktop.", browser_variables[i]);
                        continue;
                }
                if (!b || !*b)
                        continue;
                fprintf(f, "%s=\"", browser_variables[i]);
                /* systemd's double quotes: a backslash keeps the next " \ ` or $ as it is. */
                for (const char *c = b; *c; c++) {
                        if (strchr("\"\\`$", *c))
                                fputc('\\', f);
                        fputc(*c, f);
                }
                fputs("\"\n", f);
        }
        if (fclose(f) != 0)
                return -ENOMEM;
        return write_file_atomic_at(dirfd, "start.env", text ?: "", size, 0600);
}

int launch_unit_start(unsigned timeout, bool progress, sd_bus *bus, const char *profile, int dirfd, int *lock,
                      const struct net_policy *network) {
        _cleanup_free_ char *unit = unit_name_for(profile), *result = NULL, *why = NULL, *state = NULL;
        _cleanup_strv_free_ char **env = NULL;
        struct unit_start_opts o = {};
        bool joined = false;
        int r, status;

        if (!unit || transient_environment(&env) < 0)
                return -ENOMEM;
        r = unit_template_installed(bus);
        if (r < 0)
                return log_error_errno(r, "Cannot ask the user manager about %s: %m", UNIT_TEMPLATE);
        o.transient = r == 0;
        if (unit_active_state(bus, unit, &state) >= 0) {
                /* A start under way is another caller's: StartUnit joins its
                 * job and waits for it, as systemctl start does, and a
                 * transient unit that exists cannot be created again. */
                joined = streq(state, "activating") || streq(state, "reloading");
                if (o.transient && !streq(state, "inactive") && !streq(state, "failed"))
                        o.transient = false;
        }
        if (!o.transient && (!state || streq(state, "inactive") || streq(state, "failed")) &&
            (r = start_env_write(dirfd)) < 0)
                log_warning_errno(r, "Cannot write start.env for %s (the browser the caller names): %m", unit);
        /* The firewall is in place before the first process of the desktop runs: a transient unit is created
         * with it, an installed one gets it for this run of the manager (the helper checks that it holds). */
        if (o.transient)
                o.network = network;
        else if (!joined) {
                _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;

                r = unit_network_set(bus, unit, network, &error);
                if (r < 0)
                        return log_error_errno(r, "Cannot set the network policy of %s: %s", unit,
                                               error.message ?: strerror(-r));
        }
        o.helper_path = getenv("BOTDESK_HELPER") ?: BOTDESK_HELPER_PATH;
        o.environment = env;
        /* --timeout bounds the wait for the job; the unit's own start
         * timeout (from start_timeout) still ends a start systemd runs. */
        o.timeout_usec = (unsigned long long) timeout * 1000000ULL;
        o.queued_lock = lock;
        if (progress)
                fprintf(stderr, "Starting %s%s through the user manager...\n", unit, o.transient ? " (transient)" : "");
        r = unit_start(bus, unit, &o, &result);
        if (r >= 0)
                return 0;
        if (r == -ETIMEDOUT && joined) {
                /* As in standalone mode: the start we waited for is not ours to undo. */
                log_error("Desktop %s was still starting after %u s (--timeout; the start already under way "
                          "is another caller's); botdesk stop %s ends it. See: journalctl --user -u %s",
                          profile, timeout, profile, unit);
                return -ETIMEDOUT;
        }
        if (r == -ETIMEDOUT) {
                _cleanup_free_ char *stop_result = NULL;

                /* As in standalone mode: a start that missed its deadline is undone. */
                (void) unit_stop(bus, unit, &stop_result);
                log_error("Desktop %s was not ready within %u s (--timeout); stopped %s. See: journalctl --user -u %s",
                          profile, timeout, unit, unit);
                return -ETIMEDOUT;
        }
        why = standalone_last_error(dirfd);
        log_error("Cannot start %s: %s. See: journalctl --user -u %s", unit,
                  why ?: result ?: strerror(-r), unit);
        /* A refusal (3: memory, network) or a configuration error (2) is the helper's word, as standalone. */
        if (unit_exec_main_status(bus, unit, &status) >= 0 && (status == EXIT_REFUSED || status == EXIT_USAGE))
                return status == EXIT_REFUSED ? -EPERM : -EINVAL;
        return -EIO;
}
