/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "config.h"

/* What a value may be; values.c parses each kind, keys.c prints it. */
enum value_kind {
        VALUE_UINT,
        VALUE_BAND,
        VALUE_GEOMETRY,
        VALUE_DEPTH,
        VALUE_DESKTOP,
        VALUE_STRING,      /* any text; empty = unset */
        VALUE_PATH,        /* empty = unset, else an absolute path */
        VALUE_DIR,         /* empty = unset, an absolute path, ~ or ~/PATH, or a path relative to the state dir */
        VALUE_EXECUTABLE,  /* auto | none | absolute path */
        VALUE_USER,
        VALUE_ENV_NAMES,   /* environment variable names separated by spaces */
        VALUE_PLACEMENT,   /* host | exec | podman | docker | refuse */
        VALUE_IMAGE,       /* a container image reference: [A-Za-z0-9._/:@-], starting with a letter or digit */
        VALUE_EXEC_SHELL,  /* auto | yes | no */
        VALUE_ARGV,        /* a command line split by argv_split(), never empty */
        VALUE_BOOL,        /* yes | no (also true/false, on/off, 1/0) */
        VALUE_SEARCH_PATH, /* empty = unset, else absolute directories separated by ':' */
        VALUE_MCP_TOOLS,   /* both | computer | members */
        VALUE_VIEWERS,     /* many | one */
        VALUE_IDLE_ACTION, /* stop | hibernate */
        VALUE_REMOTE,      /* ADDRESS:PORT, [IPv6]:PORT or exec:COMMAND (remote-target.h) */
        VALUE_NET_MODE,    /* open | allowlist | offline (net-policy.h) */
        VALUE_NET_ALLOW,   /* address ranges and domain names (net-policy.h) */
        VALUE_NET_DENY,    /* address ranges */
};

/* The kinds kept as text (a char * field, NULL when unset). */
static inline bool value_kind_is_text(enum value_kind kind) {
        return !(kind == VALUE_UINT || kind == VALUE_BAND || kind == VALUE_GEOMETRY || kind == VALUE_DEPTH ||
                 kind == VALUE_DESKTOP || kind == VALUE_PLACEMENT || kind == VALUE_BOOL ||
                 kind == VALUE_EXEC_SHELL || kind == VALUE_MCP_TOOLS || kind == VALUE_VIEWERS || kind == VALUE_NET_MODE ||
                 kind == VALUE_IDLE_ACTION);
}

/* In the order `botdesk config show` prints them: by section, the keys
 * only [profile.NAME] may set last. */
enum config_key {
        KEY_BAND,
        KEY_GEOMETRY,
        KEY_DEPTH,
        KEY_DPI,
        KEY_FRAME_RATE,
        KEY_DESKTOP,
        KEY_COMMAND,
        KEY_COMMAND_SETTLE_MS,
        KEY_START_TIMEOUT,
        KEY_IDLE_STOP_MINUTES,
        KEY_WALLPAPER,
        KEY_EXEC_PASS_ENV,
        KEY_AUTO_START,
        KEY_ACCESSIBILITY,
        KEY_CHECKPOINTABLE,
        KEY_CRIU,
        KEY_IDLE_ACTION,
        KEY_MIN_FREE_MEMORY_MB,
        KEY_CONCURRENT_STARTS,
        KEY_BROWSER_EXECUTABLE,
        KEY_BROWSER_PROFILE_DIR,
        KEY_BROWSER_HOME,
        KEY_DISK_CACHE_MB,
        KEY_MAX_CUT_TEXT,
        KEY_RELEASE_ON_CLOSE,
        KEY_WEB_ORIGIN,
        KEY_ORPHAN_RELEASE_S,
        KEY_RECONNECT_GRACE_MS,
        KEY_WEB_VIEWERS,
        KEY_SCREENSHOT_MAX_EDGE,
        KEY_SCREENSHOT_MAX_PIXELS,
        KEY_CLIPBOARD_MAX_BYTES,
        KEY_SETTLE_MIN_MS,
        KEY_SETTLE_MAX_MS,
        KEY_VIEW_TAKEOVER,
        KEY_MCP_TOOLS,
        KEY_TOOLSET_DISABLED,
        KEY_FILES_MAX_BYTES,
        KEY_FILES_MCP_MAX_BYTES,
        KEY_NETWORK_MODE,
        KEY_NETWORK_ALLOW,
        KEY_NETWORK_DENY,
        KEY_JOURNAL_ENABLED,
        KEY_JOURNAL_FRAME_WIDTH,
        KEY_JOURNAL_REDACT_TEXT,
        KEY_JOURNAL_MAX_MB,
        KEY_SYSTEM_PATH,
        KEY_SPARES,
        KEY_PLACEMENT_DEFAULT,
        KEY_IMAGE,
        KEY_USER,
        KEY_PLACEMENT,
        KEY_EXEC,
        KEY_EXEC_SHELL,
        KEY_REMOTE,
        KEY_REMOTE_ALLOW_LOOPBACK,
        KEY_REMOTE_PASSWORD_FILE,
        KEY_REMOTE_CA_FILE,
        _KEY_MAX,
};

struct config_key_def {
        const char *section;    /* NULL: only in [profile.NAME] */
        const char *name;       /* unique across sections */
        enum value_kind kind;
        unsigned min, max;
        size_t offset, offset2; /* in struct bd_config; offset2: second half of band and geometry */
        bool host_wide;         /* refused in the user file */
        bool not_per_profile;   /* refused in [profile.NAME]: it is about no one profile */
        unsigned default_a, default_b;
        const char *default_s;  /* NULL: unset */
};

/* The one list of keys: the loader, the checks, the defaults and
 * `botdesk config show` all read it. */
extern const struct config_key_def config_keys[_KEY_MAX];

/* The key of that name, or -1. */
int config_key_lookup(const char *name);
/* A global section some key lives in ([profile.NAME] is not one). */
bool config_section_known(const char *name);

/* "[display], [session], …, [profile.NAME]": the sections a file may
 * have, for the message that rejects another. NULL when out of memory. */
char *config_sections_list(void);

/* The words of an enumerated kind (VALUE_DESKTOP, VALUE_PLACEMENT), indexed
 * by the enum's value; NULL-terminated. */
const char *const *config_kind_words(enum value_kind kind);

/* config_defaults(), telling a failed copy of a string default: -ENOMEM. */
int config_defaults_apply(struct bd_config *c);
