/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * pam_botdesk: the session module of botdesk's logind tier.
 *
 * Stack order: pam_loginuid, pam_limits, pam_botdesk, pam_systemd. In a
 * botdesk session (BOTDESK_PROFILE in the PAM environment, put there by
 * botdesk-session@.service's Environment=) open validates the profile and
 * /etc/botdesk.ini, kills a leftover session of the same profile, reserves a
 * display number in the band under the host-wide allocation lock, and tells
 * pam_systemd what session this is (PAM_XDISPLAY, XDG_SESSION_TYPE/CLASS/
 * DESKTOP), and the helper which number is its own (BOTDESK_DISPLAY).
 *
 * Close empties the session's scope (SIGTERM, a grace of a second watched
 * through cgroup.events, SIGKILL) and drops the reservation. A SIGKILLed main
 * process leaves the session "closing" with its other processes alive, and
 * logind's TerminateSession does not touch a closing session (measured), so
 * this is where the reaping happens. systemd runs the close hook in its
 * "(sd-pam)" process, which has dropped privileges to the session's user:
 * everything at close therefore also works unprivileged (signals to the
 * user's own processes, logind's KillSession which the owner may call), and
 * a reservation that only root may remove is left to the next open, which
 * drops reservations whose opener and session are both gone.
 *
 * Arguments: debug, config=PATH (default: the system files, /etc/botdesk.ini,
 * /etc/botdesk/botdesk.ini and its drop-ins; PATH: that file and PATH.d/), rundir=PATH
 * (default /run/botdesk). No exit(), no setenv(), no static mutable state,
 * no fd or bus connection outlives a call.
 */
#include <fcntl.h>
#include <pwd.h>
#include <signal.h>
#include <sys/stat.h>
#include <syslog.h>

#include <security/pam_ext.h>
#include <security/pam_modules.h>
#include <security/pam_modutil.h>


#include "alloc.h"
#include "procfs.h"
#include "config.h"
#include "profile.h"
#include "reservation.h"
#include "pam-botdesk.h"
#include "util.h"

#define DATA_NAME "pam_botdesk.session"

/* What open hands to close (pam_set_data). Plain memory, freed by libpam. */
struct session_data {
        unsigned display;
        pid_t pid;
        uid_t uid;
        char profile[PROFILE_NAME_MAX + 1];
};

static void parse_args(pam_handle_t *pamh, int argc, const char **argv, struct args *a) {
        *a = (struct args) {
                .config = NULL, /* the system files */
                .rundir = DEFAULT_RUNDIR,
        };

        for (int i = 0; i < argc; i++) {
                const char *v;

                if (streq(argv[i], "debug"))
                        a->debug = true;
                else if (streq(argv[i], "network"))
                        a->network = true;
                else if ((v = startswith(argv[i], "config=")) && v[0] == '/')
                        a->config = v;
                else if ((v = startswith(argv[i], "rundir=")) && v[0] == '/')
                        a->rundir = v;
                else
                        pam_syslog(pamh, LOG_WARNING, "Unknown or invalid module argument '%s', ignoring.", argv[i]);
        }
}

/* A copy of untrusted text that is safe to log: printable ASCII, bounded. */
static void sanitize(const char *s, char *buf, size_t size) {
        size_t i;

        for (i = 0; s[i] && i + 1 < size; i++)
                buf[i] = s[i] >= 0x20 && s[i] < 0x7f ? s[i] : '?';
        buf[i] = '\0';
}

/*
 * The run directory and its reservations/ must belong to us (root in
 * production) and be writable by nobody else: whoever can write there can
 * plant or remove reservations. tmpfiles.d creates both; a missing one is
 * created here.
 */
static int dir_ensure_private(const char *path) {
        struct stat st;

        if (mkdir(path, 0755) < 0 && errno != EEXIST)
                return negative_errno();
        if (lstat(path, &st) < 0)
                return negative_errno();
        if (!S_ISDIR(st.st_mode))
                return -ENOTDIR;
        if (st.st_uid != geteuid() || (st.st_mode & (S_IWGRP | S_IWOTH)))
                return -EPERM;
        return 0;
}

