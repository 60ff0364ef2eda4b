/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "keys.h"
#include "net-policy.h"
#include "util.h"
#include "values.h"

#define FIELD(f) offsetof(struct bd_config, f)

/* Key names are unique across sections, so in a [profile.NAME] section the
 * name alone says which setting is meant. */
const struct config_key_def config_keys[_KEY_MAX] = {
        [KEY_BAND]                = { "display",   "band",               VALUE_BAND,        0, 999,      FIELD(band_min), FIELD(band_max), .host_wide = true, .default_a = 20, .default_b = 89 },
        [KEY_GEOMETRY]            = { "display",   "geometry",           VALUE_GEOMETRY,    0, 0,        FIELD(width), FIELD(height), .default_a = 1440, .default_b = 900 },
        [KEY_DEPTH]               = { "display",   "depth",              VALUE_DEPTH,       16, 32,      FIELD(depth), .default_a = 24 },
        [KEY_DPI]                 = { "display",   "dpi",                VALUE_UINT,        24, 960,     FIELD(dpi), .default_a = 96 },
        [KEY_FRAME_RATE]          = { "display",   "frame_rate",         VALUE_UINT,        1, 240,      FIELD(frame_rate), .default_a = 30 },
        [KEY_DESKTOP]             = { "session",   "desktop",            VALUE_DESKTOP,     0, 0,        FIELD(desktop), .default_a = DESKTOP_XFCE },
        [KEY_COMMAND]             = { "session",   "command",            VALUE_STRING,      0, 0,        FIELD(command) },
        [KEY_COMMAND_SETTLE_MS]   = { "session",   "command_settle_ms",  VALUE_UINT,        0, 600000,   FIELD(command_settle_ms), .default_a = 500 },
        [KEY_START_TIMEOUT]       = { "session",   "start_timeout",      VALUE_UINT,        1, 3600,     FIELD(start_timeout), .default_a = 15 },
        [KEY_IDLE_STOP_MINUTES]   = { "session",   "idle_stop_minutes",  VALUE_UINT,        0, 525600,   FIELD(idle_stop_minutes), .default_a = 30 },
        [KEY_WALLPAPER]           = { "session",   "wallpaper",          VALUE_PATH,        0, 0,        FIELD(wallpaper) },
        [KEY_EXEC_PASS_ENV]       = { "session",   "exec_pass_env",      VALUE_ENV_NAMES,   0, 0,        FIELD(exec_pass_env) },
        [KEY_AUTO_START]          = { "session",   "auto_start",         VALUE_BOOL,        0, 0,        FIELD(auto_start) },
        [KEY_ACCESSIBILITY]       = { "session",   "accessibility",      VALUE_BOOL,        0, 0,        FIELD(accessibility), .default_a = true },
        /* The desktop's tree in PID and IPC namespaces of its own, the form a checkpoint dumps (doc/snapshots.md). */
        [KEY_CHECKPOINTABLE]      = { "session",   "checkpointable",     VALUE_BOOL,        0, 0,        FIELD(checkpointable) },
        /* What dumps and restores it: CRIU 4.1 or later (supervisor/checkpoint.c). */
        /* After idle_stop_minutes: stop, or hibernate a checkpointable desktop (supervisor/idle.c). */
        [KEY_IDLE_ACTION]         = { "session",   "idle_action",        VALUE_IDLE_ACTION, 0, 0,        FIELD(idle_action), .default_a = IDLE_ACTION_STOP },
        [KEY_CRIU]                = { "session",   "criu",               VALUE_EXECUTABLE,  0, 0,        FIELD(criu), .default_s = "auto", .not_per_profile = true },
        [KEY_MIN_FREE_MEMORY_MB]  = { "resources", "min_free_memory_mb", VALUE_UINT,        0, 1048576,  FIELD(min_free_memory_mb), .default_a = 1536 },
        /* The start queue's slots (alloc/start-queue.h); 0: twice the CPUs. */
        [KEY_CONCURRENT_STARTS]   = { "resources", "concurrent_starts",  VALUE_UINT,        0, 1024,     FIELD(concurrent_starts), .not_per_profile = true },
        [KEY_BROWSER_EXECUTABLE]  = { "browser",   "executable",         VALUE_EXECUTABLE,  0, 0,        FIELD(browser_executable), .default_s = "auto" },
        [KEY_BROWSER_PROFILE_DIR] = { "browser",   "profile_dir",        VALUE_DIR,         0, 0,        FIELD(browser_profile_dir) },
        /* The gateway's home: what a relative profile_dir or AGENT_BROWSER_PROFILE is below (desktop/browser.h). */
        [KEY_BROWSER_HOME]        = { "browser",   "home",               VALUE_PATH,        0, 0,        FIELD(browser_home) },
        [KEY_DISK_CACHE_MB]       = { "browser",   "disk_cache_mb",      VALUE_UINT,        0, 65536,    FIELD(disk_cache_mb), .default_a = 256 },
        [KEY_MAX_CUT_TEXT]        = { "rfb",       "max_cut_text",       VALUE_UINT,        0, 16777216, FIELD(max_cut_text), .default_a = 262144 },
        [KEY_RELEASE_ON_CLOSE]    = { "web",       "release_on_close",   VALUE_BOOL,        0, 0,        FIELD(release_on_close), .default_a = true },
        [KEY_WEB_ORIGIN]          = { "web",       "origin",             VALUE_STRING,      0, 0,        FIELD(web_origin) },
        /* A human's hold with no stream of its viewer open ends after this (a crashed browser, a dropped network). */
        [KEY_ORPHAN_RELEASE_S]    = { "web",       "orphan_release_s",   VALUE_UINT,        1, 86400,    FIELD(orphan_release_s), .default_a = 120 },
        /* A clean close (a reload) keeps the hold this long for the same viewer's next stream. */
        [KEY_RECONNECT_GRACE_MS]  = { "web",       "reconnect_grace_ms", VALUE_UINT,        0, 60000,    FIELD(reconnect_grace_ms), .default_a = 3000 },
        /* one: a pane opened again replaces its older stream instead of watching twice. */
        [KEY_WEB_VIEWERS]         = { "web",       "viewers",            VALUE_VIEWERS,     0, 0,        FIELD(web_viewers), .default_a = WEB_VIEWERS_MANY },
        /* The agent's pictures: the limits of the model that reads them (botdesk mcp, act). */
        [KEY_SCREENSHOT_MAX_EDGE] = { "agent",     "screenshot_max_edge", VALUE_UINT,       64, 8192,    FIELD(screenshot_max_edge), .default_a = 1568 },
        [KEY_SCREENSHOT_MAX_PIXELS] = { "agent",   "screenshot_max_pixels", VALUE_UINT,     4096, 67108864, FIELD(screenshot_max_pixels), .default_a = 1150000 },
        [KEY_CLIPBOARD_MAX_BYTES] = { "agent",     "clipboard_max_bytes", VALUE_UINT,       1, 4194304,  FIELD(clipboard_max_bytes), .default_a = 1048576 },
        /* The settle after an action (x11/settle.h): the window after the screen's last change, learnt from
         * the action's own changes, within these bounds; settle_min_ms = 0: a fixed window. */
        [KEY_SETTLE_MIN_MS]       = { "agent",     "settle_min_ms",      VALUE_UINT,        0, 2000,     FIELD(settle_min_ms), .default_a = 60 },
        [KEY_SETTLE_MAX_MS]       = { "agent",     "settle_max_ms",      VALUE_UINT,        1, 2000,     FIELD(settle_max_ms), .default_a = 250 },
        /* The view tool's page may take control for its user (mcp/resources.h): for a host whose user is the
         * desktop's human. */
        [KEY_VIEW_TAKEOVER]       = { "agent",     "view_takeover",      VALUE_BOOL,        0, 0,        FIELD(view_takeover) },
        [KEY_MCP_TOOLS]           = { "agent",     "mcp_tools",          VALUE_MCP_TOOLS,   0, 0,        FIELD(mcp_tools), .default_a = MCP_TOOLS_BOTH },
        /* Member names, checked where they are known (mcp/action.c): shared/ cannot reach them. */
        [KEY_TOOLSET_DISABLED]    = { "agent",     "toolset_disabled",   VALUE_STRING,      0, 0,        FIELD(toolset_disabled) },
        /* botdesk files and the MCP file tools: the largest file moved; MCP's smaller, its results go to a model. */
        [KEY_FILES_MAX_BYTES]     = { "files",     "max_bytes",          VALUE_UINT,        1, UINT_MAX, FIELD(files_max_bytes), .default_a = 104857600 },
        [KEY_FILES_MCP_MAX_BYTES] = { "files",     "mcp_max_bytes",      VALUE_UINT,        1, 67108864, FIELD(files_mcp_max_bytes), .default_a = 5242880 },
        /* What the desktop may reach over IP, enforced by the kernel (net-policy.h). */
        [KEY_NETWORK_MODE]        = { "network",   "mode",               VALUE_NET_MODE,    0, 0,        FIELD(network_mode), .default_a = NET_MODE_OPEN },
        [KEY_NETWORK_ALLOW]       = { "network",   "allow",              VALUE_NET_ALLOW,   0, 0,        FIELD(network_allow) },
        [KEY_NETWORK_DENY]        = { "network",   "deny",               VALUE_NET_DENY,    0, 0,        FIELD(network_deny) },
        /* The journal of agent actions (control/journal.h): names unique across sections, hence "journal" in each. */
        [KEY_JOURNAL_ENABLED]     = { "journal",   "enabled",            VALUE_BOOL,        0, 0,        FIELD(journal_enabled), .default_a = true },
        [KEY_JOURNAL_FRAME_WIDTH] = { "journal",   "frame_width",        VALUE_UINT,        64, 4096,    FIELD(journal_frame_width), .default_a = 640 },
        [KEY_JOURNAL_REDACT_TEXT] = { "journal",   "redact_text",        VALUE_BOOL,        0, 0,        FIELD(journal_redact_text), .default_a = true },
        [KEY_JOURNAL_MAX_MB]      = { "journal",   "max_mb",             VALUE_UINT,        1, 1048576,  FIELD(journal_max_mb), .default_a = 200 },
        /* Where install finds sudo and the package manager: host-wide, so a
         * user's file cannot point them elsewhere (tests point it at fakes). */
        [KEY_SYSTEM_PATH]         = { "install",   "system_path",        VALUE_SEARCH_PATH, 0, 0,        FIELD(install_system_path), .host_wide = true },
        [KEY_SPARES]              = { "pool",      "spares",             VALUE_UINT,        0, CONFIG_SPARES_MAX, FIELD(spares), .not_per_profile = true },
        /* Where every profile's desktop runs unless its section says placement = (config_set_build()). */
        [KEY_PLACEMENT_DEFAULT]   = { "placement", "default",            VALUE_PLACEMENT,   0, 0,        FIELD(placement_default), .not_per_profile = true, .default_a = PLACEMENT_HOST },
        [KEY_IMAGE]               = { "placement", "image",              VALUE_IMAGE,       0, 0,        FIELD(image), .default_s = "localhost/botdesk:latest" },
        [KEY_USER]                = { NULL,        "user",               VALUE_USER,        0, 0,        FIELD(user), .host_wide = true },
        [KEY_PLACEMENT]           = { NULL,        "placement",          VALUE_PLACEMENT,   0, 0,        FIELD(placement), .default_a = PLACEMENT_HOST },
        [KEY_EXEC]                = { NULL,        "exec",               VALUE_ARGV,        0, 0,        FIELD(exec) },
        [KEY_EXEC_SHELL]          = { NULL,        "exec_shell",         VALUE_EXEC_SHELL,  0, 0,        FIELD(exec_shell), .default_a = EXEC_SHELL_AUTO },
        /* A VNC server botdesk did not start: the profile fronts it (remote-target.h). */
        [KEY_REMOTE]              = { NULL,        "remote",             VALUE_REMOTE,      0, 0,        FIELD(remote) },
        [KEY_REMOTE_ALLOW_LOOPBACK] = { NULL,      "remote_allow_loopback", VALUE_BOOL,     0, 0,        FIELD(remote_allow_loopback) },
        [KEY_REMOTE_PASSWORD_FILE] = { NULL,       "remote_password_file", VALUE_PATH,      0, 0,        FIELD(remote_password_file) },
        /* The CAs a VeNCrypt server's certificate must chain to (control/rfb-tls.h). */
        [KEY_REMOTE_CA_FILE]      = { NULL,        "remote_ca_file",     VALUE_PATH,        0, 0,        FIELD(remote_ca_file) },
};

