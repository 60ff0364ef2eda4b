/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>

#include "alloc.h"
#include "bus-address.h"
#include "cgroup.h"
#include "checkpoint.h"
#include "copy-tree.h"
#include "envfile.h"
#include "child.h"
#include "log.h"
#include "namespace.h"
#include "placement.h"
#include "record.h"
#include "randr.h"
#include "resume.h"
#include "session.h"
#include "profile.h"
#include "published-env.h"
#include "snapshot.h"
#include "start.h"
#include "teardown.h"
#include "tree-mounts.h"
#include "util.h"
#include "xauth.h"

#define RESTORE_TIMEOUT_USEC (120 * 1000000ULL)
#define SNAPSHOT_DIR_FAILED "snapshot.failed"
/* RUNTIME/x11: a moved restore's /tmp/.X11-unix (tree-mounts.h) */
#define RESTORE_X11_DIR "x11"

/* The pid as we see it of root's child whose pid in root's namespace is ns_pid (its NSpid's last field). */
static pid_t outer_pid_of(pid_t root, int ns_pid) {
        _cleanup_free_ char *children = NULL;
        char path[64];

        snprintf(path, sizeof path, "/proc/%d/task/%d/children", (int) root, (int) root);
        if (read_full_file(path, &children, NULL, 1 << 16) < 0)
                return 0;
        for (char *p = children, *end; *p; p = end) {
                _cleanup_free_ char *status = NULL;
                unsigned long long pid;
                const char *nspid, *last;
                char num[16];
                size_t n = strcspn(p, " \n");

                end = p + n + strspn(p + n, " \n");
                if (n == 0 || n >= sizeof num)
                        continue;
                memcpy(num, p, n);
                num[n] = 0;
                if (parse_uint(num, INT32_MAX, &pid) < 0)
                        continue;
                snprintf(path, sizeof path, "/proc/%llu/status", pid);
                if (read_full_file(path, &status, NULL, 1 << 16) < 0 || !(nspid = strstr(status, "\nNSpid:")))
                        continue;
                nspid += strlen("\nNSpid:");
                {
                        _cleanup_free_ char *line = strndup(nspid, strcspn(nspid, "\n"));
                        unsigned long long inner;

                        if (!line)
                                return 0;
                        last = strrchr(line, '\t') ? strrchr(line, '\t') + 1 : line;
                        if (parse_uint(last, INT32_MAX, &inner) >= 0 && (int) inner == ns_pid)
                                return (pid_t) pid;
                }
        }
        return 0;
}

static struct child *child_named(struct supervisor *s, const char *name) {
        if (streq(name, s->xserver.name))
                return &s->xserver;
        if (streq(name, s->bus.name))
                return &s->bus;
        for (size_t i = 0; i < s->n_components; i++)
                if (streq(name, s->components[i].name))
                        return &s->components[i];
        return NULL;
}

/* The tree's desktop as it was started: a fork's configuration, or one changed since, may say another. */
static int desktop_from(struct supervisor *s, const struct snapshot_manifest *m) {
        enum desktop_kind kind;

        if (!m->desktop)
                return 0;
        kind = streq(m->desktop, "command") ? DESKTOP_COMMAND : DESKTOP_XFCE;
        if (kind == s->cfg.desktop && streq_ptr(m->command, s->cfg.command))
                return 0;
        log_info("The snapshot's desktop is restored as it was started ([session] desktop = %s%s%s), not as this "
                 "profile's configuration says.", m->desktop, m->command ? ", command = " : "", strempty(m->command));
        free(s->cfg.command);
        s->cfg.command = NULL;
        if (m->command && !(s->cfg.command = strdup(m->command)))
                return -ENOMEM;
        s->cfg.desktop = kind;
        return 0;
}

