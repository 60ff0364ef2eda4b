/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Profile names and per-profile paths. Directories are created under a
 * mkdtemp dir that stands in for $XDG_RUNTIME_DIR and $XDG_STATE_HOME.
 */

#include <ftw.h>
#include <pwd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include "tap.h"
#include "profile.h"
#include "util.h"

static char base[PATH_MAX];

_noreturn_ static void die(const char *what) {
        printf("Bail out! %s: %s\n", what, strerror(errno));
        exit(99);
}

static char *path_at(const char *dir, const char *name) {
        char *p = strdup_printf("%s/%s", dir, name);

        if (!p)
                die("strdup_printf");
        return p;
}

/* Permission bits of path (not following a symlink), or -1 when it is missing. */
static int mode_of(const char *path) {
        struct stat st;

        return lstat(path, &st) < 0 ? -1 : (int) (st.st_mode & 07777);
}

static bool is_symlink(const char *path) {
        struct stat st;

        return lstat(path, &st) == 0 && S_ISLNK(st.st_mode);
}

static int rm_entry(const char *path, const struct stat *st, int type, struct FTW *ftw) {
        (void) st;
        (void) type;
        if (ftw->level > 0)
                remove(path);
        return 0;
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
                { "a\nb", "a name with a newline" },
                { "a:b",   "a name with a colon" },
                { "abcdefghijklmnopqrstuvwxyz0123456", "a name of 33 characters" },
        };
        static const char *const good[] = {
                "work", "a", "A-b_9", "9", "Z_", "abcdefghijklmnopqrstuvwxyz012345", /* 32 */
        };

        for (size_t i = 0; i < ELEMENTSOF(bad); i++)
                tap_ok(!profile_name_valid(bad[i].name), "%s is refused as a profile name", bad[i].what);
        tap_ok(!profile_name_valid(NULL), "a missing profile name is refused");
        for (size_t i = 0; i < ELEMENTSOF(good); i++)
                tap_ok(profile_name_valid(good[i]), "the profile name \"%s\" (%zu characters) is accepted",
                       good[i], strlen(good[i]));
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

int main(void) {
        const char *tmp = getenv("TMPDIR");

        setvbuf(stdout, NULL, _IOLBF, 0);
        snprintf(base, sizeof(base), "%s/test-profile-XXXXXX", tmp && *tmp ? tmp : "/tmp");
        if (!mkdtemp(base))
                die("mkdtemp");

        test_names();
        test_paths_from_env();
        test_sun_path();
        test_ensure();
        test_dir_is_private();

        nftw(base, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
        rmdir(base);
        return tap_done();
}