static const char *const desktop_words[] = { [DESKTOP_XFCE] = "xfce", [DESKTOP_COMMAND] = "command", NULL };
static const char *const placement_words[] = {
        [PLACEMENT_HOST] = "host", [PLACEMENT_EXEC] = "exec", [PLACEMENT_PODMAN] = "podman",
        [PLACEMENT_DOCKER] = "docker", [PLACEMENT_REFUSE] = "refuse", NULL
};
static const char *const mcp_tools_words[] = {
        [MCP_TOOLS_BOTH] = "both", [MCP_TOOLS_COMPUTER] = "computer", [MCP_TOOLS_MEMBERS] = "members", NULL
};
static const char *const viewers_words[] = { [WEB_VIEWERS_MANY] = "many", [WEB_VIEWERS_ONE] = "one", NULL };
static const char *const idle_action_words[] = { [IDLE_ACTION_STOP] = "stop", [IDLE_ACTION_HIBERNATE] = "hibernate", NULL };
static const char *const exec_shell_words[] = {
        [EXEC_SHELL_AUTO] = "auto", [EXEC_SHELL_YES] = "yes", [EXEC_SHELL_NO] = "no", NULL
};

const char *const *config_kind_words(enum value_kind kind) {
        switch (kind) {
        case VALUE_DESKTOP:
                return desktop_words;
        case VALUE_PLACEMENT:
                return placement_words;
        case VALUE_EXEC_SHELL:
                return exec_shell_words;
        case VALUE_MCP_TOOLS:
                return mcp_tools_words;
        case VALUE_VIEWERS:
                return viewers_words;
        case VALUE_IDLE_ACTION:
                return idle_action_words;
        case VALUE_NET_MODE:
                return net_mode_words;
        default:
                return NULL;
        }
}