/* Our children as the manifest names them, found under the restored init. */
static int children_find(struct supervisor *s, const struct snapshot_manifest *m, char **ret_error) {
        int r = desktop_from(s, m);

        if (r < 0)
                return r;
        r = start_session_components(s);

        if (r < 0)
                return r;
        for (size_t i = 0; i < m->n_children; i++) {
                struct child *c = child_named(s, m->children[i].name);
                pid_t pid = outer_pid_of(s->ns_init_pid, m->children[i].ns_pid);

                if (!c) {
                        *ret_error = strdup_printf("the snapshot names a process \"%s\" this configuration does not "
                                                   "have", m->children[i].name);
                        return -EBADMSG;
                }
                if (pid <= 0) {
                        *ret_error = strdup_printf("%s (pid %d in the desktop) was not restored", c->name,
                                                   m->children[i].ns_pid);
                        return -ESRCH;
                }
                c->pid = pid;
                c->ns_pid = m->children[i].ns_pid;
                c->started = now_usec();
        }
        if (s->xserver.pid <= 0 || s->bus.pid <= 0) {
                *ret_error = strdup("the snapshot holds no X server or no session bus");
                return -EBADMSG;
        }
        return 0;
}

/* Everything a restore brought back killed, and what it set in s forgotten. */
static void undo(struct supervisor *s) {
        struct child *all[ELEMENTSOF(s->components) + 2];
        size_t n;

        s->x_source = sd_event_source_disable_unref(s->x_source);
        x11_disconnect(&s->x);
        namespace_done(s);
        if (s->ns_init_pid > 0) {
                /* The namespace dies with its init. */
                (void) kill(s->ns_init_pid, SIGKILL);
                (void) waitpid(s->ns_init_pid, NULL, 0);
                s->ns_init_pid = 0;
        }
        if (s->cg_base) {
                (void) cgroup_kill(s->cg_session);
                (void) cgroup_wait_empty(s->cg_session, STOP_TIMEOUT_USEC);
        }
        n = child_all(s, all);
        for (size_t i = 0; i < n; i++)
                all[i]->pid = all[i]->ns_pid = 0;
        for (size_t i = 0; i < s->n_components; i++)
                child_done(&s->components[i]);
        s->n_components = 0;
        free(s->bus_address);
        s->bus_address = NULL;
        /* The lock that names the restored server, and our name of its display (display_publish()). */
        remove_x_leftovers(s);
        start_unclaim(s);
        free(s->tree_runtime);
        free(s->tree_state);
        free(s->fork_of);
        s->tree_runtime = s->tree_state = s->fork_of = NULL;
        s->tree_display = -1;
        s->display = -1;
}

/* The environment of what the tree's init starts later (a component's restart): the paths and display its
 * processes know. */
static int tree_env(struct supervisor *s, const struct snapshot_manifest *m) {
        _cleanup_(session_dirs_done) struct session_dirs dirs = {};
        _cleanup_free_ char *xauthority = NULL;
        struct bd_paths tree = s->paths;
        int r;

        if (s->tree_runtime) {
                xauthority = strdup_printf("%s/Xauthority", s->tree_runtime);
                if (!xauthority)
                        return -ENOMEM;
                tree.runtime = s->tree_runtime;
                tree.state = s->tree_state;
                tree.xauthority = xauthority;
        }
        r = session_dirs_for(&tree, &dirs);
        if (r < 0)
                return r;
        strv_free(s->env);
        s->env = NULL;
        r = session_env(s->profile, m->display, &tree, &dirs, s->token, s->cfg.accessibility, &s->env);
        if (r >= 0)
                r = namespace_runtime_env(s, tree.runtime, false, &s->env);
        if (r >= 0)
                r = env_set(&s->env, "DBUS_SESSION_BUS_ADDRESS", m->bus_address);
        return r;
}

/*
 * The tree's display named to the host by our own number: its X server's socket is RUNTIME/x11/XN (the
 * restore's /tmp/.X11-unix, tree-mounts.h), /tmp/.X11-unix/XM a symlink to it, and /tmp/.XM-lock names the
 * server, as a server of our own would have them.
 */
static int display_publish(struct supervisor *s, unsigned tree_display, char **ret_error) {
        _cleanup_free_ char *target = strdup_printf("%s/" RESTORE_X11_DIR "/X%u", s->paths.runtime, tree_display);
        char link[64];
        int r;

        if (!target)
                return -ENOMEM;
        r = display_lock_set_pid(&alloc_env_default, (unsigned) s->display, -1, s->xserver.pid);
        if (r < 0) {
                *ret_error = strdup_printf("cannot lock display :%d for the restored X server: %s", s->display,
                                           strerror(-r));
                return r;
        }
        snprintf(link, sizeof link, "/tmp/.X11-unix/X%d", s->display);
        if (symlink(target, link) < 0) {
                r = negative_errno();
                *ret_error = strdup_printf("cannot name the restored X server %s: %s", link, strerror(-r));
                return r;
        }
        start_unclaim(s);
        return 0;
}

