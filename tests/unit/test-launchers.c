/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <stdlib.h>

#include "launchers.h"
#include "tap.h"
#include "util.h"

/*
 * The reading side of the Desktop Entry Specification's Exec key, written
 * here from the specification, not from our writer: first the string-value
 * escapes (\\ \n \t \s \r), then the Exec grammar (double quotes, inside them
 * backslash escapes ", `, $ and \), then %% to %.
 */
static char **exec_parse(const char *value) {
        char unescaped[4096], *u = unescaped;
        char **argv = calloc(32, sizeof(char *));
        size_t n = 0;

        for (const char *s = value; *s; s++) {
                if (*s == '\\' && s[1]) {
                        s++;
                        *u++ = *s == 'n' ? '\n' : *s == 't' ? '\t' : *s == 's' ? ' ' : *s == 'r' ? '\r' : *s;
                } else
                        *u++ = *s;
        }
        *u = 0;
        for (const char *s = unescaped; *s;) {
                char arg[4096], *a = arg;
                bool quoted = false;

                while (*s == ' ')
                        s++;
                if (!*s)
                        break;
                while (*s && (quoted || *s != ' ')) {
                        if (*s == '"') {
                                quoted = !quoted;
                                s++;
                        } else if (quoted && *s == '\\' && s[1] && strchr("\"`$\\", s[1])) {
                                *a++ = s[1];
                                s += 2;
                        } else if (*s == '%' && s[1] == '%') {
                                *a++ = '%';
                                s += 2;
                        } else
                                *a++ = *s++;
                }
                *a = 0;
                argv[n++] = strdup(arg);
        }
        return argv;
}

static void round_trip(const char *name, char *const *argv) {
        _cleanup_free_ char *line = desktop_exec_line(argv);
        char **back = exec_parse(line);
        size_t i;
        bool same = true;

        for (i = 0; argv[i]; i++)
                same = same && back[i] && streq(back[i], argv[i]);
        same = same && !back[i];
        if (!tap_ok(same, "%s survives the Exec key", name))
                printf("#   Exec=%s\n", line);
        for (i = 0; back[i]; i++)
                free(back[i]);
        free(back);
}

int main(void) {
        char *plain[] = { (char *) "/usr/bin/chromium", (char *) "--no-first-run", NULL };
        char *spaces[] = { (char *) "/opt/My Browser/chrome", (char *) "--user-data-dir=/home/a b/profile", NULL };
        char *reserved[] = { (char *) "/opt/x", (char *) "--flag=$HOME", (char *) "a\"b", (char *) "c`d", (char *) "e\\f",
                             (char *) "100%", (char *) "semi;colon", (char *) "it's", (char *) "(paren)", (char *) "", NULL };
        _cleanup_free_ char *q = desktop_exec_quote("/usr/bin/chromium");
        _cleanup_free_ char *q2 = desktop_exec_quote("a b");
        _cleanup_free_ char *q3 = desktop_exec_quote("50%");

        TAP_EQ_STR(q, "/usr/bin/chromium", "an argument without reserved characters is not quoted");
        TAP_EQ_STR(q2, "\"a b\"", "an argument with a space is double-quoted");
        TAP_EQ_STR(q3, "50%%", "a percent sign is doubled");
        round_trip("a plain command line", plain);
        round_trip("paths with spaces", spaces);
        round_trip("every reserved character, a quote, a backslash, a percent and an empty argument", reserved);
        return tap_done();
}
