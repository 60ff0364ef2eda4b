/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <fcntl.h>
#include <sys/socket.h>
#include <sys/pidfd.h>
#include <unistd.h>

#include "a11y-bus.h"
#include "a11y.h"
#include "bus-address.h"
#include "bus-cleanup.h"
#include "procfs.h"
#include "socket-util.h"
#include "util.h"

/*
 * The process at the other end of fd: our uid, pid unless 0, and one of the
 * desktop's own (its environment holds BOTDESK_TOKEN=token,
 * which the helper gives every process it starts and the buses hand on to
 * what they activate). A socket of the same user's elsewhere, such as the
 * session bus of the process reading the tree, is someone else here.
 */
static int peer_check(int fd, pid_t pid, const char *token) {
        _cleanup_free_ char *token_entry = NULL;
        _cleanup_close_ int pidfd = -EBADF;
        struct ucred cred = {};
        socklen_t len = sizeof cred;
        int r;

        /* A Unix socket's peer credentials are the listener's, taken when it listened: the process that made it. */
        if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0)
                return negative_errno();
        if (len != sizeof cred || cred.uid != geteuid() || (pid > 0 && cred.pid != pid) || !token || !*token)
                return -A11Y_PEER_REFUSED;
        token_entry = strdup_printf("BOTDESK_TOKEN=%s", token);
        if (!token_entry)
                return -ENOMEM;
        /* The listener itself, pinned where the kernel can (6.5): its pid read below is not a recycled one. */
        len = sizeof pidfd;
        if (getsockopt(fd, SOL_SOCKET, SO_PEERPIDFD, &pidfd, &len) < 0) {
                if (errno != ENOPROTOOPT)
                        return -A11Y_PEER_REFUSED;      /* ESRCH: the listener is gone */
                pidfd = -EBADF;
        }
        r = pid_environ_has(cred.pid, token_entry);
        if (r == -ENOMEM)
                return r;
        if (r <= 0)
                return -A11Y_PEER_REFUSED;
        if (pidfd >= 0 && pidfd_send_signal(pidfd, 0, NULL, 0) < 0 && errno != ENOSYS)
                return -A11Y_PEER_REFUSED;
        return 0;
}

/*
 * A new connection to the socket address names, a bus client or a peer's:
 * the address read by bus_address_socket() (its errno when refused), the
 * socket connected here and its peer checked (-A11Y_PEER_REFUSED) before
 * sd-bus gets the fd: sd-bus never parses the address, and writes nothing
 * to a peer that is not the one expected. -ENOTCONN when the socket could
 * not be reached or spoke no D-Bus.
 */
static int connect_checked(const char *address, pid_t pid, const char *token, bool bus_client,
                           uint64_t timeout_usec, sd_bus **ret) {
        _cleanup_(bus_flush_close_unrefp) sd_bus *bus = NULL;
        _cleanup_free_ char *name = NULL;
        _cleanup_close_ int fd = -EBADF;
        int r;

        r = bus_address_socket(address, &name);
        if (r < 0)
                return r;
        /* Non-blocking: a listener that never accepts costs nothing (-EAGAIN once its backlog is full). */
        fd = socket_connect_at(AT_FDCWD, name, SOCK_STREAM | SOCK_NONBLOCK);
        if (fd == -ENOMEM)
                return fd;
        if (fd < 0)
                return -ENOTCONN;
        r = peer_check(fd, pid, token);
        if (r < 0)
                return r;
        if ((r = sd_bus_new(&bus)) < 0 || (r = sd_bus_set_fd(bus, fd, fd)) < 0)
                return r;
        TAKE_FD(fd);    /* the bus's now, closed with it */
        if ((r = sd_bus_set_bus_client(bus, bus_client)) < 0 ||
            (r = sd_bus_set_method_call_timeout(bus, timeout_usec)) < 0)
                return r;
        r = sd_bus_start(bus);
        if (r < 0)
                return r == -ENOMEM ? r : -ENOTCONN;
        *ret = TAKE_PTR(bus);
        return 0;
}

int a11y_bus_open(const char *session_address, const char *token, uint64_t timeout_usec, sd_bus **ret) {
        _cleanup_(bus_flush_close_unrefp) sd_bus *session = NULL, *a11y = NULL;
        _cleanup_(sd_bus_error_free) sd_bus_error e = SD_BUS_ERROR_NULL;
        _cleanup_(bus_message_unrefp) sd_bus_message *call = NULL, *reply = NULL;
        const char *address;
        int r;

        /* The env file's address: the desktop's programs can write the runtime dir. */
        r = connect_checked(session_address, 0, token, true, timeout_usec, &session);
        if (r < 0)
                return r;
        /* Asked of a running launcher only (a11y_method_call_newv(): never an activation), since the peer
         * checked above may be a relay of the desktop's to a bus that is not: the desktop's GTK and Qt
         * applications start the launcher themselves. */
        r = a11y_method_call(session, &call, "org.a11y.Bus", "/org/a11y/bus", "org.a11y.Bus", "GetAddress", NULL);
        if (r < 0)
                return r;
        r = sd_bus_call(session, call, timeout_usec, &e, &reply);
        if (r < 0)
                return sd_bus_error_has_names(&e, SD_BUS_ERROR_SERVICE_UNKNOWN, SD_BUS_ERROR_NAME_HAS_NO_OWNER)
                               ? -ENXIO
                               : a11y_error_errno(&e, r);
        r = sd_bus_message_read(reply, "s", &address);
        if (r < 0)
                return r;
        if (!*address)
                return -ENXIO;
        /* Whoever owns org.a11y.Bus on that bus says it: any program of the desktop may. */
        r = connect_checked(address, 0, token, true, timeout_usec, &a11y);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(a11y);
        return 0;
}

int a11y_app_connect(const char *address, pid_t pid, const char *token, uint64_t timeout_usec, sd_bus **ret) {
        /* Without the pid the bus knows it by, no peer could be told to be the application. */
        if (pid <= 0)
                return -A11Y_PEER_REFUSED;
        return connect_checked(address, pid, token, false, timeout_usec, ret);
}
