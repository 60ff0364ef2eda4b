/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The configuration from one text: defaults, values, errors with their lines. */
#include "config-fixture.h"

static void test_defaults(void) {
        struct bd_config d;
        int r;

        config_defaults(&d);
        tap_ok(d.band_min == 20 && d.band_max == 89 && d.width == 1440 && d.height == 900 && d.depth == 24 &&
               d.dpi == 96 && d.frame_rate == 30,
               "the display defaults are band 20-89, 1440x900, depth 24, 96 dpi, 30 fps");
        tap_ok(d.desktop == DESKTOP_XFCE && !d.command && d.command_settle_ms == 500 && d.start_timeout == 15 &&
               d.idle_stop_minutes == 30 && !d.wallpaper,
               "the session defaults are xfce, no command, 500 ms settle, 15 s start timeout, 30 min idle stop");
        tap_ok(d.min_free_memory_mb == 1536 && d.disk_cache_mb == 256 && d.max_cut_text == 262144 && d.release_on_close &&
               !d.browser_profile_dir && !d.user,
               "the resource, browser and rfb defaults are 1536 MB, 256 MB cache, 256 KiB cut text");
        TAP_EQ_STR(d.browser_executable, "auto", "the default browser executable is auto");
        tap_ok(!d.auto_start, "auto_start is off by default");
        config_done(&d);
        config_done(&d); /* must be idempotent */

        r = load(NULL, "", false);
        expect_clean("an empty file is valid", r);
        tap_ok(cfg.width == 1440 && cfg.band_max == 89 && cfg.max_cut_text == 262144,
               "an empty file leaves every value at its default");

        r = load(NULL, "; only a comment\n\n# another\n   ; indented comment\n", false);
        expect_clean("comments and blank lines are valid", r);
}

