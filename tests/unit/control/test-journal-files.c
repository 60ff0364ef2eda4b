/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "tap.h"

#include <fcntl.h>
#include <ftw.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "journal-page.h"
#include "journal.h"
#include "journal-trim.h"
#include "json.h"
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

        TAP_EQ_INT(journal_open(state, 0, &j), -ENOENT, "no journal and no create: -ENOENT");
        TAP_EQ_INT(journal_open(state, JOURNAL_OPEN_CREATE, &j), 0, "the journal is created");
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
        TAP_EQ_INT(journal_open(other, JOURNAL_OPEN_CREATE, &j), 0, "a second journal is created");
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

        (void) journal_open(state, JOURNAL_OPEN_CREATE, &j);
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

        (void) journal_open(state, JOURNAL_OPEN_CREATE, &j);
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

        (void) journal_open(state, JOURNAL_OPEN_CREATE, &j);
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
        TAP_EQ_INT(journal_open(state, JOURNAL_OPEN_CREATE, &j), -EPERM, "a journal dir with another mode than 0700 is refused");
        (void) chmod(path, 0700);
        TAP_EQ_INT(journal_open(state, JOURNAL_OPEN_CREATE, &j), 0, "... and opens again at 0700");
        journal_close(&j);
}

/* The text of what fill() writes into a fresh JSON object. */
static char *object_text(void (*fill)(struct json *j, const void *userdata), const void *userdata) {
        struct json_mem m;
        char *text = NULL;

        if (json_mem_open(&m) < 0)
                abort();
        json_object_begin(&m.j);
        fill(&m.j, userdata);
        json_object_end(&m.j);
        if (json_mem_close(&m, &text) < 0)
                abort();
        return text;
}

static const struct journal_redact *redact_now;

static void fill_text(struct json *j, const void *userdata) {
        journal_text_fields(j, "text", userdata, redact_now);
}

static void fill_argv(struct json *j, const void *userdata) {
        journal_argv_fields(j, (char *const *) userdata, redact_now);
}

