/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>

#include <nettle/sha2.h>

#include "envfile.h"
#include "json.h"
#include "lease.h"
#include "util.h"

/* Seven short lines at most; anything larger is not a lease we wrote. */
#define LEASE_FILE_MAX 2048

const char *lease_holder_to_string(enum lease_holder h) {
        return h == LEASE_AGENT ? "agent" : "human";
}

static bool text_valid(const char *s, size_t max) {
        size_t n = 0;

        for (const unsigned char *p = (const unsigned char *) s; *p; p++, n++)
                if (*p < 0x20 || *p == 0x7f)
                        return false;
        return n <= max;
}

bool lease_viewer_valid(const char *viewer) {
        return viewer && *viewer && text_valid(viewer, LEASE_VIEWER_MAX);
}

/* ---- SHA-256, only to name viewers without showing their ids ------------------------------- */

void lease_sha256(const void *data, size_t size, unsigned char ret[static 32]) {
        struct sha256_ctx ctx;

        sha256_init(&ctx);
        sha256_update(&ctx, size, data);
        sha256_digest(&ctx, SHA256_DIGEST_SIZE, ret);
}

void lease_viewer_hash(const char *viewer, char ret[static LEASE_HASH_LEN + 1]) {
        unsigned char d[32];

        lease_sha256(viewer, strlen(viewer), d);
        hex_encode(d, LEASE_HASH_LEN / 2, ret);
}

/* ---- the file ------------------------------------------------------------------------------ */

static bool digits(const char *s, size_t n, unsigned lo, unsigned hi) {
        unsigned v = 0;

        for (size_t i = 0; i < n; i++) {
                if (s[i] < '0' || s[i] > '9')
                        return false;
                v = v * 10 + (unsigned) (s[i] - '0');
        }
        return v >= lo && v <= hi;
}

/* Exactly YYYY-MM-DDTHH:MM:SSZ, the only form we write. */
static bool time_valid(const char *s) {
        return strlen(s) == LEASE_TIME_LEN && digits(s, 4, 1970, 9999) && s[4] == '-' &&
               digits(s + 5, 2, 1, 12) && s[7] == '-' && digits(s + 8, 2, 1, 31) && s[10] == 'T' &&
               digits(s + 11, 2, 0, 23) && s[13] == ':' && digits(s + 14, 2, 0, 59) && s[16] == ':' &&
               digits(s + 17, 2, 0, 60) && s[19] == 'Z';
}

static void time_now(char ret[static LEASE_TIME_LEN + 1]) {
        char t[UTC_TIME_MAX];

        utc_time_format(realtime_usec(), false, t);
        if (strlen(t) != LEASE_TIME_LEN)
                ret[0] = 0;
        else
                memcpy(ret, t, LEASE_TIME_LEN + 1);
}

static const char *const lease_keys[] = { "HOLDER", "VIEWER", "SINCE", "REASON", "EPOCH", "PENDING", "PENDING_REASON" };
#define LEASE_KEYS_BASE 5 /* the first five are always there, the last two only with a request */

