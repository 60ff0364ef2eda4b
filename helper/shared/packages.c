/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <sys/stat.h>
#include <unistd.h>

#include "packages.h"
#include "find-executable.h"
#include "util.h"

/*
 * Package names are the ones that provide the binary today:
 *  - Debian: Xtigervnc is the real file; /usr/bin/Xvnc is an alternatives
 *    link, which is why Xtigervnc is looked for first.
 *  - Fedora: TigerVNC 1.16 split the server into tigervnc-x11-server (which
 *    ships /usr/bin/Xvnc and Provides the old tigervnc-server-minimal);
 *    setxkbmap and dbus-daemon are packages of their own there.
 *  - Arch: the dbus package still ships dbus-daemon next to dbus-broker.
 */
const struct required_binary required_binaries[] = {
        { { "Xtigervnc", "Xvnc" },
          { [PKG_APT] = "tigervnc-standalone-server", [PKG_DNF] = "tigervnc-x11-server", [PKG_PACMAN] = "tigervnc" } },
        { { "xfwm4" },
          { [PKG_APT] = "xfwm4", [PKG_DNF] = "xfwm4", [PKG_PACMAN] = "xfwm4" } },
        { { "xfce4-panel" },
          { [PKG_APT] = "xfce4-panel", [PKG_DNF] = "xfce4-panel", [PKG_PACMAN] = "xfce4-panel" } },
        { { "xfdesktop" },
          { [PKG_APT] = "xfdesktop4", [PKG_DNF] = "xfdesktop", [PKG_PACMAN] = "xfdesktop" } },
        { { "xfsettingsd" },
          { [PKG_APT] = "xfce4-settings", [PKG_DNF] = "xfce4-settings", [PKG_PACMAN] = "xfce4-settings" } },
        { { "dbus-daemon" },
          { [PKG_APT] = "dbus-daemon", [PKG_DNF] = "dbus-daemon", [PKG_PACMAN] = "dbus" } },
        { { "setxkbmap" },
          { [PKG_APT] = "x11-xkb-utils", [PKG_DNF] = "setxkbmap", [PKG_PACMAN] = "xorg-setxkbmap" } },
        /* Everyday: what the dock launches and what a person (or an agent's shell) expects on a desktop. */
        { { "xfce4-terminal" },
          { [PKG_APT] = "xfce4-terminal", [PKG_DNF] = "xfce4-terminal", [PKG_PACMAN] = "xfce4-terminal" }, .everyday = true },
        { { "thunar" },
          { [PKG_APT] = "thunar", [PKG_DNF] = "Thunar", [PKG_PACMAN] = "thunar" }, .everyday = true },
        { { "mousepad" },
          { [PKG_APT] = "mousepad", [PKG_DNF] = "mousepad", [PKG_PACMAN] = "mousepad" }, .everyday = true },
        { { "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf", "/usr/share/fonts/dejavu-sans-fonts/DejaVuSans.ttf",
            "/usr/share/fonts/TTF/DejaVuSans.ttf" },
          { [PKG_APT] = "fonts-dejavu-core", [PKG_DNF] = "dejavu-sans-fonts", [PKG_PACMAN] = "ttf-dejavu" }, .everyday = true },
        { { "xdpyinfo" },
          { [PKG_APT] = "x11-utils", [PKG_DNF] = "xdpyinfo", [PKG_PACMAN] = "xorg-xdpyinfo" }, .everyday = true },
        { { "xset" },
          { [PKG_APT] = "x11-xserver-utils", [PKG_DNF] = "xset", [PKG_PACMAN] = "xorg-xset" }, .everyday = true },
};
const unsigned n_required_binaries = ELEMENTSOF(required_binaries);

static const char *const install_commands[_PKG_MAX] = {
        /* Recommends would pull a full desktop's worth of extras. */
        [PKG_APT] = "apt-get install --no-install-recommends -y",
        [PKG_DNF] = "dnf install -y",
        [PKG_PACMAN] = "pacman -S --needed --noconfirm",
};

static const char *const manager_names[_PKG_MAX] = {
        [PKG_NONE] = "none",
        [PKG_APT] = "apt-get",
        [PKG_DNF] = "dnf",
        [PKG_PACMAN] = "pacman",
};

static bool binary_present(const struct required_binary *b, const char *path_override) {
        for (size_t i = 0; i < ELEMENTSOF(b->names) && b->names[i]; i++)
                if (b->names[i][0] == '/' ? access(b->names[i], F_OK) == 0
                                          : find_executable(b->names[i], path_override, NULL) >= 0)
                        return true;
        return false;
}

static int missing_of(const char *path_override, bool everyday, char ***ret_missing) {
        _cleanup_strv_free_ char **missing = NULL;
        unsigned n = 0;
        int r;

        for (unsigned i = 0; i < n_required_binaries; i++) {
                if ((required_binaries[i].everyday && !everyday) || binary_present(&required_binaries[i], path_override))
                        continue;
                r = strv_push(&missing, strdup(required_binaries[i].names[0]));
                if (r < 0)
                        return r;
                n++;
        }
        if (!missing) {
                missing = calloc(1, sizeof(char *));
                if (!missing)
                        return -ENOMEM;
        }
        *ret_missing = TAKE_PTR(missing);
        return (int) n;
}

