/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "tap.h"

#include <fcntl.h>
#include <ftw.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "lease.h"
#include "util.h"

static char tmpdir[] = "/tmp/botdesk-test-lease.XXXXXX";
static int dirfd_ = -1;

static int rm_entry(const char *path, _unused_ const struct stat *st, _unused_ int flag, _unused_ struct FTW *ftw) {
        return remove(path);
}

static void write_raw(const char *text, size_t size) {
        int fd;

        (void) unlinkat(dirfd_, LEASE_FILE, 0);
        (void) unlinkat(dirfd_, LEASE_FILE, AT_REMOVEDIR);
        fd = openat(dirfd_, LEASE_FILE, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        if (fd < 0 || write(fd, text, size) != (ssize_t) size)
                abort();
        close(fd);
}

#define WRITE_LIT(lit) write_raw((lit), sizeof(lit) - 1)

static char *read_raw(void) {
        char *text = NULL;

        if (read_full_file_at(dirfd_, LEASE_FILE, &text, NULL, 65536) < 0)
                return NULL;
        return text;
}

/* What a lease holds, for the diagnostics of a check that failed. */
static void lease_diag(const char *what, int r, const struct lease *l) {
        printf("#   got:  %s returned %d: holder %s, viewer \"%s\", epoch %llu, since \"%s\", reason \"%s\", "
               "pending \"%s\" (\"%s\"), failed %d\n", what, r, lease_holder_to_string(l->holder), l->viewer, l->epoch,
               l->since, l->reason, l->pending, l->pending_reason, l->failed);
}

/* A compound check of a lease: when it fails it says what it got (the call's
 * return and the lease) and what it wanted (the condition as written). */
#define LEASE_OK(r, l, cond, ...)                                              \
        do {                                                                   \
                if (!tap_ok((cond), __VA_ARGS__)) {                            \
                        lease_diag(#l, (r), &(l));                             \
                        printf("#   want: %s\n", #cond);                       \
                }                                                              \
        } while (0)

/* Two texts of the lease file that must be equal, and both there. */
#define TEXTS_SAME(before, after, ...)                                         \
        do {                                                                   \
                if (!tap_ok((before) && (after) && streq((before), (after)), __VA_ARGS__)) \
                        printf("#   got:  before \"%s\", after \"%s\"\n#   want: both read, and equal\n", \
                               (before) ?: "(unreadable)", (after) ?: "(unreadable)"); \
        } while (0)

static bool is_fail_closed(const struct lease *l) {
        return l->holder == LEASE_HUMAN && l->viewer[0] == 0 && l->failed < 0 && !lease_allows_input(l, "v1") &&
               !lease_allows_input(l, NULL) && !lease_allows_input(l, "");
}

static void check_closed(int r, const struct lease *l, const char *name) {
        if (!tap_ok(r < 0 && is_fail_closed(l), "%s", name)) {
                lease_diag("the lease", r, l);
                printf("#   want: a negative return and the fail-closed lease (human, no viewer, failed < 0)\n");
        }
}

#define CLOSED_LIT(lit, name)                                  \
        do {                                                   \
                struct lease _l;                               \
                int _r;                                        \
                WRITE_LIT(lit);                                \
                _r = lease_read_at(dirfd_, &_l);               \
                check_closed(_r, &_l, (name));                 \
        } while (0)

static void test_absent(void) {
        struct lease l;
        int r;

        r = lease_read_at(dirfd_, &l);
        LEASE_OK(r, l, r == 0 && l.holder == LEASE_AGENT && l.epoch == 0 && !l.viewer[0] && !l.since[0] && !l.failed,
               "without a lease file the agent holds control at epoch 0");
        LEASE_OK(r, l, !lease_allows_input(&l, "v1") && !lease_allows_input(&l, NULL),
               "while the agent holds control no viewer's input passes");
}

static void test_take_release(void) {
        struct lease l, again;
        struct stat st;
        char *before;
        int r;

        r = lease_take_at(dirfd_, "v1", "debugging the dock", &l);
        TAP_EQ_INT(r, 1, "a viewer taking control from the agent changes the lease");
        LEASE_OK(r, l, l.holder == LEASE_HUMAN && streq(l.viewer, "v1") && l.epoch == 1 && streq(l.reason, "debugging the dock"),
               "after the first take a human (v1) holds control at epoch 1");
        r = lease_read_at(dirfd_, &again);
        LEASE_OK(r, again, r == 0 && again.holder == LEASE_HUMAN && streq(again.viewer, "v1") && again.epoch == 1 &&
               streq(again.since, l.since) && streq(again.reason, "debugging the dock"),
               "the file says what the take returned");
        LEASE_OK(r, l, strlen(l.since) == LEASE_TIME_LEN && l.since[10] == 'T' && l.since[19] == 'Z',
               "since is an RFC 3339 UTC time (%s)", l.since);
        LEASE_OK(r, l, lease_allows_input(&l, "v1") && !lease_allows_input(&l, "v2") && !lease_allows_input(&l, NULL) &&
               !lease_allows_input(&l, "v1 "),
               "only the holding viewer's input passes; a viewer without an id never");

        st = (struct stat) {};
        if (!tap_ok(fstatat(dirfd_, LEASE_FILE, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode) &&
                    (st.st_mode & 07777) == 0600,
                    "the lease file is a regular file of mode 0600"))
                printf("#   got:  type and mode %06o\n#   want: a regular file of mode 0600 (100600)\n",
                       (unsigned) st.st_mode);
        st = (struct stat) {};
        if (!tap_ok(fstatat(dirfd_, LEASE_LOCK_FILE, &st, AT_SYMLINK_NOFOLLOW) == 0 && (st.st_mode & 07777) == 0600,
                    "the lease lock file is mode 0600"))
                printf("#   got:  mode %04o\n#   want: 0600\n", (unsigned) (st.st_mode & 07777));

        before = read_raw();
        r = lease_take_at(dirfd_, "v1", "another reason", &l);
        LEASE_OK(r, l, r == 0 && l.epoch == 1 && streq(l.reason, "debugging the dock"),
               "a take by the current holder is a no-op that keeps the epoch");
        {
                char *after = read_raw();
                TEXTS_SAME(before, after, "a no-op take leaves the file as it was");
                free(after);
        }

        r = lease_release_at(dirfd_, "v2", &l);
        LEASE_OK(r, l, r == 0 && l.holder == LEASE_HUMAN && streq(l.viewer, "v1") && l.epoch == 1,
               "a release by a viewer who does not hold the lease is ignored");
        {
                char *after = read_raw();
                TEXTS_SAME(before, after, "an ignored release leaves the file as it was");
                free(after);
        }
        free(before);

        r = lease_take_at(dirfd_, "v2", NULL, &l);
        LEASE_OK(r, l, r == 1 && streq(l.viewer, "v2") && l.epoch == 2 && !l.reason[0],
               "another viewer taking over is a change (epoch 2)");
        r = lease_release_at(dirfd_, "v1", &l);
        LEASE_OK(r, l, r == 0 && streq(l.viewer, "v2") && l.epoch == 2, "the previous holder can no longer release it");
        r = lease_release_at(dirfd_, "v2", &l);
        LEASE_OK(r, l, r == 1 && l.holder == LEASE_AGENT && !l.viewer[0] && l.epoch == 3,
               "a release by the holder gives control back to the agent (epoch 3)");
        r = lease_read_at(dirfd_, &again);
        LEASE_OK(r, again, r == 0 && again.holder == LEASE_AGENT && again.epoch == 3 && !again.viewer[0],
               "the file says the agent holds control at epoch 3");
        r = lease_release_at(dirfd_, "v2", &l);
        LEASE_OK(r, l, r == 0 && l.epoch == 3, "releasing twice changes nothing the second time");

        TAP_EQ_INT(lease_take_at(dirfd_, "", NULL, NULL), -EINVAL, "an empty viewer id is refused");
        TAP_EQ_INT(lease_take_at(dirfd_, NULL, NULL, NULL), -EINVAL, "a missing viewer id is refused");
        TAP_EQ_INT(lease_take_at(dirfd_, "v\n1", NULL, NULL), -EINVAL, "a viewer id with a newline is refused");
        TAP_EQ_INT(lease_take_at(dirfd_, "v1", "line\nbreak", NULL), -EINVAL, "a reason with a newline is refused");
        {
                char longid[LEASE_VIEWER_MAX + 2];
                memset(longid, 'x', sizeof longid - 1);
                longid[sizeof longid - 1] = 0;
                TAP_EQ_INT(lease_take_at(dirfd_, longid, NULL, NULL), -EINVAL,
                           "a viewer id over %d bytes is refused", LEASE_VIEWER_MAX);
                longid[LEASE_VIEWER_MAX] = 0;
                TAP_EQ_INT(lease_take_at(dirfd_, longid, NULL, &l), 1, "a viewer id of exactly %d bytes is taken",
                           LEASE_VIEWER_MAX);
                TAP_EQ_INT(lease_release_at(dirfd_, longid, &l), 1, "... and released");
        }
        r = lease_read_at(dirfd_, &l);
        LEASE_OK(r, l, r == 0 && l.epoch == 5, "refused takes did not count: epoch 5 after five changes");
}

static void test_no_leftovers(void) {
        DIR *d = fdopendir(dup(dirfd_));
        struct dirent *de;
        unsigned others = 0;

        if (!d)
                abort();
        rewinddir(d);
        while ((de = readdir(d)))
                if (!streq(de->d_name, ".") && !streq(de->d_name, "..") && !streq(de->d_name, LEASE_FILE) &&
                    !streq(de->d_name, LEASE_LOCK_FILE)) {
                        printf("#   leftover: %s\n", de->d_name);
                        others++;
                }
        closedir(d);
        tap_ok(others == 0, "writes leave no temporary file behind");
}

static void test_fail_closed(void) {
        struct lease l;
        int r;

        WRITE_LIT("HOLDER=human\nVIEWER=v1\nSINCE=2026-01-02T03:04:05Z\nREASON=\nEPOCH=7\n");
        r = lease_read_at(dirfd_, &l);
        LEASE_OK(r, l, r == 0 && l.holder == LEASE_HUMAN && streq(l.viewer, "v1") && l.epoch == 7 && lease_allows_input(&l, "v1"),
               "a well-formed file written by hand is read as it says");
        WRITE_LIT("EPOCH=7\nREASON=\nSINCE=\nVIEWER=\nHOLDER=agent\n");
        r = lease_read_at(dirfd_, &l);
        LEASE_OK(r, l, r == 0 && l.holder == LEASE_AGENT && l.epoch == 7, "the order of the lines does not matter");

        CLOSED_LIT("", "an empty file fails closed as human with no viewer");
        CLOSED_LIT("HOLDER=human\nVIEWER=v1\nSINCE=2026-01-02T03:04:05Z\nREASON=\nEPOCH=7",
                   "a torn file (no final newline) fails closed");
        CLOSED_LIT("HOLDER=human\nVIEWER=v1\nSINCE=2026-01-02T03:04",
                   "a file torn in the middle fails closed");
        CLOSED_LIT("{\"holder\": \"human\", \"viewer\": \"v1\", \"since\": null, \"reason\": null, \"epoch\": 1}\n",
                   "a JSON object instead of KEY=VALUE lines fails closed");
        CLOSED_LIT("[1, 2, 3]\n", "a non-object fails closed");
        CLOSED_LIT("\x01\x02\xff\xfe garbage\n", "binary garbage fails closed");
        CLOSED_LIT("HOLDER=robot\nVIEWER=\nSINCE=\nREASON=\nEPOCH=1\n", "an unknown holder fails closed");
        CLOSED_LIT("HOLDER=Agent\nVIEWER=\nSINCE=\nREASON=\nEPOCH=1\n", "a holder in the wrong case fails closed");
        CLOSED_LIT("HOLDER=agent\nVIEWER=\nSINCE=\nREASON=\n", "a missing epoch fails closed");
        CLOSED_LIT("HOLDER=agent\nVIEWER=\nSINCE=\nEPOCH=1\n", "a missing reason fails closed");
        CLOSED_LIT("HOLDER=agent\nVIEWER=\nSINCE=\nREASON=\nEPOCH=one\n", "a non-numeric epoch fails closed");
        CLOSED_LIT("HOLDER=agent\nVIEWER=\nSINCE=\nREASON=\nEPOCH=-1\n", "a negative epoch fails closed");
        CLOSED_LIT("HOLDER=agent\nVIEWER=\nSINCE=\nREASON=\nEPOCH=\n", "an empty epoch fails closed");
        CLOSED_LIT("HOLDER=agent\nVIEWER=\nSINCE=\nREASON=\nEPOCH=99999999999999999999\n",
                   "an epoch that overflows fails closed");
        CLOSED_LIT("HOLDER=agent\nVIEWER=\nSINCE=\nREASON=\nEPOCH= 1\n", "an epoch with a space fails closed");
        CLOSED_LIT("HOLDER=agent\nHOLDER=human\nVIEWER=v1\nSINCE=\nEPOCH=1\n", "a duplicated key fails closed");
        CLOSED_LIT("HOLDER=agent\nVIEWER=\nSINCE=\nREASON=\nEPOCH=1\nEPOCH=2\n", "a sixth line fails closed");
        CLOSED_LIT("HOLDER=agent\nVIEWER=\nSINCE=\nCOLOR=red\nEPOCH=1\n", "an unknown key fails closed");
        CLOSED_LIT("# comment\nHOLDER=agent\nVIEWER=\nSINCE=\nEPOCH=1\n", "a comment line fails closed");
        CLOSED_LIT("HOLDER=human\nVIEWER=\nSINCE=\nREASON=\nEPOCH=1\n", "a human holder without a viewer fails closed");
        CLOSED_LIT("HOLDER=agent\nVIEWER=v1\nSINCE=\nREASON=\nEPOCH=1\n", "an agent holder with a viewer fails closed");
        CLOSED_LIT("HOLDER=human\nVIEWER=v\t1\nSINCE=\nREASON=\nEPOCH=1\n", "a viewer with a control character fails closed");
        CLOSED_LIT("HOLDER=human\nVIEWER=v1\nSINCE=yesterday\nREASON=\nEPOCH=1\n", "a since that is not a time fails closed");
        CLOSED_LIT("HOLDER=human\nVIEWER=v1\nSINCE=2026-13-01T00:00:00Z\nREASON=\nEPOCH=1\n",
                   "a since with month 13 fails closed");
        CLOSED_LIT("HOLDER=human\nVIEWER=v1\0x\nSINCE=\nREASON=\nEPOCH=1\n", "a NUL byte in the file fails closed");
        CLOSED_LIT("holder=human\nviewer=v1\nsince=\nreason=\nepoch=1\n", "lower-case keys fail closed");
        {
                char big[2048];
                memset(big, '#', sizeof big);
                big[sizeof big - 1] = '\n';
                write_raw(big, sizeof big);
                r = lease_read_at(dirfd_, &l);
                check_closed(r, &l, "a file larger than any lease fails closed");
        }

        /* Not a regular file. */
        (void) unlinkat(dirfd_, LEASE_FILE, 0);
        if (mkdirat(dirfd_, LEASE_FILE, 0700) < 0)
                abort();
        r = lease_read_at(dirfd_, &l);
        check_closed(r, &l, "a directory named lease fails closed");
        (void) unlinkat(dirfd_, LEASE_FILE, AT_REMOVEDIR);

        {
                int fd = openat(dirfd_, "elsewhere", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
                const char *valid = "HOLDER=human\nVIEWER=v1\nSINCE=\nREASON=\nEPOCH=1\n";
                if (fd < 0 || write(fd, valid, strlen(valid)) < 0)
                        abort();
                close(fd);
                if (symlinkat("elsewhere", dirfd_, LEASE_FILE) < 0)
                        abort();
                r = lease_read_at(dirfd_, &l);
                check_closed(r, &l, "a symlink named lease, even to a valid file, fails closed");
                (void) unlinkat(dirfd_, LEASE_FILE, 0);
                (void) unlinkat(dirfd_, "elsewhere", 0);
        }

        if (mkfifoat(dirfd_, LEASE_FILE, 0600) < 0)
                abort();
        r = lease_read_at(dirfd_, &l);
        check_closed(r, &l, "a FIFO named lease fails closed without blocking");
        (void) unlinkat(dirfd_, LEASE_FILE, 0);

        if (geteuid() != 0) {
                WRITE_LIT("HOLDER=agent\nVIEWER=\nSINCE=\nREASON=\nEPOCH=1\n");
                (void) fchmodat(dirfd_, LEASE_FILE, 0, 0);
                r = lease_read_at(dirfd_, &l);
                check_closed(r, &l, "an unreadable file fails closed");
                (void) unlinkat(dirfd_, LEASE_FILE, 0);
        } else
                /* Root reads a mode-0000 file: no root run can make it unreadable. */
                tap_skip_host("an unreadable file fails closed # SKIP root reads any file");
}

static void test_repair(void) {
        struct lease l;
        char *before, *after;
        int r;

        WRITE_LIT("HOLDER=robot\nVIEWER=v1\nSINCE=\nREASON=\nEPOCH=41\n");
        r = lease_read_at(dirfd_, &l);
        LEASE_OK(r, l, r < 0 && l.epoch == 41, "a damaged file still gives its epoch (41) to the fail-closed lease");
        before = read_raw();
        r = lease_release_at(dirfd_, "v1", &l);
        after = read_raw();
        LEASE_OK(r, l, r == 0 && is_fail_closed(&l), "a release cannot open a damaged lease: nobody holds it");
        TEXTS_SAME(before, after, "a release of a damaged lease writes nothing");
        free(before);
        free(after);
        r = lease_take_at(dirfd_, "v9", NULL, &l);
        LEASE_OK(r, l, r == 1 && l.epoch == 42 && streq(l.viewer, "v9"), "a take repairs a damaged lease and counts on (epoch 42)");
        r = lease_read_at(dirfd_, &l);
        LEASE_OK(r, l, r == 0 && l.holder == LEASE_HUMAN && streq(l.viewer, "v9"), "the repaired file reads as valid");
        r = lease_release_at(dirfd_, "v9", &l);
        LEASE_OK(r, l, r == 1 && l.holder == LEASE_AGENT && l.epoch == 43, "and its release gives control back to the agent");
}

/* Changes from several processes at once: every real change counts exactly once. */
static void test_concurrent(void) {
        enum { CHILDREN = 4, ROUNDS = 60 };
        struct lease start, end;
        unsigned long long changes = 0;
        int fds[2];
        bool ok = true;

        (void) lease_read_at(dirfd_, &start);
        if (pipe(fds) < 0)
                abort();
        for (int c = 0; c < CHILDREN; c++) {
                pid_t pid = fork();
                if (pid < 0)
                        abort();
                if (pid == 0) {
                        char viewer[16];
                        unsigned long long n = 0;
                        snprintf(viewer, sizeof viewer, "child%d", c);
                        for (int i = 0; i < ROUNDS; i++) {
                                int r1 = lease_take_at(dirfd_, viewer, NULL, NULL);
                                int r2 = lease_release_at(dirfd_, viewer, NULL);
                                if (r1 < 0 || r2 < 0)
                                        _exit(1);
                                n += (unsigned) r1 + (unsigned) r2;
                        }
                        if (write(fds[1], &n, sizeof n) != sizeof n)
                                _exit(1);
                        _exit(0);
                }
        }
        close(fds[1]);
        for (int c = 0; c < CHILDREN; c++) {
                unsigned long long n;
                int status;
                if (read(fds[0], &n, sizeof n) != sizeof n)
                        ok = false;
                else
                        changes += n;
                if (wait(&status) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
                        ok = false;
        }
        close(fds[0]);
        (void) lease_read_at(dirfd_, &end);
        if (!tap_ok(ok && end.epoch == start.epoch + changes && changes >= CHILDREN * ROUNDS,
                    "4 processes taking and releasing at once: the epoch grew by exactly their %llu changes", changes))
                printf("#   epoch %llu -> %llu, changes reported %llu\n", start.epoch, end.epoch, changes);
}

static void test_hash(void) {
        static const struct {
                size_t n;
                const char *hex;
        } vectors[] = {
                { 0, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" },
                { 55, "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318" },
                { 56, "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a" },
                { 63, "7d3e74a05d7db15bce4ad9ec0658ea98e3f06eeecf16b4c6fff2da457ddc2f34" },
                { 64, "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb" },
                { 65, "635361c48bb9eab14198e76ea8ab7f1a41685d6ad62aa9146d301d4f17eb0ae0" },
                { 119, "31eba51c313a5c08226adf18d4a359cfdfd8d2e816b13f4af952f7ea6584dcfb" },
                { 120, "2f3d335432c70b580af0e8e1b3674a7c020d683aa5f73aaaedfdc55af904c21c" },
        };
        char a[128], h1[LEASE_HASH_LEN + 1], h2[LEASE_HASH_LEN + 1];
        unsigned bad = 0;

        memset(a, 'a', sizeof a);
        for (size_t i = 0; i < ELEMENTSOF(vectors); i++) {
                unsigned char d[32];
                char hex[65];
                lease_sha256(a, vectors[i].n, d);
                for (int k = 0; k < 32; k++)
                        snprintf(hex + 2 * k, 3, "%02x", d[k]);
                if (!streq(hex, vectors[i].hex)) {
                        printf("#   sha256('a' x %zu) = %s, want %s\n", vectors[i].n, hex, vectors[i].hex);
                        bad++;
                }
        }
        tap_ok(bad == 0, "SHA-256 matches the reference at every padding boundary (0, 55, 56, 63, 64, 65, 119, 120 bytes)");
        lease_viewer_hash("abc", h1);
        TAP_EQ_STR(h1, "ba7816bf8f01", "the viewer hash is the first 12 hex digits of SHA-256 (\"abc\")");
        lease_viewer_hash("viewer-1", h1);
        lease_viewer_hash("viewer-1", h2);
        if (!tap_ok(streq(h1, h2) && strlen(h1) == LEASE_HASH_LEN, "the viewer hash is stable (%s)", h1))
                printf("#   got:  \"%s\" then \"%s\"\n#   want: the same %d hex digits twice\n", h1, h2, LEASE_HASH_LEN);
        if (!tap_ok(!streq(h1, "viewer-1") && !strstr(h1, "viewer"), "the viewer hash never equals the raw id"))
                printf("#   got:  \"%s\"\n#   want: a hash without the raw id \"viewer-1\" in it\n", h1);
        lease_viewer_hash("viewer-2", h2);
        tap_ok(!streq(h1, h2), "two viewers get different hashes");
        lease_viewer_hash("012345678901", h2);
        tap_ok(!streq(h2, "012345678901"), "an id that looks like a hash is still hashed");
}

static char *json_of(const struct lease *l) {
        char *s = NULL;
        size_t n = 0;
        FILE *f = open_memstream(&s, &n);
        struct json j;

        if (!f)
                abort();
        json_init(&j, f);
        lease_json(&j, l);
        fclose(f);
        return s;
}

static void test_json(void) {
        struct lease l = { .holder = LEASE_AGENT };
        char hash[LEASE_HASH_LEN + 1], want[256];
        char *s;

        s = json_of(&l);
        TAP_EQ_STR(s, "{\"holder\": \"agent\", \"viewer_hash\": null, \"since\": null, \"epoch\": 0, \"reason\": null, \"pending\": null}",
                   "the agent's lease as JSON has the keys of status --json, reason and pending null");
        free(s);

        (void) lease_take_at(dirfd_, "secret-viewer-id", "why", &l);
        s = json_of(&l);
        lease_viewer_hash("secret-viewer-id", hash);
        snprintf(want, sizeof want, "{\"holder\": \"human\", \"viewer_hash\": \"%s\", \"since\": \"%s\", \"epoch\": %llu, "
                 "\"reason\": \"why\", \"pending\": null}", hash, l.since, l.epoch);
        TAP_EQ_STR(s, want, "a human's lease as JSON names the viewer by hash, and gives the reason");
        tap_ok(!strstr(s, "secret-viewer-id"), "the JSON never shows the raw viewer id");
        free(s);
        (void) lease_request_at(dirfd_, "other-secret-id", "my turn", &l);
        s = json_of(&l);
        lease_viewer_hash("other-secret-id", hash);
        snprintf(want, sizeof want, "\"pending\": {\"viewer_hash\": \"%s\", \"reason\": \"my turn\"}}", hash);
        if (!tap_ok(s && strstr(s, want) && !strstr(s, "other-secret-id"),
                    "a pending request shows as {viewer_hash, reason}, never the raw id"))
                printf("#   got:  %s\n#   want: it to hold %s, and not other-secret-id\n", s ?: "(nothing)", want);
        free(s);
        (void) lease_release_at(dirfd_, "secret-viewer-id", NULL);
}

/* The epoch-void rule of agent actions. */
static void test_action_rule(void) {
        struct lease agent0 = { .holder = LEASE_AGENT, .epoch = 4 }, agent_same = agent0, agent_later = agent0,
                     human = { .holder = LEASE_HUMAN, .epoch = 5 }, closed = { .holder = LEASE_HUMAN, .epoch = 4, .failed = -EBADMSG },
                     agent_failed = { .holder = LEASE_AGENT, .epoch = 4, .failed = -EIO };

        agent_later.epoch = 6;
        strcpy(agent_same.pending, "v7");
        tap_ok(lease_action_valid(&agent0, &agent0), "an action under an unchanged agent lease keeps its result");
        tap_ok(lease_action_valid(&agent0, &agent_same),
               "a request recorded meanwhile (same epoch, agent still holds) does not void it");
        tap_ok(!lease_action_valid(&agent0, &human), "a takeover while it ran voids it");
        tap_ok(!lease_action_valid(&agent0, &agent_later),
               "a take and release while it ran (agent again, epoch moved) voids it");
        tap_ok(!lease_action_valid(&agent0, &closed), "a lease file that became unreadable voids it (fail closed)");
        tap_ok(!lease_action_valid(&agent_failed, &agent_failed), "an action admitted under an unreadable lease is never valid");
        tap_ok(!lease_action_valid(&human, &human), "an action admitted while a human held control is never valid");
}

static void test_request_and_end(void) {
        struct lease l, again;
        unsigned long long e;
        char *text;
        int r;

        (void) unlinkat(dirfd_, LEASE_FILE, 0);
        r = lease_request_at(dirfd_, "v1", "need the screen", &l);
        LEASE_OK(r, l, r == 1 && l.holder == LEASE_AGENT && streq(l.pending, "v1") && streq(l.pending_reason, "need the screen") &&
               l.epoch == 0, "a viewer's request is recorded as pending without moving the epoch");
        r = lease_read_at(dirfd_, &again);
        LEASE_OK(r, again, r == 0 && streq(again.pending, "v1") && streq(again.pending_reason, "need the screen") && again.epoch == 0,
               "the file (seven lines) reads back with the request");
        text = read_raw();
        if (!tap_ok(text && strstr(text, "PENDING=v1\n") && strstr(text, "PENDING_REASON=need the screen\n"),
                    "the request is two more lines of the file"))
                printf("#   got:  \"%s\"\n#   want: the lines PENDING=v1 and PENDING_REASON=need the screen\n",
                       text ?: "(unreadable)");
        free(text);
        TAP_EQ_INT(lease_request_at(dirfd_, "v1", "need the screen", NULL), 0, "the same request again changes nothing");
        TAP_EQ_INT(lease_request_at(dirfd_, "v\n", NULL, NULL), -EINVAL, "a request from an invalid viewer id is refused");
        TAP_EQ_INT(lease_request_at(dirfd_, "v1", "a\nb", NULL), -EINVAL, "a request with a newline in its reason is refused");
        TAP_EQ_INT(lease_withdraw_at(dirfd_, "v2", NULL), 0, "another viewer cannot withdraw v1's request");
        r = lease_withdraw_at(dirfd_, "v1", &l);
        LEASE_OK(r, l, r == 1 && !l.pending[0] && !l.pending_reason[0] && l.epoch == 0 && l.holder == LEASE_AGENT,
                 "v1 withdraws its request: nothing pending, the epoch where it was");
        TAP_EQ_INT(lease_withdraw_at(dirfd_, "v1", NULL), 0, "withdrawing it again changes nothing");
        TAP_EQ_INT(lease_request_at(dirfd_, "v1", "need the screen", NULL), 1, "and it can ask again");

        r = lease_take_at(dirfd_, "v1", NULL, &l);
        LEASE_OK(r, l, r == 1 && l.holder == LEASE_HUMAN && !l.pending[0] && l.epoch == 1, "a take clears the pending request");
        text = read_raw();
        if (!tap_ok(text && !strstr(text, "PENDING"), "without a request the file is the five lines again"))
                printf("#   got:  \"%s\"\n#   want: no PENDING line\n", text ?: "(unreadable)");
        free(text);
        TAP_EQ_INT(lease_request_at(dirfd_, "v1", NULL, NULL), 0, "the holder asking for control changes nothing");

        e = l.epoch;
        r = lease_end_at(dirfd_, "stopped by botdesk stop --force", &l);
        LEASE_OK(r, l, r == 1 && l.holder == LEASE_AGENT && l.epoch == e + 1 && streq(l.reason, "stopped by botdesk stop --force"),
               "ending a human lease gives control to the agent with the reason recorded");
        TAP_EQ_INT(lease_end_at(dirfd_, "again", NULL), 0, "ending when the agent holds control changes nothing");
        WRITE_LIT("HOLDER=human\ngarbage\n");
        r = lease_end_at(dirfd_, "repair", &l);
        LEASE_OK(r, l, r == 1 && l.holder == LEASE_AGENT, "ending a damaged (fail-closed) lease gives it to the agent");
        r = lease_read_at(dirfd_, &again);
        LEASE_OK(r, again, r == 0 && again.holder == LEASE_AGENT, "... and repairs the file for the agent");
        WRITE_LIT("HOLDER=agent\nVIEWER=\nSINCE=\nREASON=\nEPOCH=1\nPENDING=\nPENDING_REASON=x\n");
        r = lease_read_at(dirfd_, &l);
        check_closed(r, &l, "a request line without a viewer fails closed");
        WRITE_LIT("HOLDER=agent\nVIEWER=\nSINCE=\nREASON=\nEPOCH=1\nPENDING=v1\n");
        r = lease_read_at(dirfd_, &l);
        check_closed(r, &l, "six lines (a request without its reason line) fail closed");
        TAP_EQ_INT(lease_request_at(dirfd_, "v2", NULL, &l), -EBADMSG, "a damaged lease records no request");
        (void) unlinkat(dirfd_, LEASE_FILE, 0);
}

int main(void) {
        if (!mkdtemp(tmpdir))
                abort();
        dirfd_ = open(tmpdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (dirfd_ < 0)
                abort();
        umask(0);

        test_absent();
        test_take_release();
        test_no_leftovers();
        test_fail_closed();
        test_repair();
        test_concurrent();
        test_no_leftovers();
        test_hash();
        test_json();
        test_action_rule();
        test_request_and_end();

        close(dirfd_);
        (void) nftw(tmpdir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
        return tap_done();
}
