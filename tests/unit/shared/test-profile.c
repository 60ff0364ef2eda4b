/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Profile names and per-profile paths. Directories are created under a
 * mkdtemp dir that stands in for $XDG_RUNTIME_DIR and $XDG_STATE_HOME.
 */

#include <fcntl.h>
#include <signal.h>
#include <pwd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include "fixture.h"
#include "tap.h"
#include "profile.h"
#include "util.h"

static char base[PATH_MAX];

/* Permission bits of path (not following a symlink), or -1 when it is missing. */
static int mode_of(const char *path) {
        struct stat st;

        return lstat(path, &st) < 0 ? -1 : (int) (st.st_mode & 07777);
}

static bool is_symlink(const char *path) {
        struct stat st;

        return lstat(path, &st) == 0 && S_ISLNK(st.st_mode);
}

static void test_names(void) {
        static const struct {
                const char *name;
                const char *what;
        } bad[] = {
                { "",      "an empty name" },
                { "..",    "\"..\"" },
                { ".",     "\".\"" },
                { "a/b",   "a name with a slash" },
                { " a",    "a name starting with a space" },
                { "a ",    "a name ending with a space" },
                { "é",     "a non-ASCII name" },
                { "-a",    "a name starting with a dash" },
                { "_a",    "a name starting with an underscore" },
                { "a.b",   "a name with a dot" },
                { "a.1234567",   "a scope of 7 digits" },
                { "a.123456789", "a scope of 9 digits" },
                { "a.1234567G",  "a scope that is not hex" },
                { "a.ABCDEF12",  "a scope in capitals" },
                { "a.12345678.", "a scoped name with a trailing dot" },
                { "abcdefghijklmnopqrstuvwxyz0123456.12345678", "a scoped name whose own part has 33 characters" },
                { "a\nb", "a name with a newline" },
                { "a:b",   "a name with a colon" },
                { "abcdefghijklmnopqrstuvwxyz0123456", "a name of 33 characters" },
        };
        static const char *const good[] = {
                "work", "a", "A-b_9", "9", "Z_", "abcdefghijklmnopqrstuvwxyz012345", /* 32 */
                "work.e8c0124d", "abcdefghijklmnopqrstuvwxyz012345.0123abcd", /* scoped: 41 */
        };

        for (size_t i = 0; i < ELEMENTSOF(bad); i++)
                tap_ok(!profile_name_valid(bad[i].name), "%s is refused as a profile name", bad[i].what);
        tap_ok(!profile_name_valid(NULL), "a missing profile name is refused");
        for (size_t i = 0; i < ELEMENTSOF(good); i++)
                tap_ok(profile_name_valid(good[i]), "the profile name \"%s\" (%zu characters) is accepted",
                       good[i], strlen(good[i]));
}

/* A gateway's home scopes a name: NAME, a dot, the first 8 hex digits of the SHA-256 of the home's path. */
static void test_scope(void) {
        char scoped[PROFILE_NAME_MAX + 1];

        TAP_EQ_INT(profile_scope("work", "/srv/gateway", scoped), 0, "a name scoped by a home");
        TAP_EQ_STR(scoped, "work.e8c0124d", "... is NAME.SCOPE, SCOPE from sha256(\"/srv/gateway\")");
        profile_scope("work", "/srv/gateway//", scoped);
        TAP_EQ_STR(scoped, "work.e8c0124d", "the home's trailing slashes are no part of it");
        TAP_EQ_INT((int) profile_base_len(scoped), 4, "the scoped name's own part is the profile's");
        TAP_EQ_INT(profile_scope("work", NULL, scoped), 0, "without a home ...");
        TAP_EQ_STR(scoped, "work", "... the name is its own");
        TAP_EQ_INT(profile_scope("work", "srv/gateway", scoped), -EINVAL, "a relative home is refused");
        TAP_EQ_INT(profile_scope("work.e8c0124d", "/srv/gateway", scoped), -EINVAL, "a scoped name is not scoped again");
        TAP_EQ_INT(profile_scope("a/b", "/srv/gateway", scoped), -EINVAL, "a name that is no profile's is refused");
}

