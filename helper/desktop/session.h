/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include "config.h"
#include "profile.h"

/*
 * What runs on the screen besides the X server: the session bus, then the
 * Xfce components (or the configured command), each with the profile's own
 * XDG directories and an environment built on purpose.
 */

struct session_dirs {
        char *config_home;  /* STATE/xdg/config */
        char *cache_home;   /* STATE/xdg/cache */
        char *data_home;    /* STATE/xdg/data */
        char *downloads;    /* STATE/Downloads: its XDG_DOWNLOAD_DIR, where botdesk files finds downloads */
};

int session_dirs_for(const struct bd_paths *p, struct session_dirs *ret);
void session_dirs_done(struct session_dirs *d);

/* Create the XDG dirs and Downloads (named in user-dirs.dirs unless the
 * user's file says otherwise); on first use copy the skeleton (never
 * overwriting) and seed the dock's launchers (browser_argv may be NULL). */
int session_prepare_dirs(const struct session_dirs *d, const char *skel_dir, char *const *browser_argv);

/*
 * The environment of every desktop process: the caller's harmless variables
 * only (see env_build_clean), plus DISPLAY, XAUTHORITY, the XDG dirs and
 * session type, X11 as GTK's and Qt's backend, LANG=C.UTF-8 when the caller
 * has none, BOTDESK_TOKEN, and BOTDESK_PROFILE (not for a spare, whose
 * profile is not known yet).
 */
int session_env(const char *profile, unsigned display, const struct bd_paths *p,
                const struct session_dirs *d, const char *token, bool accessibility, char ***ret);

/* The variables published in the env file (needs the bus address). */
int session_published_env(unsigned display, const struct bd_paths *p, const struct session_dirs *d,
                          const char *bus_address, char ***ret);

/* argv of the session bus, printing its address on fd. */
int session_bus_argv(const char *bus_socket, int fd, char ***ret);

enum component_stage {
        STAGE_WITH_WM,    /* started together with the window manager */
        STAGE_AFTER_WM,   /* started once a window manager manages the screen */
};

struct component_spec {
        const char *name;
        const char *binary;
        const char *args[3];
        enum component_stage stage;
};

extern const struct component_spec xfce_components[];
extern const unsigned n_xfce_components;

/* argv for a component (binary resolved in PATH). -ENOENT when missing. */
int component_argv(const struct component_spec *spec, char ***ret);

/* argv for `desktop = command`: /bin/sh -c COMMAND. */
int command_argv(const char *command, char ***ret);
