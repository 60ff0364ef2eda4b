/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The configuration's files the systemd way: SYSCONFDIR/botdesk.ini, then
 * SYSCONFDIR/botdesk/botdesk.ini and the .ini files of botdesk.ini.d/ in
 * lexical order, then the user's file and its drop-ins; drop-ins that are
 * not regular files or that another uid may write are refused; where each
 * value comes from. All in a scratch dir standing for /etc and ~/.config.
 */
#include <sys/stat.h>
#include <sys/types.h>

#include "config-fixture.h"
#include "keys.h"

static struct config_set *set;

static void mkdir_tmp(const char *name) {
        _cleanup_free_ char *p = tmp_path(name);

        if (mkdir(p, 0755) < 0 && errno != EEXIST)
                abort();
        if (chmod(p, 0755) < 0) /* the umask is not the test's business */
                abort();
}

/* The set of sysconf_dir etc/ and the user file xdg/botdesk/botdesk.ini, built for profile. */
static int load_tree(const char *profile) {
        _cleanup_free_ char *etc = tmp_path("etc"), *user = tmp_path("xdg/botdesk/botdesk.ini");
        struct config_sources src = { .sysconf_dir = etc, .user_path = user };
        int r, q;

        reset();
        set = config_set_free(set);
        r = config_set_load(&src, &set, &errs);
        if (!set)
                abort();
        q = config_set_build(set, profile, &cfg);
        if (q < 0)
                abort();
        return r;
}

/* The files read, one a line. */
static char *files_read(void) {
        char *text = NULL;
        size_t size = 0;
        const char *name;
        FILE *f = open_memstream(&text, &size);

        if (!f)
                abort();
        for (size_t i = 0; (name = config_set_file(set, i)); i++)
                fprintf(f, "%s\n", name);
        if (fclose(f) != 0)
                abort();
        return text;
}

static void expect_files(const char *want, const char *name) {
        _cleanup_free_ char *got = files_read(), *w = NULL;

        /* want: names relative to the scratch dir, "|"-separated */
        w = strdup("");
        for (const char *p = want; *p;) {
                const char *e = strchr(p, '|') ?: p + strlen(p);
                char *n = strdup_printf("%s%s/%.*s\n", w, tmpdir, (int) (e - p), p);

                free(w);
                w = n;
                p = *e ? e + 1 : e;
        }
        TAP_EQ_STR(got, w, "%s", name);
}

