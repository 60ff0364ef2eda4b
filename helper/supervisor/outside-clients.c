/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <dirent.h>
#include <stddef.h>
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/pidfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "log.h"
#include "outside-clients.h"
#include "procfs.h"
#include "profile.h"
#include "snapshot.h"
#include "util.h"

/* An X server answers a client's request only after it has read what it
 * could from the others; a dead client may wait a few turns of its
 * scheduler, so we ask more than once, each a round trip and no sleep. */
#define ROUND_TRIPS_MAX 32
#define ENDS_MAX 256
/* botdesk-browser answers the mark within a turn of its loop. */
#define DEVTOOLS_TIMEOUT_USEC (2 * 1000 * 1000ULL)
#define BROWSER_COMM "botdesk-browser"
#define BOTDESK_COMM "botdesk"

struct end {
        pid_t pid;              /* its holder in the tree */
        int fd;                 /* its number there */
        ino_t ino;
};

struct ends {
        struct end end[ENDS_MAX];
        size_t n;
        size_t n_server;        /* how many are the X server's that we shut down: the first of end[] */
        unsigned kept;          /* the X server's we leave: X clients that are not botdesk's */
        bool browser;           /* one is botdesk-browser's */
};

/* The socket behind fd, when it is one end of a Unix stream connection (not a listener); its peer's pid. */
static bool connected_unix_stream(int fd, ino_t *ret_ino, pid_t *ret_peer) {
        struct ucred cred;
        struct stat st;
        int domain = 0, type = 0, listening = 0;
        socklen_t len;

        if (fstat(fd, &st) < 0 || !S_ISSOCK(st.st_mode))
                return false;
        len = sizeof domain;
        if (getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &domain, &len) < 0 || domain != AF_UNIX)
                return false;
        len = sizeof type;
        if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &len) < 0 || type != SOCK_STREAM)
                return false;
        len = sizeof listening;
        if (getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &listening, &len) < 0 || listening)
                return false;
        len = sizeof cred;
        if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0)
                return false;
        *ret_ino = st.st_ino;
        *ret_peer = cred.pid;
        return true;
}

/* Whether the peer is a process outside the tree. A peer we cannot see (gone, or in a namespace above
 * ours) is not judged: its socket may be held by the tree's own program that inherited it. */
static bool peer_outside(pid_t peer, ino_t tree_ns) {
        ino_t ns;

        if (peer <= 0 || peer == getpid())
                return false; /* ours are the caller's to close */
        return pid_namespace(peer, "pid", &ns) >= 0 && ns != tree_ns;
}

static bool comm_is(pid_t pid, const char *name) {
        _cleanup_free_ char *comm = NULL;

        return pid_comm(pid, &comm) >= 0 && streq(comm, name);
}

/* Whether the X server's connection fd is an RFB viewer's (accepted on rfb.sock, whose name it bears). */
static bool rfb_viewer(int fd) {
        struct sockaddr_un sa = {};
        socklen_t len = sizeof sa;
        size_t n;

        if (getsockname(fd, (struct sockaddr *) &sa, &len) < 0 || len <= offsetof(struct sockaddr_un, sun_path))
                return false;
        n = strnlen(sa.sun_path, len - offsetof(struct sockaddr_un, sun_path));
        return n >= strlen("/" RFB_SOCKET) && streq(sa.sun_path + n - strlen("/" RFB_SOCKET), "/" RFB_SOCKET);
}

/* Whether we end the X server's connection fd from peer: a viewer's (it only watches, and connects again),
 * or an X client of botdesk's own (botdesk mcp and act open the desktop again; agent/agent.h). Another
 * program's would die with it: left, for the dump to refuse. */
static bool server_ends(int fd, pid_t peer) {
        return rfb_viewer(fd) || comm_is(peer, BOTDESK_COMM);
}

/* The outside ends pid holds; the X server's shut down. */
static int scan_process(pid_t pid, bool server, ino_t tree_ns, struct ends *e) {
        _cleanup_close_ int pidfd = pidfd_open(pid, 0);
        _cleanup_closedir_ DIR *d = NULL;
        char path[64];
        bool browser = false;

        if (pidfd < 0)
                return errno == ESRCH ? 0 : negative_errno();
        (void) snprintf(path, sizeof path, "/proc/%d/fd", (int) pid);
        d = opendir(path);
        if (!d)
                return errno == ENOENT ? 0 : negative_errno();
        for (struct dirent *de; (de = readdir(d)) && e->n < ENDS_MAX;) {
                _cleanup_close_ int fd = -EBADF;
                unsigned long long n;
                ino_t ino;
                pid_t peer;

                if (parse_uint(de->d_name, INT_MAX, &n) < 0)
                        continue;
                fd = pidfd_getfd(pidfd, (int) n, 0);
                if (fd < 0) {
                        if (errno == EBADF)
                                continue; /* closed meanwhile */
                        return negative_errno();
                }
                if (!connected_unix_stream(fd, &ino, &peer) || !peer_outside(peer, tree_ns))
                        continue;
                log_debug("Pid %d's fd %llu is connected to pid %d, outside the desktop.", (int) pid, n, (int) peer);
                if (server && !server_ends(fd, peer)) {
                        e->kept++;
                        continue;
                }
                if (server && shutdown(fd, SHUT_RDWR) < 0)
                        return negative_errno();
                e->end[e->n++] = (struct end) { .pid = pid, .fd = (int) n, .ino = ino };
                if (server)
                        e->n_server++;
                else
                        browser = browser || comm_is(pid, BROWSER_COMM);
        }
        e->browser = e->browser || browser;
        return 0;
}

