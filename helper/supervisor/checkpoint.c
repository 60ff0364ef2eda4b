/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "checkpoint.h"
#include "criu-log.h"
#include "snapshot-files.h"
#include "child-deadline.h"
#include "find-executable.h"
#include "spawn.h"
#include "tree-mounts.h"
#include "util.h"

#define CRIU_GRACE_USEC (2 * 1000000ULL)
#define CHECKPOINT_GHOST_LIMIT "64M"
#define CRIU_VERSION_TIMEOUT_USEC (10 * 1000000ULL)

struct criu_run {
        char *const *argv;
        char *const *env;               /* beside PATH, for its action script */
        const char *cgroup;
        int images_fd;                  /* kept open for it: its --images-dir is /proc/self/fd/N */
        int (*setup)(void *userdata);   /* the namespace it runs in (tree-mounts.h), or NULL */
        void *setup_userdata;
        char out[8192]; /* the last of its output */
        size_t len;
};

static void on_output(enum child_stream stream, const char *buf, size_t n, void *userdata) {
        struct criu_run *r = userdata;

        if (n >= sizeof r->out) {
                buf += n - (sizeof r->out - 1);
                n = sizeof r->out - 1;
        }
        if (r->len + n >= sizeof r->out) {
                size_t drop = r->len + n - (sizeof r->out - 1);
                memmove(r->out, r->out + drop, r->len - drop);
                r->len -= drop;
        }
        memcpy(r->out + r->len, buf, n);
        r->len += n;
        r->out[r->len] = 0;
}

static int spawn_criu(int stdout_fd, int stderr_fd, pid_t *ret_pid, void *userdata) {
        const struct criu_run *r = userdata;
        struct spawn_opts o = SPAWN_OPTS_INIT;
        char *envp[5] = { (char *) "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin" };
        size_t n = 1;

        for (char *const *e = r->env; e && *e && n < ELEMENTSOF(envp) - 1; e++)
                envp[n++] = *e;

        o.argv = r->argv;
        o.envp = envp; /* CRIU runs tar and ip from PATH, nothing of ours */
        o.cgroup = r->cgroup;
        o.new_session = true;
        o.stdout_fd = stdout_fd;
        o.stderr_fd = stderr_fd;
        o.cwd = "/";
        o.keep_fd = r->images_fd;
        o.child_setup = r->setup;
        o.child_setup_userdata = r->setup_userdata;
        return spawn(&o, ret_pid);
}

/* 0 when it exited 0, -EIO (its status) or -ETIME otherwise; its output in r->out. */
static int criu_run(struct criu_run *r, unsigned long long timeout_usec) {
        const struct child_deadline d = CHILD_DEADLINE_MERGED(timeout_usec, CRIU_GRACE_USEC, on_output, r);
        struct child_deadline_result cr;
        /* Its images are the user's alone (CRIU makes them 0644). */
        mode_t mask = umask(0077);
        int ret = child_deadline_run(&d, spawn_criu, r, &cr);

        (void) umask(mask);
        if (ret < 0)
                return ret;
        return cr.status == 0 ? 0 : -EIO;
}

static char *log_error(int dir_fd, const char *log) {
        _cleanup_free_ char *text = NULL;
        size_t size;

        if (read_full_file_at(dir_fd, log, &text, &size, 16u << 20) < 0)
                return NULL;
        return criu_log_cause(text);
}

/* Why a dump or restore failed: its deadline, CRIU's own words (its log, else its output), or why it did not run. */
static char *run_error(const struct criu_run *r, int ret, const char *what, unsigned long long timeout_usec) {
        _cleanup_free_ char *log = strdup_printf("%s.log", what);

        if (ret == -ETIME)
                return strdup_printf("CRIU did not finish the %s within %llu s", what, timeout_usec / 1000000ULL);
        if (ret != -EIO)
                return strdup_printf("cannot run %s for the %s%s: %s", r->argv[0], what,
                                     r->setup ? " in the desktop's mount namespace" : "", strerror(-ret));
        return (log ? log_error(r->images_fd, log) : NULL) ?: criu_log_cause(r->out);
}

