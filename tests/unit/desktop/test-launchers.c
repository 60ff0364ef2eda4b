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

static bool has_arg(char **argv, const char *arg) {
        for (char **a = argv; a && *a; a++)
                if (streq(*a, arg))
                        return true;
        return false;
}

static size_t count(const char *text, const char *needle) {
        size_t n = 0;
        for (const char *t = text; t && (t = strstr(t, needle)); t++)
                n++;
        return n;
}

/* The dock's browser: through the launcher, never with a DevTools TCP port,
 * and an entry an older botdesk wrote with one is replaced. */
static void test_browser_entry(void) {
        char tmpl[] = "/tmp/botdesk-test-launchers.XXXXXX";
        char *dir = mkdtemp(tmpl), path[512], *text = NULL;
        _cleanup_strv_free_ char **argv = NULL;
        FILE *f;

        TAP_EQ_INT(browser_argv("/usr/libexec/botdesk-browser", "/run/user/7/botdesk/w/cdp.sock", "/usr/bin/chromium",
                                "/home/a/profile", 256, false, &argv), 0, "the browser's command line is built");
        TAP_EQ_STR(argv[0], "/usr/libexec/botdesk-browser", "the dock's browser starts through botdesk-browser");
        TAP_EQ_STR(argv[1], "--cdp-socket=/run/user/7/botdesk/w/cdp.sock", "... which serves DevTools on the profile's cdp.sock");
        TAP_EQ_STR(argv[3], "/usr/bin/chromium", "... and runs the browser after --");
        tap_ok(!any_debugging_port(argv), "no --remote-debugging-port on the command line");
        tap_ok(!has_arg(argv, "--no-sandbox"), "as an ordinary user the browser keeps its sandbox");
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
        text = NULL;

        /* Ours is rewritten on every start: a renamed profile's paths follow. */
        f = fopen(path, "we");
        fputs("[Desktop Entry]\nName=Web Browser\nExec=/old/botdesk-browser --cdp-socket=/old/cdp.sock -- /usr/bin/chromium\n"
              "X-Botdesk-Launcher=browser\n", f);
        fclose(f);
        TAP_EQ_INT(launchers_refresh_browser(dir, argv), 0, "refreshing our own entry succeeds");
        read_full_file(path, &text, NULL, 1 << 16);
        tap_ok(text && !strstr(text, "/old/") && strstr(text, "--cdp-socket=/run/user/7/botdesk/w/cdp.sock") &&
                       strstr(text, "--user-data-dir=/home/a/profile"),
               "the entry botdesk wrote is rewritten with the current paths");
        free(text);
        text = NULL;
        {
                _cleanup_strv_free_ char **root_argv = NULL;

                browser_argv("/usr/libexec/botdesk-browser", "/run/botdesk/w/cdp.sock", "/usr/bin/chromium", "/root/p", 256,
                             true, &root_argv);
                tap_ok(has_arg(root_argv, "--no-sandbox"), "as root the browser gets --no-sandbox");
                launchers_refresh_browser(dir, root_argv);
                read_full_file(path, &text, NULL, 1 << 16);
                tap_ok(text && strstr(text, " --no-sandbox"), "... and the dock's entry, rewritten at the next start, has it too");
                free(text);
                text = NULL;
        }

        unlink(path);
        {
                static const char *const subs[] = { "/xfce4/panel/launcher-11", "/xfce4/panel", "/xfce4", "" };
                for (size_t i = 0; i < ELEMENTSOF(subs); i++) {
                        snprintf(path, sizeof path, "%s%s", dir, subs[i]);
                        rmdir(path);
                }
        }
}

#define STRV(...) ((const char *const[]) { __VA_ARGS__, NULL })

/* What a test made below its mkdtemp dir, removed by name: the files, then the dirs (innermost first). */
static void remove_below(const char *dir, const char *const *files, const char *const *dirs) {
        char path[512];

        for (size_t i = 0; files[i]; i++) {
                snprintf(path, sizeof path, "%s%s", dir, files[i]);
                unlink(path);
        }
        for (size_t i = 0; dirs[i]; i++) {
                snprintf(path, sizeof path, "%s%s", dir, dirs[i]);
                rmdir(path);
        }
}