int pam_config_load(pam_handle_t *pamh, const struct args *a, const char *profile, struct bd_config *ret) {
        struct config_errors errs = {};
        const struct config_sources src = {
                .system_path = a->config,
                /* No config=: the system files where the build put them,
                 * whatever BOTDESK_CONFIG the caller's environment has. */
                .sysconf_dir = a->config ? NULL : CONFIG_SYSCONF_DIR,
                .user_path = "", /* host-wide decisions: no user file */
                .root_context = true,
        };
        int r;

        r = config_load(ret, profile, &src, &errs);
        if (r >= 0) {
                config_errors_done(&errs);
                return 0;
        }
        for (size_t i = 0; i < errs.n; i++) {
                _cleanup_free_ char *t = config_error_text(&errs.items[i]);

                pam_syslog(pamh, LOG_ERR, "%s", t ?: errs.items[i].message);
        }
        if (errs.n == 0)
                log_errno_pam(pamh, LOG_ERR, r, "Cannot load %s: %m", a->config ?: CONFIG_SYSTEM_FILES);
        pam_syslog(pamh, LOG_ERR, "Refusing botdesk session %s: the configuration has errors.", profile);
        config_errors_done(&errs);
        return r == -ENOMEM ? r : -EINVAL;
}

/* ---- open --------------------------------------------------------------------------------- */

/*
 * Kill leftovers of this profile: each reservation naming it belongs to an
 * earlier session (a unit instance runs once; a new open means the old main
 * process is gone). Its logind session, if any, is killed; a session of
 * another user holding this profile's number refuses the open instead.
 * *preferred is set to the leftover's number, so the profile keeps its display.
 */
static int reap_leftovers(pam_handle_t *pamh, const struct args *a, const char *resdir, const char *profile,
                          uid_t uid, bool logind, int *preferred) {
        struct reservation *l = NULL;
        size_t n = 0;
        int r, ret = 0;

        r = reservation_list(resdir, &l, &n);
        if (r < 0)
                return log_errno_pam(pamh, LOG_ERR, r, "Cannot read the reservations in %s: %m", resdir);

        for (size_t i = 0; i < n; i++) {
                _cleanup_free_ char *id = NULL;
                uid_t owner = (uid_t) -1;

                if (!streq_ptr(l[i].profile, profile))
                        continue;

                if (logind) {
                        r = session_by_display(l[i].display, &id, &owner);
                        if (r == -ENOMEM) {
                                ret = r;
                                break;
                        }
                        if (r > 0 && owner != uid) {
                                pam_syslog(pamh, LOG_ERR,
                                           "Display :%u of profile %s is held by session %s of uid %u, refusing a second session.",
                                           l[i].display, profile, id, (unsigned) owner);
                                ret = -EBUSY;
                                break;
                        }
                        if (r > 0) {
                                pam_syslog(pamh, LOG_NOTICE, "Killing the leftover session %s (display :%u) of profile %s.",
                                           id, l[i].display, profile);
                                (void) session_reap(pamh, a, id, owner, false);
                        }
                }

                r = reservation_remove(resdir, &l[i]);
                if (r < 0) {
                        ret = log_errno_pam(pamh, LOG_ERR, r, "Cannot remove the leftover reservation %s/%u: %m",
                                            resdir, l[i].display);
                        break;
                }
                log_debug_pam(a, pamh, "Removed the leftover reservation of display :%u (profile %s).",
                              l[i].display, profile);
                if (*preferred < 0)
                        *preferred = (int) l[i].display;
        }

        reservations_free(l, n);
        return ret;
}

/*
 * Drop reservations of other profiles whose opener is dead and whose session
 * is gone: left behind when close ran unprivileged (systemd's sd-pam) or not
 * at all. Runs under the allocation lock, so no open is half-way.
 */
static void sweep_stale(pam_handle_t *pamh, const struct args *a, const char *resdir, bool logind) {
        struct reservation *l = NULL;
        size_t n = 0;

        if (reservation_list(resdir, &l, &n) < 0)
                return;
        for (size_t i = 0; i < n; i++) {
                if (!l[i].profile)
                        continue; /* a bare pid's, or not ours: alloc.c decides */
                if (l[i].pid > 0 && pid_alive("/proc", l[i].pid))
                        continue;
                if (logind && session_by_display(l[i].display, NULL, NULL) != 0)
                        continue; /* still there (closing), or cannot tell */
                if (reservation_remove(resdir, &l[i]) > 0)
                        log_debug_pam(a, pamh, "Removed the stale reservation of display :%u (profile %s).",
                                      l[i].display, l[i].profile);
        }
        reservations_free(l, n);
}

#define PICK_ATTEMPTS 8

/*
 * Pick a number and reserve it. Users' allocators do not share root's lock,
 * so the reservation is the claim: written first (O_EXCL), then the X lock
 * and socket of the number are looked at again. A user's server that
 * claimed it meanwhile wins and the next number is tried; one that claims
 * it later finds the reservation when it checks after its own claim.
 */
