/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <fcntl.h>
#include <sys/stat.h>

#include "find-executable.h"
#include "launchers.h"
#include "session.h"
#include "spawn.h"
#include "util.h"

const struct component_spec xfce_components[] = {
        { "xfsettingsd", "xfsettingsd", { "--sm-client-disable" }, STAGE_WITH_WM },
        /* Compositing costs CPU on a screen nobody looks at most of the time. */
        { "xfwm4", "xfwm4", { "--compositor=off", "--sm-client-disable" }, STAGE_WITH_WM },
        { "xfdesktop", "xfdesktop", { "--sm-client-disable" }, STAGE_AFTER_WM },
        { "xfce4-panel", "xfce4-panel", { "--sm-client-disable" }, STAGE_AFTER_WM },
};
const unsigned n_xfce_components = ELEMENTSOF(xfce_components);

void session_dirs_done(struct session_dirs *d) {
        free(d->config_home);
        free(d->cache_home);
        free(d->data_home);
        free(d->downloads);
        *d = (struct session_dirs) {};
}

int session_dirs_for(const struct bd_paths *p, struct session_dirs *ret) {
        struct session_dirs d = {
                .config_home = strdup_printf("%s/xdg/config", p->state),
                .cache_home = strdup_printf("%s/xdg/cache", p->state),
                .data_home = strdup_printf("%s/xdg/data", p->state),
                .downloads = strdup_printf("%s/" PROFILE_DOWNLOADS_DIR, p->state),
        };

        if (!d.config_home || !d.cache_home || !d.data_home || !d.downloads) {
                session_dirs_done(&d);
                return -ENOMEM;
        }
        *ret = d;
        return 0;
}

