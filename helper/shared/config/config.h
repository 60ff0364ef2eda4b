/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include "botdesk-config.h"

#include <stdbool.h>
#include <stdio.h>

/*
 * The configuration: INI files, every one optional. Order of application,
 * later values winning:
 *
 *   built-in defaults;
 *   SYSCONFDIR/botdesk.ini              the original place, kept working;
 *   SYSCONFDIR/botdesk/botdesk.ini      a directory a ConfigMap can be;
 *   the drop-ins: the .ini files of SYSCONFDIR/botdesk/botdesk.ini.d/,
 *   in lexical order;
 *   the user file ($XDG_CONFIG_HOME/botdesk/botdesk.ini, else
 *   ~/.config/botdesk/botdesk.ini), then its drop-ins in botdesk.ini.d/;
 *   then the [profile.NAME] sections of all of these, in the same order,
 *   for the profile asked for.
 *
 * BOTDESK_CONFIG=FILE replaces the three system sources with FILE and its
 * drop-ins FILE.d/ (for /etc/botdesk/botdesk.ini: the same directory as
 * without it). Every entry of every file is validated, including sections
 * of other profiles, so that `botdesk config check` reports every error
 * with file and line.
 */

/* /etc/botdesk.ini for a build with --sysconfdir=/etc (what packages use). */
#define CONFIG_SYSTEM_PATH BOTDESK_CONFIG_PATH
/* /etc: where the system files are (SYSCONFDIR/botdesk/botdesk.ini ...). */
#define CONFIG_SYSCONF_DIR BOTDESK_SYSCONFDIR
/* The system files, as messages name them. */
#define CONFIG_SYSTEM_FILES CONFIG_SYSCONF_DIR "/botdesk/botdesk.ini, its drop-ins or " CONFIG_SYSTEM_PATH
/* A main file's drop-ins: the directory named like it with this suffix. */
#define CONFIG_DROPIN_DIR_SUFFIX ".d"
/* A drop-in's name ends so; other entries of the directory are ignored. */
#define CONFIG_DROPIN_SUFFIX ".ini"
/* Longer lines are errors, never truncated. 198 characters of text, with
 * the line's '\n' and the NUL, fill libinih's 200-byte line buffer
 * (INI_MAX_LINE); inih would split a longer line, reader.c refuses it. */
#define CONFIG_MAX_LINE 198
/* [pool] spares: each idle spare is a whole desktop (90-130 MiB PSS
 * measured), so 8 is a gigabyte held for nobody; more than that is a
 * fleet to plan, not a pool to keep warm. */
#define CONFIG_SPARES_MAX 8u

enum desktop_kind {
        DESKTOP_XFCE,
        DESKTOP_COMMAND,
};

/* Whether the exec prefix hands the verb's words to a shell there (ssh does). */
enum exec_shell_kind {
        EXEC_SHELL_AUTO,              /* yes when the prefix runs ssh or a known kin of it */
        EXEC_SHELL_YES,
        EXEC_SHELL_NO,
};

/* Which tools botdesk mcp offers for the screen (mcp/tools.h). */
enum mcp_tools_kind {
        MCP_TOOLS_BOTH,               /* computer and batch, and a tool per toolset member */
        MCP_TOOLS_COMPUTER,           /* computer and batch: the 2025 single tool */
        MCP_TOOLS_MEMBERS,            /* a tool per member of Anthropic's computer toolset */
};

/* What an idle desktop does ([session] idle_action). */
enum idle_action {
        IDLE_ACTION_STOP,             /* it stops: what ran in it is gone */
        IDLE_ACTION_HIBERNATE,        /* a checkpointable desktop hibernates (its next start resumes it), else stops */
};

/* How many viewers botdesk web streams a desktop to at once ([web] viewers). */
enum web_viewers_kind {
        WEB_VIEWERS_MANY,             /* up to 16 at once */
        WEB_VIEWERS_ONE,              /* a new viewer's stream replaces the older ones */
};

enum placement_kind {
        PLACEMENT_HOST,               /* the desktop runs on this host */
        PLACEMENT_EXEC,               /* every verb runs through the exec prefix */
        PLACEMENT_PODMAN,             /* in a podman container botdesk made from [placement] image */
        PLACEMENT_DOCKER,             /* the same with docker */
        PLACEMENT_REFUSE,             /* nowhere: every verb refuses (3), naming the placement */
};

