/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "botdesk-config.h"
#include "envfile.h"
#include "profile.h"
#include "snapshot.h"
#include "util.h"

const char *const snapshot_state_dirs[] = { "xdg", "Downloads", "browser-profile", NULL };
const char *const snapshot_runtime_dirs[] = { SNAPSHOT_RUNTIME_XDG, SNAPSHOT_RUNTIME_TMP, NULL };
const char *const snapshot_runtime_files[] = { "cdp.sock.lock", NULL };

void snapshot_manifest_done(struct snapshot_manifest *m) {
        free(m->version);
        free(m->kernel);
        free(m->token);
        free(m->bus_address);
        free(m->tree_runtime);
        free(m->tree_state);
        free(m->fork_of);
        free(m->desktop);
        free(m->command);
        for (size_t i = 0; i < m->n_children; i++)
                free(m->children[i].name);
        *m = (struct snapshot_manifest) {};
}

static int push(char ***env, const char *key, char *value) {
        int r;

        if (!value)
                return -ENOMEM;
        r = env_set(env, key, value);
        free(value);
        return r;
}

int snapshot_manifest_write_at(int dirfd, const struct snapshot_manifest *m) {
        _cleanup_strv_free_ char **env = NULL;
        int r = 0;

        r = push(&env, "VERSION", strdup(m->version));
        if (r >= 0)
                r = push(&env, "KERNEL", strdup(m->kernel));
        if (r >= 0)
                r = push(&env, "DISPLAY", strdup_printf("%u", m->display));
        if (r >= 0)
                r = push(&env, "TOKEN", strdup(m->token));
        if (r >= 0)
                r = push(&env, "BUS_ADDRESS", strdup(m->bus_address));
        if (r >= 0 && m->tree_runtime)
                r = push(&env, "TREE_RUNTIME", strdup(m->tree_runtime));
        if (r >= 0 && m->tree_state)
                r = push(&env, "TREE_STATE", strdup(m->tree_state));
        if (r >= 0 && m->fork_of)
                r = push(&env, "FORK_OF", strdup(m->fork_of));
        if (r >= 0 && m->desktop)
                r = push(&env, "DESKTOP", strdup(m->desktop));
        if (r >= 0 && m->command)
                r = push(&env, "COMMAND", strdup(m->command));
        if (r >= 0)
                r = push(&env, "TIME_USEC", strdup_printf("%llu", m->time_usec));
        if (r >= 0)
                r = push(&env, "DUMP_USEC", strdup_printf("%llu", m->dump_usec));
        if (r >= 0)
                r = push(&env, "SIZE", strdup_printf("%llu", m->size));
        for (size_t i = 0; r >= 0 && i < m->n_children; i++) {
                char key[32];

                snprintf(key, sizeof key, "CHILD_%zu", i);
                r = push(&env, key, strdup_printf("%d %s", m->children[i].ns_pid, m->children[i].name));
        }
        if (r < 0)
                return r;
        return envfile_write_at(dirfd, SNAPSHOT_MANIFEST, env);
}

static int get_ull(char **env, const char *key, unsigned long long max, unsigned long long *ret) {
        const char *v = strv_env_get(env, key);

        return v ? parse_uint(v, max, ret) : -EBADMSG;
}

static int get_optional(char **env, const char *key, char **ret) {
        const char *v = strv_env_get(env, key);

        if (!v)
                return 0;
        *ret = strdup(v);
        return *ret ? 0 : -ENOMEM;
}

/* An absolute path without "..", or none. */
static int get_optional_path(char **env, const char *key, char **ret) {
        const char *v = strv_env_get(env, key);

        if (!v)
                return 0;
        if (v[0] != '/' || strstr(v, "/..") || strlen(v) >= 4096)
                return -EBADMSG;
        return get_optional(env, key, ret);
}

static int get_string(char **env, const char *key, char **ret) {
        const char *v = strv_env_get(env, key);

        if (!v || !*v)
                return -EBADMSG;
        *ret = strdup(v);
        return *ret ? 0 : -ENOMEM;
}

