/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* pam_botdesk's conversations with logind: finding and killing sessions. */
#include <errno.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/un.h>

#include <systemd/sd-bus.h>
#include <systemd/sd-daemon.h>
#include <systemd/sd-login.h>

#include "login.h"
#include "pam-botdesk.h"
#include "socket-util.h"
#include "util.h"

bool session_id_valid(const char *id) {
        size_t i;

        if (!id || !id[0])
                return false;
        for (i = 0; id[i]; i++)
                if (i >= SESSION_ID_MAX ||
                    !((id[i] >= 'a' && id[i] <= 'z') || (id[i] >= 'A' && id[i] <= 'Z') || (id[i] >= '0' && id[i] <= '9')))
                        return false;
        return true;
}

bool logind_running(void) {
        /* What sd-login itself checks: systemd is PID 1 and logind made its seats dir. */
        return sd_booted() > 0 && access("/run/systemd/seats/", F_OK) >= 0;
}

/* Above fd 2: a PAM application may call us with stdio closed, and a bus on fd 1 would get the
 * application's output. */
int bus_open_system(sd_bus **ret) {
        _cleanup_close_ int fd = -EBADF;
        sd_bus *bus = NULL;
        int r;

        fd = socket_connect_at(AT_FDCWD, SYSTEM_BUS_SOCKET, SOCK_STREAM);
        if (fd < 0)
                return fd;
        r = fd_move_above_stdio(fd);
        if (r < 0)
                return r;
        fd = r;

        r = sd_bus_new(&bus);
        if (r < 0)
                return r;
        r = sd_bus_set_fd(bus, fd, fd);
        if (r < 0) {
                sd_bus_unref(bus);
                return r;
        }
        TAKE_FD(fd); /* the bus closes it from now on */
        r = sd_bus_set_bus_client(bus, true);
        if (r >= 0)
                r = sd_bus_start(bus);
        if (r < 0) {
                sd_bus_flush_close_unref(bus);
                return r;
        }
        *ret = bus;
        return 0;
}

/* logind's KillSession(id, "all", sig): permitted to root and to the session's owner. */
int logind_kill_session(pam_handle_t *pamh, const struct args *a, const char *id, int sig) {
        sd_bus_error error = SD_BUS_ERROR_NULL;
        sd_bus *bus = NULL;
        int r;

        r = bus_open_system(&bus);
        if (r < 0) {
                errno = -r;
                log_debug_pam(a, pamh, "Cannot connect to the system bus: %m");
                return r;
        }
        r = sd_bus_call_method(bus, "org.freedesktop.login1", "/org/freedesktop/login1",
                               "org.freedesktop.login1.Manager", "KillSession", &error, NULL,
                               "ssi", id, "all", (int32_t) sig);
        if (r < 0)
                log_debug_pam(a, pamh, "KillSession(%s, all, %s) failed: %s", id, sigabbrev_np(sig) ?: "?",
                              error.message ?: strerrordesc_np(-r) ?: "unknown error");
        sd_bus_error_free(&error);
        sd_bus_flush_close_unref(bus);
        return r;
}

/* The botdesk session on display :n: 1 (id and uid set), 0 none, -errno. */
int session_by_display(unsigned n, char **ret_id, uid_t *ret_uid) {
        return login_session_by_display((uid_t) -1, (int) n, ret_id, ret_uid);
}

int session_verify(const char *id, uid_t uid, unsigned n) {
        _cleanup_free_ char *service = NULL, *display = NULL;
        uid_t owner;
        int r;

        if (!session_id_valid(id))
                return 0;
        r = sd_session_get_uid(id, &owner);
        if (r == -ENXIO || r == -ENOENT)
                return 0; /* no such session */
        if (r < 0)
                return r;
        r = sd_session_get_service(id, &service);
        if (r < 0 && r != -ENODATA && r != -ENXIO)
                return r;
        r = sd_session_get_display(id, &display);
        if (r < 0 && r != -ENODATA && r != -ENXIO)
                return r;
        return session_is_ours(service, display, owner, uid, n);
}