static void test_values(void) {
        int r;

        r = load(NULL,
                 "[display]\n"
                 "band = 0-999\n"
                 "geometry = 320x200\n"
                 "depth = 16\n"
                 "dpi = 960\n"
                 "frame_rate = 240\n"
                 "[session]\n"
                 "desktop = command\n"
                 "command = /usr/bin/foo --bar=a:b ;comment\n"
                 "command_settle_ms = 600000\n"
                 "start_timeout = 3600\n"
                 "idle_stop_minutes = 0\n"
                 "wallpaper = /usr/share/backgrounds/x.png\n"
                 "[resources]\n"
                 "min_free_memory_mb = 1048576\n"
                 "[browser]\n"
                 "executable = /usr/bin/chromium\n"
                 "profile_dir = /var/tmp/p\n"
                 "disk_cache_mb = 0\n"
                 "[rfb]\n"
                 "max_cut_text = 16777216\n",
                 false);
        expect_clean("every key at the edge of its range is accepted", r);
        tap_ok(cfg.band_min == 0 && cfg.band_max == 999 && cfg.width == 320 && cfg.height == 200 && cfg.depth == 16 &&
               cfg.dpi == 960 && cfg.frame_rate == 240 && cfg.desktop == DESKTOP_COMMAND &&
               cfg.command_settle_ms == 600000 && cfg.start_timeout == 3600 && cfg.idle_stop_minutes == 0 &&
               cfg.min_free_memory_mb == 1048576 && cfg.disk_cache_mb == 0 && cfg.max_cut_text == 16777216,
               "every numeric key takes the value written");
        TAP_EQ_STR(cfg.command, "/usr/bin/foo --bar=a:b", "an inline ';' comment is stripped from a value");
        TAP_EQ_STR(cfg.wallpaper, "/usr/share/backgrounds/x.png", "the wallpaper path is taken");
        TAP_EQ_STR(cfg.browser_executable, "/usr/bin/chromium", "the browser executable path is taken");
        TAP_EQ_STR(cfg.browser_profile_dir, "/var/tmp/p", "the browser profile dir is taken");

        r = load(NULL, "[pool]\nspares = 8\n", false);
        expect_clean("[pool] spares = 8, the host limit, is accepted", r);
        TAP_EQ_INT(cfg.spares, 8, "spares is read");
        r = load(NULL, "[pool]\nspares = 0\n", true);
        tap_ok(r == 0 && cfg.spares == 0, "a user file may set spares");
        expect_error("spares above the host limit of 8 is an error on its line", "[pool]\n\nspares = 9\n", false, 3,
                     "spares");
        expect_error("negative spares is an error on its line", "[pool]\nspares = -1\n", false, 2, "spares");
        expect_error("spares in a profile section is an error on its line",
                     "[profile.work]\ngeometry = 800x600\nspares = 1\n", false, 3, "cannot be set per profile");
        expect_error("spares belongs in [pool], not [session]", "[session]\nspares = 1\n", false, 2, "[pool]");
        r = load(NULL, "[web]\nrelease_on_close = no\n", false);
        expect_clean("[web] release_on_close = no is accepted", r);
        tap_ok(!cfg.release_on_close, "release_on_close = no turns the hand-back on close off");
        r = load(NULL, "[web]\nrelease_on_close = yes\n", false);
        tap_ok(r == 0 && cfg.release_on_close, "release_on_close = yes turns it on");
        expect_error("a release_on_close that is not a boolean is an error",
                     "[web]\nrelease_on_close = maybe\n", false, 2, "not a boolean (allowed: yes or no)");
        r = load(NULL, "[web]\norphan_release_s = 2\nreconnect_grace_ms = 0\n", false);
        expect_clean("[web] orphan_release_s = 2 and reconnect_grace_ms = 0 are accepted", r);
        tap_ok(cfg.orphan_release_s == 2 && cfg.reconnect_grace_ms == 0, "they set the orphan release and the grace");
        r = load(NULL, "", false);
        tap_ok(r == 0 && cfg.orphan_release_s == 120 && cfg.reconnect_grace_ms == 3000,
               "by default a viewerless hold ends after 120 s, and a reload has 3000 ms");
        expect_error("an orphan_release_s of 0 is out of range, on its line",
                     "[web]\n\norphan_release_s = 0\n", false, 3, "allowed: 1..86400");
        expect_error("an orphan_release_s over a day is out of range",
                     "[web]\norphan_release_s = 86401\n", false, 2, "allowed: 1..86400");
        expect_error("a reconnect_grace_ms over a minute is out of range",
                     "[web]\nreconnect_grace_ms = 60001\n", false, 2, "allowed: 0..60000");

        r = load(NULL, "[session]\ncommand = a;b\n", false);
        TAP_EQ_STR(cfg.command, "a;b", "a ';' without a space before it is part of the value");

        r = load(NULL, "\xef\xbb\xbf[display]\r\ndepth: 32\r\n[browser]\r\nexecutable = none\r\n", false);
        expect_clean("a UTF-8 BOM, CRLF line ends and 'key: value' are accepted", r);
        tap_ok(cfg.depth == 32, "a value on a CRLF line is read without the CR");
        TAP_EQ_STR(cfg.browser_executable, "none", "executable = none is accepted");

        r = load(NULL, "[display]   ; the screen\n[profile.work]; x\n", false);
        expect_clean("a ';' comment after a section header is accepted", r);

        r = load(NULL, "[display]\ngeometry = 800x600\n[display]\ndepth = 16\n", false);
        expect_clean("a section may be opened twice when its keys differ", r);

        r = load(NULL, "[profile.a]\ngeometry = 800x600\n[profile.b]\ngeometry = 1024x768\n[display]\ngeometry = 640x480\n",
                 false);
        expect_clean("the same key in different sections is not a duplicate", r);
}

