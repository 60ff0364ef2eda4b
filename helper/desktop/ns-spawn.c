/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>

#include "ns-spawn.h"
#include "socket-util.h"
#include "util.h"

#define NS_SPAWN_MAGIC 0x424e5331u    /* "BNS1" */
#define NS_DETACH_MAGIC 0x424e4431u   /* "BND1" */
#define NS_REATTACH_MAGIC 0x424e4131u /* "BNA1" */

enum {
        NS_SPAWN_NEW_SESSION = 1u << 0,
        NS_SPAWN_IGNORE_SIGUSR1 = 1u << 1,
        NS_SPAWN_HAS_CWD = 1u << 2,
        NS_SPAWN_HAS_CGROUP = 1u << 3,
        _NS_SPAWN_FLAGS_ALL = (1u << 4) - 1,
};

/* Which of the request's fds ride along, in this order. */
enum {
        NS_FD_STDIN,
        NS_FD_STDOUT,
        NS_FD_STDERR,
        NS_FD_KEEP,
        NS_FD_PIPE0,
        NS_FD_PIPE1,
        _NS_FD_MAX,
};

struct ns_spawn_header {
        uint32_t magic;
        uint32_t flags;
        uint32_t fd_mask;       /* 1 << NS_FD_* */
        int32_t keep_fd_target; /* the number the kept fd has in the child */
        uint32_t n_argv;
        uint32_t n_env;
};

struct ns_spawn_answer {
        int32_t error;
        int32_t pid;
};

static int append(char *buf, size_t *len, const char *s) {
        size_t n = strlen(s) + 1;

        if (n > NS_SPAWN_MESSAGE_MAX - *len)
                return -E2BIG;
        memcpy(buf + *len, s, n);
        *len += n;
        return 0;
}

int ns_spawn_request_send(int sock, const struct spawn_opts *o) {
        _cleanup_free_ char *buf = malloc(NS_SPAWN_MESSAGE_MAX);
        struct ns_spawn_header h = {
                .magic = NS_SPAWN_MAGIC,
                .keep_fd_target = -1,
        };
        const int in[_NS_FD_MAX] = { o->stdin_fd, o->stdout_fd, o->stderr_fd, o->keep_fd, o->pipe_fds[0], o->pipe_fds[1] };
        int fds[_NS_FD_MAX];
        size_t len = sizeof h, n_fds = 0;
        int r;

        if (!buf)
                return -ENOMEM;
        if (!o->argv || !o->argv[0] || !o->envp || (o->pipe_fds[0] >= 0) != (o->pipe_fds[1] >= 0))
                return -EINVAL;
        h.flags = (o->new_session ? NS_SPAWN_NEW_SESSION : 0) | (o->ignore_sigusr1 ? NS_SPAWN_IGNORE_SIGUSR1 : 0) |
                  (o->cwd ? NS_SPAWN_HAS_CWD : 0) | (o->cgroup ? NS_SPAWN_HAS_CGROUP : 0);
        for (size_t i = 0; i < _NS_FD_MAX; i++)
                if (in[i] >= 0) {
                        h.fd_mask |= 1u << i;
                        fds[n_fds++] = in[i];
                }
        if (o->keep_fd >= 0)
                h.keep_fd_target = o->keep_fd_target >= 0 ? o->keep_fd_target : o->keep_fd;
        for (char *const *a = o->argv; *a; a++, h.n_argv++)
                if ((r = append(buf, &len, *a)) < 0)
                        return r;
        for (char *const *e = o->envp; *e; e++, h.n_env++)
                if ((r = append(buf, &len, *e)) < 0)
                        return r;
        if (o->cwd && (r = append(buf, &len, o->cwd)) < 0)
                return r;
        if (o->cgroup && (r = append(buf, &len, o->cgroup)) < 0)
                return r;
        memcpy(buf, &h, sizeof h);
        return socket_send_message(sock, buf, len, fds, n_fds);
}

void ns_spawn_request_done(struct ns_spawn_request *r) {
        free(r->argv);
        free(r->envp);
        free(r->buf);
        for (size_t i = 0; i < r->n_fds; i++)
                safe_close(r->fds[i]);
        *r = (struct ns_spawn_request) {};
}

