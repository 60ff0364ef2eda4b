/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Files between an agent and its desktop's home (files.h), on beneath.h's
 * resolution: nothing here looks at a path's text but to split off its
 * last name.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <nettle/sha2.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <unistd.h>

#include "beneath.h"
#include "files.h"
#include "profile.h"
#include "util.h"

#define COPY_CHUNK (64u * 1024u)

void files_transfer_done(struct files_transfer *t) {
        free(t->path);
        *t = (struct files_transfer) {};
}

int files_home_open(const char *profile) {
        _cleanup_(paths_done) struct bd_paths p = {};
        int r, fd;

        r = paths_for_profile(profile, &p);
        if (r < 0)
                return r;
        r = mkdir_parents(p.state, 0700);
        if (r < 0)
                return r;
        fd = open(p.state, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
        return fd < 0 ? negative_errno() : fd;
}

const char *files_error_rule(int r) {
        switch (r) {
        case -EINVAL:
                return "the path must be relative to the desktop's home, without a NUL";
        case -EXDEV:
                return "it leads out of the desktop's home (through .. or a symlink)";
        case -ELOOP:
                return "it goes through a symlink loop or a /proc link";
        case -ENOENT:
                return "no such file or directory in the desktop's home";
        case -EISDIR:
                return "it is a directory, not a file";
        case -ENOTDIR:
                return "a part of it is not a directory";
        case -ENODEV:
                return "it is not a regular file (a FIFO, a device or a socket)";
        case -ENAMETOOLONG:
                return "a name in it is longer than 255 bytes";
        default:
                return NULL;
        }
}

static void digest_hex(struct sha256_ctx *ctx, char ret[static 65]) {
        uint8_t d[SHA256_DIGEST_SIZE];

        sha256_digest(ctx, sizeof d, d);
        hex_encode(d, sizeof d, ret);
}

/* Copies src to dst, at most max bytes (-EFBIG past them), hashing what passes. */
static int copy_hashed(int src, int dst, uint64_t max, uint64_t *ret_size, char ret_sha[static 65]) {
        _cleanup_free_ uint8_t *buf = malloc(COPY_CHUNK);
        struct sha256_ctx ctx;
        uint64_t n = 0;

        if (!buf)
                return -ENOMEM;
        sha256_init(&ctx);
        for (;;) {
                ssize_t k = read(src, buf, COPY_CHUNK);
                int r;

                if (k < 0 && errno == EINTR)
                        continue;
                if (k < 0)
                        return negative_errno();
                if (k == 0)
                        break;
                n += (uint64_t) k;
                /* A file that grows while it is read is held to the cap too. */
                if (n > max)
                        return -EFBIG;
                sha256_update(&ctx, (size_t) k, buf);
                r = write_all(dst, buf, (size_t) k);
                if (r < 0)
                        return r;
        }
        *ret_size = n;
        digest_hex(&ctx, ret_sha);
        return 0;
}

/* dest, or dest/name when dest is a directory of the home: the path the file is written to (new). */
static int put_path(int home, const char *dest, const char *name, char **ret) {
        int r = dest && *dest ? beneath_is_dir(home, dest) : 1;

        if (r < 0)
                return r;
        if (r == 0) {
                *ret = strdup(dest);
                return *ret ? 0 : -ENOMEM;
        }
        if (!name || !*name || strchr(name, '/') || streq(name, ".") || streq(name, ".."))
                return -EISDIR;
        *ret = dest && *dest ? strdup_printf("%s%s%s", dest, dest[strlen(dest) - 1] == '/' ? "" : "/", name)
                             : strdup(name);
        return *ret ? 0 : -ENOMEM;
}

static int commit_gated(struct beneath_file *f, const struct files_gate *gate) {
        if (gate && !gate->still(gate->userdata))
                return -ESTALE;
        return beneath_commit(f);
}

int files_put_fd(int home, const char *dest, const char *name, int src_fd, uint64_t max, bool replace,
                 const struct files_gate *gate, struct files_transfer *ret) {
        _cleanup_free_ char *path = NULL;
        struct files_transfer t = {};
        struct beneath_file f;
        int r;

        r = put_path(home, dest, name, &path);
        if (r < 0)
                return r;
        r = beneath_create(home, path, replace, 0600, &f);
        if (r < 0)
                return r;
        r = copy_hashed(src_fd, f.fd, max, &t.size, t.sha256);
        if (r >= 0)
                r = commit_gated(&f, gate);
        beneath_file_done(&f);
        if (r < 0)
                return r;
        t.path = TAKE_PTR(path);
        *ret = t;
        return 0;
}

int files_put_data(int home, const char *dest, const void *data, size_t size, bool replace,
                   const struct files_gate *gate, struct files_transfer *ret) {
        struct files_transfer t = { .size = size };
        struct beneath_file f;
        struct sha256_ctx ctx;
        int r;

        t.path = strdup(dest);
        if (!t.path)
                return -ENOMEM;
        r = beneath_create(home, dest, replace, 0600, &f);
        if (r >= 0) {
                r = write_all(f.fd, data, size);
                if (r >= 0)
                        r = commit_gated(&f, gate);
                beneath_file_done(&f);
        }
        if (r < 0) {
                files_transfer_done(&t);
                return r;
        }
        sha256_init(&ctx);
        sha256_update(&ctx, size, data);
        digest_hex(&ctx, t.sha256);
        *ret = t;
        return 0;
}

int files_get_fd(int home, const char *src, uint64_t max, int dst_fd, struct files_transfer *ret) {
        _cleanup_close_ int fd = -EBADF;
        struct files_transfer t = {};
        uint64_t size;
        int r;

        fd = beneath_open_read(home, src, max, &size);
        if (fd < 0)
                return fd;
        r = copy_hashed(fd, dst_fd, max, &t.size, t.sha256);
        if (r < 0)
                return r;
        t.path = strdup(src);
        if (!t.path)
                return -ENOMEM;
        *ret = t;
        return 0;
}

int files_get_data(int home, const char *src, uint64_t max, uint8_t **ret_data, struct files_transfer *ret) {
        _cleanup_close_ int fd = -EBADF;
        _cleanup_free_ char *data = NULL;
        struct files_transfer t = {};
        struct sha256_ctx ctx;
        uint64_t size;
        size_t n;
        int r;

        fd = beneath_open_read(home, src, max, &size);
        if (fd < 0)
                return fd;
        r = read_full_fd(fd, &data, &n, (size_t) max);
        if (r < 0)
                return r;
        sha256_init(&ctx);
        sha256_update(&ctx, n, (const uint8_t *) data);
        digest_hex(&ctx, t.sha256);
        t.size = n;
        t.path = strdup(src);
        if (!t.path)
                return -ENOMEM;
        *ret_data = (uint8_t *) TAKE_PTR(data);
        *ret = t;
        return 0;
}

static const char *type_name(mode_t m) {
        if (S_ISREG(m))
                return "file";
        if (S_ISDIR(m))
                return "directory";
        if (S_ISLNK(m))
                return "symlink";
        return "other";
}

/* A point in time as RFC 3339, UTC, to the millisecond. */
static void time_text(const struct timespec *ts, char ret[static FILES_TIME_MAX]) {
        char date[24] = "";
        struct tm tm;
        time_t s = ts->tv_sec;

        if (gmtime_r(&s, &tm))
                (void) strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%S", &tm);
        snprintf(ret, FILES_TIME_MAX, "%s.%03dZ", date, (int) (ts->tv_nsec / 1000000));
}

struct entry {
        char *name;
        struct stat st;
};

static int entry_cmp_name(const void *a, const void *b) {
        return strcmp(((const struct entry *) a)->name, ((const struct entry *) b)->name);
}

static int entry_cmp_ctime(const void *a, const void *b) {
        const struct stat *x = &((const struct entry *) a)->st, *y = &((const struct entry *) b)->st;

        if (x->st_ctim.tv_sec != y->st_ctim.tv_sec)
                return x->st_ctim.tv_sec < y->st_ctim.tv_sec ? -1 : 1;
        if (x->st_ctim.tv_nsec != y->st_ctim.tv_nsec)
                return x->st_ctim.tv_nsec < y->st_ctim.tv_nsec ? -1 : 1;
        return entry_cmp_name(a, b);
}

static void entries_free(struct entry *e, size_t n) {
        for (size_t i = 0; i < n; i++)
                free(e[i].name);
        free(e);
}

/* The entries of dirfd (but . and ..), each with its lstat. */
static int entries_read(int dirfd, struct entry **ret, size_t *ret_n) {
        _cleanup_(closedirp) DIR *d = NULL;
        struct entry *e = NULL;
        size_t n = 0;
        int r;

        r = dir_open_at(dirfd, ".", &d);
        if (r < 0)
                return r;
        for (struct dirent *de; (errno = 0, de = readdir(d));) {
                struct entry *grown;

                if (streq(de->d_name, ".") || streq(de->d_name, ".."))
                        continue;
                grown = reallocarray(e, n + 1, sizeof *e);
                if (!grown) {
                        entries_free(e, n);
                        return -ENOMEM;
                }
                e = grown;
                e[n] = (struct entry) { .name = strdup(de->d_name) };
                if (!e[n].name) {
                        entries_free(e, n);
                        return -ENOMEM;
                }
                /* Gone since the listing: left out. */
                if (fstatat(dirfd, de->d_name, &e[n].st, AT_SYMLINK_NOFOLLOW) < 0) {
                        free(e[n].name);
                        continue;
                }
                n++;
        }
        if (errno != 0) {
                r = negative_errno();
                entries_free(e, n);
                return r;
        }
        *ret = e;
        *ret_n = n;
        return 0;
}

int files_list(int home, const char *dir, struct files_entry **ret, size_t *ret_n) {
        _cleanup_close_ int fd = -EBADF;
        struct files_entry *out;
        struct entry *e = NULL;
        size_t n = 0;
        int r;

        fd = beneath_open_dir(home, dir && *dir ? dir : ".");
        if (fd < 0)
                return fd;
        r = entries_read(fd, &e, &n);
        if (r < 0)
                return r;
        /* An empty directory has no array to sort (qsort must not get NULL). */
        if (n > 0)
                qsort(e, n, sizeof *e, entry_cmp_name);
        out = calloc(n ?: 1, sizeof *out);
        if (!out) {
                entries_free(e, n);
                return -ENOMEM;
        }
        for (size_t i = 0; i < n; i++) {
                out[i] = (struct files_entry) {
                        .name = TAKE_PTR(e[i].name),
                        .type = type_name(e[i].st.st_mode),
                        .size = (uint64_t) e[i].st.st_size,
                };
                time_text(&e[i].st.st_mtim, out[i].mtime);
        }
        entries_free(e, n);
        *ret = out;
        *ret_n = n;
        return 0;
}

void files_entries_free(struct files_entry *e, size_t n) {
        for (size_t i = 0; e && i < n; i++)
                free(e[i].name);
        free(e);
}

void files_list_write(struct json *j, const char *dir, const struct files_entry *e, size_t n) {
        json_object_begin(j);
        json_kv_string(j, "path", dir && *dir ? dir : ".");
        json_key(j, "entries");
        json_array_begin(j);
        for (size_t i = 0; i < n; i++) {
                json_object_begin(j);
                json_kv_string(j, "name", e[i].name);
                json_kv_string(j, "type", e[i].type);
                json_kv_int(j, "size", (long long) e[i].size);
                json_kv_string(j, "mtime", e[i].mtime);
                json_object_end(j);
        }
        json_array_end(j);
        json_object_end(j);
}

int files_remove(int home, const char *path) {
        return beneath_remove(home, path);
}

int files_cursor_parse(const char *s, struct timespec *ret) {
        _cleanup_free_ char *sec = NULL;
        unsigned long long v, frac = 0;
        const char *dot = strchr(s, '.');
        int r;

        sec = dot ? strndup(s, (size_t) (dot - s)) : strdup(s);
        if (!sec)
                return -ENOMEM;
        r = parse_uint(sec, (unsigned long long) INT64_MAX / 2, &v);
        if (r < 0)
                return r;
        if (dot) {
                size_t digits = strlen(dot + 1);

                if (digits == 0 || digits > 9)
                        return -EINVAL;
                r = parse_uint(dot + 1, 999999999, &frac);
                if (r < 0)
                        return r;
                for (size_t i = digits; i < 9; i++)
                        frac *= 10;
        }
        *ret = (struct timespec) { .tv_sec = (time_t) v, .tv_nsec = (long) frac };
        return 0;
}

/* Whether a browser is still writing the file: its name says so (Chromium, Firefox, WebKit), or it is hidden. */
static bool download_partial(const char *name) {
        static const char *const partial[] = { ".crdownload", ".part", ".download" };
        size_t n = strlen(name);

        if (name[0] == '.')
                return true;
        for (size_t i = 0; i < ELEMENTSOF(partial); i++) {
                size_t k = strlen(partial[i]);
                if (n > k && streq(name + n - k, partial[i]))
                        return true;
        }
        return false;
}

static bool after(const struct timespec *a, const struct timespec *b) {
        return a->tv_sec > b->tv_sec || (a->tv_sec == b->tv_sec && a->tv_nsec > b->tv_nsec);
}

/* The finished downloads in dirfd that appeared after since (their ctime: a rename into place sets it), oldest first. */
static int downloads_scan(int dirfd, const struct timespec *since, struct entry **ret, size_t *ret_n) {
        struct entry *e = NULL;
        size_t n = 0, k = 0;
        bool writing = false;
        int r;

        r = entries_read(dirfd, &e, &n);
        if (r < 0)
                return r;
        for (size_t i = 0; i < n; i++)
                writing = writing || download_partial(e[i].name);
        /* Chromium and Firefox hold a download's final name with an empty file from the start and rename the
         * partial one over it at the end (Chromium's partial file may still be "Unconfirmed N.crdownload"
         * then): while a browser writes, an empty file is no finished download. */
        for (size_t i = 0; i < n; i++) {
                if (S_ISREG(e[i].st.st_mode) && !download_partial(e[i].name) && after(&e[i].st.st_ctim, since) &&
                    !(writing && e[i].st.st_size == 0))
                        e[k++] = e[i];
                else
                        free(e[i].name);
        }
        if (k > 0)
                qsort(e, k, sizeof *e, entry_cmp_ctime);
        *ret = e;
        *ret_n = k;
        return 0;
}

/* The Downloads folder of the home, made (0700) when the desktop has not yet. */
static int downloads_open(int home) {
        if (mkdirat(home, FILES_DOWNLOADS_DIR, 0700) < 0 && errno != EEXIST)
                return negative_errno();
        return beneath_open_dir(home, FILES_DOWNLOADS_DIR);
}

int files_downloads(int home, const struct timespec *since, unsigned wait_ms, struct json *j, unsigned *ret_count) {
        _cleanup_close_ int dirfd = -EBADF, ino = -EBADF;
        unsigned long long deadline = now_usec() + (unsigned long long) wait_ms * 1000;
        struct timespec cursor = *since;
        struct entry *e = NULL;
        size_t n = 0;
        int r;

        dirfd = downloads_open(home);
        if (dirfd < 0)
                return dirfd;
        if (wait_ms > 0) {
                /* Watching before the first look: a download that finishes between the two is seen by one. */
                ino = inotify_watching(dirfd, IN_MOVED_TO | IN_CLOSE_WRITE | IN_ATTRIB);
                if (ino < 0)
                        return ino;
        }
        for (;;) {
                unsigned long long now;
                char drain[4096];
                int left_ms;

                r = downloads_scan(dirfd, since, &e, &n);
                if (r < 0)
                        return r;
                if (n > 0 || ino < 0)
                        break;
                free(e);
                e = NULL;
                now = now_usec();
                if (now >= deadline)
                        break;
                left_ms = (int) ((deadline - now + 999) / 1000);
                r = poll(&(struct pollfd) { .fd = ino, .events = POLLIN }, 1, left_ms);
                if (r < 0 && errno != EINTR)
                        return negative_errno();
                while (read(ino, drain, sizeof drain) > 0)
                        ;
        }
        json_object_begin(j);
        json_key(j, "files");
        json_array_begin(j);
        for (size_t i = 0; i < n; i++) {
                _cleanup_free_ char *path = strdup_printf(FILES_DOWNLOADS_DIR "/%s", e[i].name);
                char when[FILES_TIME_MAX];

                time_text(&e[i].st.st_ctim, when);
                json_object_begin(j);
                json_kv_string(j, "name", e[i].name);
                json_kv_string(j, "path", path);
                json_kv_int(j, "size", (long long) e[i].st.st_size);
                json_kv_string(j, "time", when);
                json_object_end(j);
                if (after(&e[i].st.st_ctim, &cursor))
                        cursor = e[i].st.st_ctim;
        }
        json_array_end(j);
        {
                char text[48];

                snprintf(text, sizeof text, "%lld.%09ld", (long long) cursor.tv_sec, cursor.tv_nsec);
                json_kv_string(j, "cursor", text);
        }
        json_object_end(j);
        entries_free(e, n);
        *ret_count = (unsigned) n;
        return 0;
}

const char *files_mime_type(const char *name) {
        static const struct {
                const char *suffix, *type;
        } types[] = {
                { ".txt", "text/plain" },        { ".md", "text/markdown" },    { ".csv", "text/csv" },
                { ".html", "text/html" },        { ".htm", "text/html" },       { ".json", "application/json" },
                { ".xml", "application/xml" },   { ".pdf", "application/pdf" }, { ".png", "image/png" },
                { ".jpg", "image/jpeg" },        { ".jpeg", "image/jpeg" },     { ".gif", "image/gif" },
                { ".webp", "image/webp" },       { ".svg", "image/svg+xml" },   { ".zip", "application/zip" },
                { ".gz", "application/gzip" },   { ".tar", "application/x-tar" },
        };
        const char *dot = strrchr(name, '.');

        for (size_t i = 0; dot && i < ELEMENTSOF(types); i++)
                if (strcasecmp(dot, types[i].suffix) == 0)
                        return types[i].type;
        return "application/octet-stream";
}
