/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "tap.h"
#include "fixture.h"

#include <fcntl.h>
#include <limits.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lease.h"
#include "lease-settled.h"
#include "rfb-relay.h"
#include "util.h"

#define MAX_CUT 262144
#define MINUTE (60ULL * 1000000ULL)

static char tmpdir[PATH_MAX];
static int dirfd_ = -1;

static struct lease agent(void) {
        return (struct lease) { .holder = LEASE_AGENT, .epoch = 4 };
}

static struct lease human(const char *viewer) {
        struct lease l = { .holder = LEASE_HUMAN, .epoch = 5 };

        snprintf(l.viewer, sizeof l.viewer, "%s", viewer);
        return l;
}

/* What lease_read_at() gives for a damaged file: a human without a viewer. */
static struct lease damaged(void) {
        return (struct lease) { .holder = LEASE_HUMAN, .epoch = 6, .failed = -EBADMSG };
}

static void test_gate(void) {
        struct rfb_relay r;
        struct lease l;

        rfb_relay_init(&r, "work", "alice", dirfd_, MAX_CUT);
        tap_ok(!r.filter.allow_input, "a new relay drops input until a lease says otherwise");

        l = agent();
        TAP_EQ_INT(rfb_relay_lease(&r, &l), RFB_RELAY_WATCH, "the agent's lease: alice watches");
        tap_ok(!r.filter.allow_input, "and her input is dropped");
        l = human("alice");
        TAP_EQ_INT(rfb_relay_lease(&r, &l), RFB_RELAY_CONTROL, "alice's lease: alice controls");
        tap_ok(r.filter.allow_input, "and her input passes");
        l = human("bob");
        TAP_EQ_INT(rfb_relay_lease(&r, &l), RFB_RELAY_TAKEN, "bob's lease: taken from alice");
        tap_ok(!r.filter.allow_input, "and her input is dropped again");
        l = human("alice");
        (void) rfb_relay_lease(&r, &l);
        l = damaged();
        TAP_EQ_INT(rfb_relay_lease(&r, &l), RFB_RELAY_FAIL_CLOSED, "a damaged lease fails closed, no take");
        tap_ok(!r.filter.allow_input, "and even the last holder's input is dropped");
        l = human("alicex");
        TAP_EQ_INT(rfb_relay_lease(&r, &l), RFB_RELAY_TAKEN, "a viewer whose id only starts like hers is another");

        rfb_relay_init(&r, "work", NULL, dirfd_, MAX_CUT);
        l = agent();
        TAP_EQ_INT(rfb_relay_lease(&r, &l), RFB_RELAY_WATCH, "a viewer without an id watches under the agent");
        l = human("alice");
        TAP_EQ_INT(rfb_relay_lease(&r, &l), RFB_RELAY_TAKEN, "and is never the human in control");
        tap_ok(!r.filter.allow_input, "its input never passes");
}

/* "RFB 003.008\n", security None, ClientInit (shared 0, forced to 1). */
static const uint8_t handshake[] = { 'R', 'F', 'B', ' ', '0', '0', '3', '.', '0', '0', '8', '\n', 1, 0 };
static const uint8_t key_a[] = { 4, 1, 0, 0, 0, 0, 0, 'a' };
static const uint8_t update_request[] = { 3, 1, 0, 0, 0, 0, 0, 16, 0, 16 };

static size_t feed(struct rfb_relay *r, const void *in, size_t n, uint8_t *out, int *ret) {
        size_t got = 0;

        *ret = rfb_relay_from_viewer(r, in, n, out, RFB_FILTER_OUT_SIZE(n), &got);
        return got;
}