/* The next NUL-terminated string of buf[*pos..len), or NULL. */
static char *next_string(char *buf, size_t len, size_t *pos) {
        char *s = buf + *pos, *end;

        if (*pos >= len)
                return NULL;
        end = memchr(s, 0, len - *pos);
        if (!end)
                return NULL;
        *pos += (size_t) (end - s) + 1;
        return s;
}

static int strings_take(char *buf, size_t len, size_t *pos, uint32_t n, char ***ret) {
        char **v;

        if (n > len) /* each takes one byte at least */
                return -EBADMSG;
        v = calloc((size_t) n + 1, sizeof *v);
        if (!v)
                return -ENOMEM;
        for (uint32_t i = 0; i < n; i++)
                if (!(v[i] = next_string(buf, len, pos))) {
                        free(v);
                        return -EBADMSG;
                }
        *ret = v;
        return 0;
}

int ns_spawn_request_recv(int sock, struct ns_spawn_request *ret) {
        _cleanup_(ns_spawn_request_done) struct ns_spawn_request req = {};
        struct ns_spawn_header h;
        size_t pos = sizeof h, k = 0;
        ssize_t n;
        int r;

        req.buf = malloc(NS_SPAWN_MESSAGE_MAX);
        if (!req.buf)
                return -ENOMEM;
        n = socket_recv_message(sock, req.buf, NS_SPAWN_MESSAGE_MAX, req.fds, _NS_FD_MAX, &req.n_fds);
        if (n < 0)
                return n == -EMSGSIZE ? -EBADMSG : (int) n;
        if ((size_t) n == sizeof(uint32_t) && req.n_fds == 0) {
                uint32_t magic;

                memcpy(&magic, req.buf, sizeof magic);
                return magic == NS_DETACH_MAGIC ? NS_REQUEST_DETACH : -EBADMSG;
        }
        if ((size_t) n < sizeof h)
                return -EBADMSG;
        memcpy(&h, req.buf, sizeof h);
        if (h.magic != NS_SPAWN_MAGIC || (h.flags & ~(uint32_t) _NS_SPAWN_FLAGS_ALL) || h.fd_mask >> _NS_FD_MAX ||
            (size_t) __builtin_popcount(h.fd_mask) != req.n_fds || h.n_argv == 0 ||
            !(h.fd_mask & (1u << NS_FD_PIPE0)) != !(h.fd_mask & (1u << NS_FD_PIPE1)) ||
            ((h.fd_mask & (1u << NS_FD_KEEP)) ? h.keep_fd_target < 0 : h.keep_fd_target != -1))
                return -EBADMSG;
        if ((r = strings_take(req.buf, (size_t) n, &pos, h.n_argv, &req.argv)) < 0 ||
            (r = strings_take(req.buf, (size_t) n, &pos, h.n_env, &req.envp)) < 0)
                return r;

        req.opts = (struct spawn_opts) SPAWN_OPTS_INIT;
        req.opts.argv = req.argv;
        req.opts.envp = req.envp;
        req.opts.new_session = h.flags & NS_SPAWN_NEW_SESSION;
        req.opts.ignore_sigusr1 = h.flags & NS_SPAWN_IGNORE_SIGUSR1;
        if ((h.flags & NS_SPAWN_HAS_CWD) && !(req.opts.cwd = next_string(req.buf, (size_t) n, &pos)))
                return -EBADMSG;
        if ((h.flags & NS_SPAWN_HAS_CGROUP) && !(req.opts.cgroup = next_string(req.buf, (size_t) n, &pos)))
                return -EBADMSG;
        if (pos != (size_t) n)
                return -EBADMSG;
        int *const out[_NS_FD_MAX] = { &req.opts.stdin_fd, &req.opts.stdout_fd, &req.opts.stderr_fd,
                                       &req.opts.keep_fd, &req.opts.pipe_fds[0], &req.opts.pipe_fds[1] };
        for (size_t i = 0; i < _NS_FD_MAX; i++)
                if (h.fd_mask & (1u << i))
                        *out[i] = req.fds[k++];
        req.opts.keep_fd_target = h.keep_fd_target;
        *ret = req;
        req = (struct ns_spawn_request) {};
        return NS_REQUEST_SPAWN;
}