static void test_spare_names(void) {
        char name[SPARE_NAME_SIZE], other[SPARE_NAME_SIZE];
        static const char *const bad[] = {
                "_spare-", "_spare-0123456", "_spare-012345678", "_spare-0123456G", "_spare-ABCDEF01",
                "spare-01234567", "_Spare-01234567", "_spare_01234567",
        };

        TAP_EQ_INT(spare_name_new(name), 0, "a spare name is made");
        tap_ok(spare_name_valid(name), "it is a valid spare name (%s)", name);
        tap_ok(!profile_name_valid(name), "no profile can have it");
        tap_ok(desktop_name_valid(name) && desktop_name_valid("work"), "a desktop is a profile's or a spare's");
        TAP_EQ_INT(spare_name_new(other), 0, "a second spare name is made");
        tap_ok(!streq(name, other), "each is new (%s, %s)", name, other);
        for (size_t i = 0; i < ELEMENTSOF(bad); i++)
                tap_ok(!spare_name_valid(bad[i]), "\"%s\" is no spare's name", bad[i]);
        tap_ok(!spare_name_valid(NULL), "a missing name is no spare's");
}

static void test_paths_from_env(void) {
        struct bd_paths p = {};
        _cleanup_free_ char *rb = NULL, *want = NULL;
        struct passwd *pw;

        setenv("XDG_RUNTIME_DIR", "/run/user/1000", 1);
        setenv("XDG_STATE_HOME", "/home/u/.state", 1);
        setenv("HOME", "/home/u", 1);
        TAP_EQ_INT(paths_for_profile("work", &p), 0, "paths of a valid profile are computed");
        TAP_EQ_STR(p.runtime_base, "/run/user/1000/botdesk", "the runtime base is under $XDG_RUNTIME_DIR");
        TAP_EQ_STR(p.runtime, "/run/user/1000/botdesk/work", "the runtime dir is the profile under the runtime base");
        TAP_EQ_STR(p.state, "/home/u/.state/botdesk/work", "the state dir is under $XDG_STATE_HOME");
        TAP_EQ_STR(p.rfb_socket, "/run/user/1000/botdesk/work/rfb.sock", "the RFB socket is in the runtime dir");
        TAP_EQ_STR(p.xauthority, "/run/user/1000/botdesk/work/Xauthority", "the Xauthority file is in the runtime dir");
        TAP_EQ_STR(p.env_file, "/run/user/1000/botdesk/work/env", "the env file is in the runtime dir");
        TAP_EQ_INT(paths_runtime_base(&rb), 0, "the runtime base alone is computed");
        TAP_EQ_STR(rb, p.runtime_base, "paths_runtime_base agrees with paths_for_profile");
        paths_done(&p);
        tap_ok(!p.runtime_base && !p.rfb_socket, "paths_done leaves no dangling pointers");
        paths_done(&p);
        paths_done(NULL);

        setenv("XDG_RUNTIME_DIR", "/run/user/1000//", 1);
        TAP_EQ_INT(paths_for_profile("work", &p), 0, "a runtime dir with trailing slashes is accepted");
        TAP_EQ_STR(p.runtime_base, "/run/user/1000/botdesk", "trailing slashes of $XDG_RUNTIME_DIR are dropped");
        paths_done(&p);

        want = strdup_printf("/tmp/botdesk-%u", (unsigned) getuid());
        unsetenv("XDG_RUNTIME_DIR");
        unsetenv("XDG_STATE_HOME");
        TAP_EQ_INT(paths_for_profile("work", &p), 0, "paths are computed without any XDG variable");
        TAP_EQ_STR(p.runtime_base, want, "without $XDG_RUNTIME_DIR the runtime base is the private /tmp/botdesk-UID");
        TAP_EQ_STR(p.state, "/home/u/.local/state/botdesk/work", "without $XDG_STATE_HOME the state dir is under $HOME/.local/state");
        paths_done(&p);

        setenv("XDG_RUNTIME_DIR", "", 1);
        setenv("XDG_STATE_HOME", "", 1);
        TAP_EQ_INT(paths_for_profile("work", &p), 0, "paths are computed with empty XDG variables");
        TAP_EQ_STR(p.runtime_base, want, "an empty $XDG_RUNTIME_DIR counts as unset");
        TAP_EQ_STR(p.state, "/home/u/.local/state/botdesk/work", "an empty $XDG_STATE_HOME counts as unset");
        paths_done(&p);

        setenv("XDG_RUNTIME_DIR", "relative/run", 1);
        setenv("XDG_STATE_HOME", "relative/state", 1);
        TAP_EQ_INT(paths_for_profile("work", &p), 0, "paths are computed with relative XDG variables");
        TAP_EQ_STR(p.runtime_base, want, "a relative $XDG_RUNTIME_DIR is ignored, as the XDG spec says");
        TAP_EQ_STR(p.state, "/home/u/.local/state/botdesk/work", "a relative $XDG_STATE_HOME is ignored");
        paths_done(&p);

        unsetenv("XDG_STATE_HOME");
        unsetenv("HOME");
        pw = getpwuid(getuid());
        if (pw && pw->pw_dir && pw->pw_dir[0] == '/' && pw->pw_dir[1]) {
                _cleanup_free_ char *state = strdup_printf("%s/.local/state/botdesk/work", pw->pw_dir);

                TAP_EQ_INT(paths_for_profile("work", &p), 0, "paths are computed without $HOME");
                TAP_EQ_STR(p.state, state, "without $HOME the state dir is under the passwd home");
                paths_done(&p);
        } else
                tap_skip("without $HOME the state dir is under the passwd home # SKIP no usable passwd entry");

        setenv("HOME", "/home/u", 1);
        p = (struct bd_paths) {};
        TAP_EQ_INT(paths_for_profile("../etc", &p), -EINVAL, "paths of an invalid profile name are refused");
        tap_ok(!p.runtime_base && !p.runtime && !p.state, "a refused profile leaves no paths behind");
}