static void test_errors(void) {
        expect_error("a key before any section is an error on its line",
                     "; header\ndepth = 16\n", false, 2, "outside of any section");
        expect_error("an unknown section is an error on its header line",
                     "[display]\ndepth = 16\n[displays]\ndepth = 16\n", false, 3, "unknown section [displays]");
        expect_error("an invalid profile name is an error on its header line",
                     "[profile.-x]\ndepth = 16\n", false, 1, "invalid profile name");
        expect_error("a profile name longer than 32 characters is an error",
                     "\n[profile.abcdefghijabcdefghijabcdefghijabc]\n", false, 2, "invalid profile name");
        expect_error("an empty profile name is an error",
                     "[profile.]\n", false, 1, "invalid profile name");
        expect_error("an unknown key is an error on its line",
                     "[display]\ndepth = 16\ncolour = red\n", false, 3, "unknown key 'colour' in [display]");
        expect_error("a key in the wrong section is an error that names the right one",
                     "[session]\n\ndepth = 16\n", false, 3, "it belongs in [display]");
        expect_error("user outside a profile section is an error",
                     "[session]\nuser = agent\n", false, 2, "only allowed in [profile.NAME]");
        expect_error("a duplicate key is an error on its second line, naming the first",
                     "[display]\ndepth = 16\ndpi = 100\ndepth = 24\n", false, 4, "first set on line 2");
        expect_error("a duplicate key across two headers of one section is an error",
                     "[display]\ndepth = 16\n[session]\n[display]\ndepth = 24\n", false, 5, "duplicate key 'depth'");
        expect_error("a line without '=' is an error on its line",
                     "[display]\ndepth = 16\njust words\n", false, 3, "expected 'key = value' or '[section]'");
        expect_error("a section header without ']' is an error on its line",
                     "[display]\n[session\ndepth = 16\n", false, 2, "expected 'key = value' or '[section]'");
        expect_error("text after a section header is an error",
                     "[display] depth = 16\n", false, 1, "unexpected text after ']'");
        expect_error("an indented line after a key is an error, not a continuation",
                     "[session]\ncommand = foo\n  --bar\n", false, 3, "continuation lines are not supported");
        expect_error("a line with '=' but no key name is an error",
                     "[display]\n= 16\n", false, 2, "missing key name");

        /* numbers */
        expect_error("a number with trailing junk is an error",
                     "[display]\ndpi = 12abc\n", false, 2, "not a decimal number (allowed: 24..960)");
        expect_error("a negative number is an error",
                     "[session]\nidle_stop_minutes = -1\n", false, 2, "not a decimal number");
        expect_error("an empty number is an error",
                     "[rfb]\nmax_cut_text =\n", false, 2, "not a decimal number");
        expect_error("a number followed by a word is an error",
                     "[display]\nframe_rate =  12 x \n", false, 2, "frame_rate = 12 x: not a decimal number");
        expect_error("a number with a plus sign is an error",
                     "[display]\nframe_rate = +12\n", false, 2, "not a decimal number");
        expect_error("a number below its minimum is an error",
                     "[display]\ndpi = 23\n", false, 2, "out of range (allowed: 24..960)");
        expect_error("a number above its maximum is an error",
                     "[session]\nstart_timeout = 3601\n", false, 2, "out of range (allowed: 1..3600)");
        expect_error("zero frames per second is an error",
                     "[display]\nframe_rate = 0\n", false, 2, "out of range (allowed: 1..240)");
        expect_error("exec_pass_env refuses a word that is not a variable name",
                     "[session]\nexec_pass_env = FOO MY-VAR\n", false, 2, "\"MY-VAR\" is not a variable name");
        expect_error("exec_pass_env refuses an assignment: it names variables, it does not set them",
                     "[session]\nexec_pass_env = FOO=1\n", false, 2, "\"FOO=1\" is not a variable name");
        {
                int r = load(NULL, "[session]\nexec_pass_env = FOO  BAR_2\n", false);
                expect_clean("exec_pass_env takes names separated by spaces", r);
                TAP_EQ_STR(cfg.exec_pass_env, "FOO  BAR_2", "... and keeps them for exec");
        }
        expect_error("a number that overflows 64 bits is an out-of-range error",
                     "[browser]\ndisk_cache_mb = 99999999999999999999999999\n", false, 2, "out of range");
        expect_error("max_cut_text above 16 MiB is an error",
                     "[rfb]\nmax_cut_text = 16777217\n", false, 2, "allowed: 0..16777216");
        expect_error("min_free_memory_mb above 1 TiB is an error",
                     "[resources]\nmin_free_memory_mb = 1048577\n", false, 2, "allowed: 0..1048576");
        expect_error("command_settle_ms above ten minutes is an error",
                     "[session]\ncommand_settle_ms = 600001\n", false, 2, "allowed: 0..600000");
        expect_error("idle_stop_minutes above a year is an error",
                     "[session]\nidle_stop_minutes = 525601\n", false, 2, "allowed: 0..525600");

        /* band */
        expect_error("a band whose minimum is above its maximum is an error on its line",
                     "[display]\nband = 30-20\n", false, 2, "the minimum 30 is above the maximum 20");
        expect_error("a band without a dash is an error",
                     "[display]\nband = 20\n", false, 2, "expected MIN-MAX");
        expect_error("a band with a display number above 999 is an error",
                     "[display]\nband = 20-1000\n", false, 2, "maximum display number is out of range (allowed: 0..999)");
        expect_error("a band with a negative number is malformed",
                     "[display]\nband = 20--5\n", false, 2, "expected MIN-MAX");
        expect_error("a band with spaces around the dash is malformed",
                     "[display]\nband = 20 - 30\n", false, 2, "expected MIN-MAX");

        /* geometry, depth */
        expect_error("a geometry without 'x' is an error",
                     "[display]\ngeometry = 800\n", false, 2, "expected WIDTHxHEIGHT");
        expect_error("a geometry with a capital X is an error",
                     "[display]\ngeometry = 800X600\n", false, 2, "expected WIDTHxHEIGHT");
        expect_error("a geometry narrower than 320 is an error",
                     "[display]\ngeometry = 319x600\n", false, 2, "width is out of range (allowed: 320..8192)");
        expect_error("a geometry lower than 200 is an error",
                     "[display]\ngeometry = 800x199\n", false, 2, "height is out of range (allowed: 200..8192)");
        expect_error("a geometry wider than 8192 is an error",
                     "[display]\ngeometry = 8193x600\n", false, 2, "width is out of range");
        expect_error("a depth of 8 is an error",
                     "[display]\ndepth = 8\n", false, 2, "allowed: 16, 24 or 32");
        expect_error("a depth of 25 is an error",
                     "[display]\ndepth = 25\n", false, 2, "allowed: 16, 24 or 32");

        /* strings */
        expect_error("an unknown desktop is an error",
                     "[session]\ndesktop = kde\n", false, 2, "allowed: xfce or command");
        expect_error("a relative wallpaper path is an error",
                     "[session]\nwallpaper = bg.png\n", false, 2, "not an absolute path");
        expect_error("auto_start that is not a boolean is an error on its line",
                     "[session]\nauto_start = maybe\n", false, 2, "not a boolean");
        expect_error("auto_start outside [session] is an error",
                     "[display]\nauto_start = yes\n", false, 2, "auto_start");
        expect_clean("auto_start = yes is accepted", load(NULL, "[session]\nauto_start = yes\n", false));
        tap_ok(cfg.auto_start, "... and turns auto_start on");
        expect_clean("a profile may turn auto_start off again",
                     load("w", "[session]\nauto_start = yes\n[profile.w]\nauto_start = no\n", false));
        tap_ok(!cfg.auto_start, "... and the profile's no wins");
        expect_error("a browser profile dir in another user's home (~NAME) is an error",
                     "[browser]\nprofile_dir = ~bob/p\n", false, 2, "~NAME is not supported");
        expect_clean("a relative browser profile dir (below the state dir) is accepted",
                     load(NULL, "[browser]\nprofile_dir = p\n", false));
        expect_clean("a browser profile dir of ~/PATH is accepted",
                     load(NULL, "[browser]\nprofile_dir = ~/.config/chromium\n", false));
        TAP_EQ_STR(cfg.browser_profile_dir, "~/.config/chromium", "... and kept for the helper to resolve");
        expect_error("a bare browser name is an error",
                     "[browser]\nexecutable = chromium\n", false, 2, "expected auto, none or an absolute path");
        expect_error("an empty browser executable is an error",
                     "[browser]\nexecutable =\n", false, 2, "expected auto, none or an absolute path");
        expect_error("a user name with capitals is an error",
                     "[profile.work]\nuser = Agent\n", false, 2, "not a valid user name");
        expect_error("a user name longer than 32 characters is an error",
                     "[profile.work]\nuser = abcdefghijabcdefghijabcdefghijabc\n", false, 2, "not a valid user name");
        expect_error("a control character in a value is shown escaped",
                     "[session]\ndesktop = \x1b[31mred\n", false, 2, "desktop = \\x1b[31mred");

        /* desktop = command */
        expect_error("desktop = command without a command is an error on the desktop line",
                     "[session]\n\ndesktop = command\n", false, 3, "no command is set");
        expect_error("desktop = command in a profile without any command is an error on that line",
                     "[session]\n[profile.work]\ndesktop = command\n", false, 3, "for profile 'work'");
        expect_error("a command set only in a profile does not satisfy a global desktop = command",
                     "[session]\ndesktop = command\n[profile.work]\ncommand = foo\n", false, 2, "no command is set");
        expect_error("an empty command does not satisfy desktop = command",
                     "[session]\ndesktop = command\ncommand =\n", false, 2, "no command is set");
        expect_clean("a global command satisfies desktop = command in a profile",
                     load("work", "[session]\ncommand = foo\n[profile.work]\ndesktop = command\n", false));
        tap_ok(cfg.desktop == DESKTOP_COMMAND, "desktop = command in the requested profile is applied");
}