int config_key_lookup(const char *name) {
        for (size_t i = 0; i < ELEMENTSOF(config_keys); i++)
                if (streq(config_keys[i].name, name))
                        return (int) i;
        return -1;
}

bool config_section_known(const char *name) {
        for (size_t i = 0; i < ELEMENTSOF(config_keys); i++)
                if (config_keys[i].section && streq(config_keys[i].section, name))
                        return true;
        return false;
}

char *config_sections_list(void) {
        _cleanup_free_ char *list = NULL;
        const char *last = NULL;

        /* The table is grouped by section: each new one is named once. */
        for (size_t i = 0; i < ELEMENTSOF(config_keys); i++) {
                const char *s = config_keys[i].section;
                char *l;

                if (!s || (last && streq(last, s)))
                        continue;
                l = strdup_printf("%s%s[%s]", list ?: "", list ? ", " : "", s);
                if (!l)
                        return NULL;
                free(list);
                list = l;
                last = s;
        }
        return strdup_printf("%s%s[profile.NAME]", list ?: "", list ? ", " : "");
}

int config_defaults_apply(struct bd_config *c) {
        int r = 0;

        *c = (struct bd_config) {};
        for (size_t i = 0; i < ELEMENTSOF(config_keys); i++) {
                const struct config_key_def *k = &config_keys[i];

                /* A string default left NULL when out of memory; the caller learns it from r. */
                if (config_value_apply(k, k->default_a, k->default_b, k->default_s, c) < 0)
                        r = -ENOMEM;
        }
        return r;
}

