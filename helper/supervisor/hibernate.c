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
#include "bus-address.h"
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
#include "outside-clients.h"
#include "profile.h"
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
        _cleanup_free_ char *bus = NULL, *tree_bus = NULL;
        struct utsname u;
        size_t n;

        if (uname(&u) < 0)
                return negative_errno();
        /* What the tree's processes know: a fork's are its parent's (tree-mounts.h). */
        if (s->tree_runtime) {
                tree_bus = strdup_printf("%s/bus", s->tree_runtime);
                bus = tree_bus ? bus_address_moved(strempty(s->bus_address), s->bus_socket, tree_bus) : NULL;
        } else
                bus = strdup(strempty(s->bus_address));
        *m = (struct snapshot_manifest) {
                .version = strdup(BOTDESK_VERSION),
                .kernel = strdup(u.release),
                .display = (unsigned) (s->tree_display >= 0 ? s->tree_display : s->display),
                .token = strdup(s->token),
                .bus_address = TAKE_PTR(bus),
                .tree_runtime = strdup(s->tree_runtime ?: s->paths.runtime),
                .tree_state = strdup(s->tree_state ?: s->paths.state),
        };
        if (!m->version || !m->kernel || !m->token || !m->bus_address || !m->tree_runtime || !m->tree_state)
                return -ENOMEM;
        if (s->fork_of && !(m->fork_of = strdup(s->fork_of)))
                return -ENOMEM;
        m->desktop = strdup(s->cfg.desktop == DESKTOP_COMMAND ? "command" : "xfce");
        if (!m->desktop || (s->cfg.command && !(m->command = strdup(s->cfg.command))))
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

/* The connections from outside the tree, which CRIU cannot dump: ended where botdesk may (outside-clients.h). */
static void drop_outside(struct supervisor *s) {
        struct outside_clients o;
        int r;

        if (s->xserver.pid <= 0 || !s->x.conn)
                return;
        r = outside_clients_drop(s->xserver.pid, s->ns_init_pid, s->x.conn, s->runtime_fd, &o);
        if (r < 0)
                log_warning_errno(r, "Cannot end the connections from outside the desktop, ignoring: %m");
        else if (o.dropped > 0)
                log_info("Ended %u connection(s) from outside the desktop (viewers, X and DevTools clients).",
                         o.dropped);
        if (r >= 0 && o.left > 0)
                log_warning("%u connection(s) from outside the desktop are not botdesk's to end.", o.left);
}

/* After a failed dump, or a snapshot's: everything as it was. */
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

/* Where a dump goes: STATE/snapshot for a hibernation, STATE/snapshots/NAME for botdesk snapshot. */
struct dump_target {
        const char *name;       /* NULL: the hibernation's */
        bool leave_running;
};