static void test_order(void) {
        _cleanup_free_ char *a = NULL;
        int r;

        mkdir_tmp("etc");
        mkdir_tmp("etc/botdesk");
        mkdir_tmp("etc/botdesk/botdesk.ini.d");
        mkdir_tmp("xdg");
        mkdir_tmp("xdg/botdesk");
        mkdir_tmp("xdg/botdesk/botdesk.ini.d");

        r = load_tree(NULL);
        expect_clean("no files at all: the defaults, no error", r);
        tap_ok(!config_set_file(set, 0) && cfg.dpi == 96, "... and no file is listed as read");

        free(write_tmp("etc/botdesk.ini", "[display]\ndpi = 100\nframe_rate = 10\ndepth = 16\n", SIZE_MAX, 0644));
        free(write_tmp("etc/botdesk/botdesk.ini", "[display]\ndpi = 110\nframe_rate = 11\n", SIZE_MAX, 0644));
        free(write_tmp("etc/botdesk/botdesk.ini.d/10-a.ini", "[display]\ndpi = 120\n[session]\nstart_timeout = 5\n",
                       SIZE_MAX, 0644));
        free(write_tmp("etc/botdesk/botdesk.ini.d/20-b.ini", "[display]\ndpi = 130\n", SIZE_MAX, 0644));
        /* "9-z" sorts after "20-b": byte order, not numeric. */
        free(write_tmp("etc/botdesk/botdesk.ini.d/9-z.ini", "[display]\ndpi = 140\ngeometry = 1000x700\n",
                       SIZE_MAX, 0644));
        free(write_tmp("xdg/botdesk/botdesk.ini", "[display]\ngeometry = 1100x700\n[session]\nstart_timeout = 6\n",
                       SIZE_MAX, 0644));
        free(write_tmp("xdg/botdesk/botdesk.ini.d/50-u.ini", "[session]\nstart_timeout = 7\n[profile.work]\ndpi = 200\n",
                       SIZE_MAX, 0644));

        r = load_tree(NULL);
        expect_clean("the system files, their drop-ins, the user file and its drop-ins load cleanly", r);
        TAP_EQ_INT(cfg.depth, 16, "/etc/botdesk.ini is still read: a key only it sets applies");
        TAP_EQ_INT(cfg.frame_rate, 11, "/etc/botdesk/botdesk.ini overrides /etc/botdesk.ini");
        TAP_EQ_INT(cfg.dpi, 140, "a later drop-in overrides an earlier one, in lexical order (9-z.ini after 20-b.ini)");
        TAP_EQ_INT(cfg.width, 1100, "the user file overrides the system drop-ins");
        TAP_EQ_INT(cfg.start_timeout, 7, "the user's drop-in overrides the user file");
        expect_files("etc/botdesk.ini|etc/botdesk/botdesk.ini|etc/botdesk/botdesk.ini.d/10-a.ini|"
                     "etc/botdesk/botdesk.ini.d/20-b.ini|etc/botdesk/botdesk.ini.d/9-z.ini|"
                     "xdg/botdesk/botdesk.ini|xdg/botdesk/botdesk.ini.d/50-u.ini",
                     "the files read are listed in the order of application");

        r = load_tree("work");
        tap_ok(r == 0 && cfg.dpi == 200, "a profile section of a user drop-in applies to its profile");

        /* Only .ini files, and no hidden ones: an editor's backup, a README, kubelet's ..data. */
        free(write_tmp("etc/botdesk/botdesk.ini.d/README", "not ini at all\n", SIZE_MAX, 0644));
        free(write_tmp("etc/botdesk/botdesk.ini.d/30-x.ini.bak", "[display]\ndpi = 1\n", SIZE_MAX, 0644));
        free(write_tmp("etc/botdesk/botdesk.ini.d/30-x.conf", "[display]\ndpi = 2\n", SIZE_MAX, 0644));
        free(write_tmp("etc/botdesk/botdesk.ini.d/.hidden.ini", "[display]\ndpi = 3\n", SIZE_MAX, 0644));
        free(write_tmp("xdg/botdesk/botdesk.ini.d/60-u.ini~", "bad\n", SIZE_MAX, 0644));
        mkdir_tmp("etc/botdesk/botdesk.ini.d/..data");
        r = load_tree(NULL);
        expect_clean("entries not ending in .ini, and hidden ones, are ignored", r);
        TAP_EQ_INT(cfg.dpi, 140, "... and nothing of them applies");

        /* A ConfigMap's files are symlinks into its ..data/. */
        free(write_tmp("etc/botdesk/botdesk.ini.d/..data/95-cm.ini", "[display]\ndpi = 150\n", SIZE_MAX, 0644));
        a = tmp_path("etc/botdesk/botdesk.ini.d/95-cm.ini");
        if (symlink("..data/95-cm.ini", a) < 0)
                abort();
        r = load_tree(NULL);
        tap_ok(r == 0 && cfg.dpi == 150, "a drop-in that is a symlink to a regular file is read (a ConfigMap's are)");

        /* No fixed small limit: 300 drop-ins are all read, the last wins. */
        for (unsigned i = 0; i < 300; i++) {
                _cleanup_free_ char *name = strdup_printf("etc/botdesk/botdesk.ini.d/96-%03u.ini", i);
                _cleanup_free_ char *text = strdup_printf("[display]\ndpi = %u\n", 300 + i);

                free(write_tmp(name, text, SIZE_MAX, 0644));
        }
        r = load_tree(NULL);
        tap_ok(r == 0 && cfg.dpi == 599, "300 drop-ins are all read, none left out");
        for (unsigned i = 0; i < 300; i++) {
                _cleanup_free_ char *name = strdup_printf("etc/botdesk/botdesk.ini.d/96-%03u.ini", i);
                _cleanup_free_ char *p = tmp_path(name);

                (void) unlink(p);
        }
}

