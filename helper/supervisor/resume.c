/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>

#include "alloc.h"
#include "cgroup.h"
#include "checkpoint.h"
#include "child.h"
#include "log.h"
#include "namespace.h"
#include "placement.h"
#include "record.h"
#include "resume.h"
#include "session.h"
#include "snapshot.h"
#include "start.h"
#include "util.h"
#include "xauth.h"

#define RESTORE_TIMEOUT_USEC (120 * 1000000ULL)
#define SNAPSHOT_DIR_FAILED "snapshot.failed"

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

/* Our children as the manifest names them, found under the restored init. */
static int children_find(struct supervisor *s, const struct snapshot_manifest *m, char **ret_error) {
        int r = start_session_components(s);

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
        s->display = -1;
}

static int restore(struct supervisor *s, int dir_fd, const struct snapshot_manifest *m, char **ret_error) {
        _cleanup_free_ char *criu = NULL, *version = NULL, *dir = NULL, *xauth = NULL;
        struct xauth_cookie cookie;
        unsigned long long t0 = now_usec();
        size_t size;
        char num[16];
        int r;

        *ret_error = snapshot_unusable(m);
        if (*ret_error)
                return -EPROTO;
        r = checkpoint_criu(&s->cfg, &criu, &version, ret_error);
        if (r < 0)
                return r;
        if (display_in_use(&alloc_env_default, m->display) > 0) {
                *ret_error = strdup_printf("display :%u is taken by another X server", m->display);
                return -EADDRINUSE;
        }
        r = read_full_file_at(dir_fd, SNAPSHOT_XAUTHORITY, &xauth, &size, 64 * 1024);
        if (r >= 0)
                r = xauth_lookup((const uint8_t *) xauth, size, m->display, &cookie);
        if (r < 0 || cookie.data_len != XAUTH_COOKIE_SIZE) {
                *ret_error = strdup("the snapshot's Xauthority holds no cookie of its display");
                return r < 0 ? r : -EBADMSG;
        }
        memcpy(s->cookie, cookie.data, XAUTH_COOKIE_SIZE);
        s->display = (int) m->display;
        strscpy(s->token, sizeof s->token, m->token);
        s->bus_address = strdup(m->bus_address);
        dir = strdup_printf("%s/%s", s->paths.state, SNAPSHOT_DIR);
        if (!s->bus_address || !dir)
                return -ENOMEM;
        r = xauth_write_at(s->runtime_fd, "Xauthority", m->display, s->cookie);
        if (r < 0)
                return r;

        /* The restored init is CRIU's child; once CRIU exits, it is ours. */
        (void) prctl(PR_SET_CHILD_SUBREAPER, 1);
        log_info("Resuming desktop :%u from %s with %s (CRIU %s).", m->display, dir, criu, version);
        r = checkpoint_restore(criu, dir, s->cg_base ? s->cg_session : NULL, RESTORE_TIMEOUT_USEC, &s->ns_init_pid,
                               ret_error);
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
        /* Its hibernation removed the lock; the restored server knows nothing of that. */
        r = display_lock_set_pid(&alloc_env_default, m->display, -1, s->xserver.pid);
        if (r < 0)
                log_warning_errno(r, "Cannot write the lock of :%u for the restored X server (%m).", m->display);
        r = x11_connect(&s->x, m->display, s->cookie);
        if (r >= 0)
                r = start_watch_x(s);
        if (r < 0) {
                *ret_error = strdup_printf("the restored X server refused our connection: %s", strerror(-r));
                return r;
        }
        strv_free(s->env);
        s->env = NULL;
        r = session_env(s->profile, m->display, &s->paths, &s->dirs, s->token, s->cfg.accessibility, &s->env);
        if (r < 0)
                return r;
        snprintf(num, sizeof num, "%u\n", m->display);
        (void) write_file_atomic_at(s->runtime_fd, "display", num, strlen(num), 0600);
        r = placement_write_record(s);
        if (r < 0)
                log_warning_errno(r, "Cannot update %s/%s: %m", s->paths.runtime, HELPER_RECORD_FILE);
        log_info("Restored desktop :%u in %llu ms (its images: %llu MiB, dumped in %llu ms).", m->display,
                 (now_usec() - t0) / 1000, m->size >> 20, m->dump_usec / 1000);
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

void resume_refuse(struct supervisor *s) {
        _cleanup_close_ int dir_fd = -EBADF;

        if (snapshot_open(s->paths.state, &dir_fd) < 0)
                return;
        /* A later start with the key back on must not resume a state older than this start's. */
        set_aside(s);
        log_warning("Desktop %s was hibernated, but [session] checkpointable = no now: it starts cold. Its images are "
                    "kept in " SNAPSHOT_DIR_FAILED ".", s->profile);
}

int resume_run(struct supervisor *s) {
        _cleanup_(snapshot_manifest_done) struct snapshot_manifest m = {};
        _cleanup_close_ int dir_fd = -EBADF, state_fd = -EBADF;
        _cleanup_free_ char *error = NULL;
        char token[sizeof s->token];
        int r;

        memcpy(token, s->token, sizeof token);
        r = snapshot_open(s->paths.state, &dir_fd);
        if (r == -ENOENT)
                return 0;
        if (r == -EPERM)
                error = strdup_printf("%s/%s is not a private directory of ours", s->paths.state, SNAPSHOT_DIR);
        else if (r < 0)
                error = strdup_printf("cannot open %s/%s: %s", s->paths.state, SNAPSHOT_DIR, strerror(-r));
        else if ((r = snapshot_manifest_read_at(dir_fd, &m)) < 0)
                error = strdup_printf("its manifest is unreadable: %s", strerror(-r));
        else if ((r = restore(s, dir_fd, &m, &error)) >= 0) {
                /* Spent: the desktop has gone on from it. */
                state_fd = open(s->paths.state, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
                if (state_fd < 0 || snapshot_remove_at(state_fd, SNAPSHOT_DIR) < 0)
                        log_warning("Cannot remove the spent snapshot %s/%s.", s->paths.state, SNAPSHOT_DIR);
                return 1;
        }

        undo(s);
        memcpy(s->token, token, sizeof token);
        if (r != -EPERM)
                set_aside(s);
        log_warning("Cannot resume desktop %s from its snapshot (%s); starting it cold.%s", s->profile,
                    strnull(error), r != -EPERM ? " Its images are kept in " SNAPSHOT_DIR_FAILED "." : "");
        return 0;
}