int snapshot_manifest_read_at(int dirfd, struct snapshot_manifest *ret) {
        _cleanup_strv_free_ char **env = NULL;
        struct snapshot_manifest m = {};
        unsigned long long display;
        int r;

        r = envfile_read_at(dirfd, SNAPSHOT_MANIFEST, &env);
        if (r < 0)
                return r;
        if ((r = get_string(env, "VERSION", &m.version)) < 0 || (r = get_string(env, "KERNEL", &m.kernel)) < 0 ||
            (r = get_string(env, "TOKEN", &m.token)) < 0 || (r = get_string(env, "BUS_ADDRESS", &m.bus_address)) < 0 ||
            (r = get_ull(env, "DISPLAY", 65535, &display)) < 0 || (r = get_ull(env, "TIME_USEC", UINT64_MAX, &m.time_usec)) < 0 ||
            (r = get_ull(env, "DUMP_USEC", UINT64_MAX, &m.dump_usec)) < 0 || (r = get_ull(env, "SIZE", UINT64_MAX, &m.size)) < 0)
                goto fail;
        m.display = (unsigned) display;
        if ((r = get_optional_path(env, "TREE_RUNTIME", &m.tree_runtime)) < 0 ||
            (r = get_optional_path(env, "TREE_STATE", &m.tree_state)) < 0 ||
            (r = get_optional(env, "FORK_OF", &m.fork_of)) < 0 || (r = get_optional(env, "DESKTOP", &m.desktop)) < 0 ||
            (r = get_optional(env, "COMMAND", &m.command)) < 0)
                goto fail;
        if (m.desktop && !streq(m.desktop, "xfce") && !streq(m.desktop, "command")) {
                r = -EBADMSG;
                goto fail;
        }
        if (!m.tree_runtime != !m.tree_state) {
                r = -EBADMSG;
                goto fail;
        }
        for (size_t i = 0; i < SNAPSHOT_CHILDREN_MAX; i++) {
                char key[32];
                const char *v, *space;
                unsigned long long pid;
                _cleanup_free_ char *num = NULL;

                snprintf(key, sizeof key, "CHILD_%zu", i);
                v = strv_env_get(env, key);
                if (!v)
                        break;
                space = strchr(v, ' ');
                r = -EBADMSG;
                if (!space || !space[1] || !(num = strndup(v, (size_t) (space - v))) ||
                    parse_uint(num, INT32_MAX, &pid) < 0 || pid < 2)
                        goto fail;
                m.children[i] = (struct snapshot_child) { .ns_pid = (int) pid, .name = strdup(space + 1) };
                m.n_children++;
                if (!m.children[i].name) {
                        r = -ENOMEM;
                        goto fail;
                }
        }
        if (m.n_children == 0) {
                r = -EBADMSG;
                goto fail;
        }
        *ret = m;
        return 0;
fail:
        snapshot_manifest_done(&m);
        return r == -EINVAL || r == -ERANGE ? -EBADMSG : r;
}

static int open_verified(const char *state_dir, const char *sub, const char *name, int *ret_fd) {
        _cleanup_close_ int state_fd = -EBADF, sub_fd = -EBADF, fd = -EBADF;
        struct stat st;
        int r;

        state_fd = open(state_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (state_fd < 0)
                return negative_errno();
        if (sub) {
                sub_fd = dir_open_verified_at(state_fd, sub, getuid());
                if (sub_fd < 0)
                        return sub_fd;
        }
        fd = dir_open_verified_at(sub ? sub_fd : state_fd, name, getuid());
        if (fd < 0)
                return fd;
        /* The manifest too: ours, written by no one else. */
        r = fstatat(fd, SNAPSHOT_MANIFEST, &st, AT_SYMLINK_NOFOLLOW);
        if (r < 0)
                return negative_errno();
        if (!S_ISREG(st.st_mode) || st.st_uid != getuid() || (st.st_mode & 0022))
                return -EPERM;
        *ret_fd = TAKE_FD(fd);
        return 0;
}

int snapshot_open(const char *state_dir, int *ret_fd) {
        return open_verified(state_dir, NULL, SNAPSHOT_DIR, ret_fd);
}

int snapshot_open_named(const char *state_dir, const char *name, int *ret_fd) {
        if (!snapshot_name_valid(name))
                return -EINVAL;
        return open_verified(state_dir, SNAPSHOTS_DIR, name, ret_fd);
}

bool snapshot_name_valid(const char *name) {
        size_t n = strlen(name);

        if (n == 0 || n > SNAPSHOT_NAME_MAX || name[0] == '.' || name[0] == '-')
                return false;
        return strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") == n;
}

char *snapshot_unusable(const struct snapshot_manifest *m) {
        struct utsname u;

        if (!streq(m->version, BOTDESK_VERSION))
                return strdup_printf("its images are of botdesk %s, this is %s", m->version, BOTDESK_VERSION);
        if (uname(&u) < 0)
                return strdup("uname() failed");
        if (!streq(m->kernel, u.release))
                return strdup_printf("its images were taken on kernel %s, this one is %s", m->kernel, u.release);
        return NULL;
}

int snapshot_size_at(int dir_fd, unsigned long long *ret) {
        _cleanup_close_ int fd = openat(dir_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        unsigned long long total = 0;
        struct dirent *de;
        DIR *d;

        if (fd < 0)
                return negative_errno();
        d = fdopendir(TAKE_FD(fd));
        if (!d)
                return negative_errno();
        while ((de = readdir(d))) {
                struct stat st;

                if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) >= 0 && S_ISREG(st.st_mode))
                        total += (unsigned long long) st.st_size;
        }
        closedir(d);
        *ret = total;
        return 0;
}

int snapshot_remove_at(int parent_fd, const char *name) {
        int fd = openat(parent_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        struct dirent *de;
        DIR *d;

        if (fd < 0)
                return errno == ENOENT ? 0 : negative_errno();
        d = fdopendir(fd);
        if (!d) {
                int r = negative_errno();
                close(fd);
                return r;
        }
        /* CRIU's images, our manifest, a named snapshot's files, a fork's runtime dir. */
        while ((de = readdir(d)))
                if (!streq(de->d_name, ".") && !streq(de->d_name, ".."))
                        (void) remove_tree_at(dirfd(d), de->d_name);
        closedir(d);
        return unlinkat(parent_fd, name, AT_REMOVEDIR) < 0 ? negative_errno() : 0;
}