/* What a moved restore needs (tree-mounts.h): RUNTIME/x11 made, the tree's old socket in it gone. */
static int mounts_prepare(struct supervisor *s, const struct snapshot_manifest *m, struct tree_mounts *t,
                          char **ret_x11) {
        _cleanup_close_ int x11_fd = -EBADF;
        char name[32];

        if (mkdirat(s->runtime_fd, RESTORE_X11_DIR, 0700) < 0 && errno != EEXIST)
                return negative_errno();
        x11_fd = dir_open_verified_at(s->runtime_fd, RESTORE_X11_DIR, getuid());
        if (x11_fd < 0)
                return x11_fd;
        snprintf(name, sizeof name, "X%u", m->display);
        (void) unlinkat(x11_fd, name, 0);
        /* A fork's snapshot brings the tree's own runtime dirs (namespace.h), which its sockets and files need. */
        {
                _cleanup_free_ char *images = strdup_printf("%s/" SNAPSHOT_DIR, s->paths.state);
                int r;

                if (!images)
                        return -ENOMEM;
                r = copy_dirs(images, s->paths.runtime, snapshot_runtime_dirs);
                if (r >= 0)
                        r = copy_dirs(images, s->paths.runtime, snapshot_runtime_files);
                if (r < 0)
                        return r;
        }
        *ret_x11 = strdup_printf("%s/" RESTORE_X11_DIR, s->paths.runtime);
        if (!*ret_x11)
                return -ENOMEM;
        *t = (struct tree_mounts) {
                .tree_runtime = s->tree_runtime ?: s->paths.runtime,
                .tree_state = s->tree_state ?: s->paths.state,
                .runtime = s->paths.runtime,
                .state = s->paths.state,
                .x11 = *ret_x11,
        };
        return 0;
}

/* What botdesk exec into a moved tree needs of its view (published-env.h): the keys the host's env has. */
static int publish_tree_env(struct supervisor *s) {
        static const char *const keys[] = { "DISPLAY", "XAUTHORITY", "DBUS_SESSION_BUS_ADDRESS", "XDG_CONFIG_HOME",
                                            "XDG_CACHE_HOME", "XDG_DATA_HOME", NULL };
        _cleanup_strv_free_ char **env = NULL;

        for (const char *const *k = keys; *k; k++) {
                const char *v = strv_env_get(s->env, *k);
                int r;

                if (v && (r = env_set(&env, *k, v)) < 0)
                        return r;
        }
        return envfile_write_at(s->runtime_fd, PUBLISHED_TREE_ENV_FILE, env);
}

/* A fork starts at its own configured size, not at whatever a viewer had resized its parent to: the agent's
 * coordinates mean what the fork's configuration says. Before our connection's event source reads it. */
static void fresh_screen(struct supervisor *s) {
        int r = randr_restore(s->x.conn, s->x.root, s->cfg.width, s->cfg.height, s->cfg.dpi);

        if (r > 0)
                log_info("The fork's screen set to its configured %ux%u.", s->cfg.width, s->cfg.height);
        else if (r < 0 && r != -EOPNOTSUPP)
                log_warning_errno(r, "Cannot set the fork's screen to %ux%u, ignoring: %m", s->cfg.width, s->cfg.height);
}