static int lease_parse(const char *text, size_t size, struct lease *l) {
        _cleanup_strv_free_ char **env = NULL;
        const char *holder, *viewer, *since, *reason, *epoch, *pending = "", *pending_reason = "";
        size_t lines = 0;
        int r;

        /* Every line we write ends in '\n': a missing one is a torn file. */
        if (size == 0 || text[size - 1] != '\n')
                return -EBADMSG;
        for (size_t i = 0; i < size; i++)
                lines += text[i] == '\n';
        if (lines != LEASE_KEYS_BASE && lines != ELEMENTSOF(lease_keys))
                return -EBADMSG;
        r = envfile_parse(text, size, &env, NULL);
        if (r < 0)
                return r;
        /* As many distinct known keys as lines: no duplicate, comment, blank
         * line or unknown key got in. */
        if (strv_length(env) != lines)
                return -EBADMSG;
        for (size_t i = 0; i < lines; i++)
                if (!strv_env_get(env, lease_keys[i]))
                        return -EBADMSG;
        if (lines == ELEMENTSOF(lease_keys)) {
                pending = strv_env_get(env, "PENDING");
                pending_reason = strv_env_get(env, "PENDING_REASON");
                if (!lease_viewer_valid(pending) || !text_valid(pending_reason, LEASE_REASON_MAX))
                        return -EBADMSG;
        }

        holder = strv_env_get(env, "HOLDER");
        viewer = strv_env_get(env, "VIEWER");
        since = strv_env_get(env, "SINCE");
        reason = strv_env_get(env, "REASON");
        epoch = strv_env_get(env, "EPOCH");

        if (streq(holder, "agent")) {
                if (*viewer)
                        return -EBADMSG;
                l->holder = LEASE_AGENT;
        } else if (streq(holder, "human")) {
                if (!lease_viewer_valid(viewer))
                        return -EBADMSG;
                l->holder = LEASE_HUMAN;
        } else
                return -EBADMSG;
        if ((*since && !time_valid(since)) || !text_valid(reason, LEASE_REASON_MAX))
                return -EBADMSG;
        if (parse_uint(epoch, LEASE_EPOCH_MAX, &l->epoch) < 0)
                return -EBADMSG;

        /* Validated above to fit; a field that would not is a damaged file all the same. */
        if (strscpy(l->viewer, sizeof l->viewer, viewer) < 0 || strscpy(l->since, sizeof l->since, since) < 0 ||
            strscpy(l->reason, sizeof l->reason, reason) < 0 || strscpy(l->pending, sizeof l->pending, pending) < 0 ||
            strscpy(l->pending_reason, sizeof l->pending_reason, pending_reason) < 0)
                return -EBADMSG;
        return 0;
}

/* The epoch a damaged file still names, so that counting resumes above it. */
static unsigned long long salvage_epoch(const char *text, size_t size) {
        unsigned long long v = 0;

        for (size_t i = 0; i + 6 <= size; i++) {
                if ((i > 0 && text[i - 1] != '\n') || memcmp(text + i, "EPOCH=", 6) != 0)
                        continue;
                for (size_t k = i + 6; k < size && text[k] >= '0' && text[k] <= '9'; k++) {
                        if (v > (LEASE_EPOCH_MAX - 9) / 10)
                                return LEASE_EPOCH_MAX - 1;
                        v = v * 10 + (unsigned) (text[k] - '0');
                }
                return v;
        }
        return 0;
}

int lease_read_at(int dirfd, struct lease *ret) {
        char text[LEASE_FILE_MAX + 1];
        _cleanup_close_ int fd = -EBADF;
        size_t size = 0;
        struct stat st;
        ssize_t n;
        int r;

        *ret = (struct lease) { .holder = LEASE_AGENT };

        /* O_NONBLOCK: a FIFO planted under the name must not hang us. */
        fd = openat(dirfd, LEASE_FILE, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK);
        if (fd < 0) {
                if (errno == ENOENT)
                        return 0;
                r = negative_errno();
                goto closed;
        }
        if (fstat(fd, &st) < 0) {
                r = negative_errno();
                goto closed;
        }
        if (!S_ISREG(st.st_mode)) {
                r = -EBADMSG;
                goto closed;
        }
        n = read_small(fd, text, sizeof text);
        if (n < 0) {
                /* Too large: the buffer is full, and the epoch may still be read from it. */
                size = n == -EFBIG ? sizeof text : 0;
                r = (int) n;
                goto closed;
        }
        size = (size_t) n;
        r = lease_parse(text, size, ret);
        if (r >= 0)
                return 0;

closed:
        *ret = (struct lease) {
                .holder = LEASE_HUMAN,
                .epoch = r == -EFBIG || r == -EBADMSG ? salvage_epoch(text, size) : 0,
                .failed = r,
        };
        return r;
}

static int lease_write_at(int dirfd, const struct lease *l) {
        _cleanup_free_ char *text = NULL;

        /* Five lines without a request, so that the usual file stays the one older readers know. */
        if (l->pending[0])
                text = strdup_printf("HOLDER=%s\nVIEWER=%s\nSINCE=%s\nREASON=%s\nEPOCH=%llu\nPENDING=%s\nPENDING_REASON=%s\n",
                                     lease_holder_to_string(l->holder), l->viewer, l->since, l->reason, l->epoch,
                                     l->pending, l->pending_reason);
        else
                text = strdup_printf("HOLDER=%s\nVIEWER=%s\nSINCE=%s\nREASON=%s\nEPOCH=%llu\n",
                                     lease_holder_to_string(l->holder), l->viewer, l->since, l->reason, l->epoch);

        if (!text)
                return -ENOMEM;
        return write_file_atomic_at(dirfd, LEASE_FILE, text, strlen(text), 0600);
}