int packages_missing(const char *path_override, char ***ret_missing) {
        return missing_of(path_override, false, ret_missing);
}

int packages_missing_all(const char *path_override, char ***ret_missing) {
        return missing_of(path_override, true, ret_missing);
}

enum pkg_manager pkg_manager_detect(const char *path_override) {
        for (enum pkg_manager m = PKG_APT; m < _PKG_MAX; m++)
                if (find_executable(manager_names[m], path_override, NULL) >= 0)
                        return m;
        return PKG_NONE;
}

const char *pkg_manager_name(enum pkg_manager m) {
        if ((unsigned) m >= _PKG_MAX)
                return NULL;
        return manager_names[m];
}

static const struct required_binary *binary_lookup(const char *name) {
        for (unsigned i = 0; i < n_required_binaries; i++)
                for (size_t j = 0; j < ELEMENTSOF(required_binaries[i].names) && required_binaries[i].names[j]; j++)
                        if (streq(required_binaries[i].names[j], name))
                                return &required_binaries[i];
        return NULL;
}

static bool strv_contains(char *const *l, const char *s) {
        for (char *const *i = l; i && *i; i++)
                if (streq(*i, s))
                        return true;
        return false;
}

int packages_for(enum pkg_manager m, char *const *missing, char ***ret) {
        _cleanup_strv_free_ char **pkgs = NULL;
        int r;

        if (m <= PKG_NONE || m >= _PKG_MAX)
                return -EINVAL;

        /* An unknown name would silently drop out of the install command. */
        for (char *const *i = missing; i && *i; i++)
                if (!binary_lookup(*i))
                        return -EINVAL;

        /* Table order, not the caller's, so the command reads the same every time. */
        for (unsigned i = 0; i < n_required_binaries; i++) {
                const struct required_binary *b = &required_binaries[i];
                bool wanted = false;

                for (char *const *j = missing; j && *j && !wanted; j++)
                        wanted = binary_lookup(*j) == b;
                if (!wanted || strv_contains(pkgs, b->package[m]))
                        continue;
                r = strv_push(&pkgs, strdup(b->package[m]));
                if (r < 0)
                        return r;
        }
        if (!pkgs) {
                pkgs = calloc(1, sizeof(char *));
                if (!pkgs)
                        return -ENOMEM;
        }
        *ret = TAKE_PTR(pkgs);
        return 0;
}

/* Joins l with sep; NULL on allocation failure. */
static char *strv_join(char *const *l, const char *sep) {
        size_t n = 1, sl = strlen(sep);
        char *s, *p;

        for (char *const *i = l; i && *i; i++)
                n += strlen(*i) + sl;
        p = s = malloc(n);
        if (!s)
                return NULL;
        for (char *const *i = l; i && *i; i++) {
                if (i != l)
                        p = stpcpy(p, sep);
                p = stpcpy(p, *i);
        }
        *p = 0;
        return s;
}

char *packages_install_message(enum pkg_manager m, bool is_root, bool have_sudo,
                               char *const *missing, char **ret_command) {
        _cleanup_strv_free_ char **pkgs = NULL;
        _cleanup_free_ char *names = NULL, *list = NULL, *command = NULL;
        char *msg;

        if (ret_command)
                *ret_command = NULL;

        if (m == PKG_NONE)
                return strdup("No supported package manager found (apt-get, dnf, pacman): "
                              "install TigerVNC's Xvnc and the Xfce components "
                              "(xfwm4, xfce4-panel, xfdesktop, xfsettingsd) with your distribution's tooling.");

        if (packages_for(m, missing, &pkgs) < 0 || !pkgs[0])
                return NULL;
        names = strv_join(missing, ", ");
        list = strv_join(pkgs, " ");
        if (!names || !list)
                return NULL;

        if (!is_root && !have_sudo)
                return strdup_printf("Missing %s: packages %s must be installed in the image "
                                     "(no root and no sudo here)", names, list);

        command = strdup_printf("%s%s %s", is_root ? "" : "sudo ", install_commands[m], list);
        if (!command)
                return NULL;
        msg = strdup_printf("Missing %s: install them with: %s", names, command);
        if (!msg)
                return NULL;
        if (ret_command)
                *ret_command = TAKE_PTR(command);
        return msg;
}

int packages_install_argv(enum pkg_manager m, const char *manager_path, char *const *pkgs, char ***ret) {
        _cleanup_strv_free_ char **argv = NULL;
        const char *words;
        int r;

        if (m <= PKG_NONE || m >= _PKG_MAX || !manager_path)
                return -EINVAL;
        r = strv_push(&argv, strdup(manager_path));
        if (r < 0)
                return r;
        /* The words after the manager's name in install_commands, so that the
         * command shown and the command run are one. */
        words = install_commands[m] + strcspn(install_commands[m], " ");
        while (*words) {
                size_t l;

                words += strspn(words, " ");
                l = strcspn(words, " ");
                if (l > 0 && (r = strv_push(&argv, strndup(words, l))) < 0)
                        return r;
                words += l;
        }
        for (char *const *p = pkgs; p && *p; p++)
                if ((r = strv_push(&argv, strdup(*p))) < 0)
                        return r;
        *ret = TAKE_PTR(argv);
        return 0;
}