static void test_line_length(void) {
        _cleanup_free_ char *line300 = NULL, *line5000 = NULL, *text = NULL, *pad = NULL;
        const struct config_error *e;
        unsigned max = 0;
        int r;

        line300 = repeat('a', 300);
        if (asprintf(&text, "[session]\ncommand = %s\ndepth = 16\n", line300) < 0)
                abort();
        r = load(NULL, text, false);
        e = find_error("test.ini", 2, "line too long (max ");
        tap_ok(r == -EINVAL && e, "a 300-character line is an error on its line");
        if (e)
                sscanf(strstr(e->message, "max ") + 4, "%u", &max);
        tap_ok(max >= 100 && max <= CONFIG_MAX_LINE, "the error names the maximum line length (%u)", max);
        tap_ok(!cfg.command, "an over-long value is not truncated into the config");
        tap_ok(errs.n == 2 && find_error("test.ini", 3, "it belongs in [display]"),
               "the line after an over-long line is parsed as line 3");

        free(text);
        line5000 = repeat('b', 5000);
        if (asprintf(&text, "[session]\n\n\ncommand = %s\n[display]\ndepth = 8\n", line5000) < 0)
                abort();
        r = load(NULL, text, false);
        tap_ok(r == -EINVAL && errs.n == 2 && find_error("test.ini", 4, "line too long") &&
               find_error("test.ini", 6, "depth = 8"),
               "a 5000-character line is one error and the lines after it keep their numbers");

        /* "command = " is 10 characters */
        pad = repeat('p', max - 10);
        free(text);
        if (asprintf(&text, "[session]\ncommand = %s\n", pad) < 0)
                abort();
        r = load(NULL, text, false);
        tap_ok(r == 0 && cfg.command && strlen(cfg.command) == max - 10,
               "a line of exactly the maximum length is accepted whole");
        free(text);
        if (asprintf(&text, "[session]\ncommand = %sp\r\n", pad) < 0)
                abort();
        r = load(NULL, text, false);
        tap_ok(r == -EINVAL && find_error("test.ini", 2, "line too long") && !cfg.command,
               "a line one character over the maximum is an error");
}