/* Held across read-decide-write, so that two changes never both count from the same epoch. */
static int lease_lock(int dirfd) {
        int fd, r;

        fd = openat(dirfd, LEASE_LOCK_FILE, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY, 0600);
        if (fd < 0)
                return negative_errno();
        while (flock(fd, LOCK_EX) < 0)
                if (errno != EINTR) {
                        r = negative_errno();
                        safe_close(fd);
                        return r;
                }
        return fd;
}

static int lease_change(int dirfd, const struct lease *cur, struct lease *next, struct lease *ret) {
        int r;

        if (cur->epoch >= LEASE_EPOCH_MAX)
                return -EOVERFLOW;
        next->epoch = cur->epoch + 1;
        time_now(next->since);
        r = lease_write_at(dirfd, next);
        if (r < 0)
                return r;
        if (ret)
                *ret = *next;
        return 1;
}

/* What every change does first: refuse a reason that could not be written, take the lock (held
 * across read-decide-write), and read the lease as it stands into *cur. Returns the lock's fd. */
static int lease_change_begin(int dirfd, const char *reason, struct lease *cur, int *ret_read) {
        int lock, r;

        if (reason && !text_valid(reason, LEASE_REASON_MAX))
                return -EINVAL;
        lock = lease_lock(dirfd);
        if (lock < 0)
                return lock;
        r = lease_read_at(dirfd, cur);
        if (ret_read)
                *ret_read = r;
        return lock;
}

int lease_take_at(int dirfd, const char *viewer, const char *reason, struct lease *ret) {
        _cleanup_close_ int lock = -EBADF;
        struct lease cur, next = { .holder = LEASE_HUMAN };

        if (!lease_viewer_valid(viewer))
                return -EINVAL;
        lock = lease_change_begin(dirfd, reason, &cur, NULL);
        if (lock < 0)
                return lock;
        if (!cur.failed && cur.holder == LEASE_HUMAN && streq(cur.viewer, viewer)) {
                if (ret)
                        *ret = cur;
                return 0;
        }
        /* Both validated to fit above. */
        if (strscpy(next.viewer, sizeof next.viewer, viewer) < 0 ||
            strscpy(next.reason, sizeof next.reason, reason ?: "") < 0)
                return -EINVAL;
        return lease_change(dirfd, &cur, &next, ret);
}

int lease_release_at(int dirfd, const char *viewer, struct lease *ret) {
        _cleanup_close_ int lock = -EBADF;
        struct lease cur, next = { .holder = LEASE_AGENT };

        if (!lease_viewer_valid(viewer))
                return -EINVAL;
        lock = lease_change_begin(dirfd, NULL, &cur, NULL);
        if (lock < 0)
                return lock;
        if (!lease_allows_input(&cur, viewer)) {
                if (ret)
                        *ret = cur;
                return 0;
        }
        return lease_change(dirfd, &cur, &next, ret);
}

int lease_release_epoch_at(int dirfd, const char *viewer, unsigned long long epoch, const char *reason,
                           struct lease *ret) {
        _cleanup_close_ int lock = -EBADF;
        struct lease cur, next = { .holder = LEASE_AGENT };

        if (!lease_viewer_valid(viewer))
                return -EINVAL;
        lock = lease_change_begin(dirfd, reason, &cur, NULL);
        if (lock < 0)
                return lock;
        if (!lease_allows_input(&cur, viewer) || cur.epoch != epoch) {
                if (ret)
                        *ret = cur;
                return 0;
        }
        if (strscpy(next.reason, sizeof next.reason, reason ?: "") < 0)
                return -EINVAL;
        return lease_change(dirfd, &cur, &next, ret);
}

int lease_request_at(int dirfd, const char *viewer, const char *reason, struct lease *ret) {
        _cleanup_close_ int lock = -EBADF;
        struct lease cur;
        int r;

        if (!lease_viewer_valid(viewer))
                return -EINVAL;
        lock = lease_change_begin(dirfd, reason, &cur, &r);
        if (lock < 0)
                return lock;
        if (ret)
                *ret = cur;
        if (r < 0)
                return r;
        if ((cur.holder == LEASE_HUMAN && streq(cur.viewer, viewer)) ||
            (streq(cur.pending, viewer) && streq(cur.pending_reason, reason ?: "")))
                return 0;
        if (strscpy(cur.pending, sizeof cur.pending, viewer) < 0 ||
            strscpy(cur.pending_reason, sizeof cur.pending_reason, reason ?: "") < 0)
                return -EINVAL;
        r = lease_write_at(dirfd, &cur);
        if (r < 0)
                return r;
        if (ret)
                *ret = cur;
        return 1;
}