/* A config home in dir: xfce4/panel and xfconf's channel dir made, the panel's channel holding panel. */
static void config_home_with_panel(const char *dir, const char *panel) {
        static const char *const mk[] = { "/xfce4", "/xfce4/panel", "/xfce4/xfconf", "/xfce4/xfconf/xfce-perchannel-xml" };
        char path[512];
        FILE *f;

        for (size_t i = 0; i < ELEMENTSOF(mk); i++) {
                snprintf(path, sizeof path, "%s%s", dir, mk[i]);
                mkdir(path, 0700);
        }
        snprintf(path, sizeof path, "%s/xfce4/xfconf/xfce-perchannel-xml/xfce4-panel.xml", dir);
        f = fopen(path, "we");
        if (f) {
                fputs(panel, f);
                fclose(f);
        }
}

/* The dock was seeded without a browser: one installed later gets its entry and its place. */
static void test_browser_installed_later(void) {
        char tmpl[] = "/tmp/botdesk-test-launchers.XXXXXX";
        char *dir = mkdtemp(tmpl), path[512], *text = NULL;
        char *argv[] = { (char *) "/usr/libexec/botdesk-browser", (char *) "--cdp-socket=/c", (char *) "--",
                         (char *) "/usr/bin/chromium", NULL };
        static const char panel[] =
                "<channel name=\"xfce4-panel\">\n"
                "      <property name=\"plugin-ids\" type=\"array\">\n"
                "        <value type=\"int\" value=\"10\"/>\n"
                "        <value type=\"int\" value=\"12\"/>\n"
                "      </property>\n"
                "</channel>\n";

        if (!dir)
                return (void) tap_ok(0, "mkdtemp: %s", strerror(errno));
        config_home_with_panel(dir, panel);

        TAP_EQ_INT(launchers_refresh_browser(dir, NULL), 0, "without a browser there is nothing to refresh");
        snprintf(path, sizeof path, "%s/xfce4/panel/launcher-11", dir);
        tap_ok(access(path, F_OK) < 0, "... and no launcher is made");

        TAP_EQ_INT(launchers_refresh_browser(dir, argv), 0, "a browser installed since the dock was seeded is added");
        snprintf(path, sizeof path, "%s/xfce4/panel/launcher-11/botdesk-browser.desktop", dir);
        read_full_file(path, &text, NULL, 1 << 16);
        tap_ok(text && strstr(text, "Exec=/usr/libexec/botdesk-browser --cdp-socket=/c -- /usr/bin/chromium\n"),
               "its entry is written");
        free(text);
        text = NULL;
        snprintf(path, sizeof path, "%s/xfce4/xfconf/xfce-perchannel-xml/xfce4-panel.xml", dir);
        read_full_file(path, &text, NULL, 1 << 16);
        TAP_EQ_STR(text,
                   "<channel name=\"xfce4-panel\">\n"
                   "      <property name=\"plugin-ids\" type=\"array\">\n"
                   "        <value type=\"int\" value=\"10\"/>\n"
                   "        <value type=\"int\" value=\"11\"/>\n"
                   "        <value type=\"int\" value=\"12\"/>\n"
                   "      </property>\n"
                   "</channel>\n",
                   "the browser's launcher is back in the dock, after the terminal");
        free(text);
        text = NULL;
        launchers_refresh_browser(dir, argv);
        read_full_file(path, &text, NULL, 1 << 16);
        TAP_EQ_INT((long long) count(text, "value=\"11\""), 1, "a second start does not add it twice");
        free(text);

        remove_below(dir, STRV("/xfce4/panel/launcher-11/botdesk-browser.desktop",
                               "/xfce4/xfconf/xfce-perchannel-xml/xfce4-panel.xml"),
                     STRV("/xfce4/panel/launcher-11", "/xfce4/xfconf/xfce-perchannel-xml", "/xfce4/xfconf",
                          "/xfce4/panel", "/xfce4", ""));
}

/* A program that is installed, but whose desktop file is missing from the data dir (a build tree run
 * uninstalled): its launcher leaves the dock, and the desktop still starts. */