int ns_detach(int sock, unsigned long long timeout_usec) {
        const uint32_t magic = NS_DETACH_MAGIC;
        struct ns_spawn_answer a;
        size_t n_fds = 0;
        ssize_t n;
        int r;

        r = socket_send_message(sock, &magic, sizeof magic, NULL, 0);
        if (r < 0)
                return r;
        r = fd_wait_until(sock, POLLIN, now_usec() + timeout_usec);
        if (r < 0)
                return r;
        n = socket_recv_message(sock, &a, sizeof a, NULL, 0, &n_fds);
        if (n < 0)
                return n == -EMSGSIZE ? -EBADMSG : (int) n;
        if ((size_t) n != sizeof a || a.error > 0 || a.pid != 0)
                return -EBADMSG;
        return a.error;
}

int ns_detach_answer_send(int sock) {
        struct ns_spawn_answer a = {};

        return socket_send_message(sock, &a, sizeof a, NULL, 0);
}

int ns_reattach_send(int conn, int request_fd, int event_fd) {
        const uint32_t magic = NS_REATTACH_MAGIC;
        const int fds[] = { request_fd, event_fd };

        return socket_send_message(conn, &magic, sizeof magic, fds, ELEMENTSOF(fds));
}

int ns_reattach_recv(int conn, int *ret_request_fd, int *ret_event_fd) {
        uint32_t magic;
        int fds[2] = { -EBADF, -EBADF };
        size_t n_fds = 0;
        ssize_t n = socket_recv_message(conn, &magic, sizeof magic, fds, ELEMENTSOF(fds), &n_fds);

        if (n < 0)
                return n == -EMSGSIZE ? -EBADMSG : (int) n;
        if ((size_t) n != sizeof magic || magic != NS_REATTACH_MAGIC || n_fds != 2) {
                for (size_t i = 0; i < n_fds; i++)
                        safe_close(fds[i]);
                return -EBADMSG;
        }
        *ret_request_fd = fds[0];
        *ret_event_fd = fds[1];
        return 0;
}

int ns_spawn_answer_send(int sock, int error, pid_t pid, int pidfd) {
        struct ns_spawn_answer a = { .error = error, .pid = error < 0 ? 0 : (int32_t) pid };

        return socket_send_message(sock, &a, sizeof a, &pidfd, error < 0 || pidfd < 0 ? 0 : 1);
}

int ns_spawn_answer_recv(int sock, pid_t *ret_pid, int *ret_pidfd) {
        struct ns_spawn_answer a;
        size_t n_fds = 0;
        int pidfd = -EBADF;
        ssize_t n = socket_recv_message(sock, &a, sizeof a, &pidfd, 1, &n_fds);

        if (n < 0)
                return n == -EMSGSIZE ? -EBADMSG : (int) n;
        if ((size_t) n != sizeof a || a.error > 0 || (a.error < 0 && n_fds > 0) || (a.error == 0 && a.pid <= 0)) {
                safe_close(pidfd);
                return -EBADMSG;
        }
        if (a.error < 0)
                return a.error;
        *ret_pid = a.pid;
        *ret_pidfd = n_fds > 0 ? pidfd : -EBADF;
        return 0;
}

int ns_spawn(int sock, const struct spawn_opts *o, unsigned long long timeout_usec, pid_t *ret_pid,
             int *ret_pidfd) {
        int r = ns_spawn_request_send(sock, o);

        if (r < 0)
                return r;
        r = fd_wait_until(sock, POLLIN, now_usec() + timeout_usec);
        if (r < 0)
                return r;
        return ns_spawn_answer_recv(sock, ret_pid, ret_pidfd);
}

int ns_event_send(int sock, const struct ns_event *ev) {
        return socket_send_message(sock, ev, sizeof *ev, NULL, 0);
}

int ns_event_recv(int sock, struct ns_event *ret) {
        struct ns_event ev;
        size_t n_fds = 0;
        ssize_t n = socket_recv_message(sock, &ev, sizeof ev, NULL, 0, &n_fds);

        if (n < 0)
                return n == -EMSGSIZE ? -EBADMSG : (int) n;
        if ((size_t) n != sizeof ev || ev.type != NS_EVENT_EXITED || ev.pid <= 0)
                return -EBADMSG;
        *ret = ev;
        return 0;
}
