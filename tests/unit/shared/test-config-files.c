/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The configuration from files: which are read, in which context, the environment, the shipped file, dump and print. */
#include "config-fixture.h"

static void test_files(void) {
        static const char nul_text[] = "[display]\ndepth = 16\0 junk\ndpi = 100\n";
        _cleanup_free_ char *sys = NULL, *user = NULL, *missing = NULL, *nul = NULL, *big = NULL, *bigtext = NULL;
        int r;

        sys = write_tmp("system.ini",
                        "[display]\n"
                        "geometry = 1000x700\n"
                        "dpi = 100\n"
                        "frame_rate = 10\n"
                        "[session]\n"
                        "command = /bin/system\n"
                        "[profile.work]\n"
                        "dpi = 120\n"
                        "frame_rate = 20\n"
                        "user = agent\n"
                        "[profile.other]\n"
                        "geometry = 2000x1000\n",
                        SIZE_MAX, 0644);
        user = write_tmp("user.ini",
                         "[display]\n"
                         "geometry = 1100x700\n"
                         "dpi = 110\n"
                         "[session]\n"
                         "command =\n"
                         "[profile.work]\n"
                         "frame_rate = 25\n",
                         SIZE_MAX, 0644);

        r = load_files("work", sys, user, false);
        expect_clean("a system and a user file load cleanly", r);
        tap_ok(cfg.width == 1100, "the user file's globals override the system file's globals");
        tap_ok(cfg.dpi == 120, "the system file's profile section overrides the user file's globals");
        tap_ok(cfg.frame_rate == 25, "the user file's profile section overrides the system file's profile section");
        TAP_EQ_STR(cfg.user, "agent", "the profile's user comes from the system file");
        tap_ok(!cfg.command, "an empty value in the user file clears the system file's value");

        r = load_files(NULL, sys, user, false);
        tap_ok(r == 0 && cfg.width == 1100 && cfg.dpi == 110 && cfg.frame_rate == 10 && !cfg.user,
               "without a profile only the globals of both files apply");
        r = load_files("other", sys, user, false);
        tap_ok(r == 0 && cfg.width == 2000 && cfg.dpi == 110 && cfg.frame_rate == 10,
               "profile overrides apply only to the named profile");

        missing = tmp_path("does-not-exist.ini");
        r = load_files(NULL, missing, missing, false);
        expect_clean("missing system and user files are fine", r);
        tap_ok(cfg.width == 1440, "missing files leave the defaults");

        r = load_files(NULL, sys, "", false);
        tap_ok(r == 0 && cfg.width == 1000, "user_path \"\" reads no user file");

        r = load_files(NULL, tmpdir, "", false);
        tap_ok(r < 0 && r != -EINVAL && errs.n == 1 && find_error(tmpdir, 0, "not a regular file"),
               "a path that exists but is not a readable file is an error for the whole file");

        /* error in the system file, error in the user file: both reported */
        free(user);
        user = write_tmp("user.ini", "[display]\ndepth = 9\n", SIZE_MAX, 0644);
        free(sys);
        sys = write_tmp("system.ini", "[display]\n\ndpi = 9\n", SIZE_MAX, 0644);
        r = load_files(NULL, sys, user, false);
        tap_ok(r == -EINVAL && errs.n == 2 && find_error(sys, 3, "dpi") && find_error(user, 2, "depth"),
               "errors of both files are reported, each naming its file and line");

        nul = write_tmp("nul.ini", nul_text, sizeof(nul_text) - 1, 0644);
        r = load_files(NULL, nul, "", false);
        tap_ok(r == -EINVAL && errs.n == 1 && find_error(nul, 2, "NUL") && cfg.depth == 24 && cfg.dpi == 100,
               "a NUL byte in a line is an error on that line");

        bigtext = repeat('\n', 70000);
        big = write_tmp("big.ini", bigtext, 70000, 0644);
        r = load_files(NULL, big, "", false);
        tap_ok(r < 0 && find_error(big, 0, "too large"), "a file above the size limit is refused");
        (void) unlink(nul);
        (void) unlink(big);
        (void) unlink(sys);
        (void) unlink(user);
}

static void test_root_context(void) {
        _cleanup_free_ char *path = NULL;
        int r;

        path = write_tmp("root.ini", "[display]\ndepth = 16\n", SIZE_MAX, 0644);
        (void) chmod(path, 0666); /* umask would have masked it at creation */

        r = load_files(NULL, path, "", true);
        tap_ok(r == -EPERM && find_error(path, 0, "must not be writable by group or others") && cfg.depth == 24,
               "in root context a world-writable system file is refused and not used");
        r = load_files(NULL, path, "", false);
        tap_ok(r == 0 && cfg.depth == 16, "outside root context the same file is used");

        if (chmod(path, 0644) < 0)
                abort();
        if (geteuid() == 0 && chown(path, 65534, 65534) < 0)
                abort();
        r = load_files(NULL, path, "", true);
        tap_ok(r == -EPERM && errs.n == 1 && find_error(path, 0, "must be owned by root") && cfg.depth == 24,
               "in root context a system file not owned by root is refused");
        (void) unlink(path);
}