static int pick_and_reserve(const struct alloc_env *env, const struct bd_config *c, int preferred,
                            const char *resdir, uid_t uid, const char *profile) {
        const struct alloc_env x_only = { .lock_dir = env->lock_dir, .proc_net_unix = env->proc_net_unix,
                                          .proc_root = env->proc_root };
        unsigned tried[PICK_ATTEMPTS];
        size_t n_tried = 0;
        int n, r;

        while (n_tried < PICK_ATTEMPTS) {
                n = display_pick(env, c->band_min, c->band_max, preferred, tried, n_tried);
                if (n < 0)
                        return n;
                tried[n_tried++] = (unsigned) n;
                r = reservation_create(resdir, (unsigned) n, getpid(), uid, profile);
                if (r == -EEXIST)
                        continue;
                if (r < 0)
                        return r;
                r = display_in_use(&x_only, (unsigned) n);
                if (r == 0)
                        return n;
                (void) reservation_remove(resdir, &(struct reservation) {
                        .display = (unsigned) n, .pid = getpid(), .uid = uid, .profile = (char *) profile });
                if (r < 0)
                        return r;
        }
        return -EBUSY;
}

static void data_free(pam_handle_t *pamh, void *data, int error_status) {
        free(data);
}

static int open_session(pam_handle_t *pamh, const struct args *a, const char *profile) {
        _cleanup_(config_done) struct bd_config c = {};
        _cleanup_free_ char *resdir = NULL;
        _cleanup_free_ struct session_data *data = NULL;
        _cleanup_close_ int lock_fd = -EBADF;
        const char *where = a->config ?: CONFIG_SYSTEM_FILES;
        struct reservation mine = {};
        const struct passwd *pw;
        const void *item = NULL;
        const char *user;
        char buf[64], xdisplay[16], number[32];
        int preferred = -1, n, r;
        bool logind;

        if (!profile_name_valid(profile)) {
                sanitize(profile, buf, sizeof buf);
                pam_syslog(pamh, LOG_ERR,
                           "Invalid profile name \"%s\" in BOTDESK_PROFILE (allowed: 1-%u characters of A-Z a-z 0-9 _ -, starting with a letter or digit).",
                           buf, PROFILE_BASE_MAX);
                return -EINVAL;
        }

        r = pam_get_item(pamh, PAM_USER, &item);
        if (r != PAM_SUCCESS || !item || !*(const char *) item) {
                pam_syslog(pamh, LOG_ERR, "No user for botdesk session %s.", profile);
                return -EINVAL;
        }
        user = item;
        pw = pam_modutil_getpwnam(pamh, user);
        if (!pw) {
                sanitize(user, buf, sizeof buf);
                pam_syslog(pamh, LOG_ERR, "Unknown user \"%s\" for botdesk session %s.", buf, profile);
                return -ESRCH;
        }

        r = pam_config_load(pamh, a, profile, &c);
        if (r < 0)
                return r;

        if (c.user && !streq(c.user, user) && !streq(c.user, pw->pw_name)) {
                pam_syslog(pamh, LOG_ERR, "Profile %s belongs to user %s (user = in [profile.%s] of %s), refusing a session for %s.",
                           profile, c.user, profile, where, pw->pw_name);
                return -EPERM;
        }
        if (!c.user && pw->pw_uid == 0) {
                pam_syslog(pamh, LOG_ERR, "Refusing a botdesk session as root: set user = in [profile.%s] of %s.",
                           profile, where);
                return -EPERM;
        }

        resdir = strdup_printf("%s/reservations", a->rundir);
        if (!resdir)
                return -ENOMEM;
        r = dir_ensure_private(a->rundir);
        if (r >= 0)
                r = dir_ensure_private(resdir);
        if (r < 0)
                return log_errno_pam(pamh, LOG_ERR, r,
                                     "%s (and its reservations/) must be a directory of uid %u that only it can write: %m",
                                     a->rundir, (unsigned) geteuid());

        logind = logind_running();
        if (!logind)
                log_debug_pam(a, pamh, "logind is not running: no leftover sessions to look for.");

        r = reap_leftovers(pamh, a, resdir, profile, pw->pw_uid, logind, &preferred);
        if (r < 0)
                return r;

        /* Held from the pick until the reservation is written, no longer.
         * Only root can hold it; the deadline is for a root process stuck. */
        lock_fd = alloc_lock_take(a->rundir, ALLOC_LOCK_TIMEOUT_USEC, NULL);
        if (lock_fd < 0)
                return log_errno_pam(pamh, LOG_ERR, lock_fd, "Cannot take the display allocation lock: %m");

        sweep_stale(pamh, a, resdir, logind);

        char claims[PATH_MAX];
        /* Root's own starts claim numbers under the same lock (alloc.h), their X servers not yet up. */
        const struct alloc_env env = {
                .lock_dir = "/tmp",
                .proc_net_unix = "/proc/net/unix",
                .reservation_dir = resdir,
                .proc_root = "/proc",
                .claim_dir = alloc_claim_dir(a->rundir, claims, sizeof claims),
        };
        n = pick_and_reserve(&env, &c, preferred, resdir, pw->pw_uid, profile);
        if (n == -EBUSY) {
                pam_syslog(pamh, LOG_ERR,
                           "No free X display for profile %s in the band %u-%u ([display] band in %s): stop a desktop or widen the band.",
                           profile, c.band_min, c.band_max, where);
                return -EBUSY;
        }
        if (n < 0)
                return log_errno_pam(pamh, LOG_ERR, n, "Cannot pick and reserve a display for profile %s in %s: %m",
                                     profile, resdir);

        lock_fd = safe_close(lock_fd);

        mine = (struct reservation) { .display = (unsigned) n, .pid = getpid(), .uid = pw->pw_uid, .profile = (char *) profile };
        data = calloc(1, sizeof *data);
        if (!data) {
                r = -ENOMEM;
                goto fail;
        }
        *data = (struct session_data) { .display = (unsigned) n, .pid = mine.pid, .uid = mine.uid };
        /* profile_name_valid: it fits. */
        if (strscpy(data->profile, sizeof data->profile, profile) < 0) {
                r = -EINVAL;
                goto fail;
        }

        snprintf(xdisplay, sizeof xdisplay, ":%d", n);
        snprintf(number, sizeof number, "BOTDESK_DISPLAY=%d", n);
        /* pam_systemd reads these to register an x11 session of class user
         * (without the class the session would be "background"). */
        if (pam_set_item(pamh, PAM_XDISPLAY, xdisplay) != PAM_SUCCESS ||
            pam_putenv(pamh, "XDG_SESSION_TYPE=x11") != PAM_SUCCESS ||
            pam_putenv(pamh, "XDG_SESSION_CLASS=user") != PAM_SUCCESS ||
            pam_putenv(pamh, "XDG_SESSION_DESKTOP=botdesk") != PAM_SUCCESS ||
            pam_putenv(pamh, number) != PAM_SUCCESS) {
                pam_syslog(pamh, LOG_ERR, "Cannot set the PAM items and environment of botdesk session %s.", profile);
                r = -ENOMEM;
                goto fail;
        }
        if (pam_set_data(pamh, DATA_NAME, data, data_free) != PAM_SUCCESS) {
                pam_syslog(pamh, LOG_ERR, "Cannot store the state of botdesk session %s.", profile);
                r = -ENOMEM;
                goto fail;
        }
        TAKE_PTR(data);

        log_debug_pam(a, pamh, "Reserved display :%d for profile %s of %s.", n, profile, pw->pw_name);
        return 0;

fail:
        (void) reservation_remove(resdir, &mine);
        return r;
}

