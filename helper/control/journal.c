/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "journal.h"
#include "journal-trim.h"
#include "profile.h"
#include "util.h"

/* Check the opened dir: ours, a directory, exactly 0700. */
static int dir_check_private(int fd) {
        struct stat st;

        if (fstat(fd, &st) < 0)
                return negative_errno();
        if (!S_ISDIR(st.st_mode) || st.st_uid != getuid() || (st.st_mode & 07777) != 0700)
                return -EPERM;
        return 0;
}

/* Opened first, made only when missing: every action opens the journal, and it is nearly always there. */
static int subdir_open(int parent, const char *name, bool create) {
        _cleanup_close_ int fd = -EBADF;
        int r;

        fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0 && errno == ENOENT && create) {
                if (mkdirat(parent, name, 0700) < 0 && errno != EEXIST)
                        return negative_errno();
                fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        }
        if (fd < 0)
                return errno == ENOTDIR || errno == ELOOP ? -EPERM : negative_errno();
        r = dir_check_private(fd);
        if (r < 0)
                return r;
        return TAKE_FD(fd);
}

int journal_open(const char *state_dir, unsigned flags, struct journal *ret) {
        bool create = flags & JOURNAL_OPEN_CREATE;
        _cleanup_close_ int sfd = -EBADF, fd = -EBADF;
        int r;

        *ret = (struct journal) { .fd = -EBADF, .frames_fd = -EBADF, .max_bytes = 200ull << 20, .frame_width = 640 };
        sfd = dir_open_verified_at(AT_FDCWD, state_dir, getuid());
        if (sfd == -ENOENT && create) {
                r = mkdir_parents(state_dir, 0700);
                if (r < 0)
                        return r;
                sfd = dir_open_verified_at(AT_FDCWD, state_dir, getuid());
        }
        if (sfd < 0)
                return sfd;
        fd = subdir_open(sfd, JOURNAL_DIR, create);
        if (fd < 0)
                return fd;
        r = subdir_open(fd, JOURNAL_FRAMES_DIR, true);
        if (r < 0)
                return r;
        ret->frames_fd = r;
        ret->fd = TAKE_FD(fd);
        /* A key that cannot be had leaves lengths alone. */
        if (flags & JOURNAL_OPEN_REDACT_KEY)
                (void) journal_redact_load(sfd, &ret->redact);
        return 0;
}

void journal_close(struct journal *j) {
        j->fd = safe_close(j->fd);
        j->frames_fd = safe_close(j->frames_fd);
        journal_redact_done(&j->redact);
}

/* ---- names ------------------------------------------------------------------------------------ */

static bool parse_seq_name(const char *name, const char *prefix, const char *suffix, unsigned long long *ret) {
        size_t pl = strlen(prefix), sl = strlen(suffix), n = strlen(name);
        char digits[JOURNAL_SEQ_DIGITS + 1];

        if (n != pl + JOURNAL_SEQ_DIGITS + sl || strncmp(name, prefix, pl) != 0 || !streq(name + n - sl, suffix))
                return false;
        memcpy(digits, name + pl, JOURNAL_SEQ_DIGITS);
        digits[JOURNAL_SEQ_DIGITS] = 0;
        return parse_uint(digits, 999999999999ull, ret) >= 0;
}

static void segment_name(unsigned long long first, char *buf, size_t size) {
        snprintf(buf, size, "seg-%012llu.jsonl", first);
}

void journal_frame_name(unsigned long long seq, bool before, char *buf, size_t size) {
        snprintf(buf, size, JOURNAL_FRAMES_DIR "/%012llu%s.jpg", seq, before ? "-before" : "");
}

bool journal_frame_name_valid(const char *name) {
        const char *rest = startswith(name, JOURNAL_FRAMES_DIR "/");
        size_t digits;

        if (!rest)
                return false;
        digits = strspn(rest, "0123456789");
        return digits == JOURNAL_SEQ_DIGITS && (streq(rest + digits, ".jpg") || streq(rest + digits, "-before.jpg"));
}

static int cmp_ull(const void *a, const void *b) {
        unsigned long long x = *(const unsigned long long *) a, y = *(const unsigned long long *) b;
        return x < y ? -1 : x > y;
}