int checkpoint_criu(const struct bd_config *c, char **ret_path, char **ret_version, char **ret_error) {
        _cleanup_free_ char *path = NULL;
        unsigned long long major, minor;
        char *argv[3] = { NULL, (char *) "--version", NULL };
        struct criu_run r = { .argv = argv, .images_fd = -EBADF };
        const char *v;
        int ret;

        if (streq(c->criu, "none")) {
                *ret_error = strdup("[session] criu = none: this host does not checkpoint desktops");
                return -EOPNOTSUPP;
        }
        if (streq(c->criu, "auto")) {
                ret = find_executable("criu", getenv("PATH") ?: "/usr/local/sbin:/usr/sbin:/usr/bin:/sbin:/bin", &path);
                if (ret < 0) {
                        *ret_error = strdup("no criu on PATH: install CRIU 4.1 or later (Debian 13's criu) or set "
                                            "[session] criu to its path");
                        return ret;
                }
        } else if (!(path = strdup(c->criu)))
                return -ENOMEM;
        argv[0] = path;
        ret = criu_run(&r, CRIU_VERSION_TIMEOUT_USEC);
        v = strstr(r.out, "Version: ");
        if (ret < 0 || !v) {
                _cleanup_free_ char *said = criu_log_cause(r.out);

                *ret_error = strdup_printf("%s --version did not answer with its version: %s", path,
                                           ret == -ETIME ? "it timed out" : ret == -EIO || ret >= 0 ? strnull(said) : strerror(-ret));
                return ret < 0 ? ret : -EBADMSG;
        }
        v += strlen("Version: ");
        {
                _cleanup_free_ char *version = strndup(v, strcspn(v, "\n"));
                _cleanup_free_ char *maj = NULL, *min = NULL;
                size_t dot = version ? strcspn(version, ".") : 0;

                if (!version)
                        return -ENOMEM;
                maj = strndup(version, dot);
                min = version[dot] ? strndup(version + dot + 1, strcspn(version + dot + 1, ".")) : strdup("0");
                if (!maj || !min || parse_uint(maj, 1000, &major) < 0 || parse_uint(min, 1000, &minor) < 0) {
                        *ret_error = strdup_printf("%s says its version is \"%s\", which is not one", path, version);
                        return -EBADMSG;
                }
                if (major < 4 || (major == 4 && minor < 1)) {
                        *ret_error = strdup_printf("%s is CRIU %s; checkpoints need 4.1 or later (older ones fail on "
                                                   "this kernel's vDSO)", path, version);
                        return -EPROTONOSUPPORT;
                }
                *ret_version = TAKE_PTR(version);
        }
        *ret_path = TAKE_PTR(path);
        return 0;
}

/* What a desktop's tree holds that both dump and restore must be told about. Its cgroups are not CRIU's to
 * keep: the restored tree is born in CRIU's, the one the helper starts CRIU in (a fork's own, never its
 * parent's), and CRIU mounts no cgroup yard (which a fork's mount namespace would hide from it). */
#define CRIU_TREE_OPTIONS "--ext-unix-sk", "--tcp-established", "--file-locks", "--link-remap", "--manage-cgroups=ignore"