/* ---- close -------------------------------------------------------------------------------- */

static int close_session(pam_handle_t *pamh, const struct args *a, const struct session_data *data) {
        _cleanup_free_ char *resdir = NULL, *found = NULL;
        const struct reservation mine = {
                .display = data->display,
                .pid = data->pid,
                .uid = data->uid,
                .profile = (char *) data->profile,
        };
        const char *id;
        int r, ret = 0;

        /* pam_systemd put the id of the session it registered into the PAM
         * environment; so can the application, to anything. Only a session
         * logind says is botdesk's, of our user, on our display is emptied. */
        id = pam_getenv(pamh, "XDG_SESSION_ID");
        if (logind_running()) {
                if (id && (r = session_verify(id, data->uid, data->display)) <= 0) {
                        char shown[SESSION_ID_MAX + 1];

                        sanitize(id, shown, sizeof shown);
                        if (r < 0)
                                log_errno_pam(pamh, LOG_WARNING, r, "Cannot look up session %s: %m; ignoring it.", shown);
                        else
                                pam_syslog(pamh, LOG_WARNING,
                                           "XDG_SESSION_ID=%s is not the botdesk session of uid %u on :%u; ignoring it.",
                                           shown, (unsigned) data->uid, data->display);
                        id = NULL;
                }
                if (!id) {
                        uid_t owner = (uid_t) -1;

                        if (session_by_display(data->display, &found, &owner) > 0 && owner == data->uid)
                                id = found;
                }
                if (id) {
                        r = session_reap(pamh, a, id, data->uid, true);
                        if (r < 0)
                                ret = r;
                } else
                        log_debug_pam(a, pamh, "No logind session for display :%u.", data->display);
        } else
                log_debug_pam(a, pamh, "logind is not running: no session scope to empty.");

        resdir = strdup_printf("%s/reservations", a->rundir);
        if (!resdir)
                return -ENOMEM;
        r = reservation_remove(resdir, &mine);
        if (r == -EACCES || r == -EPERM)
                /* systemd's sd-pam runs close as the user: the next open drops it once stale. */
                log_debug_pam(a, pamh, "Cannot remove the reservation of display :%u as uid %u; the next open drops it.",
                              data->display, (unsigned) geteuid());
        else if (r < 0)
                ret = log_errno_pam(pamh, LOG_WARNING, r, "Cannot remove the reservation %s/%u: %m", resdir, data->display);
        else
                log_debug_pam(a, pamh, "Released display :%u of profile %s.", data->display, data->profile);
        return ret;
}