static void test_entry_missing(void) {
        char tmpl[] = "/tmp/botdesk-test-launchers.XXXXXX";
        char *dir = mkdtemp(tmpl), path[512], *text = NULL, *old_path = getenv("PATH") ? strdup(getenv("PATH")) : NULL;
        static const char panel[] =
                "<channel name=\"xfce4-panel\">\n"
                "      <property name=\"plugin-ids\" type=\"array\">\n"
                "        <value type=\"int\" value=\"12\"/>\n"
                "        <value type=\"int\" value=\"13\"/>\n"
                "      </property>\n"
                "</channel>\n";
        int fd;

        if (!dir)
                return (void) tap_ok(0, "mkdtemp: %s", strerror(errno));
        config_home_with_panel(dir, panel);
        snprintf(path, sizeof path, "%s/bin", dir);
        mkdir(path, 0700);
        /* thunar "installed"; mousepad not. */
        snprintf(path, sizeof path, "%s/bin/thunar", dir);
        fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0755);
        if (fd >= 0)
                close(fd);
        snprintf(path, sizeof path, "%s/bin", dir);
        setenv("PATH", path, 1);

        TAP_EQ_INT(launchers_seed(dir, "/nonexistent/botdesk/applications", NULL), 0,
                   "an installed program whose desktop file is missing does not fail the seeding");
        snprintf(path, sizeof path, "%s/xfce4/panel/launcher-12", dir);
        tap_ok(access(path, F_OK) < 0, "... its launcher dir is not left behind");
        snprintf(path, sizeof path, "%s/xfce4/xfconf/xfce-perchannel-xml/xfce4-panel.xml", dir);
        read_full_file(path, &text, NULL, 1 << 16);
        tap_ok(text && !strstr(text, "value=\"12\"") && !strstr(text, "value=\"13\""),
               "... and it leaves the dock, as the program that is not installed does");
        free(text);

        if (old_path)
                setenv("PATH", old_path, 1);
        free(old_path);
        remove_below(dir, STRV("/bin/thunar", "/xfce4/xfconf/xfce-perchannel-xml/xfce4-panel.xml"),
                     STRV("/bin", "/xfce4/panel", "/xfce4/xfconf/xfce-perchannel-xml", "/xfce4/xfconf", "/xfce4", ""));
}

/* [browser] profile_dir: absolute as is, ~ under home, relative under the state dir. */
static void test_profile_dir(void) {
        struct bd_config c = {};
        char *p = NULL;

        TAP_EQ_INT(browser_profile_dir(&c, NULL, "/s/botdesk/w", "/home/a", &p), 0, "the default profile dir resolves");
        TAP_EQ_STR(p, "/s/botdesk/w/browser-profile", "... to the state dir's browser-profile");
        free(p);
        c.browser_profile_dir = (char *) "/srv/b";
        browser_profile_dir(&c, NULL, "/s/botdesk/w", "/home/a", &p);
        TAP_EQ_STR(p, "/srv/b", "an absolute profile_dir is used as it is");
        free(p);
        c.browser_profile_dir = (char *) "~";
        browser_profile_dir(&c, NULL, "/s/botdesk/w", "/home/a", &p);
        TAP_EQ_STR(p, "/home/a", "~ is the home directory");
        free(p);
        c.browser_profile_dir = (char *) "~/.config/chromium";
        browser_profile_dir(&c, NULL, "/s/botdesk/w", "/home/a", &p);
        TAP_EQ_STR(p, "/home/a/.config/chromium", "~/PATH is below the home directory");
        free(p);
        c.browser_profile_dir = (char *) "shared/browser";
        browser_profile_dir(&c, NULL, "/s/botdesk/w", "/home/a", &p);
        TAP_EQ_STR(p, "/s/botdesk/w/shared/browser", "a relative profile_dir is below the profile's state dir");
        free(p);
        p = NULL;
        c.browser_profile_dir = (char *) "~/x";
        TAP_EQ_INT(browser_profile_dir(&c, NULL, "/s/botdesk/w", NULL, &p), -ENOENT, "~ without a known home is an error");
        tap_ok(!p, "... and yields no path");

        /* The gateway's AGENT_BROWSER_PROFILE, when the configuration names none. */
        c.browser_profile_dir = NULL;
        browser_profile_dir(&c, "/srv/agent-profile", "/s/botdesk/w", "/home/a", &p);
        TAP_EQ_STR(p, "/srv/agent-profile", "a pinned absolute AGENT_BROWSER_PROFILE is used as it is");
        free(p);
        browser_profile_dir(&c, "~/.agent-browser/default", "/s/botdesk/w", "/home/a", &p);
        TAP_EQ_STR(p, "/home/a/.agent-browser/default", "a pinned ~/PATH is below the home directory");
        free(p);
        browser_profile_dir(&c, "profiles/work", "/s/botdesk/w", "/home/a", &p);
        TAP_EQ_STR(p, "/home/a/profiles/work", "a pinned relative path is below the home, the gateway's, not the state dir");
        free(p);
        p = NULL;
        TAP_EQ_INT(browser_profile_dir(&c, "profiles/work", "/s/botdesk/w", NULL, &p), -ENOENT,
                   "... an error without a known home");
        c.browser_profile_dir = (char *) "/srv/b";
        browser_profile_dir(&c, "/srv/agent-profile", "/s/botdesk/w", "/home/a", &p);
        TAP_EQ_STR(p, "/srv/b", "[browser] profile_dir wins over the pin");

        /* [browser] home, the gateway's: what relative paths are below, the user's home staying ~. */
        free(p);
        c.browser_home = (char *) "/srv/gateway";
        c.browser_profile_dir = (char *) "shared/browser";
        browser_profile_dir(&c, NULL, "/s/botdesk/w", "/home/a", &p);
        TAP_EQ_STR(p, "/srv/gateway/shared/browser", "with [browser] home, a relative profile_dir is below it");
        free(p);
        c.browser_profile_dir = NULL;
        browser_profile_dir(&c, "profiles/work", "/s/botdesk/w", NULL, &p);
        TAP_EQ_STR(p, "/srv/gateway/profiles/work", "... and so is a relative pin, with no user's home needed");
        free(p);
        browser_profile_dir(&c, "~/.agent-browser/default", "/s/botdesk/w", "/home/a", &p);
        TAP_EQ_STR(p, "/home/a/.agent-browser/default", "... while a pinned ~/PATH stays below the user's home");
        free(p);
        browser_profile_dir(&c, NULL, "/s/botdesk/w", "/home/a", &p);
        TAP_EQ_STR(p, "/s/botdesk/w/browser-profile", "... and the default stays the state dir's");
        c.browser_home = NULL;
        free(p);
        c.browser_profile_dir = NULL;
        browser_profile_dir(&c, "", "/s/botdesk/w", "/home/a", &p);
        TAP_EQ_STR(p, "/s/botdesk/w/browser-profile", "an empty pin is none");
        free(p);
}