void config_defaults(struct bd_config *c) {
        (void) config_defaults_apply(c);
}

void config_done(struct bd_config *c) {
        char *base = (char *) c;

        if (!c)
                return;
        for (size_t i = 0; i < ELEMENTSOF(config_keys); i++)
                if (value_kind_is_text(config_keys[i].kind))
                        free(*(char **) (base + config_keys[i].offset));
        *c = (struct bd_config) {};
}

/* "key = value" without the newline; the number of characters printed. */
static int dump_value(const struct bd_config *c, const struct config_key_def *k, FILE *f) {
        const char *base = (const char *) c;
        const unsigned *a = (const unsigned *) (base + k->offset), *b = (const unsigned *) (base + k->offset2);
        int n;

        switch (k->kind) {
        case VALUE_UINT:
        case VALUE_DEPTH:
                n = fprintf(f, "%s = %u", k->name, *a);
                break;
        case VALUE_BAND:
                n = fprintf(f, "%s = %u-%u", k->name, *a, *b);
                break;
        case VALUE_GEOMETRY:
                n = fprintf(f, "%s = %ux%u", k->name, *a, *b);
                break;
        case VALUE_DESKTOP:
                n = fprintf(f, "%s = %s", k->name, desktop_words[*(const enum desktop_kind *) (base + k->offset)]);
                break;
        case VALUE_PLACEMENT:
                n = fprintf(f, "%s = %s", k->name, placement_words[*(const enum placement_kind *) (base + k->offset)]);
                break;
        case VALUE_EXEC_SHELL:
                n = fprintf(f, "%s = %s", k->name, exec_shell_words[*(const enum exec_shell_kind *) (base + k->offset)]);
                break;
        case VALUE_MCP_TOOLS:
                n = fprintf(f, "%s = %s", k->name, mcp_tools_words[*(const enum mcp_tools_kind *) (base + k->offset)]);
                break;
        case VALUE_VIEWERS:
                n = fprintf(f, "%s = %s", k->name, viewers_words[*(const enum web_viewers_kind *) (base + k->offset)]);
                break;
        case VALUE_IDLE_ACTION:
                n = fprintf(f, "%s = %s", k->name, idle_action_words[*(const enum idle_action *) (base + k->offset)]);
                break;
        case VALUE_NET_MODE:
                n = fprintf(f, "%s = %s", k->name, net_mode_words[*a]);
                break;
        case VALUE_BOOL:
                n = fprintf(f, "%s = %s", k->name, *(const bool *) (base + k->offset) ? "yes" : "no");
                break;
        default: {
                const char *s = *(char *const *) (base + k->offset) ?: k->default_s;

                if (s && s[0])
                        n = fprintf(f, "%s = %s", k->name, s);
                else
                        n = fprintf(f, "%s =", k->name);
                break;
        }
        }
        return n;
}