static void test_errors(void) {
        _cleanup_free_ char *bad = NULL, *gw = NULL, *fifo = NULL, *dir = NULL, *dev = NULL, *other = NULL,
                            *uhw = NULL, *listed = NULL;
        int r;

        bad = write_tmp("etc/botdesk/botdesk.ini.d/40-bad.ini", "[display]\ndpii = 100\ndpi = 99\n[display]\ndpi = 98\n",
                        SIZE_MAX, 0644);
        r = load_tree(NULL);
        tap_ok(r == -EINVAL && errs.n == 2 && find_error(bad, 2, "unknown key 'dpii' in [display]") &&
               find_error(bad, 5, "duplicate key 'dpi' in [display] (first set on line 3)"),
               "an unknown and a duplicated key in a drop-in are errors naming the drop-in and the line");
        if (errs.n != 2)
                print_errors();
        (void) unlink(bad);

        uhw = write_tmp("xdg/botdesk/botdesk.ini.d/70-band.ini", "[display]\nband = 30-40\n", SIZE_MAX, 0644);
        r = load_tree(NULL);
        tap_ok(r == -EINVAL && errs.n == 1 && find_error(uhw, 2, "host-wide"),
               "a host-wide key in a user drop-in is an error, as in the user file");
        (void) unlink(uhw);

        gw = write_tmp("etc/botdesk/botdesk.ini.d/97-gw.ini", "[display]\ndpi = 700\n", SIZE_MAX, 0664);
        r = load_tree(NULL);
        tap_ok(r == -EPERM && errs.n == 1 && find_error(gw, 0, "writable by group or others (mode 0664)") &&
               cfg.dpi == 150,
               "a group-writable drop-in is refused, naming it and the rule, and nothing of it applies");
        listed = files_read();
        tap_ok(!strstr(listed, "97-gw.ini"), "... and it is not listed as read");
        if (chmod(gw, 0646) < 0)
                abort();
        r = load_tree(NULL);
        tap_ok(r == -EPERM && find_error(gw, 0, "writable by group or others"), "so is an other-writable one");
        (void) unlink(gw);

        fifo = tmp_path("xdg/botdesk/botdesk.ini.d/80-fifo.ini");
        if (mkfifo(fifo, 0644) < 0)
                abort();
        dir = tmp_path("etc/botdesk/botdesk.ini.d/80-dir.ini");
        if (mkdir(dir, 0755) < 0)
                abort();
        dev = tmp_path("etc/botdesk/botdesk.ini.d/81-null.ini");
        if (symlink("/dev/null", dev) < 0)
                abort();
        r = load_tree(NULL);
        tap_ok(r < 0 && find_error(fifo, 0, "a FIFO, not a regular file") && cfg.dpi == 150,
               "a FIFO drop-in is refused without hanging, naming it");
        tap_ok(find_error(dir, 0, "a directory, not a regular file") != NULL, "a directory drop-in is refused, naming it");
        tap_ok(find_error(dev, 0, "a character device, not a regular file") != NULL,
               "a drop-in that is a symlink to a device is refused, naming it");
        TAP_EQ_INT(errs.n, 3, "... one error each");
        (void) unlink(fifo);
        (void) rmdir(dir);
        (void) unlink(dev);

        if (geteuid() == 0) {
                other = write_tmp("etc/botdesk/botdesk.ini.d/98-other.ini", "[display]\ndpi = 700\n", SIZE_MAX, 0644);
                if (chown(other, 65534, 65534) < 0)
                        abort();
                r = load_tree(NULL);
                tap_ok(r == -EPERM && errs.n == 1 && find_error(other, 0, "owned by uid 65534") && cfg.dpi == 150,
                       "a drop-in owned by a uid other than root or the reader is refused");
                (void) unlink(other);
        } else
                tap_skip("a drop-in of another uid: only root can make one");

        /* A drop-in "directory" that is a file. */
        {
                _cleanup_free_ char *d = tmp_path("xdg/botdesk/botdesk.ini.d"), *f = NULL, *u = NULL, *b = NULL;

                u = tmp_path("xdg/botdesk/botdesk.ini.d/50-u.ini");
                b = tmp_path("xdg/botdesk/botdesk.ini.d/60-u.ini~");
                (void) unlink(u);
                (void) unlink(b);
                if (rmdir(d) < 0)
                        abort();
                f = write_tmp("xdg/botdesk/botdesk.ini.d", "[display]\n", SIZE_MAX, 0644);
                r = load_tree(NULL);
                tap_ok(r < 0 && errs.n == 1 && find_error(d, 0, "cannot open the drop-in directory: Not a directory"),
                       "a drop-in directory that is not one is an error naming it");
                (void) unlink(f);
                mkdir_tmp("xdg/botdesk/botdesk.ini.d");
        }
}

static void test_root_context(void) {
        _cleanup_free_ char *etc = tmp_path("etc"), *gw = NULL;
        struct config_sources src = { .sysconf_dir = etc, .user_path = "", .root_context = true };
        int r;

        if (geteuid() != 0) {
                tap_skip("root context: the files of the scratch dir are not root's");
                return;
        }
        reset();
        r = config_load(&cfg, NULL, &src, &errs);
        tap_ok(r == 0 && cfg.dpi == 150, "in root context root's drop-ins are read");
        gw = write_tmp("etc/botdesk/botdesk.ini.d/99-gw.ini", "[display]\ndpi = 700\n", SIZE_MAX, 0664);
        reset();
        r = config_load(&cfg, NULL, &src, &errs);
        tap_ok(r == -EPERM && find_error(gw, 0, "writable by group or others"),
               "in root context a group-writable drop-in is refused, and the load fails (PAM refuses the session)");
        (void) unlink(gw);
}