/* Every process in the tree's PID namespace. */
static int scan_tree(pid_t server, ino_t tree_ns, struct ends *e) {
        _cleanup_closedir_ DIR *d = opendir("/proc");
        int r;

        if (!d)
                return negative_errno();
        r = scan_process(server, true, tree_ns, e);
        if (r < 0)
                return r;
        for (struct dirent *de; (de = readdir(d));) {
                unsigned long long pid;
                ino_t ns;

                if (parse_uint(de->d_name, INT_MAX, &pid) < 0 || (pid_t) pid == server ||
                    pid_namespace((pid_t) pid, "pid", &ns) < 0 || ns != tree_ns)
                        continue;
                r = scan_process((pid_t) pid, false, tree_ns, e);
                if (r < 0)
                        return r;
        }
        return 0;
}

/* Whether the holder's fd is still that socket. */
static bool still_open(const struct end *end) {
        _cleanup_close_ int pidfd = pidfd_open(end->pid, 0);
        _cleanup_close_ int fd = pidfd < 0 ? -EBADF : pidfd_getfd(pidfd, end->fd, 0);
        struct stat st;

        return fd >= 0 && fstat(fd, &st) >= 0 && st.st_ino == end->ino;
}

/* Those of e[from, to) closed by now moved past the open ones; how many are still open. */
static size_t count_open(struct end *end, size_t n) {
        size_t open = 0;

        for (size_t i = 0; i < n; i++)
                if (still_open(&end[i])) {
                        struct end t = end[open];

                        end[open++] = end[i];
                        end[i] = t;
                }
        return open;
}

/* Until botdesk-browser says it let its DevTools clients go (bounded). */
static void wait_devtools(int inotify_fd, int runtime_fd) {
        unsigned long long deadline = now_usec() + DEVTOOLS_TIMEOUT_USEC;

        while (faccessat(runtime_fd, SNAPSHOT_DUMPING_DEVTOOLS_DONE, F_OK, AT_SYMLINK_NOFOLLOW) < 0) {
                uint8_t buf[4096];
                unsigned long long now = now_usec();

                if (now >= deadline) {
                        log_warning("botdesk-browser did not let its DevTools clients go within 2 s.");
                        return;
                }
                if (poll(&(struct pollfd) { .fd = inotify_fd, .events = POLLIN }, 1,
                         (int) ((deadline - now + 999) / 1000)) < 0 && errno != EINTR)
                        return;
                while (read(inotify_fd, buf, sizeof buf) > 0)
                        ;
        }
}

int outside_clients_drop(pid_t server, pid_t tree_init, xcb_connection_t *c, int runtime_fd,
                         struct outside_clients *ret) {
        _cleanup_close_ int inotify_fd = -EBADF;
        struct ends e = {};
        ino_t tree_ns;
        size_t open;
        int r;

        *ret = (struct outside_clients) {};
        r = pid_namespace(tree_init, "pid", &tree_ns);
        if (r < 0)
                return r;
        /* Watched before the mark, so botdesk-browser's answer cannot come first. */
        inotify_fd = inotify_watching(runtime_fd, IN_CLOSE_WRITE | IN_MOVED_TO | IN_ONLYDIR);
        if (inotify_fd < 0)
                return inotify_fd;
        (void) unlinkat(runtime_fd, SNAPSHOT_DUMPING_DEVTOOLS_DONE, 0);
        r = write_file_atomic_at(runtime_fd, SNAPSHOT_DUMPING_FILE, "", 0, 0600);
        if (r < 0)
                return r;
        r = scan_tree(server, tree_ns, &e);
        if (r < 0)
                return r;
        /* The X server's first in e: round trips until it closed them. */
        open = e.n_server;
        for (unsigned trip = 0; open > 0 && trip < ROUND_TRIPS_MAX; trip++) {
                free(xcb_get_input_focus_reply(c, xcb_get_input_focus(c), NULL));
                if (xcb_connection_has_error(c))
                        return -ECONNRESET;
                open = count_open(e.end, open);
        }
        if (e.browser)
                wait_devtools(inotify_fd, runtime_fd);
        open += count_open(e.end + e.n_server, e.n - e.n_server);
        ret->left = (unsigned) open + e.kept;
        ret->dropped = (unsigned) (e.n - open);
        return 0;
}

void outside_clients_unmark(int runtime_fd) {
        (void) unlinkat(runtime_fd, SNAPSHOT_DUMPING_FILE, 0);
        (void) unlinkat(runtime_fd, SNAPSHOT_DUMPING_DEVTOOLS_DONE, 0);
}