struct bd_config {
        /* [display] */
        unsigned band_min, band_max;  /* band = 20-89 */
        unsigned width, height;       /* geometry = 1440x900 */
        unsigned depth;               /* 16 | 24 | 32 */
        unsigned dpi;                 /* 24..960 */
        unsigned frame_rate;          /* 1..240 */
        /* [session] */
        enum desktop_kind desktop;    /* xfce | command */
        char *command;                /* NULL when empty */
        unsigned command_settle_ms;   /* 0..600000 */
        unsigned start_timeout;       /* seconds, 1..3600 */
        unsigned idle_stop_minutes;   /* 0 = never, ..525600 */
        char *wallpaper;              /* NULL when empty */
        char *exec_pass_env;          /* variable names `exec` passes on, space-separated; NULL when empty */
        bool auto_start;              /* env, exec, input start a desktop that is not running */
        bool accessibility;           /* the session runs the AT-SPI bus; applications export their trees */
        bool checkpointable;          /* the desktop runs in PID and IPC namespaces of its own (botdesk-ns-init) */
        char *criu;                   /* "auto" (criu on PATH), "none", or the path of CRIU 4.1 or later */
        enum idle_action idle_action; /* stop | hibernate */
        /* [resources] */
        unsigned min_free_memory_mb;  /* 0 = no gate */
        unsigned concurrent_starts;   /* starts of one uid bringing up their desktop at once; 0 = twice the CPUs */
        /* [browser] */
        char *browser_executable;     /* "auto", "none" or an absolute path */
        char *browser_profile_dir;    /* NULL = state dir/browser-profile */
        char *browser_home;           /* NULL = none: a relative profile_dir is the state dir's */
        unsigned disk_cache_mb;
        /* [rfb] */
        unsigned max_cut_text;        /* bytes, 0..(1<<24) */
        /* [web] */
        bool release_on_close;        /* the controlling viewer's last clean close hands back */
        char *web_origin;             /* the page's origin behind a proxy (https://host), NULL: the forwarded Host */
        unsigned orphan_release_s;    /* seconds a human's hold outlives the last stream of its viewer */
        unsigned reconnect_grace_ms;  /* a clean close keeps the hold this long for the viewer's next stream */
        enum web_viewers_kind web_viewers; /* [web] viewers: many | one */
        /* [network] (net-policy.h) */
        unsigned network_mode;        /* enum net_mode */
        char *network_allow;          /* address ranges and domain names, as written */
        char *network_deny;           /* address ranges, as written */
        /* [agent] */
        unsigned screenshot_max_edge; /* the long edge of an agent's screenshot, pixels */
        unsigned screenshot_max_pixels; /* its area */
        unsigned clipboard_max_bytes; /* what the agent's clipboard holds at most */
        unsigned settle_min_ms, settle_max_ms; /* the adaptive settle's bounds (x11/settle.h); min 0: fixed */
        bool view_takeover;           /* the chat's viewer (botdesk mcp's view) may take control */
        unsigned files_max_bytes;     /* [files] max_bytes: the largest file botdesk files moves */
        unsigned files_mcp_max_bytes; /* [files] mcp_max_bytes: the same for the MCP file tools */
        enum mcp_tools_kind mcp_tools; /* members | computer | both */
        char *toolset_disabled;       /* the computer toolset's members not served, by name; NULL when none */
        /* [journal] */
        bool journal_enabled;         /* record agent actions in the state dir's journal/ */
        unsigned journal_frame_width; /* the frames' width, pixels, 64..4096 */
        bool journal_redact_text;     /* typed text as its length and a hash */
        unsigned journal_max_mb;      /* the journal's cap; the oldest entries go first */
        unsigned spares;              /* [pool]: desktops started ahead of need, 0..CONFIG_SPARES_MAX */
        /* [placement] */
        enum placement_kind placement_default; /* a profile's placement when its section sets none */
        char *image;                  /* the image of placement = podman | docker */
        /* [install] (host-wide) */
        char *install_system_path;    /* where install finds sudo and the package manager; NULL = the system's */
        /* [profile.NAME] only */
        char *user;                   /* owner for the logind tier, NULL if unset */
        enum placement_kind placement;
        char *exec;                   /* the exec prefix as written (argv_split() parses it), NULL if unset */
        enum exec_shell_kind exec_shell; /* auto | yes | no: quote each word for a remote shell */
        char *remote;                 /* a VNC server botdesk did not start (remote-target.h), NULL if unset */
        bool remote_allow_loopback;   /* remote may name a loopback address */
        char *remote_password_file;   /* its VNC password, when no credential has it; NULL if unset */
        char *remote_ca_file;         /* PEM CAs for its VeNCrypt X509 certificate; NULL if unset */
};