static void test_environment(void) {
        _cleanup_free_ char *main_path = NULL, *dropin = NULL;
        struct config_sources src = { .user_path = "" };
        int r;

        /* BOTDESK_CONFIG=F: F and F.d/, nothing of the standard system files. */
        mkdir_tmp("env");
        mkdir_tmp("env/botdesk.ini.d");
        main_path = write_tmp("env/botdesk.ini", "[display]\ndpi = 100\n", SIZE_MAX, 0644);
        dropin = write_tmp("env/botdesk.ini.d/10-x.ini", "[display]\ndpi = 101\n", SIZE_MAX, 0644);
        setenv("BOTDESK_CONFIG", main_path, 1);
        reset();
        r = config_load(&cfg, NULL, &src, &errs);
        tap_ok(r == 0 && cfg.dpi == 101, "BOTDESK_CONFIG=F reads F and then the drop-ins of F.d/");

        /* A caller naming the directory is not steered by the environment (PAM). */
        src.sysconf_dir = "/nonexistent";
        reset();
        r = config_load(&cfg, NULL, &src, &errs);
        tap_ok(r == 0 && cfg.dpi == 96, "with sysconf_dir given, BOTDESK_CONFIG is not read");
        unsetenv("BOTDESK_CONFIG");
        (void) unlink(dropin);
        (void) unlink(main_path);
}

static void test_origin(void) {
        _cleanup_free_ char *text = NULL, *want = NULL, *user = NULL;
        size_t size = 0;
        FILE *f;
        int r;

        user = write_tmp("xdg/botdesk/botdesk.ini", "[display]\ngeometry = 1100x700\n[profile.work]\nframe_rate = 50\n",
                         SIZE_MAX, 0644);
        r = load_tree("work");
        f = open_memstream(&text, &size);
        if (!f)
                abort();
        config_dump_origin(&cfg, set, "work", f);
        if (fclose(f) != 0)
                abort();
        tap_ok(r == 0, "the tree loads for the origins");

        /* The symlink's name is what was read: the drop-in's, not its target's. */
        want = strdup_printf("\ndpi = 150                               ; %s/etc/botdesk/botdesk.ini.d/95-cm.ini:2\n", tmpdir);
        tap_ok(strstr(text, want) != NULL, "show --origin names the drop-in and line that set a value");
        free(want);
        want = strdup_printf("\ngeometry = 1100x700                     ; %s/xdg/botdesk/botdesk.ini:2\n", tmpdir);
        tap_ok(strstr(text, want) != NULL, "... the user file and line for a value it set");
        free(want);
        want = strdup_printf("\nframe_rate = 50                         ; %s/xdg/botdesk/botdesk.ini:4\n", tmpdir);
        tap_ok(strstr(text, want) != NULL, "... the line of the profile's section for a value it set");
        free(want);
        want = strdup_printf("\ndepth = 16                              ; %s/etc/botdesk.ini:4\n", tmpdir);
        tap_ok(strstr(text, want) != NULL, "... /etc/botdesk.ini for a value only it sets");
        tap_ok(strstr(text, "\nmax_cut_text = 262144                   ; (default)\n") != NULL,
               "... and (default) for a value no file sets");
        if (!tap_ok(strstr(text, "\n; exec_shell = auto                     ; (default)\n") != NULL,
                    "... also for the keys of [profile.NAME] only"))
                printf("# %s\n", text);

        /* It stays INI that reads back to the same values. */
        {
                struct bd_config back = cfg;
                _cleanup_free_ char *a = NULL, *b = NULL;

                cfg = (struct bd_config) {};
                reset();
                r = config_load_string(&cfg, NULL, text, "origin.ini", false, &errs);
                a = config_dump_text(&cfg);
                config_done(&cfg);
                cfg = back;
                b = config_dump_text(&cfg);
                /* user, placement, ... are comments: compare the globals. */
                tap_ok(r == 0 && a && b && strncmp(a, b, strstr(a, "; from") - a) == 0,
                       "the output of --origin is INI that reads back to the same values");
        }
        (void) unlink(user);
}

int main(void) {
        if (!mkdtemp(tmpdir))
                abort();
        unsetenv("BOTDESK_CONFIG");

        test_order();
        test_errors();
        test_root_context();
        test_environment();
        test_origin();

        reset();
        set = config_set_free(set);
        if (tmpdir[0] == '/' && remove_tree_at(AT_FDCWD, tmpdir) < 0)
                printf("# could not remove %s\n", tmpdir);
        return tap_done();
}
