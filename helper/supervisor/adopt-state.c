/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "adopt-state.h"
#include "lease.h"
#include "util.h"

/* The skeleton's files are a few KiB; a bigger one is the user's. */
#define STATE_FILE_MAX (1024 * 1024)

static int name_cmp(const void *a, const void *b) {
        return strcmp(*(char *const *) a, *(char *const *) b);
}

static int names_sorted(int dirfd, char ***ret) {
        _cleanup_closedir_ DIR *d = NULL;
        _cleanup_strv_free_ char **names = NULL;
        struct dirent *de;
        int r;

        r = dir_open_at(dirfd, ".", &d);
        if (r < 0)
                return r;
        while ((de = readdir(d)))
                if (!streq(de->d_name, ".") && !streq(de->d_name, "..") && (r = strv_push(&names, strdup(de->d_name))) < 0)
                        return r;
        if (names)
                qsort(names, strv_length(names), sizeof *names, name_cmp);
        *ret = TAKE_PTR(names);
        return 0;
}

/* text with each occurrence of from replaced by to (malloc'd). */
static char *replace_all(const char *text, const char *from, const char *to) {
        size_t from_len = strlen(from), to_len = strlen(to), n = 0;
        const char *p;
        char *out, *o;

        if (from_len == 0)
                return strdup(text);
        for (p = text; (p = strstr(p, from)); p += from_len)
                n++;
        out = malloc(strlen(text) + n * to_len + 1);
        if (!out)
                return NULL;
        for (o = out, p = text;;) {
                const char *hit = strstr(p, from);
                size_t len = hit ? (size_t) (hit - p) : strlen(p);

                memcpy(o, p, len);
                o += len;
                if (!hit)
                        break;
                memcpy(o, to, to_len);
                o += to_len;
                p = hit + from_len;
        }
        *o = 0;
        return out;
}

/* What the top of a state dir has that no comparison looks at. */
static bool skipped(const char *name) {
        return streq(name, "cache") || streq(name, SESSION_FRESH_MANIFEST);
}

static int file_same(int a_dir, int b_dir, const char *name, const struct state_names *n) {
        _cleanup_free_ char *a = NULL, *b = NULL, *a1 = NULL, *a2 = NULL;
        size_t a_size, b_size;
        int r;

        r = read_full_file_at(a_dir, name, &a, &a_size, STATE_FILE_MAX);
        if (r >= 0)
                r = read_full_file_at(b_dir, name, &b, &b_size, STATE_FILE_MAX);
        if (r == -EFBIG)
                return 0;
        if (r < 0)
                return r;
        /* Text files only: a NUL inside would end the comparison early. */
        if (strlen(a) != a_size || strlen(b) != b_size)
                return a_size == b_size && memcmp(a, b, a_size) == 0;
        a1 = replace_all(a, n->profile_runtime, n->spare_runtime);
        a2 = a1 ? replace_all(a1, n->profile_state, n->spare_state) : NULL;
        if (!a2)
                return -ENOMEM;
        return streq(a2, b);
}