static void test_sun_path(void) {
        struct bd_paths p = {};
        size_t max = sizeof(((struct sockaddr_un *) NULL)->sun_path);
        /* XDG_RUNTIME_DIR + "/botdesk/work/rfb.sock" (22 characters) */
        size_t fixed = strlen("/botdesk/work/rfb.sock");
        char dir[256];

        memset(dir, 'a', sizeof(dir));
        dir[0] = '/';

        dir[max - 1 - fixed] = '\0';
        setenv("XDG_RUNTIME_DIR", dir, 1);
        TAP_EQ_INT(paths_for_profile("work", &p), 0, "an RFB socket path of %zu characters fits in sun_path", max - 1);
        TAP_EQ_INT(p.rfb_socket ? (long long) strlen(p.rfb_socket) : -1, max - 1, "fixture: the socket path is one short of sun_path");
        paths_done(&p);

        dir[max - 1 - fixed] = 'a';
        dir[max - fixed] = '\0';
        setenv("XDG_RUNTIME_DIR", dir, 1);
        TAP_EQ_INT(paths_for_profile("work", &p), -ENAMETOOLONG, "an RFB socket path that fills sun_path is refused with -ENAMETOOLONG");
        tap_ok(!p.rfb_socket, "a refused socket path leaves no paths behind");

        dir[200] = '\0';
        setenv("XDG_RUNTIME_DIR", dir, 1);
        TAP_EQ_INT(paths_for_profile("work", &p), -ENAMETOOLONG, "a long $XDG_RUNTIME_DIR is refused with -ENAMETOOLONG");
}

