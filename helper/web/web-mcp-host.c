/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The MCP server botdesk web keeps for a desktop (web.h): `botdesk mcp
 * PROFILE --listen stdio` whose standard input is one end of a
 * SOCK_SEQPACKET socketpair, each message of which hands it a connection
 * (mcp-http.h's MCP_HTTP_HANDED). It is started by the first request that
 * needs a server to outlive it, serves every such request of that desktop
 * from then on, and ends by itself when the desktop's X server does, or
 * when web closes our end (web's exit: its job is killed too).
 */
#include <errno.h>
#include <sys/socket.h>

#include "socket-util.h"
#include "util.h"
#include "web-conn.h"

struct web_mcp_host {
        struct web_server *server;
        char profile[PROFILE_NAME_MAX + 1];
        int control;                    /* our end: a message per connection handed over */
        struct web_job *job;
        struct web_mcp_host *next;
};

static struct web_mcp_host *host_free(struct web_mcp_host *h) {
        if (h) {
                safe_close(h->control);
                free(h);
        }
        return NULL;
}

static void host_unlink(struct web_mcp_host *h) {
        for (struct web_mcp_host **p = &h->server->mcp_hosts; *p; p = &(*p)->next)
                if (*p == h) {
                        *p = h->next;
                        return;
                }
}

static void on_host_done(int status, const char *out, const char *err, void *userdata) {
        struct web_mcp_host *h = userdata;
        const char *last = strrchr(err, '\n');

        h->job = NULL;
        host_unlink(h);
        /* Its requests still without an answer get one now: its last words. */
        for (struct web_conn *c = h->server->conns, *next; c; c = next) {
                next = c->next;
                if (c->mcp)
                        web_mcp_host_gone(c, h, status, last ? last + 1 : err);
        }
        host_free(h);
}

static int host_start(struct web_server *s, const char *profile, struct web_mcp_host **ret) {
        char *const args[] = { (char *) "mcp", (char *) profile, (char *) "--listen", (char *) "stdio", NULL };
        _cleanup_close_ int child_end = -EBADF;
        struct web_mcp_host *h;
        int sv[2], r;

        h = calloc(1, sizeof *h);
        if (!h)
                return -ENOMEM;
        h->server = s;
        (void) strscpy(h->profile, sizeof h->profile, profile);
        if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0, sv) < 0) {
                r = negative_errno();
                free(h);
                return r;
        }
        h->control = sv[0];
        child_end = sv[1];
        /* The child's end blocks as any standard input would; it polls it before it reads. */
        r = fd_nonblock(child_end, false);
        if (r >= 0)
                r = web_job_start(s, args, child_end, on_host_done, h, &h->job);
        if (r < 0) {
                host_free(h);
                return r;
        }
        h->next = s->mcp_hosts;
        s->mcp_hosts = h;
        *ret = h;
        return 0;
}

int web_mcp_host_connect(struct web_server *s, const char *profile, struct web_mcp_host **ret_host, int *ret_fd) {
        _cleanup_close_ int ours = -EBADF, theirs = -EBADF;
        struct web_mcp_host *h = NULL;
        int sv[2], r;

        for (struct web_mcp_host *i = s->mcp_hosts; i && !h; i = i->next)
                if (streq(i->profile, profile))
                        h = i;
        if (!h) {
                r = host_start(s, profile, &h);
                if (r < 0)
                        return r;
        }
        if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0, sv) < 0)
                return negative_errno();
        ours = sv[0];
        theirs = sv[1];
        /* Full: the server has that many requests waiting already. */
        r = socket_send_fd(h->control, theirs);
        if (r < 0)
                return r;
        *ret_host = h;
        *ret_fd = TAKE_FD(ours);
        return 0;
}

void web_mcp_hosts_done(struct web_server *s) {
        while (s->mcp_hosts) {
                struct web_mcp_host *h = s->mcp_hosts;

                s->mcp_hosts = h->next;
                web_job_cancel(h->job);
                host_free(h);
        }
}
