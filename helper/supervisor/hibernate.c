/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/utsname.h>

#include "botdesk-config.h"
#include "checkpoint.h"
#include "clipboard-owner.h"
#include "exit-status.h"
#include "handback.h"
#include "hibernate.h"
#include "journal-frames.h"
#include "lease.h"
#include "child.h"
#include "log.h"
#include "namespace.h"
#include "snapshot.h"
#include "socket-util.h"
#include "start.h"
#include "util.h"
#include "viewer-gone.h"
#include "xauth.h"

/* A desktop dumps in about a second (doc/snapshots.md); a loaded machine may take many. */
#define DUMP_TIMEOUT_USEC (120 * 1000000ULL)
#define REQUEST_TIMEOUT_USEC (2 * 1000000ULL)

static int manifest_fill(struct supervisor *s, struct snapshot_manifest *m) {
        struct child *all[ELEMENTSOF(s->components) + 2];
        struct utsname u;
        size_t n;

        if (uname(&u) < 0)
                return negative_errno();
        *m = (struct snapshot_manifest) {
                .version = strdup(BOTDESK_VERSION),
                .kernel = strdup(u.release),
                .display = (unsigned) s->display,
                .token = strdup(s->token),
                .bus_address = strdup(strempty(s->bus_address)),
        };
        if (!m->version || !m->kernel || !m->token || !m->bus_address)
                return -ENOMEM;
        n = child_all(s, all);
        for (size_t i = 0; i < n && m->n_children < SNAPSHOT_CHILDREN_MAX; i++) {
                if (all[i]->pid <= 0 || all[i]->ns_pid <= 0)
                        continue; /* a component down, waiting for its restart */
                m->children[m->n_children] = (struct snapshot_child) { .ns_pid = all[i]->ns_pid, .name = strdup(all[i]->name) };
                if (!m->children[m->n_children++].name)
                        return -ENOMEM;
        }
        return 0;
}

/* Our connections into the tree closed; what watches a ready desktop stopped. */
static void let_go(struct supervisor *s) {
        s->x_source = sd_event_source_disable_unref(s->x_source);
        x11_disconnect(&s->x);
        handback_done(&s->handback);
        viewer_gone_done(&s->viewer_gone);
        clipboard_owner_done(&s->clipboard);
        journal_frames_done(&s->frames);
}

/* After a failed dump: everything as it was. */
static int take_back(struct supervisor *s) {
        int r;

        r = namespace_reattach(s);
        if (r < 0)
                return log_error_errno(r, "Cannot reattach the desktop's init after a failed dump: %m");
        r = x11_connect(&s->x, (unsigned) s->display, s->cookie);
        if (r >= 0)
                r = start_watch_x(s);
        if (r < 0)
                return log_error_errno(r, "Cannot connect to the X server again after a failed dump: %m");
        start_watch_ready(s);
        return 0;
}

