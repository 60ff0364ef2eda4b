/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <fcntl.h>
#include <sys/stat.h>

#include "record.h"
#include "util.h"
#include "watch.h"

static const char *const status_names[] = {
        [WATCH_STARTED] = "started", [WATCH_READY] = "ready",   [WATCH_STOPPING] = "stopping",
        [WATCH_STOPPED] = "stopped", [WATCH_FAILED] = "failed",
};

const char *watch_status_to_string(enum watch_status s) {
        return status_names[s];
}

static const char *const until_names[] = {
        [WATCH_UNTIL_READY] = "ready",
        [WATCH_UNTIL_STOPPED] = "stopped",
        [WATCH_UNTIL_AGENT] = "agent",
};

int watch_until_from_string(const char *s) {
        for (size_t i = 0; i < ELEMENTSOF(until_names); i++)
                if (until_names[i] && streq(s, until_names[i]))
                        return (int) i;
        return -EINVAL;
}

const char *watch_until_name(enum watch_until u) {
        return (size_t) u < ELEMENTSOF(until_names) ? until_names[u] : NULL;
}

static bool file_exists_at(int dirfd, const char *name) {
        struct stat st;

        return fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode);
}

int watch_snapshot_at(int dirfd, const struct watch_state *prev, struct watch_state *ret) {
        _cleanup_(helper_record_done) struct helper_record rec = {};
        _cleanup_free_ char *why = NULL;
        bool have_record, alive;
        struct stat st;

        *ret = (struct watch_state) { .display = -1, .idle_seconds = -1 };
        (void) lease_read_at(dirfd, &ret->lease);

        have_record = helper_record_read_at(dirfd, &rec) >= 0;
        alive = have_record && helper_alive(dirfd, &rec) > 0;
        if (alive) {
                ret->helper_pid = rec.pid;
                ret->display = rec.display;
                if (file_exists_at(dirfd, "env"))
                        ret->status = WATCH_READY;
                else if (prev && (prev->status == WATCH_READY || prev->status == WATCH_STOPPING))
                        ret->status = WATCH_STOPPING;
                else
                        ret->status = WATCH_STARTED;
                if (fstatat(dirfd, "activity", &st, AT_SYMLINK_NOFOLLOW) == 0) {
                        double now = (double) realtime_usec() / 1e6,
                               then = (double) st.st_mtim.tv_sec + (double) st.st_mtim.tv_nsec / 1e9;
                        ret->idle_seconds = now > then ? now - then : 0;
                }
                return 0;
        }
        if (read_full_file_at(dirfd, "last-error", &why, NULL, WATCH_REASON_MAX - 1) >= 0) {
                why[strcspn(why, "\n")] = 0;
                ret->status = WATCH_FAILED;
                snprintf(ret->reason, sizeof ret->reason, "%s", why);
        } else if (have_record) {
                /* The helper tears down and removes its record; a record left means it was killed. */
                ret->status = WATCH_FAILED;
                snprintf(ret->reason, sizeof ret->reason, "the helper (pid %d) is gone without stopping the desktop",
                         (int) rec.pid);
        } else
                ret->status = WATCH_STOPPED;
        return 0;
}

unsigned watch_diff(const struct watch_state *prev, const struct watch_state *cur) {
        unsigned d = 0;
        const struct lease *a = &prev->lease, *b = &cur->lease;

        if (prev->status != cur->status || !streq(prev->reason, cur->reason) || prev->display != cur->display)
                d |= WATCH_CHANGED_STATUS;
        if (a->holder != b->holder || a->epoch != b->epoch || !streq(a->viewer, b->viewer) || !a->failed != !b->failed ||
            !streq(a->reason, b->reason) || !streq(a->pending, b->pending) || !streq(a->pending_reason, b->pending_reason))
                d |= WATCH_CHANGED_LEASE;
        return d;
}

bool watch_until_reached(enum watch_until u, const struct watch_state *cur) {
        switch (u) {
        case WATCH_UNTIL_READY:
                return cur->status == WATCH_READY;
        case WATCH_UNTIL_STOPPED:
                return cur->status == WATCH_STOPPED || cur->status == WATCH_FAILED;
        case WATCH_UNTIL_AGENT:
                return cur->lease.holder == LEASE_AGENT && !cur->lease.failed;
        case WATCH_UNTIL_NONE:
                break;
        }
        return false;
}

void watch_json(struct json *j, const char *profile, const char *event, const char *time,
                const struct watch_state *s) {
        char display[16];

        json_object_begin(j);
        json_kv_string(j, "profile", profile);
        json_kv_string(j, "event", event);
        json_kv_string(j, "time", time);
        json_kv_string(j, "status", watch_status_to_string(s->status));
        json_kv_string(j, "reason", s->reason[0] ? s->reason : NULL);
        if (s->display >= 0) {
                snprintf(display, sizeof display, ":%d", s->display);
                json_kv_string(j, "display", display);
        } else
                json_kv_null(j, "display");
        json_key(j, "lease");
        lease_json(j, &s->lease);
        json_kv_opt_double(j, "idle_seconds", s->idle_seconds, s->idle_seconds >= 0);
        json_object_end(j);
}

bool watch_start_unseen(const struct watch_state *prev, const struct watch_state *cur) {
        bool had_none = prev->status == WATCH_STOPPED || prev->status == WATCH_FAILED;

        return had_none && (cur->status == WATCH_READY || cur->status == WATCH_STOPPING);
}