static int restore(struct supervisor *s, int dir_fd, const struct snapshot_manifest *m, char **ret_error) {
        _cleanup_free_ char *criu = NULL, *version = NULL, *xauth = NULL, *tree_bus = NULL, *x11 = NULL;
        struct tree_mounts mounts;
        struct xauth_cookie cookie;
        unsigned long long t0 = now_usec();
        bool moved;
        size_t size;
        char num[16];
        int r;

        *ret_error = snapshot_unusable(m);
        if (*ret_error)
                return -EPROTO;
        r = checkpoint_criu(&s->cfg, &criu, &version, ret_error);
        if (r < 0)
                return r;
        r = read_full_file_at(dir_fd, SNAPSHOT_XAUTHORITY, &xauth, &size, 64 * 1024);
        if (r >= 0)
                r = xauth_lookup((const uint8_t *) xauth, size, m->display, &cookie);
        if (r < 0 || cookie.data_len != XAUTH_COOKIE_SIZE) {
                *ret_error = strdup("the snapshot's Xauthority holds no cookie of its display");
                return r < 0 ? r : -EBADMSG;
        }
        memcpy(s->cookie, cookie.data, XAUTH_COOKIE_SIZE);
        if (m->fork_of && !(s->fork_of = strdup(m->fork_of)))
                return -ENOMEM;

        /* Its processes' paths are ours and its display is free: restored as it was. Else in a mount
         * namespace that shows it our dirs where it knows its own, on a display of our own (tree-mounts.h). */
        if (m->tree_runtime && !streq(m->tree_runtime, s->paths.runtime)) {
                s->tree_runtime = strdup(m->tree_runtime);
                s->tree_state = strdup(m->tree_state);
                if (!s->tree_runtime || !s->tree_state)
                        return -ENOMEM;
        }
        /* A fork keeps the token this start made: its tree carries its parent's, which the parent's helper
         * must find nothing of ours by (token-kill.h), nor ours of the parent's. */
        if (!s->tree_runtime)
                strscpy(s->token, sizeof s->token, m->token);
        moved = s->tree_runtime || display_in_use(&alloc_env_default, m->display) > 0;
        if (moved) {
                r = start_pick_and_claim(s, m->fork_of ? -1 : (int) m->display);
                if (r < 0) {
                        *ret_error = strdup_printf("no display to restore it on: %s", strerror(-r));
                        return r;
                }
                s->display = r;
                s->tree_display = (int) m->display;
                r = mounts_prepare(s, m, &mounts, &x11);
                if (r < 0) {
                        *ret_error = strdup_printf("cannot prepare its mounts: %s", strerror(-r));
                        return r;
                }
        } else
                s->display = (int) m->display;
        tree_bus = strdup_printf("%s/bus", s->tree_runtime ?: s->paths.runtime);
        s->bus_address = tree_bus ? bus_address_moved(m->bus_address, tree_bus, s->bus_socket) : NULL;
        if (!s->bus_address)
                return -ENOMEM;
        r = xauth_write_displays_at(s->runtime_fd, "Xauthority", (unsigned[]) { (unsigned) s->display, m->display },
                                    moved ? 2 : 1, s->cookie);
        if (r < 0)
                return r;

        /* The restored init is CRIU's child; once CRIU exits, it is ours. */
        (void) prctl(PR_SET_CHILD_SUBREAPER, 1);
        log_info("Resuming desktop :%d from its snapshot with %s (CRIU %s)%s%s.", s->display, criu, version,
                 m->fork_of ? ", a fork of " : "", strempty(m->fork_of));
        r = checkpoint_restore(criu, dir_fd, s->cg_base ? s->cg_session : NULL, moved ? &mounts : NULL,
                               RESTORE_TIMEOUT_USEC, &s->ns_init_pid, ret_error);
        if (r < 0)
                return r;
        r = namespace_reattach(s);
        if (r < 0) {
                *ret_error = strdup_printf("the restored init took no helper: %s", strerror(-r));
                return r;
        }
        r = children_find(s, m, ret_error);
        if (r < 0)
                return r;
        s->xserver_pid_last = s->xserver.pid;
        /* Teardown removes what names our server (remove_x_leftovers()). */
        if (!s->xserver.argv && (r = strv_push(&s->xserver.argv, strdup(s->xserver_path))) < 0)
                return r;
        if (moved)
                r = display_publish(s, m->display, ret_error);
        else {
                /* Its hibernation removed the lock; the restored server knows nothing of that. */
                r = display_lock_set_pid(&alloc_env_default, m->display, -1, s->xserver.pid);
                if (r < 0)
                        log_warning_errno(r, "Cannot write the lock of :%u for the restored X server (%m).",
                                          m->display);
                r = 0;
        }
        if (r < 0)
                return r;
        r = x11_connect(&s->x, (unsigned) s->display, s->cookie);
        if (r >= 0 && m->fork_of)
                fresh_screen(s);
        if (r >= 0)
                r = start_watch_x(s);
        if (r < 0) {
                *ret_error = strdup_printf("the restored X server refused our connection: %s", strerror(-r));
                return r;
        }
        r = tree_env(s, m);
        if (r < 0)
                return r;
        (void) unlinkat(s->runtime_fd, PUBLISHED_TREE_ENV_FILE, 0);
        if (moved && (r = publish_tree_env(s)) < 0)
                log_warning_errno(r, "Cannot publish the tree's environment for botdesk exec (%m); its commands start "
                                  "beside the tree.");
        snprintf(num, sizeof num, "%d\n", s->display);
        (void) write_file_atomic_at(s->runtime_fd, "display", num, strlen(num), 0600);
        r = placement_write_record(s);
        if (r < 0)
                log_warning_errno(r, "Cannot update %s/%s: %m", s->paths.runtime, HELPER_RECORD_FILE);
        log_info("Restored desktop :%d%s in %llu ms (its images: %llu MiB, dumped in %llu ms).", s->display,
                 moved ? " in a mount namespace of its own" : "", (now_usec() - t0) / 1000, m->size >> 20,
                 m->dump_usec / 1000);
        return 0;
}

