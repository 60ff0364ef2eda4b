/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>
#include <sys/types.h>

/*
 * A hibernated desktop: the images CRIU wrote of a checkpointable desktop's
 * tree, in STATE/snapshot/ (0700, the user's own), and botdesk's manifest
 * beside them: what a restore needs that the images do not say (the display,
 * the token its processes carry, the bus address, which process is which)
 * and what makes the images unusable (another botdesk, another kernel).
 * The helper writes it (supervisor/hibernate.c); the helper's restore,
 * status and the CLI read it.
 */

#define SNAPSHOT_DIR "snapshot"
#define SNAPSHOT_DIR_NEW "snapshot.new"
#define SNAPSHOT_MANIFEST "botdesk-snapshot"
#define SNAPSHOT_XAUTHORITY "Xauthority"
#define SNAPSHOT_CHILDREN_MAX 16
/* RUNTIME/dumping: there while the helper dumps the desktop, so a client whose connection it ended for the
 * dump (supervisor/outside-clients.h) knows to connect again rather than give up (agent/agent.c), and
 * botdesk-browser lets its DevTools clients go, saying so in RUNTIME/dumping.devtools. */
#define SNAPSHOT_DUMPING_FILE "dumping"
#define SNAPSHOT_DUMPING_DEVTOOLS_DONE "dumping.devtools"
/* STATE/snapshots/NAME: what botdesk snapshot keeps (the desktop runs on), for botdesk fork. */
#define SNAPSHOTS_DIR "snapshots"
#define SNAPSHOT_NAME_MAX 64
/* In a named snapshot: the profile's session files as they were when the tree stood still for its dump
 * (supervisor/snapshot-files.c), what a fork starts with (cli/verb-fork.c): the dirs of its state dir
 * snapshot_state_dirs names, and those of its runtime dir snapshot_runtime_dirs names. */
#define SNAPSHOT_FILES "files"
extern const char *const snapshot_state_dirs[];
/* The tree's own XDG_RUNTIME_DIR and TMPDIR in its runtime dir (supervisor/namespace.h): a fork's snapshot
 * holds them as dirs of its own, which its restore puts in the fork's runtime dir. */
#define SNAPSHOT_RUNTIME_XDG "xdg-runtime"
#define SNAPSHOT_RUNTIME_TMP "tmp"
extern const char *const snapshot_runtime_dirs[];
/* Files in the runtime dir itself that the tree's programs hold open (botdesk-browser's lock beside
 * cdp.sock): kept and put back as those dirs are, or CRIU could not reopen them in a fork. */
extern const char *const snapshot_runtime_files[];
/* RUNTIME/hibernate.sock: SOCK_SEQPACKET, 0600, served by a checkpointable
 * desktop's helper. The request "hibernate"; the answer "ok SIZE DUMP_USEC"
 * (then the helper ends) or "error MESSAGE" (the desktop runs on). */
#define HIBERNATE_SOCKET "hibernate.sock"
#define HIBERNATE_REQUEST "hibernate"
/* "snapshot NAME": dumped into STATE/snapshots/NAME, the desktop running on; "ok SIZE DUMP_USEC" or "error ...". */
#define SNAPSHOT_REQUEST "snapshot "
#define HIBERNATE_ANSWER_MAX 4096

struct snapshot_child {
        int ns_pid;     /* its pid in the desktop's namespaces: a restore keeps it */
        char *name;     /* "X server", "session bus", a component's name */
};

struct snapshot_manifest {
        char *version;                  /* botdesk's */
        char *kernel;                   /* uname -r */
        unsigned display;
        char *token;                    /* BOTDESK_TOKEN of its processes */
        char *bus_address;
        /* The runtime and state dirs as its processes know them (a fork's are
         * its parent's: supervisor/tree-mounts.h shows it its own there);
         * NULL in a manifest that names none: the profile's own. */
        char *tree_runtime;
        char *tree_state;
        char *fork_of;                  /* "PROFILE/NAME" a fork was made from, or NULL */
        /* What the tree is ([session] desktop and command when it was started):
         * a restore knows its processes by it, whatever the restoring profile's
         * configuration says (a fork's is not its parent's). NULL: the
         * configuration's. */
        char *desktop;                  /* "xfce" or "command" */
        char *command;
        unsigned long long time_usec;   /* CLOCK_REALTIME of the dump */
        unsigned long long dump_usec;   /* how long the dump took */
        unsigned long long size;        /* bytes of the images */
        struct snapshot_child children[SNAPSHOT_CHILDREN_MAX];
        size_t n_children;
};

void snapshot_manifest_done(struct snapshot_manifest *m);
int snapshot_manifest_write_at(int dirfd, const struct snapshot_manifest *m);
/* -EBADMSG for a manifest that is not one (a key missing, a value out of range). */
int snapshot_manifest_read_at(int dirfd, struct snapshot_manifest *ret);

/*
 * The snapshot dir of a profile's state dir, opened: -ENOENT when there is
 * none, -EPERM when it is not a directory of ours that no one else may
 * write (its owner, its mode), and the same for the manifest.
 */
int snapshot_open(const char *state_dir, int *ret_fd);

/*
 * Whether a restore may use m here: NULL, or why not (a new string): images
 * of another botdesk version or of another kernel.
 */
char *snapshot_unusable(const struct snapshot_manifest *m);

/* A snapshot's name: 1 to SNAPSHOT_NAME_MAX of [A-Za-z0-9._-], not starting with a dot or dash (no slash: it
 * names a dir in STATE/snapshots). */
bool snapshot_name_valid(const char *name);

/* STATE/snapshots/name opened as snapshot_open() opens STATE/snapshot: the same refusals. */
int snapshot_open_named(const char *state_dir, const char *name, int *ret_fd);

/* The bytes of the files in dirfd (CRIU's images; not its SNAPSHOT_FILES). */
int snapshot_size_at(int dirfd, unsigned long long *ret);

/* Removes name (a dir of files, and the dirs in it whole) in dirfd; 0 when it is not there. */
int snapshot_remove_at(int dirfd, const char *name);
