/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * One way to name a Unix socket: every sockaddr_un of botdesk is filled here,
 * with a truncated name refused rather than connected to (or bound at) a
 * shorter, different path.
 */

#include <fcntl.h> /* AT_FDCWD */
#include <sys/socket.h>
#include <sys/un.h>

/* A pidfd of a Unix socket's peer (Linux 6.5); glibc 2.36's headers predate it. */
#ifndef SO_PEERPIDFD
#define SO_PEERPIDFD 77
#endif

/*
 * sockaddr_un_set_path() - fill *ret (zeroed first) with AF_UNIX and path.
 * A path that starts with '@' names an abstract socket: the '@' becomes the
 * leading NUL and the name is not NUL-terminated.
 *
 * Returns the address length to pass to bind()/connect(), -EINVAL for an
 * empty name, -ENAMETOOLONG when the name does not fit in sun_path.
 */
int sockaddr_un_set_path(struct sockaddr_un *ret, const char *path);

/*
 * socket_bind_private() - an AF_UNIX socket of type (SOCK_CLOEXEC is always
 * added) bound at path with mode 0600 from the bind on, not listening: a
 * datagram socket's receiving end. Returns the fd, or -errno.
 */
int socket_bind_private(const char *path, int type);

/*
 * socket_listen_private() - a listening AF_UNIX socket of type (SOCK_STREAM,
 * SOCK_SEQPACKET, optionally | SOCK_NONBLOCK; SOCK_CLOEXEC is always added)
 * bound at path with mode 0600 from the bind on: no moment in which another
 * user could connect. Whatever is at path is the caller's to remove first.
 *
 * Returns the fd, or -errno.
 */
int socket_listen_private(const char *path, int type, int backlog);

/*
 * socket_connect_at() - connect a new AF_UNIX socket of type (SOCK_CLOEXEC is
 * always added) to the socket name in the directory dirfd, through
 * /proc/self/fd/DIRFD/NAME: whatever the directory is called now, and with a
 * name too long for sun_path as a whole reachable as long as the short form
 * fits. dirfd AT_FDCWD, an absolute name or an abstract "@name" connect to
 * name itself.
 *
 * Returns the connected fd, or -errno (-ENAMETOOLONG when the address does
 * not fit; a non-blocking socket whose peer's backlog is full: -EAGAIN).
 */
int socket_connect_at(int dirfd, const char *name, int type);

/*
 * Until fd is ready for events (POLLIN, POLLOUT) or deadline, CLOCK_MONOTONIC
 * usec, whichever comes first: 0, -ETIMEDOUT, or -errno. The one bounded
 * wait of the non-blocking sockets that run on no event loop (a VNC
 * server's connection, its TLS, its RFB session).
 */
int fd_wait_until(int fd, short events, unsigned long long deadline);

/*
 * socket_send_message() - one message of size bytes (a SOCK_SEQPACKET or
 * SOCK_DGRAM socket) carrying n_fds fds (at most 8, SCM_RIGHTS); the sender
 * keeps its copies. 0, or -errno (-EAGAIN when sock is non-blocking and full).
 */
int socket_send_message(int sock, const void *data, size_t size, const int *fds, size_t n_fds);

/*
 * socket_recv_message() - one message into buf and up to max_fds (at most 8)
 * of the fds it carries into fds (O_CLOEXEC), their count in *ret_n_fds.
 * Returns its size; -EPIPE at the sender's end; -EMSGSIZE for a message
 * larger than size, -EBADMSG for one carrying more than max_fds (nothing
 * kept open either way); -EAGAIN; or -errno.
 */
ssize_t socket_recv_message(int sock, void *buf, size_t size, int *fds, size_t max_fds, size_t *ret_n_fds);

/*
 * socket_send_fd() - hand fd over sock (a connected SOCK_SEQPACKET or
 * SOCK_DGRAM socket) as one message of one byte that carries it
 * (SCM_RIGHTS). The sender keeps its own copy. Returns 0, or -errno
 * (-EAGAIN when sock is non-blocking and full).
 */
int socket_send_fd(int sock, int fd);

/*
 * socket_recv_fd() - the fd one message on sock carries (O_CLOEXEC), the
 * other side of socket_send_fd(). Returns the fd; -EPIPE at the sender's
 * end (nothing more will come); -EBADMSG for a message that carries no
 * fd, or more than one (all closed); -EAGAIN; or -errno.
 */
int socket_recv_fd(int sock);