static void test_bytes(void) {
        uint8_t out[64];
        struct rfb_relay r;
        struct lease l;
        size_t got;
        int k;

        rfb_relay_init(&r, "work", "alice", dirfd_, MAX_CUT);
        got = feed(&r, handshake, sizeof handshake, out, &k);
        tap_ok(k >= 0 && got == sizeof handshake && out[got - 1] == 1,
               "the handshake passes, with the shared flag forced on (k=%d, %zu bytes)", k, got);

        l = agent();
        (void) rfb_relay_lease(&r, &l);
        got = feed(&r, key_a, sizeof key_a, out, &k);
        tap_ok(k >= 0 && got == 0, "a key event under the agent's lease reaches nobody (%zu bytes)", got);
        got = feed(&r, update_request, sizeof update_request, out, &k);
        tap_ok(k >= 0 && got == sizeof update_request && memcmp(out, update_request, got) == 0,
               "an update request passes whoever holds control");

        l = human("alice");
        (void) rfb_relay_lease(&r, &l);
        got = feed(&r, key_a, sizeof key_a, out, &k);
        tap_ok(k >= 0 && got == sizeof key_a && memcmp(out, key_a, got) == 0,
               "once alice holds the lease her key event passes whole");

        /* The lease moves in the middle of a message: the gate applies where the message is decided. */
        (void) feed(&r, key_a, 3, out, &k);
        l = human("bob");
        (void) rfb_relay_lease(&r, &l);
        got = feed(&r, key_a + 3, sizeof key_a - 3, out, &k);
        tap_ok(k >= 0 && got == 0, "a key event completed after bob's take is dropped (%zu bytes)", got);

        r.last_activity = 0;
        got = feed(&r, (const uint8_t[]) { 99 }, 1, out, &k);
        TAP_EQ_INT(k, -EBADMSG, "an unknown message type ends the stream");
        tap_ok(rfb_relay_error(&r) != NULL, "and the relay says why (%s)", rfb_relay_error(&r) ?: "nothing");
        TAP_EQ_INT(r.last_activity, 0, "a refused chunk is no use of the desktop: no stamp");
}

static long long activity_mtime(void) {
        struct stat st;

        return fstatat(dirfd_, "activity", &st, 0) < 0 ? -1 : (long long) st.st_mtim.tv_sec;
}

static void age_activity(void) {
        const struct timespec old[2] = { { .tv_sec = 1000 }, { .tv_sec = 1000 } };

        if (utimensat(dirfd_, "activity", old, 0) < 0)
                abort();
}