static int tree_same(int a_dir, int b_dir, const struct state_names *n, bool top) {
        _cleanup_strv_free_ char **a = NULL, **b = NULL;
        int r;

        r = names_sorted(a_dir, &a);
        if (r >= 0)
                r = names_sorted(b_dir, &b);
        if (r < 0)
                return r;
        for (size_t i = 0, j = 0;;) {
                struct stat sa, sb;
                const char *name;

                /* A cache may be dropped: neither side's is compared; nor the manifests. */
                if (top && a && a[i] && skipped(a[i])) {
                        i++;
                        continue;
                }
                if (top && b && b[j] && skipped(b[j])) {
                        j++;
                        continue;
                }
                if (!(a && a[i]) || !(b && b[j]))
                        return !(a && a[i]) && !(b && b[j]);
                if (!streq(a[i], b[j]))
                        return 0;
                name = a[i];
                i++;
                j++;
                if (fstatat(a_dir, name, &sa, AT_SYMLINK_NOFOLLOW) < 0 || fstatat(b_dir, name, &sb, AT_SYMLINK_NOFOLLOW) < 0)
                        return negative_errno();
                if ((sa.st_mode & S_IFMT) != (sb.st_mode & S_IFMT))
                        return 0;
                if (S_ISDIR(sa.st_mode)) {
                        _cleanup_close_ int ad = openat(a_dir, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
                        _cleanup_close_ int bd = openat(b_dir, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

                        if (ad < 0 || bd < 0)
                                return negative_errno();
                        r = tree_same(ad, bd, n, false);
                } else if (S_ISREG(sa.st_mode))
                        r = file_same(a_dir, b_dir, name, n);
                else
                        /* Links, sockets: nothing a fresh session makes. */
                        r = 0;
                if (r <= 0)
                        return r;
        }
}

int session_state_same(int profile_xdg_fd, int spare_xdg_fd, const struct state_names *n) {
        return tree_same(profile_xdg_fd, spare_xdg_fd, n, true);
}

/* ---- the manifest ---------------------------------------------------------------------------- */

/* One line an entry, below prefix (which ends in '/' or is empty). */
static int manifest_of(int dirfd, const char *prefix, bool top, FILE *out) {
        _cleanup_strv_free_ char **names = NULL;
        int r;

        r = names_sorted(dirfd, &names);
        if (r < 0)
                return r;
        for (size_t i = 0; names && names[i]; i++) {
                const char *name = names[i];
                struct stat st;

                if (top && skipped(name))
                        continue;
                /* Names are one line each: a newline in one would forge another entry. */
                if (strchr(name, '\n'))
                        return -EBADMSG;
                if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
                        return negative_errno();
                if (S_ISDIR(st.st_mode)) {
                        _cleanup_close_ int sub = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
                        _cleanup_free_ char *below = strdup_printf("%s%s/", prefix, name);

                        if (sub < 0)
                                return negative_errno();
                        if (!below)
                                return -ENOMEM;
                        fprintf(out, "dir %s%s\n", prefix, name);
                        r = manifest_of(sub, below, false, out);
                        if (r < 0)
                                return r;
                } else if (S_ISREG(st.st_mode)) {
                        _cleanup_free_ char *data = NULL;
                        unsigned char d[32];
                        size_t size;

                        r = read_full_file_at(dirfd, name, &data, &size, STATE_FILE_MAX);
                        if (r < 0)
                                return r;
                        lease_sha256(data, size, d);
                        fputs("file ", out);
                        for (unsigned k = 0; k < sizeof d; k++)
                                fprintf(out, "%02x", d[k]);
                        fprintf(out, " %zu %s%s\n", size, prefix, name);
                } else
                        fprintf(out, "other %o %s%s\n", (unsigned) (st.st_mode & S_IFMT), prefix, name);
        }
        return 0;
}

static int manifest_build(int xdg_fd, char **ret) {
        _cleanup_free_ char *text = NULL;
        size_t size = 0;
        FILE *out;
        int r;

        out = open_memstream(&text, &size);
        if (!out)
                return -ENOMEM;
        fputs("botdesk fresh session state 1\n", out);
        r = manifest_of(xdg_fd, "", true, out);
        if (fclose(out) != 0 && r >= 0)
                r = -ENOMEM;
        if (r < 0)
                return r;
        *ret = TAKE_PTR(text);
        return 0;
}

int session_state_manifest_write(int xdg_fd) {
        _cleanup_free_ char *text = NULL;
        int r;

        r = manifest_build(xdg_fd, &text);
        if (r < 0)
                return r;
        return write_file_atomic_at(xdg_fd, SESSION_FRESH_MANIFEST, text, strlen(text), 0600);
}

int session_state_manifest_matches(int xdg_fd) {
        _cleanup_free_ char *want = NULL, *got = NULL;
        int r;

        r = read_full_file_at(xdg_fd, SESSION_FRESH_MANIFEST, &want, NULL, 4 * 1024 * 1024);
        if (r == -ENOENT)
                return 0;
        if (r < 0)
                return r;
        r = manifest_build(xdg_fd, &got);
        if (r == -EFBIG || r == -EBADMSG)
                return 0;
        if (r < 0)
                return r;
        return streq(want, got);
}
