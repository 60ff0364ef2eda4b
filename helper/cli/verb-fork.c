/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * botdesk fork PROFILE NAME --as NEW [--count N] [--json]: new profiles
 * restored from PROFILE's snapshot NAME (botdesk snapshot), each running
 * on its own: its own display number, runtime dir, sockets and files.
 *
 * Each fork is a profile made here: STATE/NEW/snapshot/ holds the images
 * (hard links: CRIU only reads them, and they cost no room) and a manifest
 * that says where they came from; the session files the snapshot kept (the
 * XDG dirs, Downloads and browser profile of PROFILE's state dir as they
 * were when it was dumped) are copied, with reflinks where the file system
 * has them; its journal begins with an entry that says where it came
 * from. Then each is started as botdesk start starts a
 * hibernated desktop: its helper restores the tree in a mount namespace
 * that shows it the fork's dirs where it knows its parent's (supervisor/
 * tree-mounts.h). A fork onto a profile that exists is refused before
 * anything is made; one whose restore failed is said so.
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "config.h"
#include "copy-tree.h"
#include "journal-hook.h"
#include "json.h"
#include "log.h"
#include "profile.h"
#include "snapshot.h"
#include "status.h"
#include "util.h"
#include "verbs.h"

#define FORK_COUNT_MAX 64

struct fork_target {
        char name[PROFILE_NAME_MAX + 16];
        struct bd_paths paths;
        struct bd_status status;
        pid_t pid;              /* its start, a child of ours */
        int exit;               /* its start's exit status */
        bool started;
};