/* The column of the origins in config show --origin. */
#define ORIGIN_COLUMN 40

static void dump(const struct bd_config *c, const struct config_set *s, const char *profile, FILE *f) {
        const char *section = NULL;

        for (size_t i = 0; i < ELEMENTSOF(config_keys); i++) {
                const struct config_key_def *k = &config_keys[i];
                const char *file = NULL;
                unsigned line = 0;
                int n = 0, w;

                if (!k->section) {
                        /* Keys of [profile.NAME] only, and the name is not part
                         * of the effective values: comments keep the output valid INI. */
                        if (i == 0 || config_keys[i - 1].section)
                                fputs("\n; from [profile.NAME]:\n", f);
                        n = fprintf(f, "; ");
                } else if (!section || !streq(section, k->section)) {
                        fprintf(f, "%s[%s]\n", section ? "\n" : "", k->section);
                        section = k->section;
                }
                w = dump_value(c, k, f);
                if (s) {
                        /* fprintf()'s counts: negative only when f failed, which fclose() tells. */
                        int col = (n > 0 ? n : 0) + (w > 0 ? w : 0), pad = col < ORIGIN_COLUMN - 2 ? ORIGIN_COLUMN - col : 2;

                        /* An inline comment (a space, then ';') keeps it INI. */
                        if (config_set_origin(s, profile, (unsigned) i, &file, &line) > 0)
                                fprintf(f, "%*s; %s:%u", pad, "", file, line);
                        else
                                fprintf(f, "%*s; (default)", pad, "");
                }
                fputc('\n', f);
        }
}

void config_dump(const struct bd_config *c, FILE *f) {
        dump(c, NULL, NULL, f);
}

void config_dump_origin(const struct bd_config *c, const struct config_set *s, const char *profile, FILE *f) {
        dump(c, s, profile, f);
}

char *config_dump_text(const struct bd_config *c) {
        char *text = NULL;
        size_t size = 0;
        FILE *f = open_memstream(&text, &size);

        if (!f)
                return NULL;
        config_dump(c, f);
        if (fclose(f) != 0) {
                free(text);
                return NULL;
        }
        return text;
}