static int open_parent(struct supervisor *s, const struct dump_target *t, int *ret_fd, char **ret_path,
                       char **ret_error) {
        _cleanup_close_ int state_fd = open(s->paths.state, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        int fd, r;

        if (state_fd < 0) {
                r = negative_errno();
                *ret_error = strdup_printf("cannot open %s: %s", s->paths.state, strerror(-r));
                return r;
        }
        if (!t->name) {
                *ret_path = strdup(s->paths.state);
                *ret_fd = TAKE_FD(state_fd);
                return *ret_path ? 0 : -ENOMEM;
        }
        if (mkdirat(state_fd, SNAPSHOTS_DIR, 0700) < 0 && errno != EEXIST)
                fd = negative_errno();
        else
                fd = dir_open_verified_at(state_fd, SNAPSHOTS_DIR, getuid());
        if (fd < 0) {
                *ret_error = strdup_printf("cannot open %s/%s as a private dir of ours: %s", s->paths.state,
                                           SNAPSHOTS_DIR, strerror(-fd));
                return fd;
        }
        *ret_fd = fd;
        *ret_path = strdup_printf("%s/%s", s->paths.state, SNAPSHOTS_DIR);
        return *ret_path ? 0 : -ENOMEM;
}

static int dump(struct supervisor *s, const struct dump_target *t, struct snapshot_manifest *m, char **ret_error) {
        _cleanup_free_ char *criu = NULL, *version = NULL, *parent = NULL, *new_name = NULL, *files_to = NULL;
        struct checkpoint_files files;
        _cleanup_close_ int parent_fd = -EBADF, dir_fd = -EBADF;
        const char *final = t->name ?: SNAPSHOT_DIR;
        struct lease lease = {};
        unsigned long long t0;
        int r, k;

        if (s->state != DESKTOP_READY || s->ns_init_pid <= 0) {
                *ret_error = strdup_printf("desktop %s is not ready to be dumped (%s)", s->profile,
                                           desktop_state_to_string(s->state));
                return -EBUSY;
        }
        (void) lease_read_at(s->runtime_fd, &lease);
        if (lease.holder == LEASE_HUMAN && !t->leave_running) {
                *ret_error = strdup_printf("a human has control of desktop %s (botdesk lease %s): hibernating would "
                                           "take the screen away from them", s->profile, s->profile);
                return -EBUSY;
        }
        r = checkpoint_criu(&s->cfg, &criu, &version, ret_error);
        if (r < 0)
                return r;
        r = open_parent(s, t, &parent_fd, &parent, ret_error);
        if (r < 0)
                return r;
        if (t->name && faccessat(parent_fd, t->name, F_OK, AT_SYMLINK_NOFOLLOW) >= 0) {
                *ret_error = strdup_printf("desktop %s has a snapshot named %s already (%s/%s)", s->profile, t->name,
                                           parent, t->name);
                return -EEXIST;
        }
        new_name = strdup_printf("%s.new", final);
        if (!new_name)
                return -ENOMEM;
        (void) snapshot_remove_at(parent_fd, new_name);
        if (mkdirat(parent_fd, new_name, 0700) < 0 ||
            (dir_fd = openat(parent_fd, new_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0) {
                r = negative_errno();
                *ret_error = strdup_printf("cannot make %s/%s: %s", parent, new_name, strerror(-r));
                return r;
        }
        r = manifest_fill(s, m);
        if (r >= 0)
                r = xauth_write_at(dir_fd, SNAPSHOT_XAUTHORITY, m->display, s->cookie);
        if (r < 0) {
                *ret_error = strdup_printf("cannot write the snapshot's manifest: %s", strerror(-r));
                goto undo;
        }

        /* A named snapshot keeps the session files the dumped processes had open, for its forks: paths as the
         * tree sees them, where CRIU and its script run (a fork's state dir is shown at its parent's). */
        if (t->name) {
                const char *tree_state = s->tree_state ?: s->paths.state;

                files_to = strdup_printf("%s/%s/%s/%s", tree_state, SNAPSHOTS_DIR, new_name, SNAPSHOT_FILES);
                if (!files_to) {
                        r = -ENOMEM;
                        goto undo;
                }
                files = (struct checkpoint_files) { .from = tree_state, .to = files_to,
                                                    .runtime = s->tree_runtime ?: s->paths.runtime };
        }

        log_info("%s desktop :%d with %s (CRIU %s) into %s/%s.", t->leave_running ? "Snapshotting" : "Hibernating",
                 s->display, criu, version, parent, final);
        drop_outside(s);
        let_go(s);
        r = namespace_detach(s);
        if (r < 0) {
                *ret_error = strdup_printf("the desktop's init did not detach: %s", strerror(-r));
                goto undo;
        }
        t0 = now_usec();
        r = checkpoint_dump(criu, s->ns_init_pid, dir_fd, s->cg_base ? s->cg_session : NULL, t->leave_running,
                            t->name ? &files : NULL, DUMP_TIMEOUT_USEC, ret_error);
        if (r < 0)
                goto undo;
        m->dump_usec = now_usec() - t0;
        m->time_usec = realtime_usec();
        (void) snapshot_size_at(dir_fd, &m->size);
        r = snapshot_manifest_write_at(dir_fd, m);
        if (r >= 0) {
                if (!t->name)
                        (void) snapshot_remove_at(parent_fd, SNAPSHOT_DIR);
                if (renameat(parent_fd, new_name, parent_fd, final) < 0)
                        r = negative_errno();
        }
        if (r < 0)
                *ret_error = strdup_printf("the desktop was dumped, but its snapshot could not be kept: %s%s",
                                           strerror(-r), t->leave_running ? "" : "; it is stopped");
        if (!t->leave_running)
                return r; /* the tree is gone with its dump: nothing to take back */
        if (r < 0)
                (void) snapshot_remove_at(parent_fd, new_name);
        k = take_back(s);
        if (r >= 0 && k < 0)
                *ret_error = strdup_printf("the snapshot was kept, but the desktop could not be taken back: %s",
                                           strerror(-k));
        return r < 0 ? r : k;

undo:
        (void) snapshot_remove_at(parent_fd, new_name);
        if (s->ns_init_pid > 0 && !s->x.conn)
                (void) take_back(s);
        return r;
}

static int dump_now(struct supervisor *s, const struct dump_target *t, struct snapshot_manifest *m, char **ret_error) {
        int r = dump(s, t, m, ret_error);

        outside_clients_unmark(s->runtime_fd);

        if (r < 0) {
                log_warning("Not %s: %s", t->leave_running ? "snapshotted" : "hibernated", strnull(*ret_error));
                if (s->ns_init_pid <= 0 || !s->x.conn)
                        /* What was let go could not be taken back: the desktop ends. */
                        supervisor_fail(s, HELPER_EXIT_FAILED, "The desktop could not be dumped nor taken back: %s",
                                        strnull(*ret_error));
        }
        return r;
}

int hibernate_now(struct supervisor *s, struct snapshot_manifest *m, char **ret_error) {
        return dump_now(s, &(struct dump_target) {}, m, ret_error);
}

static int on_connection(sd_event_source *source, int fd, uint32_t revents, void *userdata) {
        _cleanup_(snapshot_manifest_done) struct snapshot_manifest m = {};
        _cleanup_close_ int conn = accept4(fd, NULL, NULL, SOCK_CLOEXEC);
        _cleanup_free_ char *error = NULL, *answer = NULL;
        struct supervisor *s = userdata;
        struct ucred cred;
        socklen_t len = sizeof cred;
        char request[sizeof SNAPSHOT_REQUEST + SNAPSHOT_NAME_MAX + 1];
        struct dump_target t = {};
        const char *name;
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
        if (streq(request, HIBERNATE_REQUEST))
                t = (struct dump_target) {};
        else if ((name = startswith(request, SNAPSHOT_REQUEST)) && snapshot_name_valid(name))
                t = (struct dump_target) { .name = name, .leave_running = true };
        else {
                answer = strdup_printf("error unknown request \"%s\"", request);
                goto send;
        }
        r = dump_now(s, &t, &m, &error);
        if (r < 0)
                answer = strdup_printf("error %s", error ?: strerror(-r));
        else
                answer = strdup_printf("ok %llu %llu", m.size, m.dump_usec);
send:
        if (answer)
                (void) send(conn, answer, strlen(answer), MSG_NOSIGNAL);
        /* Hibernated: the tree ended with its dump, and so does the desktop. */
        if (r >= 0 && !t.leave_running)
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
