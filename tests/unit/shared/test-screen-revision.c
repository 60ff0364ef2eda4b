/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A screen's revision (screen-revision.h): the hash is xxHash64's (its
 * published values), one bit of the pixels changes it, a revision reads
 * back as it was written, and anything but RUN.HASH in lowercase hex is
 * refused, so that a malformed since_revision never compares as a screen.
 */
#include <stdlib.h>

#include "tap.h"

#include "screen-revision.h"
#include "util.h"

static void refused(const char *s, const char *what) {
        char run[SCREEN_RUN_ID_LEN + 1];
        uint64_t h;

        TAP_EQ_INT(screen_revision_parse(s, run, &h), -EINVAL, "%s is refused", what);
}

int main(void) {
        char run[SCREEN_RUN_ID_LEN + 1], other[SCREEN_RUN_ID_LEN + 1], again[SCREEN_RUN_ID_LEN + 1];
        char rev[SCREEN_REVISION_LEN + 1], back[SCREEN_RUN_ID_LEN + 1];
        uint8_t pixels[4096];
        uint64_t h, h2, parsed;

        TAP_EQ_INT(screen_hash64("", 0, 0) == UINT64_C(0xEF46DB3751D8E999), 1, "the empty input hashes as xxHash64's");
        TAP_EQ_INT(screen_hash64("abc", 3, 0) == UINT64_C(0x44BC2CF5AD770999), 1, "\"abc\" hashes as xxHash64's");

        for (size_t i = 0; i < sizeof pixels; i++)
                pixels[i] = (uint8_t) (i * 7);
        h = screen_hash64(pixels, sizeof pixels, screen_hash_begin(32, 32, 4));
        TAP_EQ_INT(screen_hash64(pixels, sizeof pixels, screen_hash_begin(32, 32, 4)) == h, 1,
                   "the same pixels give the same hash");
        pixels[2049] ^= 1;
        TAP_EQ_INT(screen_hash64(pixels, sizeof pixels, screen_hash_begin(32, 32, 4)) != h, 1,
                   "one bit changed in the middle changes it");
        pixels[2049] ^= 1;
        TAP_EQ_INT(screen_hash64(pixels, sizeof pixels, screen_hash_begin(64, 16, 4)) != h, 1,
                   "the same bytes as another screen size are another screen");
        h2 = screen_hash64(pixels + 1, 13, 5);
        TAP_EQ_INT(h2 == screen_hash64(pixels + 1, 13, 5) && h2 != screen_hash64(pixels + 1, 13, 6), 1,
                   "a short unaligned tail is hashed, and the seed chains");

        screen_run_id("c0ffee00deadbeef", 1234, 99, run);
        screen_run_id("c0ffee00deadbeef", 4321, 11, again);
        screen_run_id("0123456789abcdef", 1234, 99, other);
        TAP_EQ_INT(strlen(run), SCREEN_RUN_ID_LEN, "a run id is 12 hex digits");
        TAP_EQ_STR(run, again, "a run id follows the token, not the pid");
        TAP_EQ_INT(!streq(run, other), 1, "another token (a restart, another profile) is another run");
        TAP_EQ_INT(strstr("c0ffee00deadbeef", run) == NULL, 1, "the run id does not show the token");
        screen_run_id(NULL, 1234, 99, other);
        screen_run_id(NULL, 1234, 100, again);
        TAP_EQ_INT(!streq(other, again), 1, "without a token, the pid's start time tells runs apart");

        screen_revision_format(run, h, rev);
        TAP_EQ_INT(strlen(rev), SCREEN_REVISION_LEN, "a revision is RUN.HASH, 29 characters");
        TAP_EQ_INT(screen_revision_parse(rev, back, &parsed), 0, "a revision parses");
        TAP_EQ_STR(back, run, "... back to its run");
        TAP_EQ_INT(parsed == h, 1, "... and its hash");
        TAP_EQ_INT(screen_revision_parse("000000000000.ffffffffffffffff", back, &parsed) == 0 && parsed == UINT64_MAX, 1,
                   "the largest hash parses without overflow");

        refused(NULL, "no revision");
        refused("", "an empty one");
        refused("3f9a1c2b4d5e", "a run id alone");
        refused("3f9a1c2b4d5e.0123456789abcde", "a hash a digit short");
        refused("3f9a1c2b4d5e.0123456789abcdef0", "a hash a digit long");
        refused("3F9A1C2B4D5E.0123456789ABCDEF", "upper case");
        refused("3f9a1c2b4d5e-0123456789abcdef", "another separator");
        refused("3f9a1c2b4d5e.0123456789abcdeg", "a letter past f");
        refused(" 3f9a1c2b4d5e.0123456789abcde", "a leading space");
        refused("3f9a1c2b4d5e.+123456789abcdef", "a sign");
        refused("3f9a1c2b4d5e.0123456789abcdef\n", "a trailing newline");
        return tap_done();
}
