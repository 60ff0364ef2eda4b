/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "tap.h"

#include <fcntl.h>
#include <ftw.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "journal.h"
#include "util.h"

static char tmpdir[] = "/tmp/botdesk-test-journal.XXXXXX";
static char state[256];

static int rm_entry(const char *path, _unused_ const struct stat *st, _unused_ int flag, _unused_ struct FTW *ftw) {
        return remove(path);
}

static int append(struct journal *j, const char *action, unsigned long long epoch, unsigned long long *seq) {
        return journal_append(j,
                              &(const struct journal_entry) {
                                      .action = action, .args_json = "{\"x\": 1}", .agent = true, .epoch = epoch,
                                      .result = "ok", .frame = true,
                              },
                              seq);
}

/* A prelude that only looks: the last epoch journal_append_after() saw. */
static int peek_epoch(long long last_epoch, struct journal_entry *ret, void *userdata) {
        *(long long *) userdata = last_epoch;
        return 0;
}

static long long last_epoch(struct journal *j) {
        long long epoch = -2;
        unsigned long long seq;

        (void) journal_append_after(j, peek_epoch, &epoch,
                                    &(const struct journal_entry) { .action = "peek", .agent = true, .epoch = 99,
                                                                    .result = "ok" },
                                    &seq);
        return epoch;
}

/* A prelude that writes a "returned" entry when the epoch grew, as the CLI's does. */
static int returned(long long last_epoch, struct journal_entry *ret, void *userdata) {
        if (last_epoch < 0 || *(unsigned long long *) userdata <= (unsigned long long) last_epoch)
                return 0;
        *ret = (struct journal_entry) { .action = "lease", .agent = true, .epoch = *(unsigned long long *) userdata,
                                        .result = "ok", .extra_json = "\"event\": \"returned\"" };
        return 1;
}

struct seen {
        unsigned long long first, last;
        size_t n;
};

static int count(unsigned long long seq, const char *line, size_t len, void *userdata) {
        struct seen *s = userdata;

        if (s->n++ == 0)
                s->first = seq;
        s->last = seq;
        return 0;
}

static void test_append_read(void) {
        struct journal j;
        struct seen s = {};
        unsigned long long seq = 0, next = 0, bad = 1;
        struct stat st;
        char path[512];

        TAP_EQ_INT(journal_open(state, false, &j), -ENOENT, "no journal and no create: -ENOENT");
        TAP_EQ_INT(journal_open(state, true, &j), 0, "the journal is created");
        snprintf(path, sizeof path, "%s/" JOURNAL_DIR, state);
        tap_ok(stat(path, &st) == 0 && (st.st_mode & 07777) == 0700, "... 0700");
        for (int i = 0; i < 5; i++)
                (void) append(&j, "input click", 3, &seq);
        TAP_EQ_INT(seq, 5, "entries are numbered from 1");
        snprintf(path, sizeof path, "%s/" JOURNAL_DIR "/seg-000000000001.jsonl", state);
        tap_ok(stat(path, &st) == 0 && (st.st_mode & 07777) == 0600, "the segment is 0600");
        TAP_EQ_INT(journal_read(&j, 0, count, &s, &next, &bad), 0, "the journal reads");
        tap_ok(s.n == 5 && s.first == 1 && s.last == 5 && next == 6 && bad == 0, "every entry, in order, nothing bad");
        s = (struct seen) {};
        (void) journal_read(&j, 4, count, &s, NULL, NULL);
        tap_ok(s.n == 2 && s.first == 4, "from a seq on");
        journal_close(&j);
}

/* In a journal of its own: the peeks add entries. */
static void test_prelude(void) {
        struct journal j;
        struct seen s = {};
        unsigned long long seq = 0, epoch = 4;
        char other[300];

        snprintf(other, sizeof other, "%s/prelude", tmpdir);
        TAP_EQ_INT(journal_open(other, true, &j), 0, "a second journal is created");
        TAP_EQ_INT(last_epoch(&j), -1, "a prelude of an empty journal sees no epoch");
        (void) append(&j, "input click", 3, &seq);
        TAP_EQ_INT(last_epoch(&j), 3, "a prelude sees the last entry's epoch");
        (void) append(&j, "input click", 3, &seq);
        TAP_EQ_INT(journal_append_after(&j, returned, &epoch,
                                        &(const struct journal_entry) { .action = "input key", .agent = true,
                                                                        .epoch = 4, .result = "ok" },
                                        &seq), 0, "an entry with a prelude is written");
        TAP_EQ_INT(seq, 6, "... after the prelude's entry (peeks 1 and 3, clicks 2 and 4, the prelude 5)");
        (void) journal_read(&j, 5, count, &s, NULL, NULL);
        tap_ok(s.n == 2 && s.first == 5 && s.last == 6, "... both read back, the prelude's first");
        TAP_EQ_INT(journal_append_after(&j, returned, &epoch,
                                        &(const struct journal_entry) { .action = "input key", .agent = true,
                                                                        .epoch = 4, .result = "ok" },
                                        &seq), 0, "the same epoch again ...");
        TAP_EQ_INT(seq, 7, "... gets no prelude");
        journal_close(&j);
}