/* ---- entry points ------------------------------------------------------------------------- */

static int pam_code(int r) {
        if (r >= 0)
                return PAM_SUCCESS;
        return r == -ENOMEM ? PAM_BUF_ERR : PAM_SESSION_ERR;
}

PAM_EXTERN int pam_sm_open_session(pam_handle_t *pamh, int flags, int argc, const char **argv) {
        struct args a;
        const char *profile;

        parse_args(pamh, argc, argv, &a);
        profile = pam_getenv(pamh, "BOTDESK_PROFILE");
        if (!profile) {
                log_debug_pam(&a, pamh, "No BOTDESK_PROFILE in the PAM environment: not a botdesk session.");
                return PAM_IGNORE;
        }
        if (a.network)
                return session_network_apply(pamh, &a, profile) < 0 ? PAM_IGNORE : PAM_SUCCESS;
        return pam_code(open_session(pamh, &a, profile));
}

PAM_EXTERN int pam_sm_close_session(pam_handle_t *pamh, int flags, int argc, const char **argv) {
        struct session_data fallback = {};
        const void *data = NULL;
        const char *profile, *display;
        unsigned long long v;
        struct args a;
        int r;

        parse_args(pamh, argc, argv, &a);
        if (a.network)
                return PAM_IGNORE; /* the scope goes with the session: nothing to undo, and the first line reaps */
        if (pam_get_data(pamh, DATA_NAME, &data) != PAM_SUCCESS || !data) {
                _cleanup_free_ char *resdir = NULL;
                struct reservation res = {};

                /* A handle other than the one that opened (a PAM application that
                 * closes from a fresh handle): the environment says which
                 * number, the reservation file must agree on the profile. */
                profile = pam_getenv(pamh, "BOTDESK_PROFILE");
                display = pam_getenv(pamh, "BOTDESK_DISPLAY");
                if (!profile || !display || parse_uint(display, 65535, &v) < 0) {
                        log_debug_pam(&a, pamh, "Not a botdesk session, or nothing was reserved.");
                        return PAM_IGNORE;
                }
                resdir = strdup_printf("%s/reservations", a.rundir);
                if (!resdir)
                        return PAM_BUF_ERR;
                r = reservation_read(resdir, (unsigned) v, &res);
                if (r < 0 || !streq_ptr(res.profile, profile)) {
                        reservation_done(&res);
                        log_debug_pam(&a, pamh, "No reservation of display :%llu for this profile.", v);
                        return PAM_IGNORE;
                }
                fallback = (struct session_data) { .display = (unsigned) v, .pid = res.pid, .uid = res.uid };
                /* The same name as profile, which profile_name_valid let through: it fits. */
                r = strscpy(fallback.profile, sizeof fallback.profile, res.profile) < 0 ? -EINVAL : 0;
                reservation_done(&res);
                if (r < 0) {
                        pam_syslog(pamh, LOG_ERR, "The reservation of display :%llu names a profile too long.", v);
                        return PAM_SESSION_ERR;
                }
                data = &fallback;
        }

        r = close_session(pamh, &a, data);
        if (data != &fallback)
                /* Closed: a second close must not reap again. Frees the data. */
                (void) pam_set_data(pamh, DATA_NAME, NULL, NULL);
        return pam_code(r);
}