static void test_ensure(void) {
        _cleanup_free_ char *xdg = path_at(base, "xdg"), *state = path_at(base, "state");
        _cleanup_free_ char *elsewhere = path_at(base, "elsewhere"), *missing = path_at(base, "missing");
        _cleanup_free_ char *state_botdesk = path_at(state, "botdesk");
        struct bd_paths p = {};
        mode_t old_umask = umask(022);

        if (mkdir(xdg, 0700) < 0 || mkdir(elsewhere, 0755) < 0)
                die("mkdir");
        setenv("XDG_RUNTIME_DIR", xdg, 1);
        setenv("XDG_STATE_HOME", state, 1);
        if (paths_for_profile("work", &p) < 0)
                die("paths_for_profile");

        TAP_EQ_INT(paths_ensure(&p), 0, "paths_ensure creates the runtime and state dirs");
        TAP_EQ_INT(mode_of(p.runtime_base), 0700, "the runtime base is created 0700");
        TAP_EQ_INT(mode_of(p.runtime), 0700, "the runtime dir is created 0700");
        TAP_EQ_INT(mode_of(p.state), 0700, "the state dir is created 0700");
        TAP_EQ_INT(mode_of(state_botdesk), 0755, "the state dir's parents are created 0755");
        TAP_EQ_INT(dir_is_private(p.runtime, getuid()), 0, "the runtime dir is private");
        TAP_EQ_INT(paths_ensure(&p), 0, "paths_ensure is idempotent");

        chmod(p.runtime_base, 0755);
        chmod(p.runtime, 0711);
        TAP_EQ_INT(paths_ensure(&p), 0, "paths_ensure accepts our own dirs with a looser mode");
        TAP_EQ_INT(mode_of(p.runtime_base), 0700, "a 0755 runtime base of ours is tightened to 0700");
        TAP_EQ_INT(mode_of(p.runtime), 0700, "a 0711 runtime dir of ours is tightened to 0700");

        rmdir(p.runtime);
        if (symlink(elsewhere, p.runtime) < 0)
                die("symlink");
        TAP_EQ_INT(paths_ensure(&p), -EPERM, "a symlink in place of the runtime dir is refused");
        tap_ok(is_symlink(p.runtime), "the symlink in place of the runtime dir is left as it is");
        TAP_EQ_INT(mode_of(elsewhere), 0755, "the symlink's target is not chmod-ed");
        unlink(p.runtime);

        rename(p.runtime_base, missing);
        if (symlink(missing, p.runtime_base) < 0)
                die("symlink");
        TAP_EQ_INT(paths_ensure(&p), -EPERM, "a symlink in place of the runtime base is refused");
        unlink(p.runtime_base);
        rmdir(missing);

        {
                FILE *f = fopen(p.runtime_base, "we");

                if (!f)
                        die(p.runtime_base);
                fclose(f);
        }
        TAP_EQ_INT(paths_ensure(&p), -ENOTDIR, "a file in place of the runtime base is refused");
        unlink(p.runtime_base);

        if (getuid() == 0) {
                if (mkdir(p.runtime_base, 0755) < 0 || chown(p.runtime_base, 65534, 65534) < 0)
                        die(p.runtime_base);
                TAP_EQ_INT(paths_ensure(&p), -EPERM, "a runtime base owned by another user is refused (a squatted /tmp/botdesk-UID)");
                TAP_EQ_INT(mode_of(p.runtime_base), 0755, "another user's runtime base is not chmod-ed");
                rmdir(p.runtime_base);
        } else {
                tap_skip("a runtime base owned by another user is refused # SKIP needs root to chown");
                tap_skip("another user's runtime base is not chmod-ed # SKIP needs root to chown");
        }
        paths_done(&p);

        setenv("XDG_RUNTIME_DIR", missing, 1);
        if (paths_for_profile("work", &p) < 0)
                die("paths_for_profile");
        TAP_EQ_INT(paths_ensure(&p), -ENOENT, "a missing $XDG_RUNTIME_DIR is an error");
        TAP_EQ_INT(mode_of(missing), -1, "a missing $XDG_RUNTIME_DIR is not created");
        paths_done(&p);

        umask(old_umask);
}

static void test_dir_is_private(void) {
        _cleanup_free_ char *d = path_at(base, "priv"), *l = path_at(base, "priv-link"), *f = path_at(base, "file");
        FILE *file;

        if (mkdir(d, 0700) < 0 || symlink(d, l) < 0 || !(file = fopen(f, "we")))
                die("fixture");
        fclose(file);

        TAP_EQ_INT(dir_is_private(d, getuid()), 0, "a 0700 dir of ours is private");
        TAP_EQ_INT(dir_is_private(d, getuid() + 1), -EPERM, "a dir owned by another uid is not private");
        TAP_EQ_INT(dir_is_private(l, getuid()), -EPERM, "a symlink to a private dir is not private");
        TAP_EQ_INT(dir_is_private(f, getuid()), -EPERM, "a regular file is not a private dir");
        chmod(d, 0750);
        TAP_EQ_INT(dir_is_private(d, getuid()), -EPERM, "a dir with group access is not private");
        chmod(d, 0701);
        TAP_EQ_INT(dir_is_private(d, getuid()), -EPERM, "a dir with other access is not private");
        TAP_EQ_INT(dir_is_private("/nonexistent/dir", getuid()), -ENOENT, "a missing dir gives -ENOENT");
}

