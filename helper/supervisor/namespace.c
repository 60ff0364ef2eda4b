/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/stat.h>

#include "botdesk-config.h"
#include "child.h"
#include "log.h"
#include "namespace.h"
#include "ns-spawn.h"
#include "procfs.h"
#include "socket-util.h"
#include "util.h"

/* The init answers once the child has exec'd (or failed to). */
#define NS_SPAWN_TIMEOUT_USEC (10 * 1000000ULL)

static struct child *child_by_ns_pid(struct supervisor *s, pid_t ns_pid) {
        if (s->xserver.ns_pid == ns_pid && s->xserver.pid > 0)
                return &s->xserver;
        if (s->bus.ns_pid == ns_pid && s->bus.pid > 0)
                return &s->bus;
        for (size_t i = 0; i < s->n_components; i++)
                if (s->components[i].ns_pid == ns_pid && s->components[i].pid > 0)
                        return &s->components[i];
        return NULL;
}

static void on_event(struct supervisor *s, const struct ns_event *ev) {
        struct child *c = child_by_ns_pid(s, ev->pid);

        if (!c)
                return; /* an orphan the init reaped, or a child we no longer wait for */
        if (ev->type == NS_EVENT_EXITED)
                child_reaped(s, c, ev->code, ev->status);
}

static int on_event_io(sd_event_source *source, int fd, uint32_t revents, void *userdata) {
        struct supervisor *s = userdata;

        for (;;) {
                struct ns_event ev;
                int r = ns_event_recv(fd, &ev);

                if (r == -EAGAIN)
                        return 0;
                if (r == -EBADMSG) {
                        log_warning("The desktop's init sent an event that is not one; ignored.");
                        continue;
                }
                if (r < 0) {
                        /* Its end: the init's own exit comes as our SIGCHLD. */
                        s->ns_event_source = sd_event_source_disable_unref(s->ns_event_source);
                        return 0;
                }
                on_event(s, &ev);
        }
}

/* Two socket pairs: ours become the helper's request and event fds, theirs go to the init. */
static int socket_pairs(struct supervisor *s, int *ret_req_theirs, int *ret_ev_theirs) {
        int req[2], ev[2];

        if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, req) < 0)
                return negative_errno();
        if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, ev) < 0) {
                int r = negative_errno();
                safe_close(req[0]);
                safe_close(req[1]);
                return r;
        }
        s->ns_request_fd = req[0];
        s->ns_event_fd = ev[0];
        *ret_req_theirs = req[1];
        *ret_ev_theirs = ev[1];
        return fd_nonblock(s->ns_event_fd, true);
}

static int watch_events(struct supervisor *s) {
        s->ns_event_source = sd_event_source_disable_unref(s->ns_event_source);
        return sd_event_add_io(s->event, &s->ns_event_source, s->ns_event_fd, EPOLLIN, on_event_io, s);
}

int namespace_start(struct supervisor *s) {
        _cleanup_close_ int req_theirs = -EBADF, ev_theirs = -EBADF, listen_fd = -EBADF;
        _cleanup_free_ char *sock = strdup_printf("%s/" NS_INIT_SOCKET, s->paths.runtime);
        int r;
        const char *path = getenv("BOTDESK_NS_INIT") ?: BOTDESK_NS_INIT_PATH;
        char *argv[] = { (char *) path, NULL };
        struct spawn_opts o = SPAWN_OPTS_INIT;

        if (!sock)
                return -ENOMEM;
        r = socket_pairs(s, &req_theirs, &ev_theirs);
        if (r < 0)
                return r;
        /* Where a detached init takes its next helper (ns-spawn.h): ours, 0600. */
        (void) unlinkat(s->runtime_fd, NS_INIT_SOCKET, 0);
        listen_fd = socket_listen_private(sock, SOCK_SEQPACKET, 4);
        if (listen_fd < 0)
                return listen_fd;

        o.argv = argv;
        o.envp = s->env;
        o.cgroup = s->cg_base ? s->cg_session : NULL;
        o.new_session = true;
        o.pdeathsig = !o.cgroup;
        o.pipe_fds[0] = req_theirs;
        o.pipe_fds[1] = ev_theirs;
        o.keep_fd = listen_fd;
        o.keep_fd_target = NS_INIT_LISTEN_FD;
        o.cwd = "/";
        o.clone_flags = CLONE_NEWPID | CLONE_NEWIPC;
        r = spawn(&o, &s->ns_init_pid);
        if (r < 0)
                return r;
        r = watch_events(s);
        if (r < 0)
                return r;
        log_info("The desktop runs in namespaces of its own, under botdesk-ns-init (pid %d).", (int) s->ns_init_pid);
        return 0;
}