/* A file at dir/rel, made executable or not; the directories on the way created. */
static void plant(const char *dir, const char *rel, bool exec) {
        _cleanup_free_ char *path = strdup_printf("%s/%s", dir, rel);
        char *slash;
        int fd;

        for (slash = strchr(path + strlen(dir) + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
                *slash = 0;
                (void) mkdir(path, 0700);
                *slash = '/';
        }
        fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, exec ? 0700 : 0600);
        if (fd >= 0)
                close(fd);
}

static void test_playwright(void) {
        static const char *const files[] = {
                "chromium-1140/chrome-linux/chrome", "chromium-1200/chrome-linux64/chrome",
                "chromium_headless_shell-1300/chrome-linux/headless_shell", "chromium-1300/chrome-linux/README",
                "chromium-junk/chrome-linux/chrome",
        };
        char dir[] = "/tmp/botdesk-test-playwright.XXXXXX";
        char *p;

        if (!mkdtemp(dir)) {
                tap_ok(false, "a scratch dir for Playwright's browsers");
                return;
        }
        tap_ok(!browser_find_playwright(dir), "an empty Playwright dir has no browser");
        plant(dir, files[0], true);
        plant(dir, files[1], true);
        plant(dir, files[2], true);
        plant(dir, files[3], false);
        plant(dir, files[4], true);
        p = browser_find_playwright(dir);
        {
                _cleanup_free_ char *want = strdup_printf("%s/chromium-1200/chrome-linux64/chrome", dir);

                TAP_EQ_STR(p, want, "Playwright's newest Chromium with an executable chrome is found (not its "
                                    "headless shell)");
        }
        free(p);
        /* Only what this test planted, by name. */
        for (size_t i = 0; i < ELEMENTSOF(files); i++) {
                _cleanup_free_ char *f = strdup_printf("%s/%s", dir, files[i]);
                char *slash;

                (void) unlink(f);
                while ((slash = strrchr(f, '/')) && strlen(f) > strlen(dir)) {
                        *slash = 0;
                        if (strlen(f) > strlen(dir))
                                (void) rmdir(f);
                }
        }
        tap_ok(rmdir(dir) == 0, "the scratch dir is left empty and removed");
}

int main(void) {
        test_playwright();
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
        test_browser_installed_later();
        test_entry_missing();
        test_profile_dir();
        round_trip("every reserved character, a quote, a backslash, a percent and an empty argument", reserved);
        return tap_done();
}
