/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Profile names and the files of a profile. The name ends up in paths, unit
 * names and window titles, so it is checked before anything is touched.
 */

#include <fcntl.h>
#include <pwd.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/random.h>
#include <sys/un.h>

#include "lease.h"
#include "profile.h"
#include "socket-util.h"
#include "util.h"

static bool char_is_alnum(char c) {
        /* Not isalnum(): the locale must not widen the set. */
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

static bool char_is_lower_hex(char c) {
        return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
}

bool profile_name_valid(const char *name) {
        size_t i;

        if (!name || !char_is_alnum(name[0]))
                return false;

        for (i = 1; name[i] && name[i] != '.'; i++) {
                if (i >= PROFILE_BASE_MAX)
                        return false;
                if (!char_is_alnum(name[i]) && name[i] != '-' && name[i] != '_')
                        return false;
        }
        if (!name[i])
                return true;
        /* Scoped: the dot and exactly the scope's digits. */
        for (size_t k = 1; k <= PROFILE_SCOPE_LEN; k++)
                if (!char_is_lower_hex(name[i + k]))
                        return false;
        return name[i + PROFILE_SCOPE_LEN + 1] == '\0';
}

size_t profile_base_len(const char *name) {
        return strcspn(name, ".");
}

int profile_scope(const char *name, const char *home, char ret[static PROFILE_NAME_MAX + 1]) {
        unsigned char digest[32];
        size_t l;

        if (!profile_name_valid(name) || name[profile_base_len(name)] == '.')
                return -EINVAL;
        if (!home || !*home) {
                (void) strscpy(ret, PROFILE_NAME_MAX + 1, name);
                return 0;
        }
        if (home[0] != '/')
                return -EINVAL;
        for (l = strlen(home); l > 1 && home[l - 1] == '/'; l--)
                ;
        lease_sha256(home, l, digest);
        snprintf(ret, PROFILE_NAME_MAX + 1, "%s.%02x%02x%02x%02x", name, digest[0], digest[1], digest[2], digest[3]);
        return 0;
}

bool spare_name_valid(const char *name) {
        const char *hex = name ? startswith(name, SPARE_PREFIX) : NULL;
        size_t i;

        if (!hex)
                return false;
        for (i = 0; hex[i]; i++)
                if (i >= 8 || !((hex[i] >= '0' && hex[i] <= '9') || (hex[i] >= 'a' && hex[i] <= 'f')))
                        return false;
        return i == 8;
}

int spare_name_new(char ret[SPARE_NAME_SIZE]) {
        uint8_t raw[4];

        if (getrandom(raw, sizeof raw, 0) != (ssize_t) sizeof raw)
                return errno > 0 ? -errno : -EIO;
        snprintf(ret, SPARE_NAME_SIZE, SPARE_PREFIX "%02x%02x%02x%02x", raw[0], raw[1], raw[2], raw[3]);
        return 0;
}

bool desktop_name_valid(const char *name) {
        return profile_name_valid(name) || spare_name_valid(name);
}

void paths_remove_spare(const char *spare, bool runtime_too) {
        _cleanup_(paths_done) struct bd_paths p = {};
        _cleanup_close_ int runtime_base = -EBADF, state_base = -EBADF;

        if (!spare_name_valid(spare) || paths_for_profile(spare, &p) < 0)
                return;
        state_base = dir_open_parent(p.state);
        if (state_base >= 0)
                (void) remove_tree_at(state_base, spare);
        if (!runtime_too)
                return;
        runtime_base = open(p.runtime_base, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
        if (runtime_base >= 0)
                (void) remove_tree_at(runtime_base, spare);
}

void paths_remove_spare_alias(const char *spare) {
        _cleanup_(paths_done) struct bd_paths p = {};
        _cleanup_close_ int base = -EBADF, state = -EBADF;
        struct stat st;

        if (!spare_name_valid(spare) || paths_for_profile(spare, &p) < 0)
                return;
        base = open(p.runtime_base, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
        if (base >= 0 && fstatat(base, spare, &st, AT_SYMLINK_NOFOLLOW) >= 0 && S_ISLNK(st.st_mode))
                (void) unlinkat(base, spare, 0);
        state = open(p.state, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
        if (state >= 0 && fstatat(state, "xdg", &st, AT_SYMLINK_NOFOLLOW) >= 0 && S_ISLNK(st.st_mode)) {
                (void) unlinkat(state, "xdg", 0);
                paths_remove_spare(spare, false);
        }
}

void paths_done(struct bd_paths *p) {
        if (!p)
                return;
        free(p->runtime_base);
        free(p->runtime);
        free(p->state);
        free(p->rfb_socket);
        free(p->xauthority);
        free(p->env_file);
        *p = (struct bd_paths) {};
}

/*
 * An XDG variable counts only when it is an absolute path (the base directory
 * spec says relative ones are invalid and ignored). Returns its length with
 * trailing slashes dropped, or 0 when it does not count.
 */
static size_t xdg_dir_len(const char *v) {
        size_t l;

        if (!v || v[0] != '/')
                return 0;
        l = strlen(v);
        while (l > 1 && v[l - 1] == '/')
                l--;
        return l;
}

static int home_dir(char **ret);

/*
 * A directory in which nobody but root can remove or rename what another
 * user made: root's, and either sticky or writable by root alone. Anything
 * else (a /tmp of some user's, a world-writable dir without the sticky bit)
 * lets another user replace our dir between our checks and our use.
 */
static bool parent_guards_entries(const char *dir) {
        struct stat st;

        if (lstat(dir, &st) < 0 || !S_ISDIR(st.st_mode) || st.st_uid != 0)
                return false;
        return (st.st_mode & S_ISVTX) || !(st.st_mode & (S_IWGRP | S_IWOTH));
}

int runtime_base_fallback(const char *tmp, const char *home, uid_t uid, char **ret) {
        size_t l;

        if (!tmp || !ret)
                return -EINVAL;
        if (parent_guards_entries(tmp))
                *ret = strdup_printf("%s/botdesk-%u", tmp, (unsigned) uid);
        else {
                l = xdg_dir_len(home);
                if (l == 0)
                        return -ENOENT;
                *ret = strdup_printf("%.*s%s" RUNTIME_HOME_FALLBACK, (int) l, home, l == 1 ? "" : "/");
        }
        return *ret ? 0 : -ENOMEM;
}

int paths_runtime_base(char **ret) {
        const char *xdg = getenv("XDG_RUNTIME_DIR");
        _cleanup_free_ char *home = NULL;
        size_t l = xdg_dir_len(xdg);
        int r;

        if (!ret)
                return -EINVAL;

        if (l > 0) {
                *ret = strdup_printf("%.*s/botdesk", (int) l, xdg);
                return *ret ? 0 : -ENOMEM;
        }
        /* The fallback is shared /tmp: paths_ensure refuses it unless it is ours. */
        r = parent_guards_entries("/tmp") ? 0 : home_dir(&home);
        if (r < 0)
                return r;
        return runtime_base_fallback("/tmp", home, getuid(), ret);
}

int paths_home(char **ret) {
        return home_dir(ret);
}

static int home_dir(char **ret) {
        const char *e = getenv("HOME");
        _cleanup_free_ char *buf = NULL;
        struct passwd pw, *result = NULL;
        long bufsize;
        size_t l;
        int r;

        l = xdg_dir_len(e);
        if (l > 0) {
                *ret = strndup(e, l);
                return *ret ? 0 : -ENOMEM;
        }

        bufsize = sysconf(_SC_GETPW_R_SIZE_MAX);
        if (bufsize <= 0)
                bufsize = 4096;

        for (;;) {
                free(buf);
                buf = malloc((size_t) bufsize);
                if (!buf)
                        return -ENOMEM;
                r = getpwuid_r(getuid(), &pw, buf, (size_t) bufsize, &result);
                if (r != ERANGE)
                        break;
                if (bufsize > 1024 * 1024)
                        return -ERANGE;
                bufsize *= 2;
        }
        if (r > 0)
                return -r;
        if (!result)
                return -ENOENT;

        l = xdg_dir_len(pw.pw_dir);
        if (l == 0)
                return -ENOENT;
        *ret = strndup(pw.pw_dir, l);
        return *ret ? 0 : -ENOMEM;
}

int paths_state_base(char **ret) {
        const char *xdg = getenv("XDG_STATE_HOME");
        _cleanup_free_ char *home = NULL;
        size_t l = xdg_dir_len(xdg);
        int r;

        if (l > 0) {
                *ret = strdup_printf("%.*s/botdesk", (int) l, xdg);
        } else {
                r = home_dir(&home);
                if (r < 0)
                        return r;
                *ret = strdup_printf("%s%s.local/state/botdesk", home, streq(home, "/") ? "" : "/");
        }
        return *ret ? 0 : -ENOMEM;
}

static int state_dir(const char *profile, char **ret) {
        _cleanup_free_ char *base = NULL;
        int r = paths_state_base(&base);

        if (r < 0)
                return r;
        *ret = strdup_printf("%s/%s", base, profile);
        return *ret ? 0 : -ENOMEM;
}

int paths_for_profile(const char *profile, struct bd_paths *ret) {
        struct bd_paths p = {};
        int r;

        if (!ret)
                return -EINVAL;
        if (!desktop_name_valid(profile))
                return -EINVAL;

        r = paths_runtime_base(&p.runtime_base);
        if (r < 0)
                goto fail;

        r = state_dir(profile, &p.state);
        if (r < 0)
                goto fail;

        r = -ENOMEM;
        p.runtime = strdup_printf("%s/%s", p.runtime_base, profile);
        if (!p.runtime)
                goto fail;
        p.rfb_socket = strdup_printf("%s/" RFB_SOCKET, p.runtime);
        p.xauthority = strdup_printf("%s/Xauthority", p.runtime);
        p.env_file = strdup_printf("%s/env", p.runtime);
        if (!p.rfb_socket || !p.xauthority || !p.env_file)
                goto fail;

        /* Refused here, where the cause is known, rather than at bind() far from it. */
        {
                struct sockaddr_un sa;

                r = sockaddr_un_set_path(&sa, p.rfb_socket);
                if (r < 0)
                        goto fail;
        }

        *ret = p;
        return 0;

fail:
        paths_done(&p);
        return r;
}

int paths_runtime_base_open(bool create, char **ret_base) {
        _cleanup_free_ char *base = NULL;
        int fd, r;

        r = paths_runtime_base(&base);
        if (r < 0)
                return r;
        if (create && mkdir(base, 0700) < 0 && errno != EEXIST)
                return negative_errno();
        fd = dir_open_verified_at(AT_FDCWD, base, getuid());
        if (fd >= 0 && ret_base)
                *ret_base = TAKE_PTR(base);
        return fd;
}

int dir_open_verified_at(int dirfd, const char *name, uid_t uid) {
        _cleanup_close_ int fd = -EBADF;
        struct stat st;

        if (!name)
                return -EINVAL;
        /* O_PATH would also open a dir we may not search; we will read below it. */
        fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY);
        if (fd < 0) {
                if (errno == ELOOP || errno == EACCES)
                        return -EPERM;
                return negative_errno();
        }
        /* Checked on what was opened, not on a path that can change meanwhile. */
        if (fstat(fd, &st) < 0)
                return negative_errno();
        if (st.st_uid != uid || (st.st_mode & (S_IWGRP | S_IWOTH)))
                return -EPERM;
        return TAKE_FD(fd);
}

int paths_open_runtime(const struct bd_paths *p, int *ret_base_fd) {
        _cleanup_close_ int base = -EBADF;
        const char *name;
        int fd;

        if (!p || !p->runtime_base || !p->runtime)
                return -EINVAL;
        name = startswith(p->runtime, p->runtime_base);
        if (!name || name[0] != '/' || !desktop_name_valid(name + 1))
                return -EINVAL;
        base = dir_open_verified_at(AT_FDCWD, p->runtime_base, getuid());
        if (base < 0)
                return base;
        fd = dir_open_verified_at(base, name + 1, getuid());
        if (fd >= 0 && ret_base_fd)
                *ret_base_fd = TAKE_FD(base);
        return fd;
}

int dir_is_private(const char *path, uid_t uid) {
        struct stat st;

        if (!path)
                return -EINVAL;
        if (lstat(path, &st) < 0)
                return negative_errno();
        if (!S_ISDIR(st.st_mode) || st.st_uid != uid || (st.st_mode & 077) != 0)
                return -EPERM;
        return 0;
}

/* Set mode 0700 on a directory of ours without following a symlink put in its place. */
static int tighten_dir(const char *path, const struct stat *st) {
        _cleanup_close_ int fd = -EBADF;
        struct stat now;

        fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0) {
                if (errno == ELOOP)
                        return -EPERM;
                if (errno != EACCES)
                        return negative_errno();
                /* Our own dir without owner read permission: this path-based
                 * call still refuses to follow a symlink. */
                if (fchmodat(AT_FDCWD, path, 0700, AT_SYMLINK_NOFOLLOW) < 0)
                        return negative_errno();
                return 0;
        }

        if (fstat(fd, &now) < 0)
                return negative_errno();
        if (now.st_dev != st->st_dev || now.st_ino != st->st_ino || now.st_uid != st->st_uid)
                return -EPERM; /* swapped since lstat */
        if (fchmod(fd, 0700) < 0)
                return negative_errno();
        return 0;
}

/*
 * Make path a directory owned by us, mode 0700. Its parent must exist. In a
 * shared parent (/tmp) someone may have created it first: that is refused,
 * never adopted.
 */
static int ensure_private_dir(const char *path) {
        struct stat st;
        int r;

        if (mkdir(path, 0700) < 0 && errno != EEXIST)
                return negative_errno();

        if (lstat(path, &st) < 0)
                return negative_errno();
        if (S_ISLNK(st.st_mode))
                return -EPERM;
        if (!S_ISDIR(st.st_mode))
                return -ENOTDIR;
        if (st.st_uid != getuid())
                return -EPERM;

        if ((st.st_mode & 07777) != 0700) {
                r = tighten_dir(path, &st);
                if (r < 0)
                        return r;
        }

        return dir_is_private(path, getuid());
}

static bool endswith_home_fallback(const char *path) {
        size_t l = strlen(path), k = strlen(RUNTIME_HOME_FALLBACK);

        return l > k && streq(path + l - k, RUNTIME_HOME_FALLBACK);
}

int paths_ensure_base(const struct bd_paths *p) {
        if (!p || !p->runtime_base)
                return -EINVAL;

        if (endswith_home_fallback(p->runtime_base)) {
                /* ~/.cache may not exist yet: the XDG spec has it 0700. */
                _cleanup_free_ char *parent = strndup(p->runtime_base, strlen(p->runtime_base) - strlen(strrchr(p->runtime_base, '/')));

                if (!parent)
                        return -ENOMEM;
                if (mkdir(parent, 0700) < 0 && errno != EEXIST)
                        return negative_errno();
        }
        return ensure_private_dir(p->runtime_base);
}

int paths_ensure(const struct bd_paths *p) {
        int r;

        if (!p || !p->runtime || !p->state)
                return -EINVAL;
        r = paths_ensure_base(p);
        if (r < 0)
                return r;

        r = ensure_private_dir(p->runtime);
        if (r < 0)
                return r;

        return mkdir_parents(p->state, 0700);
}

void activity_stamp(int runtime_fd) {
        int fd = openat(runtime_fd, "activity", O_WRONLY | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK);

        if (fd >= 0) {
                (void) futimens(fd, NULL);
                close(fd);
        }
}