int lease_withdraw_at(int dirfd, const char *viewer, struct lease *ret) {
        _cleanup_close_ int lock = -EBADF;
        struct lease cur;
        int r;

        if (!lease_viewer_valid(viewer))
                return -EINVAL;
        lock = lease_change_begin(dirfd, NULL, &cur, &r);
        if (lock < 0)
                return lock;
        if (ret)
                *ret = cur;
        if (r < 0)
                return r;
        if (!streq(cur.pending, viewer))
                return 0;
        cur.pending[0] = cur.pending_reason[0] = 0;
        r = lease_write_at(dirfd, &cur);
        if (r < 0)
                return r;
        if (ret)
                *ret = cur;
        return 1;
}

int lease_end_at(int dirfd, const char *reason, struct lease *ret) {
        _cleanup_close_ int lock = -EBADF;
        struct lease cur, next = { .holder = LEASE_AGENT };

        lock = lease_change_begin(dirfd, reason, &cur, NULL);
        if (lock < 0)
                return lock;
        if (!cur.failed && cur.holder == LEASE_AGENT) {
                if (ret)
                        *ret = cur;
                return 0;
        }
        if (strscpy(next.reason, sizeof next.reason, reason ?: "") < 0)
                return -EINVAL;
        return lease_change(dirfd, &cur, &next, ret);
}

bool lease_action_valid(const struct lease *admitted, const struct lease *now) {
        return admitted->holder == LEASE_AGENT && !admitted->failed && now->holder == LEASE_AGENT && !now->failed &&
               now->epoch == admitted->epoch;
}

bool lease_allows_input(const struct lease *l, const char *viewer) {
        return l->holder == LEASE_HUMAN && !l->failed && l->viewer[0] && viewer && streq(l->viewer, viewer);
}

void lease_json(struct json *j, const struct lease *l) {
        char hash[LEASE_HASH_LEN + 1];

        json_object_begin(j);
        json_kv_string(j, "holder", lease_holder_to_string(l->holder));
        if (l->viewer[0]) {
                lease_viewer_hash(l->viewer, hash);
                json_kv_string(j, "viewer_hash", hash);
        } else
                json_kv_null(j, "viewer_hash");
        json_kv_string(j, "since", l->since[0] ? l->since : NULL);
        json_kv_int(j, "epoch", (long long) l->epoch);
        json_kv_string(j, "reason", l->reason[0] ? l->reason : NULL);
        json_key(j, "pending");
        if (l->pending[0]) {
                lease_viewer_hash(l->pending, hash);
                json_object_begin(j);
                json_kv_string(j, "viewer_hash", hash);
                json_kv_string(j, "reason", l->pending_reason[0] ? l->pending_reason : NULL);
                json_object_end(j);
        } else
                json_null(j);
        json_object_end(j);
}

int lease_from_json(const struct json_value *o, struct lease *ret, char ret_hash[]) {
        const char *holder = json_member_string(o, "holder"), *reason = json_member_string(o, "reason"),
                   *since = json_member_string(o, "since"), *vh = json_member_string(o, "viewer_hash") ?: "";
        long long epoch;

        if (!holder || !json_member_int(o, "epoch", 0, LLONG_MAX, &epoch) ||
            (!streq(holder, "agent") && !streq(holder, "human")) || strlen(vh) > LEASE_HASH_LEN)
                return -EBADMSG;
        *ret = (struct lease) {
                .holder = streq(holder, "human") ? LEASE_HUMAN : LEASE_AGENT,
                .epoch = (unsigned long long) epoch,
        };
        (void) strscpy(ret->reason, sizeof ret->reason, reason ?: "");
        (void) strscpy(ret->since, sizeof ret->since, since ?: "");
        if (ret_hash)
                (void) strscpy(ret_hash, LEASE_HASH_LEN + 1, ret->holder == LEASE_HUMAN ? vh : "");
        return 0;
}