/* Without XDG_RUNTIME_DIR: /tmp only when root guards its entries, else $HOME. */
static void test_fallback(void) {
        _cleanup_free_ char *sticky = path_at(base, "tmp-sticky"), *open_ = path_at(base, "tmp-open"),
                            *closed = path_at(base, "tmp-closed"), *home = path_at(base, "home"),
                            *in_tmp = NULL, *in_home = NULL, *got = NULL;
        bool root = getuid() == 0;
        struct stat st;

        if (mkdir(sticky, 0700) < 0 || chmod(sticky, 01777) < 0 || mkdir(open_, 0700) < 0 || chmod(open_, 0777) < 0 ||
            mkdir(closed, 0755) < 0 || mkdir(home, 0700) < 0)
                die("fixture");
        in_home = strdup_printf("%s/.cache/botdesk-run", home);
        if (!in_home)
                die("strdup_printf");

        if (root) {
                in_tmp = strdup_printf("%s/botdesk-%u", sticky, 4242u);
                TAP_EQ_INT(runtime_base_fallback(sticky, home, 4242, &got), 0, "a fallback is found");
                TAP_EQ_STR(got, in_tmp, "a root-owned sticky tmp holds the fallback");
                free(got); got = NULL;
                free(in_tmp);
                in_tmp = strdup_printf("%s/botdesk-%u", closed, 4242u);
                TAP_EQ_INT(runtime_base_fallback(closed, home, 4242, &got), 0, "a fallback is found");
                TAP_EQ_STR(got, in_tmp, "a root-owned tmp that only root may write holds the fallback");
                free(got); got = NULL;
                TAP_EQ_INT(runtime_base_fallback(open_, home, 4242, &got), 0, "a fallback is found");
                TAP_EQ_STR(got, in_home, "a world-writable tmp without the sticky bit is not used: the fallback is under $HOME");
                free(got); got = NULL;
                if (chown(sticky, 65534, 65534) < 0)
                        die("chown");
        }
        TAP_EQ_INT(runtime_base_fallback(sticky, home, 4242, &got), 0, "a fallback is found");
        TAP_EQ_STR(got, in_home, "a sticky tmp that root does not own is not used: the fallback is under $HOME");
        free(got); got = NULL;
        TAP_EQ_INT(runtime_base_fallback(open_, NULL, 4242, &got), -ENOENT,
                   "an unusable tmp and no $HOME: no fallback at all");
        TAP_EQ_INT(runtime_base_fallback(open_, "relative", 4242, &got), -ENOENT, "a relative $HOME is no home");

        if (lstat("/tmp", &st) == 0 && st.st_uid == 0 && (st.st_mode & S_ISVTX)) {
                _cleanup_free_ char *want = strdup_printf("/tmp/botdesk-%u", (unsigned) getuid());

                TAP_EQ_INT(runtime_base_fallback("/tmp", home, getuid(), &got), 0, "a fallback is found");
                TAP_EQ_STR(got, want, "this host's /tmp (root's, sticky) holds the fallback");
                free(got); got = NULL;
        } else
                tap_ok(1, "this host's /tmp holds the fallback # SKIP /tmp is not a root-owned sticky dir here");

        /* paths_ensure creates $HOME/.cache for the home fallback. */
        if (!root) {
                tap_ok(1, "the home fallback is created with its parent # SKIP needs root (a tmp root does not own)");
                return;
        }
        {
                _cleanup_(paths_done) struct bd_paths p = {};

                p.runtime_base = strdup(in_home);
                p.runtime = path_at(in_home, "work");
                p.state = path_at(home, "state/work");
                if (!p.runtime_base)
                        die("strdup");
                TAP_EQ_INT(paths_ensure(&p), 0, "paths_ensure creates the home fallback and its missing parent");
                TAP_EQ_INT(mode_of(in_home), 0700, "the home fallback is 0700");
        }
}