/* The snapshot's images linked into dirfd; its manifest written anew, naming where it came from. */
static int link_images(int src_fd, int dst_fd) {
        _cleanup_close_ int fd = openat(src_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        struct dirent *de;
        DIR *d;
        int r = 0;

        if (fd < 0)
                return negative_errno();
        d = fdopendir(fd);
        if (!d)
                return negative_errno();
        TAKE_FD(fd);
        while (r >= 0 && (de = readdir(d))) {
                if (de->d_name[0] == '.' || streq(de->d_name, SNAPSHOT_MANIFEST) || streq(de->d_name, SNAPSHOT_FILES))
                        continue;
                if (linkat(src_fd, de->d_name, dst_fd, de->d_name, 0) < 0)
                        r = negative_errno();
        }
        closedir(d);
        return r;
}

/* The session files a fork starts with: the snapshot's (taken as it was dumped), else, of a snapshot that
 * has none, its parent's as they are now; the tree's own runtime dirs go with the images, which the fork's
 * helper puts in its runtime dir. */
static int copy_files(int src_fd, const char *snapshot_dir, const struct bd_paths *from, const char *to_state) {
        _cleanup_free_ char *files = strdup_printf("%s/" SNAPSHOT_FILES, snapshot_dir);
        _cleanup_free_ char *images = strdup_printf("%s/" SNAPSHOT_DIR_NEW, to_state);
        int r;

        if (!files || !images)
                return -ENOMEM;
        if (faccessat(src_fd, SNAPSHOT_FILES, F_OK, AT_SYMLINK_NOFOLLOW) < 0)
                return copy_dirs(from->state, to_state, snapshot_state_dirs);
        r = copy_dirs(files, to_state, snapshot_state_dirs);
        if (r >= 0)
                r = copy_dirs(files, images, snapshot_runtime_dirs);
        return r < 0 ? r : copy_dirs(files, images, snapshot_runtime_files);
}

static int make_fork(const char *parent, const char *name, const struct bd_paths *from, int src_fd,
                     const struct snapshot_manifest *m, const struct fork_target *t) {
        _cleanup_close_ int state_fd = -EBADF, new_fd = -EBADF;
        _cleanup_free_ char *fork_of = strdup_printf("%s/%s", parent, name);
        _cleanup_free_ char *snapshot_dir = strdup_printf("%s/" SNAPSHOTS_DIR "/%s", from->state, name);
        struct snapshot_manifest own = *m;
        int r;

        if (!fork_of || !snapshot_dir)
                return -ENOMEM;
        r = mkdir_parents(t->paths.state, 0700);
        if (r < 0)
                return r;
        state_fd = open(t->paths.state, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (state_fd < 0)
                return negative_errno();
        if (mkdirat(state_fd, SNAPSHOT_DIR_NEW, 0700) < 0)
                return negative_errno();
        new_fd = openat(state_fd, SNAPSHOT_DIR_NEW, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (new_fd < 0)
                return negative_errno();
        r = link_images(src_fd, new_fd);
        if (r < 0)
                return r;
        own.fork_of = fork_of;
        r = snapshot_manifest_write_at(new_fd, &own);
        if (r < 0)
                return r;
        r = copy_files(src_fd, snapshot_dir, from, t->paths.state);
        if (r < 0)
                return r;
        return renameat(state_fd, SNAPSHOT_DIR_NEW, state_fd, SNAPSHOT_DIR) < 0 ? negative_errno() : 0;
}

/*
 * Each fork started as botdesk start starts a profile, all at once: a child of ours each, whose exit status
 * is start's (said on stderr as start says it). Their helpers take their turns in the start queue
 * ([resources] concurrent_starts), so ten forks restore about two at a time on two cores instead of one.
 */
static void start_all(struct fork_target *t, size_t n, unsigned timeout) {
        (void) fflush(NULL);
        for (size_t i = 0; i < n; i++) {
                t[i].pid = fork();
                if (t[i].pid == 0) {
                        struct bd_config c = {};
                        struct cli_args start = { .verb = "start", .quiet = true, .timeout = timeout };

                        _exit(verb_start_desktop(&start, t[i].name, &c, NULL));
                }
                if (t[i].pid < 0)
                        log_error_errno(-errno, "Cannot start the fork %s: %m", t[i].name);
        }
        for (size_t i = 0; i < n; i++) {
                int status = 0;

                t[i].exit = EXIT_FAILED;
                if (t[i].pid > 0 && waitpid(t[i].pid, &status, 0) == t[i].pid && WIFEXITED(status))
                        t[i].exit = WEXITSTATUS(status);
        }
}

/* A fork's state dir removed, which make_fork() made (check_new() saw none). */
static void unmake(const struct fork_target *t) {
        _cleanup_close_ int parent_fd = dir_open_parent(t->paths.state);
        const char *leaf = strrchr(t->paths.state, '/');

        if (parent_fd < 0 || !leaf || remove_tree_at(parent_fd, leaf + 1) < 0)
                log_warning("Cannot remove %s, which the failed fork made.", t->paths.state);
}

/* A fork may only make a profile: none that has a state dir or a runtime dir. */
static int check_new(const char *parent, struct fork_target *t) {
        int r;

        if (!profile_name_valid(t->name)) {
                log_error("Invalid profile name \"%s\" for a fork (--as, with --count a number after it).", t->name);
                return EXIT_USAGE;
        }
        if (streq(t->name, parent)) {
                log_error("A fork of %s cannot be %s itself: give another profile with --as.", parent, parent);
                return EXIT_USAGE;
        }
        r = paths_for_profile(t->name, &t->paths);
        if (r < 0)
                return log_error_errno(r, "Cannot compute the paths of %s: %m", t->name), EXIT_FAILED;
        if (access(t->paths.state, F_OK) >= 0 || access(t->paths.runtime, F_OK) >= 0) {
                log_error("Profile %s exists (%s): a fork makes a new profile; pick another name with --as.", t->name,
                          access(t->paths.state, F_OK) >= 0 ? t->paths.state : t->paths.runtime);
                return EXIT_REFUSED;
        }
        return EXIT_OK;
}

static void emit_json(const char *parent, const char *name, struct fork_target *t, size_t n, unsigned long long usec) {
        struct json j;

        json_init(&j, stdout);
        json_object_begin(&j);
        json_kv_string(&j, "profile", parent);
        json_kv_string(&j, "snapshot", name);
        json_kv_int(&j, "ms", (long long) (usec / 1000));
        json_key(&j, "forks");
        json_array_begin(&j);
        for (size_t i = 0; i < n; i++) {
                json_object_begin(&j);
                json_kv_string(&j, "profile", t[i].name);
                json_kv_bool(&j, "running", t[i].started);
                json_kv_opt_int(&j, "display", t[i].status.display, t[i].started && t[i].status.display >= 0);
                json_object_end(&j);
        }
        json_array_end(&j);
        json_object_end(&j);
        putchar('\n');
}

int verb_fork(const struct cli_args *a) {
        _cleanup_(paths_done) struct bd_paths from = {};
        _cleanup_(snapshot_manifest_done) struct snapshot_manifest m = {};
        _cleanup_free_ struct fork_target *targets = NULL;
        _cleanup_free_ char *unusable = NULL;
        _cleanup_close_ int src_fd = -EBADF;
        const char *parent = a->operand, *name = a->n_operands > 1 ? a->operands[1] : NULL;
        size_t n = a->count > 0 ? a->count : 1;
        unsigned long long t0 = now_usec();
        int r, ret = EXIT_OK;

        if (cli_check_snapshot_name("fork", parent, name) < 0)
                return EXIT_USAGE;
        if (!a->as) {
                log_error("botdesk fork needs the new profile's name: botdesk fork %s %s --as NEW.", parent, name);
                return EXIT_USAGE;
        }
        if (a->count > FORK_COUNT_MAX) {
                log_error("Invalid --count %u: at most %d forks at once.", a->count, FORK_COUNT_MAX);
                return EXIT_USAGE;
        }
        r = paths_for_profile(parent, &from);
        if (r < 0)
                return log_error_errno(r, "Cannot compute the paths of %s: %m", parent), EXIT_FAILED;
        r = snapshot_open_named(from.state, name, &src_fd);
        if (r == -ENOENT) {
                log_error("Desktop %s has no snapshot %s (botdesk snapshot %s %s makes one).", parent, name, parent, name);
                return EXIT_FAILED;
        }
        if (r == -EPERM) {
                log_error("%s/" SNAPSHOTS_DIR "/%s is not a private directory of ours (its owner, its mode, or its "
                          "manifest's): refused.", from.state, name);
                return EXIT_REFUSED;
        }
        if (r < 0)
                return log_error_errno(r, "Cannot open snapshot %s of %s: %m", name, parent), EXIT_FAILED;
        r = snapshot_manifest_read_at(src_fd, &m);
        if (r < 0)
                return log_error_errno(r, "The manifest of snapshot %s of %s is unreadable: %m", name, parent),
                       EXIT_FAILED;
        unusable = snapshot_unusable(&m);
        if (unusable) {
                log_error("Snapshot %s of %s cannot be forked here: %s.", name, parent, unusable);
                return EXIT_FAILED;
        }

        targets = calloc(n, sizeof *targets);
        if (!targets)
                return log_oom(), EXIT_FAILED;
        for (size_t i = 0; i < n; i++) {
                if (a->count > 0)
                        snprintf(targets[i].name, sizeof targets[i].name, "%s-%zu", a->as, i + 1);
                else
                        snprintf(targets[i].name, sizeof targets[i].name, "%s", a->as);
                ret = check_new(parent, &targets[i]);
                if (ret != EXIT_OK)
                        goto out;
        }
        for (size_t i = 0; i < n; i++) {
                r = make_fork(parent, name, &from, src_fd, &m, &targets[i]);
                if (r < 0) {
                        log_error_errno(r, "Cannot make the fork %s of %s/%s: %m", targets[i].name, parent, name);
                        /* Nothing half made is left: the state dirs this made, none of which existed before. */
                        for (size_t k = 0; k <= i; k++)
                                unmake(&targets[k]);
                        ret = EXIT_FAILED;
                        goto out;
                }
                cli_journal_fork(targets[i].name, parent, name, m.time_usec);
        }
        start_all(targets, n, a->timeout);
        for (size_t i = 0; i < n; i++) {
                _cleanup_(config_done) struct bd_config c = {};
                _cleanup_free_ char *failed = strdup_printf("%s/snapshot.failed", targets[i].paths.state);

                if (targets[i].exit != EXIT_OK) {
                        ret = targets[i].exit;
                        continue;
                }
                if (cli_load_config(targets[i].name, &c) < 0 || status_collect(targets[i].name, &c, &targets[i].status) < 0) {
                        ret = EXIT_FAILED;
                        continue;
                }
                targets[i].started = true;
                if (!failed || access(failed, F_OK) >= 0) {
                        log_error("Fork %s of %s/%s could not be restored and started cold: see its helper's log "
                                  "(%s/helper.log).", targets[i].name, parent, name, targets[i].paths.runtime);
                        ret = EXIT_FAILED;
                }
        }
        if (a->json)
                emit_json(parent, name, targets, n, now_usec() - t0);
        else if (!a->quiet)
                for (size_t i = 0; i < n; i++)
                        if (targets[i].started)
                                printf("%s: forked from %s/%s, ready on :%d\n", targets[i].name, parent, name,
                                       targets[i].status.display);
out:
        for (size_t i = 0; i < n; i++) {
                paths_done(&targets[i].paths);
                if (targets[i].started)
                        status_done(&targets[i].status);
        }
        return ret;
}
