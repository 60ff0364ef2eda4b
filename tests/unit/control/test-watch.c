/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "tap.h"

#include <fcntl.h>
#include <ftw.h>
#include <sys/stat.h>

#include "lease.h"
#include "util.h"
#include "watch.h"

static char tmpdir[] = "/tmp/botdesk-test-watch.XXXXXX";

static int rm_entry(const char *path, _unused_ const struct stat *st, _unused_ int flag, _unused_ struct FTW *ftw) {
        return remove(path);
}

static char *json_of(const char *event, const struct watch_state *s) {
        char *buf = NULL;
        size_t size = 0;
        FILE *f = open_memstream(&buf, &size);
        struct json j;

        if (!f)
                abort();
        json_init(&j, f);
        watch_json(&j, "work", event, "2026-12-01T10:00:00.000Z", s);
        fclose(f);
        return buf;
}

static void test_encoding(void) {
        struct watch_state s = { .status = WATCH_READY, .display = 23, .idle_seconds = 12.5,
                                 .lease = { .holder = LEASE_AGENT, .epoch = 3 } };
        char *t;

        t = json_of("state", &s);
        TAP_EQ_STR(t,
                   "{\"profile\": \"work\", \"event\": \"state\", \"time\": \"2026-12-01T10:00:00.000Z\", \"status\": \"ready\", "
                   "\"reason\": null, \"display\": \":23\", \"lease\": {\"holder\": \"agent\", \"viewer_hash\": null, "
                   "\"since\": null, \"epoch\": 3, \"reason\": null, \"pending\": null}, \"idle_seconds\": 12.5}",
                   "a ready desktop's state line has every key");
        free(t);

        s = (struct watch_state) { .status = WATCH_FAILED, .display = -1, .idle_seconds = -1,
                                   .lease = { .holder = LEASE_HUMAN, .epoch = 4 } };
        strcpy(s.reason, "X server \"Xvnc\" exited");
        strcpy(s.lease.viewer, "alice");
        t = json_of("status", &s);
        tap_ok(t && strstr(t, "\"status\": \"failed\", \"reason\": \"X server \\\"Xvnc\\\" exited\", \"display\": null") &&
               strstr(t, "\"idle_seconds\": null") && strstr(t, "\"holder\": \"human\"") && !strstr(t, "alice"),
               "a failure carries its reason (escaped), null display and idle time, and no raw viewer id");
        free(t);
}

static void test_start_unseen(void) {
        struct watch_state none = { .status = WATCH_STOPPED, .display = -1 }, cur = { .status = WATCH_READY, .display = 20 };

        tap_ok(watch_start_unseen(&none, &cur), "stopped, then ready: the start went unseen");
        none.status = WATCH_FAILED;
        tap_ok(watch_start_unseen(&none, &cur), "failed, then ready: likewise");
        cur.status = WATCH_STOPPING;
        tap_ok(watch_start_unseen(&none, &cur), "failed, then already stopping: likewise");
        none.status = WATCH_STARTED;
        cur.status = WATCH_READY;
        tap_ok(!watch_start_unseen(&none, &cur), "started, then ready: the start was seen");
        none.status = WATCH_STOPPED;
        cur.status = WATCH_STARTED;
        tap_ok(!watch_start_unseen(&none, &cur), "stopped, then started: nothing unseen");
        cur.status = WATCH_FAILED;
        tap_ok(!watch_start_unseen(&none, &cur), "stopped, then failed: nothing unseen");
}

static void test_diff(void) {
        struct watch_state a = { .status = WATCH_READY, .display = 20, .lease = { .holder = LEASE_AGENT, .epoch = 1 } },
                           b = a;

        b.idle_seconds = 99;
        TAP_EQ_INT(watch_diff(&a, &b), 0, "the idle time alone is no event");
        b = a;
        b.status = WATCH_STOPPING;
        TAP_EQ_INT(watch_diff(&a, &b), WATCH_CHANGED_STATUS, "a change of status is a status event");
        b = a;
        b.lease.holder = LEASE_HUMAN;
        b.lease.epoch = 2;
        TAP_EQ_INT(watch_diff(&a, &b), WATCH_CHANGED_LEASE, "a take is a lease event");
        b = a;
        strcpy(b.lease.pending, "v");
        TAP_EQ_INT(watch_diff(&a, &b), WATCH_CHANGED_LEASE, "a request (same epoch) is a lease event");
        b = a;
        b.lease.failed = -EBADMSG;
        TAP_EQ_INT(watch_diff(&a, &b), WATCH_CHANGED_LEASE, "a lease becoming unreadable is a lease event");
        b.status = WATCH_STOPPED;
        TAP_EQ_INT(watch_diff(&a, &b), WATCH_CHANGED_STATUS | WATCH_CHANGED_LEASE, "both at once are both events");
}

static void test_until(void) {
        struct watch_state s = { .status = WATCH_READY, .lease = { .holder = LEASE_AGENT } };

        TAP_EQ_INT(watch_until_from_string("ready"), WATCH_UNTIL_READY, "--until ready");
        TAP_EQ_INT(watch_until_from_string("started"), -EINVAL, "--until started is not a form");
        tap_ok(watch_until_reached(WATCH_UNTIL_READY, &s) && !watch_until_reached(WATCH_UNTIL_STOPPED, &s),
               "ready reaches --until ready, not --until stopped");
        s.status = WATCH_FAILED;
        tap_ok(watch_until_reached(WATCH_UNTIL_STOPPED, &s), "a failed desktop reaches --until stopped");
        tap_ok(watch_until_reached(WATCH_UNTIL_AGENT, &s), "the agent's lease reaches --until agent");
        s.lease.failed = -EIO;
        tap_ok(!watch_until_reached(WATCH_UNTIL_AGENT, &s), "an unreadable lease does not reach --until agent");
        tap_ok(!watch_until_reached(WATCH_UNTIL_NONE, &s), "without --until nothing ends the watch");
}

static void test_snapshot(void) {
        struct watch_state s;
        int fd = open(tmpdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

        if (fd < 0)
                abort();
        watch_snapshot_at(fd, NULL, &s);
        tap_ok(s.status == WATCH_STOPPED && s.display == -1 && s.lease.holder == LEASE_AGENT && !s.reason[0],
               "an empty runtime dir is a stopped desktop under the agent's lease");
        if (write_file_atomic_at(fd, "last-error", "session command exited with status 127\n", 39, 0600) < 0)
                abort();
        watch_snapshot_at(fd, NULL, &s);
        tap_ok(s.status == WATCH_FAILED && streq(s.reason, "session command exited with status 127"),
               "a last-error is a failed desktop with its reason");
        (void) unlinkat(fd, "last-error", 0);
        if (write_file_atomic_at(fd, "helper", "PID=999999\nSTARTTIME=1\n", 22, 0600) < 0)
                abort();
        watch_snapshot_at(fd, NULL, &s);
        tap_ok(s.status == WATCH_FAILED && strstr(s.reason, "gone without stopping"),
               "a helper record without its helper is a failure (the helper was killed)");
        (void) unlinkat(fd, "helper", 0);
        if (lease_take_at(fd, "v1", NULL, NULL) < 0)
                abort();
        watch_snapshot_at(fd, NULL, &s);
        tap_ok(s.lease.holder == LEASE_HUMAN && s.lease.epoch == 1, "the lease file is part of the state");
        close(fd);
}

int main(void) {
        if (!mkdtemp(tmpdir))
                abort();
        test_encoding();
        test_diff();
        test_start_unseen();
        test_until();
        test_snapshot();
        (void) nftw(tmpdir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
        return tap_done();
}
