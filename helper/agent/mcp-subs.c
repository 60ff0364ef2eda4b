/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Subscriptions of `botdesk mcp P` on stdio (mcp-subs.h): a process per
 * subscription, its lines copied whole to the server's output.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "jsonrpc.h"
#include "log.h"
#include "mcp-subs.h"
#include "mcp-tasks.h"
#include "util.h"

/* A notification is a URI and a window list: a line this long is a process gone wrong. */
#define LINE_MAX_BYTES JSONRPC_LINE_MAX

struct proc {
        pid_t pid;
        int fd;                         /* the read end of its pipe */
        char *buf;                      /* a line not yet whole */
        size_t len, size;
        bool acknowledged;              /* a line was copied: the first is the acknowledgment */
};

static int sub_start(void *userdata, struct mcp_sub *sub) {
        struct agent *a = userdata;
        struct proc *p;
        pid_t server = getpid();

        p = calloc(1, sizeof *p);
        if (!p)
                return -ENOMEM;
        p->pid = mcp_child_fork(&p->fd);
        if (p->pid < 0) {
                int r = p->pid;

                free(p);
                return r;
        }
        if (p->pid == 0)
                mcp_listen_child(a->profile, sub, p->fd, server);
        sub->run = p;
        log_debug("Subscription %s runs as process %d.", sub->id, (int) p->pid);
        return 0;
}

static void sub_stop(void *userdata, struct mcp_sub *sub) {
        struct proc *p = sub->run;

        if (!p)
                return;
        /* A watch has nothing to finish; what it wrote and we did not copy goes with the pipe. */
        (void) kill(p->pid, SIGKILL);
        mcp_child_reap(p->pid, NULL);
        safe_close(p->fd);
        free(p->buf);
        free(p);
        sub->run = NULL;
        log_debug("Subscription %s stopped.", sub->id);
}

const struct mcp_sub_runner mcp_sub_processes = {
        .start = sub_start,
        .stop = sub_stop,
};

int mcp_sub_fd(const struct mcp_sub *sub) {
        const struct proc *p = sub->run;

        return p ? p->fd : -EBADF;
}

/* The whole lines in p's buffer to out, the rest kept. */
static void copy_lines(struct proc *p, FILE *out) {
        char *end = memrchr(p->buf, '\n', p->len);
        size_t n;

        if (!end)
                return;
        n = (size_t) (end - p->buf) + 1;
        p->acknowledged = true;
        fwrite(p->buf, 1, n, out);
        fflush(out);
        memmove(p->buf, p->buf + n, p->len - n);
        p->len -= n;
}

void mcp_sub_pump(struct mcp_subs *ss, struct mcp_sub *sub, FILE *out) {
        struct proc *p = sub->run;
        const char *why = "The desktop's watch ended (the desktop stopped, or its connection broke).";

        for (;;) {
                ssize_t n;

                if (p->len == p->size) {
                        size_t size = p->size ? p->size * 2 : 4096;
                        char *b;

                        if (size > LINE_MAX_BYTES || !(b = realloc(p->buf, size))) {
                                why = "A notification was too long to send.";
                                break;
                        }
                        p->buf = b;
                        p->size = size;
                }
                n = read(p->fd, p->buf + p->len, p->size - p->len);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0 && errno == EAGAIN)
                        return;
                if (n <= 0)
                        break;
                p->len += (size_t) n;
                copy_lines(p, out);
        }
        /* The process ended (or must): a half line of it is dropped, and the subscription ends as the server's. */
        log_debug("Subscription %s: %s", sub->id, why);
        mcp_subs_end(ss, sub, out, p->acknowledged ? why : "Cannot watch the desktop (see the server's log).",
                     p->acknowledged);
}