static int hibernate(struct supervisor *s, struct snapshot_manifest *m, char **ret_error) {
        _cleanup_free_ char *criu = NULL, *version = NULL, *dir = NULL;
        _cleanup_close_ int state_fd = -EBADF, dir_fd = -EBADF;
        struct lease lease = {};
        unsigned long long t0;
        int r;

        if (s->state != DESKTOP_READY || s->ns_init_pid <= 0) {
                *ret_error = strdup_printf("desktop %s is not ready to be dumped (%s)", s->profile,
                                           desktop_state_to_string(s->state));
                return -EBUSY;
        }
        (void) lease_read_at(s->runtime_fd, &lease);
        if (lease.holder == LEASE_HUMAN) {
                *ret_error = strdup_printf("a human has control of desktop %s (botdesk lease %s): hibernating would "
                                           "take the screen away from them", s->profile, s->profile);
                return -EBUSY;
        }
        r = checkpoint_criu(&s->cfg, &criu, &version, ret_error);
        if (r < 0)
                return r;

        state_fd = open(s->paths.state, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (state_fd < 0) {
                r = negative_errno();
                *ret_error = strdup_printf("cannot open %s: %s", s->paths.state, strerror(-r));
                return r;
        }
        (void) snapshot_remove_at(state_fd, SNAPSHOT_DIR_NEW);
        if (mkdirat(state_fd, SNAPSHOT_DIR_NEW, 0700) < 0 ||
            (dir_fd = openat(state_fd, SNAPSHOT_DIR_NEW, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0) {
                r = negative_errno();
                *ret_error = strdup_printf("cannot make %s/%s: %s", s->paths.state, SNAPSHOT_DIR_NEW, strerror(-r));
                return r;
        }
        dir = strdup_printf("%s/%s", s->paths.state, SNAPSHOT_DIR_NEW);
        r = manifest_fill(s, m);
        if (r >= 0)
                r = xauth_write_at(dir_fd, SNAPSHOT_XAUTHORITY, (unsigned) s->display, s->cookie);
        if (!dir || r < 0) {
                *ret_error = strdup_printf("cannot write the snapshot's manifest: %s", strerror(dir ? -r : ENOMEM));
                return dir ? r : -ENOMEM;
        }

        log_info("Hibernating desktop :%d with %s (CRIU %s) into %s.", s->display, criu, version, dir);
        let_go(s);
        r = namespace_detach(s);
        if (r < 0) {
                *ret_error = strdup_printf("the desktop's init did not detach: %s", strerror(-r));
                goto undo;
        }
        t0 = now_usec();
        r = checkpoint_dump(criu, s->ns_init_pid, dir, s->cg_base ? s->cg_session : NULL, DUMP_TIMEOUT_USEC, ret_error);
        if (r < 0)
                goto undo;
        m->dump_usec = now_usec() - t0;
        m->time_usec = realtime_usec();
        (void) snapshot_size_at(dir_fd, &m->size);
        r = snapshot_manifest_write_at(dir_fd, m);
        if (r >= 0) {
                (void) snapshot_remove_at(state_fd, SNAPSHOT_DIR);
                if (renameat(state_fd, SNAPSHOT_DIR_NEW, state_fd, SNAPSHOT_DIR) < 0)
                        r = negative_errno();
        }
        if (r < 0) {
                /* The tree is gone with its dump: nothing to take back. */
                *ret_error = strdup_printf("the desktop was dumped, but its snapshot could not be kept: %s; it is "
                                           "stopped", strerror(-r));
                return r;
        }
        return 0;

undo:
        (void) snapshot_remove_at(state_fd, SNAPSHOT_DIR_NEW);
        (void) take_back(s);
        return r;
}

int hibernate_now(struct supervisor *s, struct snapshot_manifest *m, char **ret_error) {
        int r = hibernate(s, m, ret_error);

        if (r < 0) {
                log_warning("Not hibernated: %s", strnull(*ret_error));
                if (s->ns_init_pid <= 0 || !s->x.conn)
                        /* What was let go could not be taken back: the desktop ends. */
                        supervisor_fail(s, HELPER_EXIT_FAILED, "The desktop could not be hibernated nor taken back: %s",
                                        strnull(*ret_error));
        }
        return r;
}

static int on_connection(sd_event_source *source, int fd, uint32_t revents, void *userdata) {
        _cleanup_(snapshot_manifest_done) struct snapshot_manifest m = {};
        _cleanup_close_ int conn = accept4(fd, NULL, NULL, SOCK_CLOEXEC);
        _cleanup_free_ char *error = NULL, *answer = NULL;
        struct supervisor *s = userdata;
        struct ucred cred;
        socklen_t len = sizeof cred;
        char request[64];
        ssize_t n;
        int r = -EINVAL;

        if (conn < 0)
                return 0;
        /* Ours alone (the socket is 0600 in our 0700 dir; the peer says so too). */
        if (getsockopt(conn, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0 || cred.uid != getuid())
                return 0;
        if (fd_wait_until(conn, POLLIN, now_usec() + REQUEST_TIMEOUT_USEC) < 0 ||
            (n = recv(conn, request, sizeof request - 1, 0)) <= 0)
                return 0;
        request[n] = 0;
        if (!streq(request, HIBERNATE_REQUEST))
                answer = strdup_printf("error unknown request \"%s\"", request);
        else if ((r = hibernate_now(s, &m, &error)) < 0)
                answer = strdup_printf("error %s", error ?: strerror(-r));
        else
                answer = strdup_printf("ok %llu %llu", m.size, m.dump_usec);
        if (answer)
                (void) send(conn, answer, strlen(answer), MSG_NOSIGNAL);
        /* Dumped: the tree ended with it, and so does the desktop. */
        if (r >= 0)
                supervisor_feed(s, &(struct desktop_event) { .type = DESKTOP_EVENT_HIBERNATED });
        return 0;
}

int hibernate_listen(struct supervisor *s) {
        _cleanup_free_ char *path = strdup_printf("%s/" HIBERNATE_SOCKET, s->paths.runtime);
        _cleanup_close_ int fd = -EBADF;
        int r;

        if (!path)
                return -ENOMEM;
        hibernate_done(s);
        (void) unlinkat(s->runtime_fd, HIBERNATE_SOCKET, 0);
        fd = socket_listen_private(path, SOCK_SEQPACKET | SOCK_NONBLOCK, 4);
        if (fd < 0)
                return fd;
        r = sd_event_add_io(s->event, &s->hibernate_source, fd, EPOLLIN, on_connection, s);
        if (r < 0)
                return r;
        (void) sd_event_source_set_io_fd_own(s->hibernate_source, true);
        TAKE_FD(fd);
        return 0;
}

void hibernate_done(struct supervisor *s) {
        s->hibernate_source = sd_event_source_disable_unref(s->hibernate_source);
}