static void test_torn(void) {
        struct journal j;
        struct seen s = {};
        unsigned long long seq = 0, bad = 0;
        char path[512];
        int fd;

        (void) journal_open(state, true, &j);
        snprintf(path, sizeof path, "%s/" JOURNAL_DIR "/seg-000000000001.jsonl", state);
        fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
        tap_ok(fd >= 0 && write(fd, "{\"seq\": 6, \"act", 15) == 15, "a torn entry is appended");
        close(fd);
        (void) journal_read(&j, 0, count, &s, NULL, &bad);
        tap_ok(s.n == 5 && bad == 15, "a torn entry: read up to the last whole one, the rest counted");
        TAP_EQ_INT(append(&j, "input move", 3, &seq), 0, "an entry after a torn one is written");
        TAP_EQ_INT(seq, 6, "... with the next seq");
        s = (struct seen) {};
        (void) journal_read(&j, 0, count, &s, NULL, NULL);
        tap_ok(s.n == 6 && s.last == 6, "... in a segment of its own, read after the torn one");
        /* Garbage in the middle: the rest of that segment is reported, never a crash. */
        snprintf(path, sizeof path, "%s/" JOURNAL_DIR "/seg-000000000006.jsonl", state);
        fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
        tap_ok(fd >= 0 && write(fd, "not json\n{\"a\": 1}\n", 18) == 18, "a corrupt line is appended");
        close(fd);
        s = (struct seen) {};
        bad = 0;
        TAP_EQ_INT(journal_read(&j, 0, count, &s, NULL, &bad), 0, "a corrupt journal still reads");
        tap_ok(s.n == 6 && bad == 15 + 18, "... up to the corrupt line, counted with what follows (and the torn one)");
        /* Its last line is no entry: the next seq counts the segment's lines, as it always did. */
        TAP_EQ_INT(append(&j, "input move", 3, &seq), 0, "an entry after a corrupt tail is written");
        TAP_EQ_INT(seq, 9, "... numbered by the segment's lines (6, then two not entries)");
        s = (struct seen) {};
        (void) journal_read(&j, 9, count, &s, NULL, NULL);
        tap_ok(s.n == 1 && s.first == 9, "... in a segment of its own, so that it reads");
        journal_close(&j);
}

/* Appending reads the segment from its end: lines longer than one read of it. */
static void test_long_lines(void) {
        struct journal j;
        struct seen s = {};
        unsigned long long seq = 0, first = 0;
        size_t sizes[] = { 4000, 4096, 9000, 70000 };

        (void) journal_open(state, true, &j);
        (void) journal_next_seq(&j, &first);
        for (size_t i = 0; i < ELEMENTSOF(sizes); i++) {
                _cleanup_free_ char *text = malloc(sizes[i] + 1), *args = NULL;

                memset(text, 'a' + (int) i, sizes[i]);
                text[sizes[i]] = 0;
                args = strdup_printf("{\"text\": \"%s\"}", text);
                (void) journal_append(&j,
                                      &(const struct journal_entry) { .action = "input type", .args_json = args,
                                                                      .agent = true, .epoch = 10 + i, .result = "ok" },
                                      &seq);
                TAP_EQ_INT(seq, first + i, "an entry after a line of %zu bytes gets the next seq", i ? sizes[i - 1] : 0);
                TAP_EQ_INT(last_epoch(&j), (long long) (10 + i), "the last epoch reads after a line of %zu bytes",
                           sizes[i]);
                first++;        /* the peek's entry */
        }
        (void) journal_read(&j, first, count, &s, NULL, NULL);
        tap_ok(s.n == ELEMENTSOF(sizes) && s.first == first && s.last == first + ELEMENTSOF(sizes) - 1,
               "the long entries read back in order");
        journal_close(&j);
}

static void test_cap(void) {
        struct journal j;
        struct seen s = {};
        char big[4096];
        unsigned long long size = 0;

        (void) journal_open(state, true, &j);
        j.max_bytes = 600u * 1024;
        memset(big, 'x', sizeof big - 1);
        big[sizeof big - 1] = 0;
        for (int i = 0; i < 400; i++) {
                _cleanup_free_ char *args = strdup_printf("{\"text\": \"%s\"}", big);
                (void) journal_append(&j,
                                      &(const struct journal_entry) { .action = "input type", .args_json = args,
                                                                      .agent = true, .result = "ok" },
                                      NULL);
        }
        (void) journal_size(&j, &size);
        tap_ok(size <= j.max_bytes + JOURNAL_SEGMENT_MAX + 16 * sizeof big,
               "the cap holds the journal near max_bytes (%llu bytes)", size);
        (void) journal_read(&j, 0, count, &s, NULL, NULL);
        tap_ok(s.n > 0 && s.first > 1 && s.last >= 400, "the oldest entries went, the newest stayed (%llu..%llu)",
               s.first, s.last);
        journal_close(&j);
}

static void test_refused(void) {
        struct journal j;
        char path[512];

        snprintf(path, sizeof path, "%s/" JOURNAL_DIR, state);
        tap_ok(chmod(path, 0755) == 0, "the journal dir gets mode 0755");
        TAP_EQ_INT(journal_open(state, true, &j), -EPERM, "a journal dir with another mode than 0700 is refused");
        (void) chmod(path, 0700);
        TAP_EQ_INT(journal_open(state, true, &j), 0, "... and opens again at 0700");
        journal_close(&j);
}

static void test_redact(void) {
        char *buf = NULL;
        size_t size = 0;
        FILE *f = open_memstream(&buf, &size);
        struct json j;

        json_init(&j, f);
        json_object_begin(&j);
        journal_text_fields(&j, "text", "hunter2", true);
        json_object_end(&j);
        fclose(f);
        /* sha256("hunter2") = f52fbd32b2b3b86f... */
        TAP_EQ_STR(buf, "{\"text_length\": 7, \"text_sha256\": \"f52fbd32b2b3b86f\"}",
                   "redact_text keeps the length and a hash of typed text, never the text");
        free(buf);
}

int main(void) {
        if (!mkdtemp(tmpdir))
                abort();
        snprintf(state, sizeof state, "%s/state", tmpdir);
        umask(022);

        test_append_read();
        test_prelude();
        test_torn();
        test_long_lines();
        test_cap();
        test_refused();
        test_redact();

        (void) nftw(tmpdir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
        return tap_done();
}
