/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Text from a desktop reaches a terminal without a control character in
 * it: ESC (OSC 52 writes the clipboard), the other C0 controls, DEL, C1 in
 * UTF-8 and the raw 0x80..0x9F bytes a terminal in another charset takes
 * for C1 are escaped; UTF-8 text passes whole. To a file nothing changes.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "tap.h"

#include "term-escape.h"
#include "util.h"

static void esc(const char *in, size_t n, bool keep_lines, const char *want, const char *what) {
        _cleanup_free_ char *e = term_escape(in, n, keep_lines);

        TAP_EQ_STR(e, want, "%s", what);
}

int main(void) {
        _cleanup_free_ char *buf = NULL, *got = NULL;
        FILE *f;
        int ptm, pts;

        esc("plain text", 10, false, "plain text", "plain text passes");
        esc("\x1b]52;c;cHduZWQ=\x07", 16, false, "\\x1b]52;c;cHduZWQ=\\x07", "OSC 52 (ESC ... BEL) is escaped");
        esc("a\rb\x7f" "c", 5, false, "a\\x0db\\x7fc", "CR and DEL are escaped");
        esc("a\nb\tc", 5, false, "a\\x0ab\\x09c", "in a field, newline and tab are escaped");
        esc("a\nb\tc", 5, true, "a\nb\tc", "in a block of lines, they pass");
        esc("\xc2\x9b" "31m", 5, false, "\\u009b31m", "a C1 CSI in UTF-8 (U+009B) is escaped");
        esc("\x9b" "31m", 4, true, "\\x9b31m", "a raw 0x9B byte (C1 in an 8-bit charset) is escaped");
        esc("\xc3\xa9t\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80 \xc2\xa0", 17, false,
            "\xc3\xa9t\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80 \xc2\xa0", "UTF-8 text (é € 😀, NBSP) passes whole");
        esc("\xc0\x9b", 2, false, "\\xc0\\x9b", "an overlong form of a C1 is escaped byte by byte");
        esc("\xe2\x82", 2, false, "\\xe2\\x82", "a cut sequence is escaped");
        esc("\xed\xa0\x80", 3, false, "\\xed\\xa0\\x80", "a surrogate is escaped");
        esc("a\0b", 3, false, "a\\x00b", "a NUL within the length is escaped");

        /* To a file: as it is. */
        f = tmpfile();
        tap_ok(f != NULL, "a file to write to");
        if (f) {
                const char *field = term_field(f, "\x1b]52;c;eA==\x07", &buf);

                tap_ok(field && !buf && streq(field, "\x1b]52;c;eA==\x07"), "a field for a file is not touched");
                TAP_EQ_INT(term_write(f, "x\x1b[2Jy\n", 7), 0, "lines to a file are written");
                rewind(f);
                got = calloc(1, 64);
                tap_ok(got && fread(got, 1, 63, f) == 7 && streq(got, "x\x1b[2Jy\n"), "as they were");
                fclose(f);
        }

        /* To a terminal: escaped. */
        ptm = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
        tap_ok(ptm >= 0 && grantpt(ptm) == 0 && unlockpt(ptm) == 0, "a pseudo-terminal");
        pts = ptm >= 0 ? open(ptsname(ptm), O_RDWR | O_NOCTTY | O_CLOEXEC) : -1;
        f = pts >= 0 ? fdopen(pts, "w") : NULL;
        tap_ok(f && term_is_tty(f), "its other end is a terminal");
        if (f) {
                const char *field = term_field(f, "t\x1b]52;c;eA==\x07", &buf);

                TAP_EQ_STR(field, "t\\x1b]52;c;eA==\\x07", "a field for a terminal is escaped");
                free(buf);
                buf = NULL;
                tap_ok(term_field(f, NULL, &buf) == NULL && !buf, "a missing field stays missing");
                fclose(f);
        }
        safe_close(ptm);
        return tap_done();
}