static int copy_file_no_replace(int src_dir, int dst_dir, const char *name) {
        _cleanup_close_ int in = -EBADF, out = -EBADF;
        char buf[65536];
        ssize_t n;

        in = openat(src_dir, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
        if (in < 0)
                return negative_errno();
        out = openat(dst_dir, name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
        if (out < 0)
                /* Seeded once, never overwritten: the user's changes win. */
                return errno == EEXIST ? 0 : negative_errno();
        while ((n = read(in, buf, sizeof buf)) > 0)
                if (write(out, buf, (size_t) n) != n)
                        return negative_errno();
        return n < 0 ? negative_errno() : 0;
}

static int copy_tree_no_replace(int src_dir, int dst_dir) {
        _cleanup_closedir_ DIR *d = NULL;
        struct dirent *de;
        int r;

        /* Its own open of the directory: reading it moves no offset of src_dir's. */
        r = dir_open_at(src_dir, ".", &d);
        if (r < 0)
                return r;
        while ((de = readdir(d))) {
                struct stat st;

                if (streq(de->d_name, ".") || streq(de->d_name, ".."))
                        continue;
                if (fstatat(src_dir, de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
                        return negative_errno();
                if (S_ISDIR(st.st_mode)) {
                        _cleanup_close_ int s = -EBADF, t = -EBADF;

                        if (mkdirat(dst_dir, de->d_name, 0755) < 0 && errno != EEXIST)
                                return negative_errno();
                        s = openat(src_dir, de->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
                        t = openat(dst_dir, de->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
                        if (s < 0 || t < 0)
                                return negative_errno();
                        r = copy_tree_no_replace(s, t);
                } else if (S_ISREG(st.st_mode))
                        r = copy_file_no_replace(src_dir, dst_dir, de->d_name);
                else
                        r = 0;
                if (r < 0)
                        return r;
        }
        return 0;
}

/*
 * The desktop's bus reads $XDG_DATA_HOME/dbus-1/services before the
 * system's: a service file there named as a system service masks it. The
 * document portal mounts a FUSE file system at the caller's
 * $XDG_RUNTIME_DIR/doc (in a login, where the user's own portal mounts):
 * one started by a desktop's bus dies with the desktop and leaves a dead
 * mount there. Its stand-in fails at once, so a GTK application goes on
 * without it. Written at every start: a removed one comes back.
 */
static const char portal_mask_name[] = "org.freedesktop.portal.Documents.service";
static const char portal_mask[] =
        "# botdesk: a desktop's bus never starts the document portal (it mounts in $XDG_RUNTIME_DIR/doc).\n"
        "[D-BUS Service]\n"
        "Name=org.freedesktop.portal.Documents\n"
        "Exec=/bin/false\n";

static int mask_services(const struct session_dirs *d) {
        _cleanup_free_ char *dir = strdup_printf("%s/dbus-1/services", d->data_home);
        _cleanup_close_ int fd = -EBADF;
        int r;

        if (!dir)
                return -ENOMEM;
        r = mkdir_parents(dir, 0700);
        if (r < 0)
                return r;
        fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
        if (fd < 0)
                return negative_errno();
        return write_file_atomic_at(fd, portal_mask_name, portal_mask, strlen(portal_mask), 0600);
}

/*
 * The browser saves where xdg-user-dirs says (Chromium and Firefox read
 * $XDG_CONFIG_HOME/user-dirs.dirs): in the desktop's home, where `botdesk
 * files` and the downloads tool look, not in the caller's ~/Downloads.
 * Written once; a file there already (the user's, or xdg-user-dirs-update's)
 * is theirs.
 */
static int seed_download_dir(const struct session_dirs *d) {
        _cleanup_free_ char *line = NULL;
        _cleanup_close_ int fd = -EBADF;

        if (mkdir(d->downloads, 0700) < 0 && errno != EEXIST)
                return negative_errno();
        /* The file's syntax is the shell's: a path it would read differently is left out. */
        if (strpbrk(d->downloads, "\"\\$`\n"))
                return 0;
        fd = open(d->config_home, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
        if (fd < 0)
                return negative_errno();
        if (faccessat(fd, "user-dirs.dirs", F_OK, AT_SYMLINK_NOFOLLOW) == 0)
                return 0;
        line = strdup_printf("# botdesk: the browser's downloads go to the desktop's home.\nXDG_DOWNLOAD_DIR=\"%s\"\n",
                             d->downloads);
        if (!line)
                return -ENOMEM;
        return write_file_atomic_at(fd, "user-dirs.dirs", line, strlen(line), 0600);
}

int session_prepare_dirs(const struct session_dirs *d, const char *skel_dir, char *const *browser_argv) {
        _cleanup_close_ int src = -EBADF, dst = -EBADF;
        _cleanup_free_ char *panel = NULL, *applications = NULL;
        bool first;
        int r;

        r = mkdir_parents(d->config_home, 0700);
        if (r >= 0)
                r = mkdir_parents(d->cache_home, 0700);
        if (r >= 0)
                r = mkdir_parents(d->data_home, 0700);
        if (r >= 0)
                r = mask_services(d);
        if (r >= 0)
                r = seed_download_dir(d);
        if (r < 0)
                return r;
        if (!skel_dir)
                return 0;
        src = open(skel_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (src < 0)
                /* An uninstalled skeleton leaves Xfce on its own defaults. */
                return errno == ENOENT ? 0 : negative_errno();
        dst = open(d->config_home, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
        if (dst < 0)
                return negative_errno();
        /* The launchers are decided once; later the user's dock is the user's. */
        panel = strdup_printf("%s/xfce4/panel", d->config_home);
        if (!panel)
                return -ENOMEM;
        first = access(panel, F_OK) < 0;
        r = copy_tree_no_replace(src, dst);
        if (r < 0)
                return r;
        if (!first)
                return launchers_refresh_browser(d->config_home, browser_argv);
        /* The desktop files live beside the skeleton, installed or in the source tree. */
        applications = strdup_printf("%s/../applications", skel_dir);
        if (!applications)
                return -ENOMEM;
        return launchers_seed(d->config_home, applications, browser_argv);
}

int session_env(const char *profile, unsigned display, const struct bd_paths *p,
                const struct session_dirs *d, const char *token, bool accessibility, char ***ret) {
        _cleanup_free_ char *disp = strdup_printf(":%u", display);
        _cleanup_free_ char *xauth = strdup_printf("XAUTHORITY=%s", p->xauthority);
        _cleanup_free_ char *ch = strdup_printf("XDG_CONFIG_HOME=%s", d->config_home);
        _cleanup_free_ char *cah = strdup_printf("XDG_CACHE_HOME=%s", d->cache_home);
        _cleanup_free_ char *dh = strdup_printf("XDG_DATA_HOME=%s", d->data_home);
        _cleanup_free_ char *dv = strdup_printf("DISPLAY=%s", disp ?: "");
        _cleanup_free_ char *pv = strdup_printf("BOTDESK_PROFILE=%s", profile);
        _cleanup_free_ char *tv = strdup_printf("BOTDESK_TOKEN=%s", token);
        _cleanup_free_ char *lv = strdup_printf("LANG=%s", env_lang(getenv("LANG")));
        char *const own[] = {
                dv, xauth, ch, cah, dh, tv, lv,
                /* GTK's bridge asks the session bus for org.a11y.Bus, which
                 * D-Bus activates (at-spi2-core's launcher, its bus and the
                 * registry), children of the session bus and so inside the
                 * desktop's cgroup. Qt exports its tree only when told to.
                 * Without it: three processes fewer, and no tree. */
                accessibility ? (char *) "QT_LINUX_ACCESSIBILITY_ALWAYS_ON=1" : (char *) "NO_AT_BRIDGE=1",
                /* A spare's processes carry no profile's name: the one that
                 * adopts it is not known yet (its record says whose they are). */
                spare_name_valid(profile) ? NULL : pv,
        };
        _cleanup_strv_free_ char **extra = NULL;
        extern char **environ;
        int r;

        if (!disp || !xauth || !ch || !cah || !dh || !dv || !pv || !tv || !lv)
                return -ENOMEM;
        for (const char *const *e = env_x11_session; *e; e++)
                if ((r = strv_push(&extra, strdup(*e))) < 0)
                        return r;
        for (size_t i = 0; i < ELEMENTSOF(own); i++)
                if (own[i] && (r = strv_push(&extra, strdup(own[i]))) < 0)
                        return r;
        return env_build_clean(environ, extra, ret);
}

int session_published_env(unsigned display, const struct bd_paths *p, const struct session_dirs *d,
                          const char *bus_address, char ***ret) {
        _cleanup_strv_free_ char **env = NULL;
        char disp[16];
        int r;

        snprintf(disp, sizeof disp, ":%u", display);
        if ((r = env_set(&env, "DISPLAY", disp)) < 0 ||
            (r = env_set(&env, "XAUTHORITY", p->xauthority)) < 0 ||
            (r = env_set(&env, "DBUS_SESSION_BUS_ADDRESS", bus_address)) < 0 ||
            (r = env_set(&env, "XDG_CONFIG_HOME", d->config_home)) < 0 ||
            (r = env_set(&env, "XDG_CACHE_HOME", d->cache_home)) < 0 ||
            (r = env_set(&env, "XDG_DATA_HOME", d->data_home)) < 0)
                return r;
        *ret = TAKE_PTR(env);
        return 0;
}

static int argv_from(const char *binary, const char *const *args, size_t n_args, char ***ret) {
        _cleanup_strv_free_ char **argv = NULL;
        char *path = NULL;
        int r;

        r = find_executable(binary, NULL, &path);
        if (r < 0)
                return r;
        r = strv_push(&argv, path);
        for (size_t i = 0; r >= 0 && i < n_args && args[i]; i++)
                r = strv_push(&argv, strdup(args[i]));
        if (r < 0)
                return r;
        *ret = TAKE_PTR(argv);
        return 0;
}

int session_bus_argv(const char *bus_socket, int fd, char ***ret) {
        _cleanup_free_ char *address = strdup_printf("--address=unix:path=%s", bus_socket);
        _cleanup_free_ char *print = strdup_printf("--print-address=%d", fd);
        const char *args[] = { "--session", "--nofork", "--nopidfile", "--nosyslog", address, print };

        if (!address || !print)
                return -ENOMEM;
        return argv_from("dbus-daemon", args, ELEMENTSOF(args), ret);
}

int component_argv(const struct component_spec *spec, char ***ret) {
        return argv_from(spec->binary, spec->args, ELEMENTSOF(spec->args), ret);
}

int command_argv(const char *command, char ***ret) {
        const char *args[] = { "-c", command };

        return argv_from("sh", args, ELEMENTSOF(args), ret);
}
