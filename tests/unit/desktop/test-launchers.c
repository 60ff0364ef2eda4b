/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <stdlib.h>

#include <fcntl.h>
#include <sys/stat.h>

#include "browser.h"
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

static bool any_debugging_port(char **argv) {
        for (char **a = argv; *a; a++)
                if (startswith(*a, "--remote-debugging-port"))
                        return true;
        return false;
}

/* The dock's browser: through the launcher, never with a DevTools TCP port,
 * and an entry an older botdesk wrote with one is replaced. */
static void test_browser_entry(void) {
        char tmpl[] = "/tmp/botdesk-test-launchers.XXXXXX";
        char *dir = mkdtemp(tmpl), path[512], *text = NULL;
        _cleanup_strv_free_ char **argv = NULL;
        FILE *f;

        TAP_EQ_INT(browser_argv("/usr/libexec/botdesk-browser", "/run/user/7/botdesk/w/cdp.sock", "/usr/bin/chromium",
                                "/home/a/profile", 256, &argv), 0, "the browser's command line is built");
        TAP_EQ_STR(argv[0], "/usr/libexec/botdesk-browser", "the dock's browser starts through botdesk-browser");
        TAP_EQ_STR(argv[1], "--cdp-socket=/run/user/7/botdesk/w/cdp.sock", "... which serves DevTools on the profile's cdp.sock");
        TAP_EQ_STR(argv[3], "/usr/bin/chromium", "... and runs the browser after --");
        tap_ok(!any_debugging_port(argv), "no --remote-debugging-port on the command line");
        if (!dir)
                return (void) tap_ok(0, "mkdtemp: %s", strerror(errno));

        snprintf(path, sizeof path, "%s/xfce4", dir);
        mkdir(path, 0700);
        snprintf(path, sizeof path, "%s/xfce4/panel", dir);
        mkdir(path, 0700);
        snprintf(path, sizeof path, "%s/xfce4/panel/launcher-11", dir);
        mkdir(path, 0700);
        snprintf(path, sizeof path, "%s/xfce4/panel/launcher-11/botdesk-browser.desktop", dir);
        f = fopen(path, "we");
        fputs("[Desktop Entry]\nExec=/usr/bin/chromium --user-data-dir=/p --remote-debugging-port=0\n", f);
        fclose(f);
        TAP_EQ_INT(launchers_refresh_browser(dir, argv), 0, "refreshing the dock's browser entry succeeds");
        read_full_file(path, &text, NULL, 1 << 16);
        tap_ok(text && !strstr(text, "remote-debugging-port") && strstr(text, "Exec=/usr/libexec/botdesk-browser "),
               "an entry written with a DevTools TCP port is replaced by one through the launcher");
        free(text);
        text = NULL;

        f = fopen(path, "we");
        fputs("[Desktop Entry]\nExec=firefox\n", f);
        fclose(f);
        launchers_refresh_browser(dir, argv);
        read_full_file(path, &text, NULL, 1 << 16);
        TAP_EQ_STR(text, "[Desktop Entry]\nExec=firefox\n", "an entry the user changed otherwise is left alone");
        free(text);

        unlink(path);
        {
                static const char *const subs[] = { "/xfce4/panel/launcher-11", "/xfce4/panel", "/xfce4", "" };
                for (size_t i = 0; i < ELEMENTSOF(subs); i++) {
                        snprintf(path, sizeof path, "%s%s", dir, subs[i]);
                        rmdir(path);
                }
        }
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
        test_browser_entry();
        round_trip("every reserved character, a quote, a backslash, a percent and an empty argument", reserved);
        return tap_done();
}