static void test_environment(void) {
        _cleanup_free_ char *path = NULL, *dir = NULL, *user = NULL;
        struct config_sources src = { .user_path = "" };
        int r;

        path = write_tmp("env.ini", "[display]\ndepth = 32\ndpi = 1\n", SIZE_MAX, 0644);
        setenv("BOTDESK_CONFIG", path, 1);
        reset();
        r = config_load(&cfg, NULL, &src, &errs);
        tap_ok(r == -EINVAL && cfg.depth == 32 && errs.n == 1 && find_error(path, 3, "dpi"),
               "BOTDESK_CONFIG names the system file, and its errors name that path");
        unsetenv("BOTDESK_CONFIG");

        /* the default user file is $XDG_CONFIG_HOME/botdesk/botdesk.ini */
        dir = tmp_path("botdesk");
        if (mkdir(dir, 0700) < 0)
                abort();
        user = write_tmp("botdesk/botdesk.ini", "[display]\nband = 1-2\n", SIZE_MAX, 0644);
        setenv("XDG_CONFIG_HOME", tmpdir, 1);
        src = (struct config_sources) { .system_path = "/nonexistent/botdesk.ini" };
        reset();
        r = config_load(&cfg, NULL, &src, &errs);
        tap_ok(r == -EINVAL && errs.n == 1 && find_error(user, 2, "host-wide"),
               "the user file defaults to $XDG_CONFIG_HOME/botdesk/botdesk.ini and is treated as a user file");
        unsetenv("XDG_CONFIG_HOME");
        (void) unlink(user);
        (void) rmdir(dir);
        (void) unlink(path);
}

static void test_shipped_config(void) {
        _cleanup_free_ char *path = NULL, *a = NULL, *b = NULL;
        const char *srcdir = getenv("BOTDESK_SOURCE_DIR");
        struct bd_config d;
        size_t na = 0, nb = 0;
        FILE *f;
        int r;

        if (srcdir) {
                if (asprintf(&path, "%s/conf/botdesk.ini", srcdir) < 0)
                        abort();
        } else {
                /* __FILE__ is tests/unit/test-config.c relative to wherever
                 * the compiler ran; try that, then the current directory. */
                const char *slash = strrchr(__FILE__, '/');
                if (asprintf(&path, "%.*s/../../conf/botdesk.ini", slash ? (int) (slash - __FILE__) : 1,
                             slash ? __FILE__ : ".") < 0)
                        abort();
                if (access(path, R_OK) < 0) {
                        free(path);
                        path = strdup("conf/botdesk.ini");
                }
        }

        if (!tap_ok(access(path, R_OK) == 0, "the shipped conf/botdesk.ini is found (%s)", path))
                printf("#   set BOTDESK_SOURCE_DIR to the source tree\n");
        r = load_files(NULL, path, "", false);
        expect_clean("the shipped conf/botdesk.ini parses with zero errors", r);

        /* It documents the defaults: its effective values are the built-in ones. */
        config_defaults(&d);
        f = open_memstream(&a, &na);
        config_dump(&d, f);
        fclose(f);
        f = open_memstream(&b, &nb);
        config_dump(&cfg, f);
        fclose(f);
        TAP_EQ_STR(b, a, "the shipped conf/botdesk.ini sets every key to its built-in default");
        config_done(&d);
}

static void test_dump_and_print(void) {
        _cleanup_free_ char *a = NULL, *b = NULL, *out = NULL;
        struct config_errors e = {};
        size_t na = 0, nb = 0, nout = 0;
        FILE *f;
        int r;

        r = load("work",
                 "[display]\nband = 10-19\ngeometry = 800x600\n[session]\ndesktop = command\ncommand = run me\n"
                 "wallpaper = /x.png\n[profile.work]\nuser = agent\n",
                 false);
        f = open_memstream(&a, &na);
        config_dump(&cfg, f);
        fclose(f);
        tap_ok(r == 0 && strstr(a, "[display]\nband = 10-19\ngeometry = 800x600\n") &&
               strstr(a, "command = run me\n") && strstr(a, "[rfb]\nmax_cut_text = 262144\n") &&
               strstr(a, "profile_dir =\n") && strstr(a, "user = agent"),
               "config_dump prints every key with its effective value");

        r = load(NULL, a, false);
        expect_clean("config_dump's output parses back with zero errors", r);
        f = open_memstream(&b, &nb);
        config_dump(&cfg, f);
        fclose(f);
        /* user is a comment in the dump: only the profile line may differ */
        tap_ok(strncmp(a, b, strstr(a, "; user") - a) == 0, "config_dump's output reads back to the same values");

        r = load(NULL, "[display]\ndepth = 1\n", false);
        e = errs;
        errs = (struct config_errors) {};
        e.items = realloc(e.items, (e.n + 1) * sizeof(*e.items));
        if (!e.items)
                abort();
        e.items[e.n++] = (struct config_error) { strdup("whole.ini"), 0, strdup("cannot open") };
        f = open_memstream(&out, &nout);
        config_errors_print(&e, f);
        fclose(f);
        TAP_EQ_STR(out,
                   "test.ini:2: depth = 1: not a supported depth (allowed: 16, 24 or 32)\n"
                   "whole.ini: cannot open\n",
                   "config_errors_print prints FILE:LINE: message, and FILE: message for line 0");
        config_errors_done(&e);
}

int main(void) {
        if (!mkdtemp(tmpdir))
                abort();
        unsetenv("BOTDESK_CONFIG");

        test_files();
        test_root_context();
        test_environment();
        test_shipped_config();
        test_dump_and_print();

        reset();
        config_errors_done(NULL);
        config_done(NULL);
        (void) rmdir(tmpdir);
        return tap_done();
}