static void test_redact(void) {
        char *argv[] = { (char *) "curl", (char *) "-H", (char *) "Authorization: Bearer s3cr3t-token", NULL };
        struct journal_redact k1, k2, none = {};
        _cleanup_free_ char *a = NULL, *b = NULL, *c = NULL, *d = NULL, *e = NULL, *keypath = NULL;
        _cleanup_close_ int sfd = -EBADF;
        struct stat st;

        sfd = open(state, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        TAP_EQ_INT(journal_redact_load(sfd, &k1), 0, "the journal's key is made on first use");
        keypath = strdup_printf("%s/" JOURNAL_KEY_FILE, state);
        tap_ok(stat(keypath, &st) == 0 && (st.st_mode & 07777) == 0600 && st.st_size == JOURNAL_KEY_SIZE,
               "... 32 bytes, 0600, in the state dir beside journal/ (never served or exported)");
        TAP_EQ_INT(journal_redact_load(sfd, &k2), 0, "... and read again after");
        tap_ok(k1.have_key && k2.have_key && memcmp(k1.key, k2.key, JOURNAL_KEY_SIZE) == 0, "... the same key");
        redact_now = &k1;
        a = object_text(fill_text, "123456");
        tap_ok(strstr(a, "\"text_length\": 6") && strstr(a, "\"text_hmac\": \"") && !strstr(a, "123456"),
               "a redacted text keeps its length and an HMAC, never the text (%s)", a);
        /* sha256("123456") = 8d969eef6ecad3c2...: a bare hash of a 6-digit code is one table look-up away. */
        tap_ok(!strstr(a, "8d969eef6ecad3c2"), "... and not its unsalted SHA-256");
        b = object_text(fill_text, "123456");
        TAP_EQ_STR(a, b, "... the same text under the same key compares equal");
        (void) chmod(keypath, 0644);
        TAP_EQ_INT(journal_redact_load(sfd, &k2), -EPERM, "a key file readable by others is refused");
        (void) chmod(keypath, 0600);
        (void) unlink(keypath);
        TAP_EQ_INT(journal_redact_load(sfd, &k2), 0, "another journal's key ...");
        redact_now = &k2;
        c = object_text(fill_text, "123456");
        tap_ok(!streq(a, c), "... gives another HMAC: nothing to precompute across journals");
        redact_now = &none;
        d = object_text(fill_text, "123456");
        TAP_EQ_STR(d, "{\"text_length\": 6}", "without a key: the length alone");
        redact_now = &k1;
        e = object_text(fill_argv, argv);
        tap_ok(strstr(e, "\"argv0\": \"curl\"") && strstr(e, "\"argc\": 3") && strstr(e, "\"argv_hmac\"") &&
               !strstr(e, "s3cr3t") && !strstr(e, "Authorization"),
               "a redacted argv keeps the program and the count, never the arguments (%s)", e);
        journal_redact_done(&k1);
        journal_redact_done(&k2);
}

/* A frame name is exactly what the journal writes: no "..", no quote, no newline, nothing elsewhere. */
static void test_frame_names(void) {
        static const struct { const char *name; bool ok; } cases[] = {
                { "frames/000000000001.jpg", true },
                { "frames/000000000001-before.jpg", true },
                { "frames/../seg-000000000001.jsonl", false },
                { "frames/../../../../etc/passwd", false },
                { "frames/1.jpg", false },
                { "frames/000000000001.jpg/..", false },
                { "frames/0000000000001.jpg", false },
                { "frames/000000000001.jpg'\nfile '/etc/shadow", false },
                { "/frames/000000000001.jpg", false },
                { "frames/00000000000a.jpg", false },
        };
        struct journal j;
        struct json_value *v = NULL;

        for (size_t i = 0; i < ELEMENTSOF(cases); i++)
                tap_ok(journal_frame_name_valid(cases[i].name) == cases[i].ok, "frame name %zu (%.*s) %s", i,
                       (int) strcspn(cases[i].name, "\n"), cases[i].name, cases[i].ok ? "is one" : "is refused");
        (void) journal_open(state, JOURNAL_OPEN_CREATE, &j);
        (void) append(&j, "input move", 1, NULL);
        (void) journal_write_frame(&j, 1, false, "\xff\xd8\xff", 3);
        /* The segment exists: a reader that followed ".." would find it. */
        tap_ok(json_parse("{\"frame\": \"frames/../seg-000000000001.jsonl\", \"frame_before\": \"frames/000000000001.jpg\"}",
                          strlen("{\"frame\": \"frames/../seg-000000000001.jsonl\", \"frame_before\": \"frames/000000000001.jpg\"}"),
                          &v) >= 0, "an entry naming a frame outside frames/ ...");
        tap_ok(journal_item_frame(&j, v, "frame") == NULL, "... has no frame for the page, the export or the video");
        TAP_EQ_STR(journal_item_frame(&j, v, "frame_before"), "frames/000000000001.jpg", "... a real frame name does");
        json_value_free(v);
        journal_close(&j);
}

static int longest(unsigned long long seq, const char *line, size_t len, void *userdata) {
        size_t *max = userdata;

        if (len > *max)
                *max = len;
        return 0;
}

/* One entry stays small: 0.5 MiB of keys and a message echoing them are cut when recorded. */
static void test_trim(void) {
        size_t big = 512u * 1024, max = 0;
        _cleanup_free_ char *text = malloc(big + 1), *args = NULL;
        struct journal j;
        char other[300];
        struct seen s = {};

        snprintf(other, sizeof other, "%s/trim", tmpdir);
        (void) journal_open(other, JOURNAL_OPEN_CREATE, &j);
        memset(text, 'k', big);
        text[big] = 0;
        args = strdup_printf("{\"verb\": \"key\", \"keys\": \"%s\"}", text);
        TAP_EQ_INT(journal_append(&j,
                                  &(const struct journal_entry) { .action = "input key", .args_json = args, .agent = true,
                                                                  .result = "error", .message = text },
                                  NULL),
                   0, "a key action with 0.5 MiB of keys and a message echoing them is recorded");
        (void) journal_read(&j, 0, longest, &max, NULL, NULL);
        (void) journal_read(&j, 0, count, &s, NULL, NULL);
        tap_ok(s.n == 1 && max < 3 * JOURNAL_FIELD_MAX, "... as one entry of a few KiB (%zu bytes)", max);
        journal_close(&j);
        {
                _cleanup_(journal_items_done) struct journal_items it = {};

                (void) journal_open(other, 0, &j);
                (void) journal_items_read(&j, 0, 0, &it);
                tap_ok(it.n == 1 && json_get(it.v[0].v, "truncated") &&
                       strlen(json_member_string(json_get(it.v[0].v, "args"), "keys") ?: "") == JOURNAL_FIELD_MAX &&
                       strlen(json_member_string(it.v[0].v, "message") ?: "") == JOURNAL_FIELD_MAX,
                       "... its long fields cut to JOURNAL_FIELD_MAX, marked \"truncated\"");
                journal_close(&j);
        }
}

/* The pages of a journal: each bounded, their links reaching every entry once. */
static void test_pages(void) {
        unsigned n_entries = 1500, pages = 0, seen_n = 0;
        unsigned long long from, before;
        struct journal j;
        char other[300], pad[3001];
        bool *seen = calloc(n_entries + 1, sizeof *seen), bounded = true, once = true;

        snprintf(other, sizeof other, "%s/pages", tmpdir);
        (void) journal_open(other, JOURNAL_OPEN_CREATE, &j);
        memset(pad, 'p', sizeof pad - 1);
        pad[sizeof pad - 1] = 0;
        for (unsigned i = 0; i < n_entries; i++) {
                /* Three strings of 3000 bytes: big entries, none of them cut. */
                _cleanup_free_ char *args = strdup_printf("{\"a\": \"%s\", \"b\": \"%s\", \"c\": \"%s\"}", pad, pad, pad);

                (void) journal_append(&j, &(const struct journal_entry) { .action = "input type", .args_json = args,
                                                                          .agent = true, .result = "ok" }, NULL);
        }
        journal_close(&j);
        (void) journal_open(other, 0, &j);
        {
                _cleanup_(journal_items_done) struct journal_items it = {};

                TAP_EQ_INT(journal_items_read_page(&j, 0, 0, &it), 0, "the newest page reads");
                tap_ok(it.n > 0 && it.n <= JOURNAL_PAGE_ENTRIES && it.bytes <= JOURNAL_PAGE_BYTES &&
                       it.v[it.n - 1].seq == n_entries && it.older > 0 && it.newer == 0,
                       "... bounded (%zu entries, %zu bytes), ending at the newest, with a link to older ones",
                       it.n, it.bytes);
        }
        /* Forwards from the first, by the "newer" links. */
        for (from = 1; from && pages < 1000; pages++) {
                _cleanup_(journal_items_done) struct journal_items it = {};

                if (journal_items_read_page(&j, from, 0, &it) < 0 || it.n == 0)
                        break;
                bounded &= it.n <= JOURNAL_PAGE_ENTRIES && it.bytes <= JOURNAL_PAGE_BYTES;
                for (size_t i = 0; i < it.n; i++) {
                        once &= !seen[it.v[i].seq];
                        seen[it.v[i].seq] = true;
                        seen_n++;
                }
                from = it.newer;
        }
        tap_ok(bounded && once && seen_n == n_entries,
               "the newer links reach every entry once (%u of %u, %u pages), each page bounded", seen_n, n_entries, pages);
        memset(seen, 0, (n_entries + 1) * sizeof *seen);
        seen_n = 0;
        once = true;
        for (before = 0, pages = 0; pages < 1000; pages++) {
                _cleanup_(journal_items_done) struct journal_items it = {};

                if (journal_items_read_page(&j, 0, before, &it) < 0 || it.n == 0)
                        break;
                for (size_t i = 0; i < it.n; i++) {
                        once &= !seen[it.v[i].seq];
                        seen[it.v[i].seq] = true;
                        seen_n++;
                }
                if (!it.older)
                        break;
                before = it.older;
        }
        tap_ok(once && seen_n >= n_entries * 9 / 10, "the older links go back to the first (%u entries seen)", seen_n);
        tap_ok(seen[1], "... entry 1 included");
        journal_close(&j);
        free(seen);
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
        test_frame_names();
        test_trim();
        test_pages();

        (void) nftw(tmpdir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
        return tap_done();
}