int namespace_spawn(struct supervisor *s, struct child *c, const struct spawn_opts *o) {
        _cleanup_close_ int pidfd = -EBADF;
        pid_t ns_pid, pid;
        int r;

        if (s->ns_request_fd < 0)
                return -ENOTCONN;
        r = ns_spawn(s->ns_request_fd, o, NS_SPAWN_TIMEOUT_USEC, &ns_pid, &pidfd);
        if (r == -ETIMEDOUT || r == -EBADMSG || r == -EPIPE) {
                /* An answer may still come, and would be taken for the next one's. */
                s->ns_request_fd = safe_close(s->ns_request_fd);
                return r == -EBADMSG ? -EPROTO : r;
        }
        if (r < 0)
                return r;
        if (pidfd < 0)
                return -EOPNOTSUPP; /* we would know it only by the namespace's pid */
        r = pidfd_get_pid(pidfd, &pid);
        if (r < 0)
                return r;
        c->pid = pid;
        c->ns_pid = ns_pid;
        return 0;
}

int namespace_detach(struct supervisor *s) {
        int r;

        if (s->ns_request_fd < 0)
                return -ENOTCONN;
        r = ns_detach(s->ns_request_fd, NS_SPAWN_TIMEOUT_USEC);
        if (r < 0)
                return r;
        /* What the init reported before it answered is read now; it reports nothing more to these. */
        if (s->ns_event_source)
                (void) on_event_io(s->ns_event_source, s->ns_event_fd, EPOLLIN, s);
        namespace_done(s);
        return 0;
}

int namespace_reattach(struct supervisor *s) {
        _cleanup_close_ int req_theirs = -EBADF, ev_theirs = -EBADF, conn = -EBADF;
        int r;

        namespace_done(s);
        r = socket_pairs(s, &req_theirs, &ev_theirs);
        if (r < 0)
                return r;
        conn = socket_connect_at(s->runtime_fd, NS_INIT_SOCKET, SOCK_SEQPACKET);
        if (conn < 0)
                return conn;
        r = ns_reattach_send(conn, req_theirs, ev_theirs);
        if (r < 0)
                return r;
        return watch_events(s);
}

void namespace_init_exited(struct supervisor *s, const siginfo_t *si) {
        struct child *all[ELEMENTSOF(s->components) + 2];
        size_t n;

        s->ns_init_pid = 0;
        /* The kernel killed everything in its namespaces before it was reaped. */
        n = child_all(s, all);
        for (size_t i = 0; i < n; i++)
                if (all[i]->ns_pid > 0)
                        all[i]->pid = all[i]->ns_pid = 0;
        if (s->state >= DESKTOP_STOPPING)
                return;
        /* An essential child's end, but not the X server's (whose start has rules of its own): the desktop
         * fails, naming the init. */
        supervisor_feed(s, &(struct desktop_event) {
                .type = DESKTOP_EVENT_CHILD_EXITED,
                .exit = {
                        .which = DESKTOP_CHILD_BUS,
                        .name = "namespaces' init (botdesk-ns-init)",
                        .code = si->si_code,
                        .status = si->si_status,
                },
        });
}

void namespace_done(struct supervisor *s) {
        s->ns_event_source = sd_event_source_disable_unref(s->ns_event_source);
        s->ns_request_fd = safe_close(s->ns_request_fd);
        s->ns_event_fd = safe_close(s->ns_event_fd);
}

int namespace_runtime_env(struct supervisor *s, const char *runtime, bool make, char ***env) {
        _cleanup_free_ char *dir = strdup_printf("%s/" SNAPSHOT_RUNTIME_XDG, runtime);
        _cleanup_free_ char *tmp = strdup_printf("%s/" SNAPSHOT_RUNTIME_TMP, runtime);
        int r;

        if (!dir || !tmp)
                return -ENOMEM;
        for (const char *const *d = snapshot_runtime_dirs; make && *d; d++)
                if (mkdirat(s->runtime_fd, *d, 0700) < 0 && errno != EEXIST)
                        return negative_errno();
        r = env_set(env, "XDG_RUNTIME_DIR", dir);
        /* Chromium's singleton socket is TMPDIR/.org.chromium.Chromium.XXXXXX/SingletonSocket: where that
         * would not fit in a socket's address, /tmp stays (and forks with a browser race for it there). */
        if (r >= 0 && strlen(tmp) + NAMESPACE_TMP_SOCKET_ROOM < sizeof(((struct sockaddr_un *) NULL)->sun_path))
                r = env_set(env, "TMPDIR", tmp);
        return r;
}