static void test_throttle(void) {
        const unsigned long long t = 5000 * MINUTE;
        struct rfb_relay r;
        uint8_t out[64];
        int fd, k;

        fd = openat(dirfd_, "activity", O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
        if (fd < 0)
                abort();
        close(fd);
        age_activity();

        rfb_relay_init(&r, "work", "alice", dirfd_, MAX_CUT);
        tap_ok(rfb_relay_stamp_at(&r, t), "the first use stamps at once");
        tap_ok(activity_mtime() > 1000, "and the activity file's mtime moved to now (%lld)", activity_mtime());

        age_activity();
        tap_ok(!rfb_relay_stamp_at(&r, t + 1), "a use a microsecond later does not stamp");
        tap_ok(!rfb_relay_stamp_at(&r, t + MINUTE - 1), "nor one just short of a minute later");
        TAP_EQ_INT(activity_mtime(), 1000, "the file is untouched in between");
        tap_ok(rfb_relay_stamp_at(&r, t + MINUTE), "a use a minute later stamps again");
        tap_ok(activity_mtime() > 1000, "and touches the file");
        tap_ok(!rfb_relay_stamp_at(&r, t + MINUTE + 30 * 1000000ULL), "the minute counts from that stamp");

        /* The viewer's bytes are a use too: a relay that never stamped stamps on its first chunk. */
        rfb_relay_init(&r, "work", "alice", dirfd_, MAX_CUT);
        age_activity();
        (void) feed(&r, handshake, sizeof handshake, out, &k);
        tap_ok(k >= 0 && r.last_activity != 0 && activity_mtime() > 1000, "a chunk from the viewer stamps the activity");
}

/* The holder's input waits until the helper settled its take (lease-settled.h). */
static void test_settling(void) {
        struct rfb_relay r;
        struct lease l = human("alice");

        rfb_relay_init(&r, "work", "alice", dirfd_, MAX_CUT);
        if (lease_settled_write_at(dirfd_, 4) < 0)
                abort();
        TAP_EQ_INT(rfb_relay_lease(&r, &l), RFB_RELAY_SETTLING, "alice's take of epoch 5, settled up to 4: it settles");
        tap_ok(!r.filter.allow_input, "meanwhile her input does not pass");
        if (lease_settled_write_at(dirfd_, 5) < 0)
                abort();
        TAP_EQ_INT(rfb_relay_lease(&r, &l), RFB_RELAY_CONTROL, "settled up to 5: alice controls");
        tap_ok(r.filter.allow_input, "and her input passes");
        l = human("bob");
        TAP_EQ_INT(rfb_relay_lease(&r, &l), RFB_RELAY_TAKEN, "bob's lease is bob's, settled or not");
        if (write_file_atomic_at(dirfd_, LEASE_SETTLED_FILE, "x\n", 2, 0600) < 0)
                abort();
        l = human("alice");
        TAP_EQ_INT(rfb_relay_lease(&r, &l), RFB_RELAY_SETTLING, "a damaged record settles nothing");
        rfb_relay_init(&r, "work", "alice", -EBADF, MAX_CUT);
        TAP_EQ_INT(rfb_relay_lease(&r, &l), RFB_RELAY_CONTROL, "a placed desktop's relay (no dir) leaves the wait to the far side");
        (void) unlinkat(dirfd_, LEASE_SETTLED_FILE, 0);
}

/* Back-pressure: the viewer is not read while the bytes for the server fill their buffer, and is again once
 * the server took some. */
static void test_back_pressure(void) {
        uint8_t storage[64], got[64];
        struct rfb_relay r;
        struct lease l = agent();
        int sv[2], k;
        size_t n = 0;

        if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
                die("socketpair");
        rfb_relay_init(&r, "work", "alice", dirfd_, MAX_CUT);
        rfb_relay_set_buffer(&r, storage, sizeof storage, 16);
        (void) rfb_relay_lease(&r, &l);
        TAP_EQ_INT(rfb_relay_viewer_room(&r), sizeof storage - RFB_FILTER_HOLD_MAX,
                   "an empty relay takes what its buffer holds, less what the filter may hold back");
        k = rfb_relay_feed(&r, handshake, sizeof handshake);
        tap_ok(k >= 0 && rfb_relay_server_pending(&r) == sizeof handshake, "the handshake waits for the server");
        while (k >= 0 && rfb_relay_viewer_room(&r) >= sizeof update_request) {
                k = rfb_relay_feed(&r, update_request, sizeof update_request);
                n++;
        }
        tap_ok(k >= 0 && n > 0, "update requests fill the buffer (%zu of them)", n);
        /* 64 bytes less 20 held back: the handshake's 14 and three requests' 30 fill it exactly. */
        tap_ok(n == 3 && rfb_relay_viewer_room(&r) == 0 && !rfb_relay_viewer_readable(&r),
               "a full buffer stops the viewer's reads (room %zu)", rfb_relay_viewer_room(&r));
        TAP_EQ_INT(rfb_relay_flush_server(&r, sv[0]), sizeof handshake + n * sizeof update_request,
                   "the server takes them all");
        tap_ok(read(sv[1], got, sizeof got) == (ssize_t) (sizeof handshake + n * sizeof update_request) &&
                       memcmp(got, handshake, sizeof handshake - 1) == 0 && got[sizeof handshake - 1] == 1 &&
                       memcmp(got + sizeof handshake, update_request, sizeof update_request) == 0,
               "in order, the handshake (its shared flag forced on) first");
        tap_ok(rfb_relay_viewer_readable(&r) && rfb_relay_viewer_room(&r) == sizeof storage - RFB_FILTER_HOLD_MAX,
               "and the viewer may be read again, as much as at first");
        tap_ok(!rfb_relay_server_readable(100, 101) && rfb_relay_server_readable(101, 101) &&
                       !rfb_relay_server_readable(0, 0),
               "the server is read only while the viewer's side has room for a read worth making");
        close(sv[0]);
        close(sv[1]);
}

int main(void) {
        scratch_dir_make(tmpdir, sizeof tmpdir, "botdesk-test-rfb-relay");
        dirfd_ = open(tmpdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (dirfd_ < 0)
                die("open");

        test_gate();
        test_settling();
        test_bytes();
        test_back_pressure();
        test_throttle();

        close(dirfd_);
        scratch_dir_remove(tmpdir);
        return tap_done();
}