/* The first seqs of the segments, sorted, into a new array. */
static int list_segments(int fd, unsigned long long **ret, size_t *ret_n) {
        _cleanup_closedir_ DIR *d = NULL;
        _cleanup_free_ unsigned long long *v = NULL;
        size_t n = 0, cap = 0;
        struct dirent *de;
        int r;

        r = dir_open_at(fd, ".", &d);
        if (r < 0)
                return r;
        while ((de = readdir(d))) {
                unsigned long long s;

                if (!parse_seq_name(de->d_name, "seg-", ".jsonl", &s))
                        continue;
                if (ARRAY_GROW(v, n, cap, 16) < 0)
                        return -ENOMEM;
                v[n++] = s;
        }
        if (n)
                qsort(v, n, sizeof *v, cmp_ull);
        *ret = TAKE_PTR(v);
        *ret_n = n;
        return 0;
}

static int read_at(int fd, const char *name, char **ret, size_t *ret_size) {
        return read_full_file_at(fd, name, ret, ret_size, 64u << 20);
}

/*
 * The last whole line of segment name (without its '\n', NUL-terminated, in
 * *ret_line, NULL when it has none), read from the end backwards a few KiB
 * at a time: appending costs a line's read, not a segment's. *ret_size is
 * the segment's size, *ret_torn whether bytes follow the last '\n'.
 */
#define TAIL_CHUNK 4096u
static int last_line_at(int dirfd, const char *name, char **ret_line, size_t *ret_size, bool *ret_torn) {
        _cleanup_close_ int fd = -EBADF;
        _cleanup_free_ char *buf = NULL;
        struct stat st;
        size_t have = 0, size, end = 0;
        bool found_end = false;

        *ret_line = NULL;
        fd = open_regular_at(dirfd, name, O_RDONLY, 0, &st);
        if (fd < 0)
                return fd;
        size = (size_t) st.st_size;
        *ret_size = size;
        *ret_torn = size > 0;
        /* buf holds the file's last `have` bytes; grows until the line's start is in it. */
        while (have < size) {
                size_t step = have > 0 ? have : TAIL_CHUNK, more = size - have < step ? size - have : step;
                char *nb, *nl;
                ssize_t n;

                if (have + more > JOURNAL_LINE_MAX + TAIL_CHUNK)
                        more = size - have;     /* a line past the cap: the whole rest, as a reader would */
                nb = malloc(have + more + 1);
                if (!nb)
                        return -ENOMEM;
                n = pread(fd, nb, more, (off_t) (size - have - more));
                if (n != (ssize_t) more) {
                        free(nb);
                        return n < 0 ? negative_errno() : -EIO;
                }
                if (have > 0)
                        memcpy(nb + more, buf, have);
                free(buf);
                buf = nb;
                have += more;
                buf[have] = 0;
                if (!found_end) {
                        nl = memrchr(buf, '\n', more);
                        if (!nl)
                                continue;
                        found_end = true;
                        end = (size_t) (nl - buf);              /* from the file's end: have - end */
                        *ret_torn = end + 1 < have;
                        end = size - (have - end);              /* offset of the '\n' in the file */
                }
                /* The '\n' before it, in the bytes read so far, or the file's start. */
                {
                        size_t rel = end - (size - have);       /* the end's index in buf */
                        char *start = rel > 0 ? memrchr(buf, '\n', rel) : NULL;

                        if (start || have == size) {
                                size_t from = start ? (size_t) (start - buf) + 1 : 0;
                                char *line = strndup(buf + from, rel - from);

                                if (!line)
                                        return -ENOMEM;
                                *ret_line = line;
                                return 0;
                        }
                }
        }
        return 0;
}

static int next_position(struct journal *j, unsigned long long *ret_seq, unsigned long long *ret_first,
                         long long *ret_last_epoch);

/* ---- stopping --------------------------------------------------------------------------------- */

bool journal_stopped(const char *state_dir, char *buf, size_t size) {
        _cleanup_close_ int sfd = -EBADF, fd = -EBADF;
        _cleanup_free_ char *s = NULL;
        size_t n = 0;

        sfd = dir_open_verified_at(AT_FDCWD, state_dir, getuid());
        if (sfd < 0)
                return false;
        fd = openat(sfd, JOURNAL_DIR, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0)
                return false;
        if (faccessat(fd, JOURNAL_STOPPED_FILE, F_OK, AT_SYMLINK_NOFOLLOW) < 0)
                return false;
        /* A full disk may have left it empty: that is what it means then. */
        if (read_at(fd, JOURNAL_STOPPED_FILE, &s, &n) < 0 || n == 0)
                snprintf(buf, size, "disk full");
        else
                snprintf(buf, size, "%.*s", (int) strcspn(s, "\n"), s);
        return true;
}