static void test_many_errors(void) {
        int r;

        r = load(NULL,
                 "[display]\n"             /* 1 */
                 "depth = 8\n"             /* 2 */
                 "dpi = 96\n"              /* 3 */
                 "nonsense\n"              /* 4 */
                 "[colours]\n"             /* 5 */
                 "red = 1\n"               /* 6: not reported again */
                 "[session]\n"             /* 7 */
                 "start_timeout = 0\n"     /* 8 */
                 "start_timeout = 5\n"     /* 9 */
                 "[browser]\n"             /* 10 */
                 "executable = firefox\n"  /* 11 */
                 "[rfb]\n"                 /* 12 */
                 "max_cut_text = 1e6\n",   /* 13 */
                 false);
        tap_ok(r == -EINVAL && errs.n == 7 && find_error("test.ini", 2, "depth") &&
               find_error("test.ini", 4, "expected") && find_error("test.ini", 5, "unknown section") &&
               find_error("test.ini", 8, "out of range") && find_error("test.ini", 9, "duplicate") &&
               find_error("test.ini", 11, "executable") && !find_error("test.ini", 6, "") &&
               find_error("test.ini", 13, "not a decimal number"),
               "several errors in one file are all reported, each on its own line");
        if (errs.n != 7)
                print_errors();
        tap_ok(errs.n >= 2 && errs.items[0].line < errs.items[1].line, "errors are listed in line order");
        tap_ok(cfg.dpi == 96 && cfg.depth == 24 && cfg.start_timeout == 15,
               "valid lines of a file with errors are still applied and bad ones are not");
}