struct config_error {
        char *file;
        unsigned line;                /* 0 = the file as a whole */
        char *message;
};

struct config_errors {
        struct config_error *items;
        size_t n;
};

/* Fills c with the built-in defaults. */
void config_defaults(struct bd_config *c);
void config_done(struct bd_config *c);
void config_errors_done(struct config_errors *e);

struct config_sources {
        /* A system file and its drop-ins (PATH.d/), in place of the standard
         * system files; NULL: BOTDESK_CONFIG, else the standard ones. */
        const char *system_path;
        /* Where the standard system files are (tests: a scratch dir): NULL =
         * CONFIG_SYSCONF_DIR. Set, BOTDESK_CONFIG is not read either. */
        const char *sysconf_dir;
        /* NULL: $XDG_CONFIG_HOME/botdesk/botdesk.ini (or ~/.config/...); "" = none.
         * Its drop-ins are in PATH.d/. */
        const char *user_path;
        bool root_context;            /* PAM: system files must be root-owned, not g/o-writable */
};

/*
 * Load the configuration for profile (may be NULL: globals only). A missing
 * file or drop-in directory is not an error; a drop-in that is not a regular
 * file, or that another uid may write, is one (and nothing of it is used). Returns 0 when there were no errors, -EINVAL when
 * errs holds at least one error (c is then still filled with what was
 * valid), other -errno for failures to read an existing file (also recorded
 * in errs with line 0).
 */
int config_load(struct bd_config *c, const char *profile, const struct config_sources *src,
                struct config_errors *errs);

/*
 * The same in steps, for a caller that needs several profiles of one
 * configuration (the session generator): the files are read, and every
 * error recorded, once. config_set_load() returns as config_load() does
 * (errs may be NULL too); *ret is the set to build from, NULL only on -ENOMEM.
 */
struct config_set;
int config_set_load(const struct config_sources *src, struct config_set **ret, struct config_errors *errs);
struct config_set *config_set_free(struct config_set *s);
static inline void config_set_freep(struct config_set **s) {
        config_set_free(*s);
}
/* The values for profile (NULL: the globals), from the valid entries of the
 * set. c is overwritten: it must hold nothing (zeroed, or after config_done()). */
int config_set_build(const struct config_set *s, const char *profile, struct bd_config *c);
/* The names of the [profile.NAME] sections holding at least one valid
 * entry, in the order of application, each once. An empty set: *ret NULL. */
int config_set_profiles(const struct config_set *s, char ***ret);
/* The files the set was read from (those that exist and were parsed,
 * errors or not), in the order of application: the i-th, NULL past the last. */
const char *config_set_file(const struct config_set *s, size_t i);
/* Where profile's (NULL: the globals') value of key (an enum config_key,
 * keys.h) was set: 1 with the file and line of the entry that won, 0 when
 * it is the default. *ret_file points into s. */
int config_set_origin(const struct config_set *s, const char *profile, unsigned key, const char **ret_file,
                      unsigned *ret_line);

/* Parse one file's text (for tests and the fuzzer): same validation, the
 * given name is used in errors. is_user_file refuses host-wide keys. */
int config_load_string(struct bd_config *c, const char *profile, const char *text,
                       const char *name, bool is_user_file, struct config_errors *errs);

/* Print the effective values as INI (config show). */
void config_dump(const struct bd_config *c, FILE *f);
/* The same with where each value comes from, FILE:LINE or (default), as a
 * comment beside it (config show --origin): c built from s for profile. */
void config_dump_origin(const struct bd_config *c, const struct config_set *s, const char *profile, FILE *f);
/* The same text in a string (malloc'd), or NULL on ENOMEM: two
 * configurations are the same when their texts are. */
char *config_dump_text(const struct bd_config *c);

/* "FILE:LINE: message", or "FILE: message" for a whole-file error; NULL on ENOMEM. */
char *config_error_text(const struct config_error *x);
/* Print each error so, one a line (config check). */
void config_errors_print(const struct config_errors *e, FILE *f);