void journal_stop(struct journal *j, int r) {
        const char *why = r == -ENOSPC || r == -EDQUOT ? "disk full\n" : "write failed\n";
        _cleanup_close_ int fd = openat(j->fd, JOURNAL_STOPPED_FILE,
                                        O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);

        if (fd >= 0)
                (void) write_all(fd, why, strlen(why));
}

/* ---- size and cap ----------------------------------------------------------------------------- */

static int dir_bytes(int fd, unsigned long long *sum) {
        _cleanup_closedir_ DIR *d = NULL;
        struct dirent *de;
        int r;

        r = dir_open_at(fd, ".", &d);
        if (r < 0)
                return r;
        while ((de = readdir(d))) {
                struct stat st;

                if (fstatat(fd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISREG(st.st_mode))
                        continue;
                *sum += (unsigned long long) st.st_size;
        }
        return 0;
}

int journal_size(struct journal *j, unsigned long long *ret) {
        unsigned long long sum = 0;
        int r;

        r = dir_bytes(j->fd, &sum);
        if (r >= 0)
                r = dir_bytes(j->frames_fd, &sum);
        if (r < 0)
                return r;
        *ret = sum;
        return 0;
}

/* Frames of entries before seq go with their segment. */
static void drop_frames_before(struct journal *j, unsigned long long seq) {
        _cleanup_closedir_ DIR *d = NULL;
        struct dirent *de;

        if (dir_open_at(j->frames_fd, ".", &d) < 0)
                return;
        while ((de = readdir(d))) {
                unsigned long long s;

                if ((parse_seq_name(de->d_name, "", ".jpg", &s) || parse_seq_name(de->d_name, "", "-before.jpg", &s)) &&
                    s < seq)
                        (void) unlinkat(j->frames_fd, de->d_name, 0);
        }
}

/* Drop the oldest segments (never the one being written) while past the cap. */
static int enforce_cap(struct journal *j) {
        _cleanup_free_ unsigned long long *segs = NULL;
        unsigned long long size;
        size_t n, i;
        int r;

        r = journal_size(j, &size);
        if (r < 0)
                return r;
        if (size <= j->max_bytes)
                return 0;
        r = list_segments(j->fd, &segs, &n);
        if (r < 0)
                return r;
        for (i = 0; i + 1 < n && size > j->max_bytes; i++) {
                char name[64];

                segment_name(segs[i], name, sizeof name);
                (void) unlinkat(j->fd, name, 0);
                drop_frames_before(j, segs[i + 1]);
                r = journal_size(j, &size);
                if (r < 0)
                        return r;
        }
        return 0;
}

/* ---- append ----------------------------------------------------------------------------------- */

static int entry_line(const struct journal_entry *e, unsigned long long seq, char **ret, size_t *ret_size) {
        _cleanup_fclose_ FILE *f = NULL;
        _cleanup_free_ char *args = NULL, *message = NULL;
        char *buf = NULL, t[UTC_TIME_MAX];
        size_t size = 0;
        bool truncated = false;
        struct json j;
        int r = 0;

        if (e->args_json) {
                r = journal_trim_args(e->args_json, &args, &truncated);
                if (r < 0)
                        return r;
        }
        if (e->message && strlen(e->message) > JOURNAL_FIELD_MAX) {
                message = strndup(e->message, journal_trim_utf8(e->message, JOURNAL_FIELD_MAX));
                if (!message)
                        return -ENOMEM;
                truncated = true;
        }
        f = open_memstream(&buf, &size);
        if (!f)
                return -ENOMEM;
        utc_time_format(realtime_usec(), true, t);
        json_init(&j, f);
        json_object_begin(&j);
        json_kv_int(&j, "seq", (long long) seq);
        json_kv_string(&j, "time", t);
        json_kv_string(&j, "action", e->action);
        json_key(&j, "args");
        json_raw(&j, args ?: e->args_json ?: "{}");
        json_kv_string(&j, "holder", e->agent ? "agent" : "human");
        json_kv_int(&j, "epoch", (long long) e->epoch);
        json_kv_string(&j, "result", e->result);
        json_kv_string(&j, "message", message ?: e->message);
        json_kv_string(&j, "settle", e->settle);
        json_kv_opt_int(&j, "settle_ms", e->settle_ms, e->settle);
        if (e->frame) {
                char name[64];

                journal_frame_name(seq, false, name, sizeof name);
                json_kv_string(&j, "frame", name);
        } else
                json_kv_null(&j, "frame");
        if (truncated)
                json_kv_bool(&j, "truncated", true);
        if (e->extra_json)
                json_raw(&j, e->extra_json);    /* separated by the writer, as a member */
        json_object_end(&j);
        fputc('\n', f);
        if (fflush(f) != 0 || ferror(f))
                r = -ENOMEM;
        if (fclose(TAKE_PTR(f)) != 0)
                r = -ENOMEM;
        if (r < 0) {
                free(buf);
                return r;
        }
        *ret = buf;
        *ret_size = size;
        return 0;
}

/* The seq of a line (0 when it is not an entry) and its epoch (-1 when it has none). */
static unsigned long long line_seq(const char *line, long long *ret_epoch) {
        struct json_value *v = NULL;
        long long seq = 0;

        *ret_epoch = -1;
        if (json_parse(line, strlen(line), &v) < 0 || json_get_int(json_get(v, "seq"), 1, LLONG_MAX, &seq) < 0)
                seq = 0;
        else if (json_get_int(json_get(v, "epoch"), 0, LLONG_MAX, ret_epoch) < 0)
                *ret_epoch = -1;
        json_value_free(v);
        return (unsigned long long) seq;
}

/* Where the next entry goes: its seq, its segment's first seq, and the last entry's epoch (-1: none read). */
static int next_position(struct journal *j, unsigned long long *ret_seq, unsigned long long *ret_first,
                         long long *ret_last_epoch) {
        _cleanup_free_ unsigned long long *segs = NULL;
        _cleanup_free_ char *line = NULL;
        char name[64];
        size_t n, size = 0;
        bool torn = false, corrupt;
        unsigned long long last;
        int r;

        r = list_segments(j->fd, &segs, &n);
        if (r < 0)
                return r;
        *ret_last_epoch = -1;
        if (n == 0) {
                *ret_seq = *ret_first = 1;
                return 0;
        }
        segment_name(segs[n - 1], name, sizeof name);
        r = last_line_at(j->fd, name, &line, &size, &torn);
        if (r < 0)
                return r;
        last = line ? line_seq(line, ret_last_epoch) : 0;
        corrupt = line && last < segs[n - 1];
        if (corrupt) {
                /* Not an entry of this segment: counted, as the reader would. */
                _cleanup_free_ char *data = NULL;
                size_t lines = 0;

                r = read_at(j->fd, name, &data, &size);
                if (r < 0)
                        return r;
                for (size_t i = 0; i < size; i++)
                        lines += data[i] == '\n';
                last = segs[n - 1] + lines - 1;
        }
        *ret_seq = line ? last + 1 : segs[n - 1];
        /* A torn or corrupt last line is never appended to: the reader stops
         * at it, so what follows goes to a segment of its own. */
        if (size >= JOURNAL_SEGMENT_MAX || torn || corrupt)
                *ret_first = *ret_seq;
        else
                *ret_first = segs[n - 1];
        return 0;
}

int journal_append_after(struct journal *j, journal_prelude_fn prelude, void *userdata, const struct journal_entry *e,
                         unsigned long long *ret_seq) {
        _cleanup_close_ int lock = -EBADF, fd = -EBADF;
        _cleanup_free_ char *line = NULL, *first_line = NULL;
        struct journal_entry before;
        unsigned long long seq, first;
        long long last_epoch;
        char name[64];
        size_t len, first_len = 0;
        struct stat st;
        int r;

        lock = lock_file_at(j->fd, "lock", true);
        if (lock < 0)
                return lock;
        if (faccessat(j->fd, JOURNAL_STOPPED_FILE, F_OK, AT_SYMLINK_NOFOLLOW) >= 0)
                return -ESHUTDOWN;
        r = next_position(j, &seq, &first, &last_epoch);
        if (r < 0)
                return r;
        if (prelude && prelude(last_epoch, &before, userdata) > 0) {
                r = entry_line(&before, seq, &first_line, &first_len);
                if (r < 0)
                        return r;
                seq++;
        }
        r = entry_line(e, seq, &line, &len);
        if (r < 0)
                return r;
        segment_name(first, name, sizeof name);
        fd = open_regular_at(j->fd, name, O_WRONLY | O_APPEND | O_CREAT, 0600, &st);
        if (fd < 0)
                return fd;
        r = first_line ? write_all(fd, first_line, first_len) : 0;
        if (r >= 0)
                r = write_all(fd, line, len);
        if (r < 0) {
                /* No torn line left behind: what was written goes. */
                (void) ftruncate(fd, st.st_size);
                if (r == -ENOSPC || r == -EDQUOT)
                        journal_stop(j, r);
                return r;
        }
        if (ret_seq)
                *ret_seq = seq;
        /* The sum of every file is not free: at a new segment, and every 16th entry. */
        if (first == seq || seq % 16 == 0 || (first_line && (first == seq - 1 || (seq - 1) % 16 == 0)))
                (void) enforce_cap(j);
        return 0;
}

int journal_append(struct journal *j, const struct journal_entry *e, unsigned long long *ret_seq) {
        return journal_append_after(j, NULL, NULL, e, ret_seq);
}

int journal_next_seq(struct journal *j, unsigned long long *ret) {
        _cleanup_close_ int lock = lock_file_at(j->fd, "lock", true);
        unsigned long long first;
        long long last_epoch;

        if (lock < 0)
                return lock;
        return next_position(j, ret, &first, &last_epoch);
}

int journal_bounds(struct journal *j, unsigned long long *ret_first, unsigned long long *ret_next) {
        _cleanup_free_ unsigned long long *segs = NULL;
        unsigned long long first;
        long long last_epoch;
        size_t n;
        int r;

        r = list_segments(j->fd, &segs, &n);
        if (r < 0)
                return r;
        *ret_first = n > 0 ? segs[0] : 1;
        return next_position(j, ret_next, &first, &last_epoch);
}

int journal_write_frame(struct journal *j, unsigned long long seq, bool before, const void *data, size_t size) {
        char name[64];
        int r;

        snprintf(name, sizeof name, "%012llu%s.jpg", seq, before ? "-before" : "");
        r = write_file_atomic_at(j->frames_fd, name, data, size, 0600);
        if (r == -ENOSPC || r == -EDQUOT)
                journal_stop(j, r);
        return r;
}

/* ---- reading ---------------------------------------------------------------------------------- */

static int read_segment(int fd, unsigned long long first, unsigned long long since, journal_entry_fn fn,
                        void *userdata, unsigned long long *next, unsigned long long *bad) {
        _cleanup_free_ char *data = NULL;
        char name[64];
        size_t size = 0, pos = 0;
        unsigned long long seq = first;
        int r;

        segment_name(first, name, sizeof name);
        r = read_at(fd, name, &data, &size);
        if (r == -ENOENT)
                return 0;       /* dropped by the cap meanwhile */
        if (r < 0)
                return r;
        while (pos < size) {
                char *nl = memchr(data + pos, '\n', size - pos);
                struct json_value *v = NULL;
                size_t len;

                if (!nl)
                        break;
                len = (size_t) (nl - (data + pos));
                *nl = 0;
                if (json_parse(data + pos, len, &v) < 0 || v->type != JSON_OBJECT) {
                        json_value_free(v);
                        break;
                }
                json_value_free(v);
                if (seq >= since) {
                        r = fn(seq, data + pos, len, userdata);
                        if (r != 0)
                                return r;
                }
                pos += len + 1;
                seq++;
        }
        if (pos < size) {
                fprintf(stderr, "journal: %s: %zu bytes after entry %llu cannot be read (torn or corrupt), ignored.\n",
                        name, size - pos, seq);
                *bad += size - pos;
        }
        if (seq > *next)
                *next = seq;
        return 0;
}

int journal_read(struct journal *j, unsigned long long since_seq, journal_entry_fn fn, void *userdata,
                 unsigned long long *ret_next, unsigned long long *ret_bad_bytes) {
        _cleanup_free_ unsigned long long *segs = NULL;
        unsigned long long next = since_seq, bad = 0;
        size_t n;
        int r;

        r = list_segments(j->fd, &segs, &n);
        if (r < 0)
                return r;
        for (size_t i = 0; i < n; i++) {
                if (i + 1 < n && segs[i + 1] <= since_seq)
                        continue;
                r = read_segment(j->fd, segs[i], since_seq, fn, userdata, &next, &bad);
                if (r < 0)
                        return r;
                if (r > 0)
                        break;          /* the reader has what it wanted: the rest stays unread */
        }
        if (ret_next)
                *ret_next = next;
        if (ret_bad_bytes)
                *ret_bad_bytes = bad;
        return 0;
}
