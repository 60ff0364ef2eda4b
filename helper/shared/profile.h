/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>
#include <sys/types.h>

/*
 * Profile names and per-profile paths.
 * A profile name is 1-32 of [A-Za-z0-9_-], first character alphanumeric;
 * scoped by a gateway's home (BOTDESK_HOME), it is that name, a dot and
 * PROFILE_SCOPE_LEN lowercase hex digits of the home's SHA-256, so that
 * two gateways' profiles of one name are two desktops (profile_scope()).
 */

#define PROFILE_BASE_MAX 32
#define PROFILE_SCOPE_LEN 8
#define PROFILE_NAME_MAX (PROFILE_BASE_MAX + 1 + PROFILE_SCOPE_LEN)

/* A profile's name, scoped or not. */
bool profile_name_valid(const char *name);
/* The length of name's own part, the scope left out: what [profile.NAME] of the configuration names. */
size_t profile_base_len(const char *name);
/*
 * name (unscoped) scoped by home (an absolute path; its trailing slashes
 * are no part of it) into ret; with home NULL or empty, name itself.
 * -EINVAL for a name that is no profile's or is scoped already, or a home
 * that is not absolute.
 */
int profile_scope(const char *name, const char *home, char ret[static PROFILE_NAME_MAX + 1]);

/*
 * A warm spare's name: SPARE_PREFIX and 8 lowercase hex digits. It can
 * never be a profile's (those start with a letter or digit), so a spare's
 * directories and unit sit beside the profiles' without ever being one.
 */
#define SPARE_PREFIX "_spare-"
#define SPARE_NAME_SIZE (sizeof SPARE_PREFIX + 8)
bool spare_name_valid(const char *name);
/* A fresh random spare name into ret. */
int spare_name_new(char ret[SPARE_NAME_SIZE]);
/* What a desktop may be called: a profile's name or a spare's. */
bool desktop_name_valid(const char *name);

/* The dirs of a spare that is gone: its state dir, and its runtime dir too
 * when runtime_too. Nothing when spare is no spare's name. */
void paths_remove_spare(const char *spare, bool runtime_too);

/* The links an adopted spare's name left (its runtime dir and its state's
 * xdg/ made links to the profile's), when they are links: never a live
 * spare's dirs. */
void paths_remove_spare_alias(const char *spare);

/* The desktop's download folder, in its state dir (its "home" for files). */
#define PROFILE_DOWNLOADS_DIR "Downloads"

/* The X server's RFB socket in the runtime dir: viewers connect there. */
#define RFB_SOCKET "rfb.sock"

struct bd_paths {
        char *runtime_base;    /* $XDG_RUNTIME_DIR/botdesk (or the private fallback) */
        char *runtime;         /* runtime_base/PROFILE, 0700 */
        char *state;           /* $XDG_STATE_HOME/botdesk/PROFILE */
        char *rfb_socket;      /* runtime/RFB_SOCKET */
        char *xauthority;      /* runtime/Xauthority */
        char *env_file;        /* runtime/env */
};

void paths_done(struct bd_paths *p);

/*
 * Compute the paths of profile from the environment (XDG_RUNTIME_DIR,
 * XDG_STATE_HOME, HOME). Creates nothing. Refuses (-ENAMETOOLONG) when the
 * RFB socket path would not fit in sun_path. Without XDG_RUNTIME_DIR the
 * runtime base is runtime_base_fallback()'s (created 0700 by paths_ensure).
 */
int paths_for_profile(const char *profile, struct bd_paths *ret);

/* The runtime base dir alone (for list/status of all profiles). */
int paths_runtime_base(char **ret);
/* The runtime base dir opened, verified a private dir of ours (made 0700 first with create); the fd, or
 * -errno. Its path in *ret_base when that is not NULL. */
int paths_runtime_base_open(bool create, char **ret_base);
/* The state base dir alone: $XDG_STATE_HOME/botdesk (or ~/.local/state/botdesk). */
int paths_state_base(char **ret);

/* The user's home: $HOME when it is an absolute path, else the passwd entry. */
int paths_home(char **ret);

/* Below $HOME, where the runtime base goes when /tmp cannot hold it safely. */
#define RUNTIME_HOME_FALLBACK ".cache/botdesk-run"

/*
 * The runtime base without XDG_RUNTIME_DIR: TMP/botdesk-UID when TMP is a
 * root-owned directory that is sticky (or writable by root alone), so that
 * no other user can swap our dir once we have checked it; else
 * HOME/.cache/botdesk-run (-ENOENT without a usable HOME).
 */
int runtime_base_fallback(const char *tmp, const char *home, uid_t uid, char **ret);

/*
 * Open dirfd/name as a directory, not through a symlink, and check on the
 * opened fd that uid owns it and that neither group nor others may write
 * it. Returns the fd (O_CLOEXEC), -ENOENT, or -EPERM when it is someone
 * else's (or too open) and so must not be read.
 */
int dir_open_verified_at(int dirfd, const char *name, uid_t uid);

/*
 * The runtime dir of p for reading, the base and the profile's dir both
 * verified as above: the fd, -ENOENT (never started here), -EPERM (not
 * ours: whatever it holds says nothing). ret_base_fd (may be NULL) gets
 * the verified base.
 */
int paths_open_runtime(const struct bd_paths *p, int *ret_base_fd);

/*
 * Create (if needed) and verify runtime_base and runtime: directories, not
 * symlinks, owned by the calling uid, no group/other access. A directory that
 * exists with the wrong owner or mode is refused (-EPERM) and not changed
 * unless it is ours (then the mode is tightened). Also creates the state dir.
 */
int paths_ensure(const struct bd_paths *p);
/* The runtime base alone, created and verified as paths_ensure() does. */
int paths_ensure_base(const struct bd_paths *p);

/* Verify one existing directory is owned by uid and not group/other accessible. */
int dir_is_private(const char *path, uid_t uid);

/* Mark the desktop as used now. Only an existing stamp is touched: the
 * helper creates it when the desktop is ready and removes it at stop, so a
 * stopped desktop never looks used. */
void activity_stamp(int runtime_fd);