/* The snapshot moved out of the next start's way, kept for a look. */
static void set_aside(struct supervisor *s) {
        _cleanup_close_ int state_fd = open(s->paths.state, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

        if (state_fd < 0)
                return;
        (void) snapshot_remove_at(state_fd, SNAPSHOT_DIR_FAILED);
        (void) renameat(state_fd, SNAPSHOT_DIR, state_fd, SNAPSHOT_DIR_FAILED);
}

int resume_run(struct supervisor *s) {
        _cleanup_(snapshot_manifest_done) struct snapshot_manifest m = {};
        _cleanup_close_ int dir_fd = -EBADF, state_fd = -EBADF;
        _cleanup_free_ char *error = NULL, *command = NULL;
        enum desktop_kind desktop = s->cfg.desktop;
        char token[sizeof s->token];
        int r;

        /* What a failed restore changed goes back for the cold start: the token, the desktop (desktop_from()). */
        memcpy(token, s->token, sizeof token);
        if (s->cfg.command && !(command = strdup(s->cfg.command)))
                return log_oom(), 0;
        r = snapshot_open(s->paths.state, &dir_fd);
        if (r == -ENOENT)
                return 0;
        if (r == -EPERM)
                error = strdup_printf("%s/%s is not a private directory of ours", s->paths.state, SNAPSHOT_DIR);
        else if (r < 0)
                error = strdup_printf("cannot open %s/%s: %s", s->paths.state, SNAPSHOT_DIR, strerror(-r));
        else if ((r = snapshot_manifest_read_at(dir_fd, &m)) < 0)
                error = strdup_printf("its manifest is unreadable: %s", strerror(-r));
        else if (!s->cfg.checkpointable && !m.fork_of) {
                /* A later start with the key back on must not resume a state older than this start's. */
                set_aside(s);
                log_warning("Desktop %s was hibernated, but [session] checkpointable = no now: it starts cold. Its "
                            "images are kept in " SNAPSHOT_DIR_FAILED ".", s->profile);
                return 0;
        } else if ((r = restore(s, dir_fd, &m, &error)) >= 0) {
                /* Spent: the desktop has gone on from it. */
                state_fd = open(s->paths.state, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
                if (state_fd < 0 || snapshot_remove_at(state_fd, SNAPSHOT_DIR) < 0)
                        log_warning("Cannot remove the spent snapshot %s/%s.", s->paths.state, SNAPSHOT_DIR);
                return 1;
        }

        undo(s);
        memcpy(s->token, token, sizeof token);
        s->cfg.desktop = desktop;
        free(s->cfg.command);
        s->cfg.command = TAKE_PTR(command);
        if (r != -EPERM)
                set_aside(s);
        log_warning("Cannot resume desktop %s from its snapshot (%s); starting it cold.%s", s->profile,
                    strnull(error), r != -EPERM ? " Its images are kept in " SNAPSHOT_DIR_FAILED "." : "");
        return 0;
}