static void test_profiles_in_one_file(void) {
        static const char text[] =
                "[display]\n"
                "geometry = 1000x700\n"
                "[profile.work]\n"
                "geometry = 800x600\n"
                "start_timeout = 5\n"
                "user = agent\n"
                "[profile.other]\n"
                "geometry = 2000x1000\n";
        int r;

        r = load("work", text, false);
        expect_clean("profile sections are valid in the system file", r);
        tap_ok(cfg.width == 800 && cfg.height == 600 && cfg.start_timeout == 5,
               "the requested profile's section overrides the globals");
        TAP_EQ_STR(cfg.user, "agent", "the requested profile's user is applied");

        r = load(NULL, text, false);
        tap_ok(r == 0 && cfg.width == 1000 && cfg.start_timeout == 15 && !cfg.user,
               "without a profile, no profile section is applied");

        r = load("missing", text, false);
        tap_ok(r == 0 && cfg.width == 1000 && !cfg.user, "a profile without a section gets the globals");

        r = load("work", "[profile.other]\ndepth = 7\n[profile.work]\ndepth = 16\n", false);
        tap_ok(r == -EINVAL && find_error("test.ini", 2, "depth = 7") && cfg.depth == 16,
               "sections of other profiles are validated too");
}

static void test_host_wide(void) {
        int r;

        expect_error("band in the user file is an error on its line",
                     "[display]\ndepth = 16\nband = 30-40\n", true, 3, "may only be set in a system file: " CONFIG_SYSTEM_FILES);
        tap_ok(cfg.band_min == 20 && cfg.band_max == 89 && cfg.depth == 16,
               "a refused host-wide key is not applied, the rest of the file is");
        expect_error("user in a profile of the user file is an error on its line",
                     "[profile.work]\nuser = agent\n", true, 2, "may only be set in a system file: " CONFIG_SYSTEM_FILES);
        expect_error("band in a profile of the user file is an error too",
                     "[profile.work]\n\nband = 30-40\n", true, 3, "host-wide");
        expect_error("a bad host-wide value in the user file reports the host-wide rule",
                     "[display]\nband = nonsense\n", true, 2, "host-wide");

        r = load("work", "[display]\nband = 30-40\n[profile.work]\nuser = agent\n", false);
        expect_clean("band and user are accepted in the system file", r);
        tap_ok(cfg.band_min == 30 && cfg.band_max == 40, "band from the system file is applied");
}

int main(void) {
        if (!mkdtemp(tmpdir))
                abort();
        unsetenv("BOTDESK_CONFIG");

        test_defaults();
        test_values();
        test_errors();
        test_line_length();
        test_many_errors();
        test_profiles_in_one_file();
        test_host_wide();

        reset();
        config_errors_done(NULL);
        config_done(NULL);
        (void) rmdir(tmpdir);
        return tap_done();
}
