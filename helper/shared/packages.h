/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>

/*
 * Required binaries, the package that provides each on apt, dnf and pacman,
 * and the install command or message for what is missing.
 */

enum pkg_manager {
        PKG_NONE,
        PKG_APT,
        PKG_DNF,
        PKG_PACMAN,
        _PKG_MAX,
};

struct required_binary {
        const char *names[3];        /* alternatives, first found wins (Xtigervnc, Xvnc); an absolute path: a file */
        const char *package[_PKG_MAX]; /* indexed by enum pkg_manager; [PKG_NONE] unused */
        bool everyday;               /* not needed to start: the dock's and a person's programs (install puts them in) */
};

extern const struct required_binary required_binaries[];
extern const unsigned n_required_binaries;

/* Missing binaries a desktop needs to start: a NULL-terminated strv of the first alternative names. */
int packages_missing(const char *path_override, char ***ret_missing);
/* The same, and the everyday programs too (a terminal, a file manager, an editor, fonts, X's utilities):
 * what `botdesk install` puts in. */
int packages_missing_all(const char *path_override, char ***ret_missing);

/* Detect apt-get, dnf or pacman in PATH. */
enum pkg_manager pkg_manager_detect(const char *path_override);
const char *pkg_manager_name(enum pkg_manager m);

/*
 * The install message for the missing binaries:
 *   - no supported package manager: "install TigerVNC and Xfce with your distribution's tooling"
 *   - not root and no sudo in PATH: the packages must be baked into the image
 *   - otherwise the exact command, "sudo " prefixed unless root:
 *     "sudo apt-get install -y tigervnc-standalone-server xfwm4"
 * command_only: set to the bare command (or NULL for the first two cases).
 */
char *packages_install_message(enum pkg_manager m, bool is_root, bool have_sudo,
                               char *const *missing, char **ret_command);

/* The install command as an argv: manager_path (the manager found on the
 * system PATH), the same words as the command packages_install_message()
 * shows, then pkgs. */
int packages_install_argv(enum pkg_manager m, const char *manager_path, char *const *pkgs, char ***ret);

/* Distinct packages for the missing binaries, in table order, NULL-terminated. */
int packages_for(enum pkg_manager m, char *const *missing, char ***ret);
