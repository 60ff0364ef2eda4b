/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <fcntl.h>
#include <limits.h>
#include <unistd.h>

#include "envfile.h"
#include "lease-deadline.h"
#include "util.h"

#define DEADLINE_FILE_MAX 1024

static int deadline_parse(const char *text, size_t size, struct lease_deadline *d) {
        _cleanup_strv_free_ char **env = NULL;
        const char *viewer, *epoch, *deadline, *reason;
        int r;

        if (size == 0 || text[size - 1] != '\n')
                return -EBADMSG;
        r = envfile_parse(text, size, &env, NULL);
        if (r < 0)
                return -EBADMSG;
        viewer = strv_env_get(env, "VIEWER");
        epoch = strv_env_get(env, "EPOCH");
        deadline = strv_env_get(env, "DEADLINE");
        reason = strv_env_get(env, "REASON");
        if (strv_length(env) != 4 || !lease_viewer_valid(viewer) || !epoch || !deadline || !reason ||
            strlen(reason) > LEASE_REASON_MAX || parse_uint(epoch, ULLONG_MAX, &d->epoch) < 0 ||
            parse_uint(deadline, ULLONG_MAX, &d->deadline) < 0)
                return -EBADMSG;
        for (const char *p = reason; *p; p++)
                if ((unsigned char) *p < 0x20 || *p == 0x7f)
                        return -EBADMSG;
        /* Both checked above to fit. */
        if (strscpy(d->viewer, sizeof d->viewer, viewer) < 0 || strscpy(d->reason, sizeof d->reason, reason) < 0)
                return -EBADMSG;
        return 0;
}

int lease_deadline_set_at(int dirfd, const struct lease_deadline *d) {
        _cleanup_free_ char *text = NULL;

        if (!lease_viewer_valid(d->viewer))
                return -EINVAL;
        text = strdup_printf("VIEWER=%s\nEPOCH=%llu\nDEADLINE=%llu\nREASON=%s\n", d->viewer, d->epoch, d->deadline,
                             d->reason);
        if (!text)
                return -ENOMEM;
        return write_file_atomic_at(dirfd, LEASE_DEADLINE_FILE, text, strlen(text), 0600);
}

int lease_deadline_read_at(int dirfd, struct lease_deadline *ret) {
        _cleanup_free_ char *text = NULL;
        size_t size = 0;
        int r;

        *ret = (struct lease_deadline) {};
        r = read_full_file_at(dirfd, LEASE_DEADLINE_FILE, &text, &size, DEADLINE_FILE_MAX);
        if (r < 0)
                return r == -EFBIG ? -EBADMSG : r;
        return deadline_parse(text, size, ret);
}

int lease_deadline_clear_at(int dirfd, const char *viewer) {
        struct lease_deadline d;
        int r;

        r = lease_deadline_read_at(dirfd, &d);
        if (r == -ENOENT)
                return 0;
        if (r >= 0 && !streq(d.viewer, viewer))
                return 0;
        /* A damaged record is nobody's: it goes too. */
        if (unlinkat(dirfd, LEASE_DEADLINE_FILE, 0) < 0)
                return errno == ENOENT ? 0 : negative_errno();
        return 1;
}

int lease_deadline_expire_at(int dirfd, unsigned long long now, unsigned long long *ret_next) {
        struct lease_deadline d;
        struct lease l;
        int r;

        *ret_next = 0;
        r = lease_deadline_read_at(dirfd, &d);
        if (r == -ENOENT)
                return 0;
        if (r >= 0) {
                (void) lease_read_at(dirfd, &l);
                /* Still the orphaned hold, and not yet due: wait on. */
                if (lease_allows_input(&l, d.viewer) && l.epoch == d.epoch && d.deadline > now) {
                        *ret_next = d.deadline;
                        return 0;
                }
                r = lease_release_epoch_at(dirfd, d.viewer, d.epoch, d.reason[0] ? d.reason : NULL, NULL);
        } else
                r = 0;
        /* Due, stale or damaged: the record has done its part. Only the
         * record read above goes: one a viewer wrote since is another's. */
        {
                struct lease_deadline again;
                if (lease_deadline_read_at(dirfd, &again) != 0 ||
                    (streq(again.viewer, d.viewer) && again.epoch == d.epoch && again.deadline == d.deadline))
                        (void) unlinkat(dirfd, LEASE_DEADLINE_FILE, 0);
        }
        return r;
}