static void test_verified_open(void) {
        _cleanup_free_ char *rb = path_at(base, "vbase"), *rt = path_at(rb, "work"), *fifo = path_at(rt, "env"),
                            *link = path_at(rt, "lease"), *reg = path_at(rt, "display"), *text = NULL;
        _cleanup_(paths_done) struct bd_paths p = {};
        int fd, base_fd = -EBADF;
        FILE *f;

        if (mkdir(rb, 0700) < 0 || mkdir(rt, 0700) < 0 || mkfifo(fifo, 0600) < 0 || symlink(reg, link) < 0 ||
            !(f = fopen(reg, "we")))
                die("fixture");
        fputs("23\n", f);
        fclose(f);
        p.runtime_base = strdup(rb);
        p.runtime = strdup(rt);
        if (!p.runtime_base || !p.runtime)
                die("strdup");

        fd = paths_open_runtime(&p, &base_fd);
        tap_ok(fd >= 0 && base_fd >= 0, "our own base and profile dir open verified");
        /* A FIFO would block a plain open for reading until a writer came:
         * bound the wait so that the failure says so. */
        alarm(10);
        TAP_EQ_INT(read_full_file_at(fd, "env", &text, NULL, 4096), -EBADFD,
                   "a FIFO named env is refused, without blocking");
        alarm(0);
        TAP_EQ_INT(read_full_file_at(fd, "lease", &text, NULL, 4096), -ELOOP, "a symlink in place of a state file is refused");
        TAP_EQ_INT(read_full_file_at(fd, "display", &text, NULL, 4096), 0, "a regular state file is read");
        TAP_EQ_STR(text, "23\n", "and holds what was written");
        safe_close(fd);
        safe_close(base_fd);

        chmod(rt, 0770);
        TAP_EQ_INT(paths_open_runtime(&p, NULL), -EPERM, "a profile dir its group may write is not read");
        chmod(rt, 0700);
        chmod(rb, 0703);
        TAP_EQ_INT(paths_open_runtime(&p, NULL), -EPERM, "a base dir others may write is not read");
        chmod(rb, 0700);
        {
                _cleanup_free_ char *dlink = path_at(base, "vbase-link");
                int r;

                if (symlink(rb, dlink) < 0)
                        die("symlink");
                r = dir_open_verified_at(AT_FDCWD, dlink, getuid());
                tap_ok(r == -EPERM || r == -ENOTDIR, "a symlink to our own dir is not a verified dir (got %d)", r);
        }
        TAP_EQ_INT(dir_open_verified_at(AT_FDCWD, reg, getuid()), -ENOTDIR, "a file is not a verified dir");
        TAP_EQ_INT(dir_open_verified_at(AT_FDCWD, "/nonexistent/dir", getuid()), -ENOENT, "a missing dir gives -ENOENT");
        if (getuid() != 0) {
                tap_ok(1, "a runtime dir owned by another uid is not read # SKIP needs root to chown");
                return;
        }
        if (chown(rb, 65534, 65534) < 0)
                die("chown");
        TAP_EQ_INT(paths_open_runtime(&p, NULL), -EPERM, "a base dir owned by another uid is not read (a forged fallback)");
        if (chown(rb, 0, 0) < 0 || chown(rt, 65534, 65534) < 0)
                die("chown");
        TAP_EQ_INT(paths_open_runtime(&p, NULL), -EPERM, "a profile dir owned by another uid is not read");
}

static void on_alarm(int sig) {
        static const char msg[] = "Bail out! reading a FIFO named env blocked for 10 s\n";

        (void) sig;
        (void) !write(STDOUT_FILENO, msg, sizeof msg - 1);
        _exit(99);
}

int main(void) {
        setvbuf(stdout, NULL, _IOLBF, 0);
        scratch_dir_make(base, sizeof base, "test-profile");

        test_names();
        test_scope();
        test_spare_names();
        test_paths_from_env();
        test_sun_path();
        test_ensure();
        test_dir_is_private();
        signal(SIGALRM, on_alarm);
        test_fallback();
        test_verified_open();

        scratch_dir_remove(base);
        return tap_done();
}