int checkpoint_dump(const char *criu, pid_t root, int dir_fd, const char *cgroup, bool leave_running,
                    const struct checkpoint_files *files, unsigned long long timeout_usec, char **ret_error) {
        _cleanup_close_ int mntns = -EBADF;
        _cleanup_free_ char *from = NULL, *to = NULL, *runtime = NULL, *script = NULL;
        char pid[16], images[PROC_FD_PATH_MAX], ns[64];
        char *argv[] = { (char *) criu, (char *) "dump", (char *) "--tree", pid, (char *) "--images-dir", images,
                         (char *) "--log-file", (char *) "dump.log", (char *) "-v2", CRIU_TREE_OPTIONS,
                         /* A file deleted while open is kept in the images: Chromium maps one of 4 MiB
                          * (BrowserMetrics), past CRIU's default limit of 1 MiB. */
                         (char *) "--ghost-limit=" CHECKPOINT_GHOST_LIMIT,
                         /* room for --leave-running and --action-script SCRIPT, and the NULL */
                         NULL, NULL, NULL, NULL };
        size_t n = ELEMENTSOF(argv) - 4;
        char *env[4] = {};
        struct criu_run r = { .argv = argv, .env = env, .cgroup = cgroup, .images_fd = dir_fd,
                              .setup = tree_mounts_enter };
        int ret;

        if (leave_running)
                argv[n++] = (char *) "--leave-running";
        if (files) {
                /* We are the action script (snapshot-files.h): the files copied while the tree stands still. */
                ret = snapshot_files_script_path(&script);
                if (ret < 0) {
                        *ret_error = strdup_printf("cannot name our own program for CRIU: %s", strerror(-ret));
                        return ret;
                }
                from = strdup_printf("BOTDESK_FILES_FROM=%s", files->from);
                to = strdup_printf("BOTDESK_FILES_TO=%s", files->to);
                runtime = strdup_printf("BOTDESK_FILES_RUNTIME=%s", files->runtime);
                if (!from || !to || !runtime)
                        return -ENOMEM;
                env[0] = from;
                env[1] = to;
                env[2] = runtime;
                argv[n++] = (char *) "--action-script";
                argv[n++] = script;
        }
        snprintf(pid, sizeof pid, "%d", (int) root);
        proc_fd_path(dir_fd, images);
        /* CRIU in the tree's own mount namespace (a fork's, tree-mounts.h; else the host's): it dumps none. */
        snprintf(ns, sizeof ns, "/proc/%d/ns/mnt", (int) root);
        mntns = open(ns, O_RDONLY | O_CLOEXEC);
        if (mntns < 0) {
                ret = negative_errno();
                *ret_error = strdup_printf("cannot open %s: %s", ns, strerror(-ret));
                return ret;
        }
        r.setup_userdata = &mntns;
        ret = criu_run(&r, timeout_usec);
        if (ret < 0)
                *ret_error = run_error(&r, ret, "dump", timeout_usec);
        return ret;
}

int checkpoint_restore(const char *criu, int dir_fd, const char *cgroup, const struct tree_mounts *mounts,
                       unsigned long long timeout_usec, pid_t *ret_root, char **ret_error) {
        _cleanup_free_ char *text = NULL;
        char images[PROC_FD_PATH_MAX], pidfile[PROC_FD_PATH_MAX + sizeof "/" CHECKPOINT_PIDFILE];
        char *argv[] = { (char *) criu, (char *) "restore", (char *) "--images-dir", images, (char *) "--log-file",
                         (char *) "restore.log", (char *) "-v2", (char *) "--restore-detached", (char *) "--pidfile",
                         pidfile, CRIU_TREE_OPTIONS, NULL };
        struct criu_run r = { .argv = argv, .cgroup = cgroup, .images_fd = dir_fd,
                              .setup = mounts ? tree_mounts_apply : NULL, .setup_userdata = (void *) mounts };
        unsigned long long pid;
        int ret;

        proc_fd_path(dir_fd, images);
        snprintf(pidfile, sizeof pidfile, "%s/" CHECKPOINT_PIDFILE, images);
        (void) unlinkat(dir_fd, CHECKPOINT_PIDFILE, 0);
        ret = criu_run(&r, timeout_usec);
        if (ret < 0) {
                *ret_error = run_error(&r, ret, "restore", timeout_usec);
                return ret;
        }
        ret = read_full_file_at(dir_fd, CHECKPOINT_PIDFILE, &text, NULL, 64);
        if (ret >= 0) {
                text[strcspn(text, "\n")] = 0;
                ret = parse_uint(text, INT32_MAX, &pid);
        }
        if (ret < 0) {
                *ret_error = strdup("CRIU restored but wrote no pid to " CHECKPOINT_PIDFILE);
                return ret;
        }
        *ret_root = (pid_t) pid;
        return 0;
}
