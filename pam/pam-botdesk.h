/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include "login.h"

/*
 * What the three files of pam_botdesk share: its arguments, its logging,
 * and the logind (logind.c) and scope-emptying (scope.c) helpers that open
 * and close use. Nothing here is exported from the module (pam_botdesk.map).
 */

#include <stdbool.h>
#include <sys/types.h>
#include <syslog.h>

#include <security/pam_ext.h>
#include <security/pam_modules.h>
#include <systemd/sd-bus.h>

#define DEFAULT_RUNDIR "/run/botdesk"
#define SYSTEM_BUS_SOCKET "/run/dbus/system_bus_socket"
#define SESSION_SERVICE LOGIN_SERVICE
/* How long a session gets between SIGTERM and SIGKILL, and after SIGKILL. */
#define GRACE_USEC (1000 * 1000ULL)
#define KILL_WAIT_USEC (1000 * 1000ULL)
#define SESSION_ID_MAX 64

struct args {
        bool debug;
        bool network;           /* the stack's second line, after pam_systemd: the scope's firewall alone */
        const char *config;
        const char *rundir;
};


#define log_debug_pam(a, pamh, ...)                                     \
        do {                                                            \
                if ((a)->debug)                                         \
                        pam_syslog((pamh), LOG_DEBUG, __VA_ARGS__);     \
        } while (0)

/* pam_syslog with %m naming error (a negative errno). */
#define log_errno_pam(pamh, level, error, ...)                          \
        ({                                                              \
                int _e_ = (error);                                      \
                errno = _e_ < 0 ? -_e_ : _e_;                           \
                pam_syslog((pamh), (level), __VA_ARGS__);               \
                _e_ < 0 ? _e_ : -_e_;                                   \
        })

struct bd_config;

/* profile's configuration from the system files (or config=), its errors logged: 0, -EINVAL, -ENOMEM. */
int pam_config_load(pam_handle_t *pamh, const struct args *a, const char *profile, struct bd_config *ret);

/* A private connection to the system bus above fd 2 (logind.c); close it with sd_bus_flush_close_unref. */
int bus_open_system(sd_bus **ret);

/* The network step (network.c): [network] of profile as systemd's IP firewall of the session's scope,
 * which pam_systemd made. Logs and returns what went wrong; the helper's own probe refuses a desktop
 * whose policy is not in force, so a failure here never fails the session. */
int session_network_apply(pam_handle_t *pamh, const struct args *a, const char *profile);

/* A logind session id: short, alphanumeric. */
bool session_id_valid(const char *id);

/* systemd is PID 1 and logind runs. */
bool logind_running(void);

/* logind's KillSession(id, "all", sig): permitted to root and to the session's owner. */
int logind_kill_session(pam_handle_t *pamh, const struct args *a, const char *id, int sig);

/* Is a session with these properties (from sd-login) the botdesk session of
 * uid on display :n? NULL properties are never ours. */
bool session_is_ours(const char *service, const char *display, uid_t session_uid, uid_t uid, unsigned n);

/* Is logind session id the botdesk session of uid on :n? 1, 0, -errno. */
int session_verify(const char *id, uid_t uid, unsigned n);

/* The botdesk session on display :n: 1 (id and uid set), 0 none, -errno. */
int session_by_display(unsigned n, char **ret_id, uid_t *ret_uid);

/* Empty session id's scope: SIGTERM and a grace when graceful, then SIGKILL;
 * returns once the scope is empty (or nothing is left to watch). */
int session_reap(pam_handle_t *pamh, const struct args *a, const char *id, uid_t uid, bool graceful);

/* Wait until every process of cgroup dir cg but the caller has exited (scope.c). */
#define SCOPE_WAIT_PIDFDS_MAX 256
int scope_wait_others(const char *cg, unsigned long long timeout_usec);

