/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <ini.h>

#include "argv-split.h"
#include "config.h"
#include "envfile.h"
#include "profile.h"
#include "util.h"

/*
 * How this file uses inih: inih stops being precise exactly where hostile
 * input starts (it truncates long lines and feeds the rest back as a new
 * line, turns indented lines into continuations, and only returns the first
 * error). So our reader looks at every physical line first, records every
 * error with its line number itself, and hands inih only lines it has
 * already judged to be a well-formed "[section]" or "key = value". inih then
 * only does the splitting and comment stripping, and can never fail.
 */

/* A config file is a few dozen lines; the cap bounds the work a hostile file
 * can cause (every check below is at worst quadratic in the number of
 * sections or desktop/command entries). */
#define CONFIG_FILE_MAX (64U * 1024U)

#define USER_NAME_MAX 32

enum value_kind {
        VALUE_UINT,
        VALUE_BAND,
        VALUE_GEOMETRY,
        VALUE_DEPTH,
        VALUE_DESKTOP,
        VALUE_STRING,     /* any text; empty = unset */
        VALUE_PATH,       /* empty = unset, else an absolute path */
        VALUE_DIR,        /* empty = unset, an absolute path, ~ or ~/PATH, or a path relative to the state dir */
        VALUE_EXECUTABLE, /* auto | none | absolute path */
        VALUE_USER,
        VALUE_ENV_NAMES,  /* environment variable names separated by spaces */
        VALUE_PLACEMENT,  /* host | exec */
        VALUE_ARGV,       /* a command line split by argv_split(), never empty */
        VALUE_BOOL,       /* yes | no (also true/false, on/off, 1/0) */
        VALUE_SEARCH_PATH, /* empty = unset, else absolute directories separated by ':' */
};

enum {
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
        KEY_MIN_FREE_MEMORY_MB,
        KEY_BROWSER_EXECUTABLE,
        KEY_BROWSER_PROFILE_DIR,
        KEY_DISK_CACHE_MB,
        KEY_MAX_CUT_TEXT,
        KEY_RELEASE_ON_CLOSE,
        KEY_SPARES,
        KEY_USER,
        KEY_PLACEMENT,
        KEY_EXEC,
        KEY_SYSTEM_PATH,
        _KEY_MAX,
};

struct key_def {
        const char *section; /* NULL: only in [profile.NAME] */
        const char *name;
        enum value_kind kind;
        unsigned min, max;
        size_t offset, offset2; /* offset2: second half of band and geometry */
        bool host_wide;         /* refused in the user file */
        bool not_per_profile;   /* refused in [profile.NAME]: it is about no one profile */
};

#define FIELD(f) offsetof(struct bd_config, f)

/* Key names are unique across sections, so in a [profile.NAME] section the
 * name alone says which setting is meant. */
static const struct key_def keys[_KEY_MAX] = {
        [KEY_BAND]                = { "display",   "band",               VALUE_BAND,       0, 999,       FIELD(band_min), FIELD(band_max), true },
        [KEY_GEOMETRY]            = { "display",   "geometry",           VALUE_GEOMETRY,   0, 0,         FIELD(width), FIELD(height), false },
        [KEY_DEPTH]               = { "display",   "depth",              VALUE_DEPTH,      16, 32,       FIELD(depth), 0, false },
        [KEY_DPI]                 = { "display",   "dpi",                VALUE_UINT,       24, 960,      FIELD(dpi), 0, false },
        [KEY_FRAME_RATE]          = { "display",   "frame_rate",         VALUE_UINT,       1, 240,       FIELD(frame_rate), 0, false },
        [KEY_DESKTOP]             = { "session",   "desktop",            VALUE_DESKTOP,    0, 0,         FIELD(desktop), 0, false },
        [KEY_COMMAND]             = { "session",   "command",            VALUE_STRING,     0, 0,         FIELD(command), 0, false },
        [KEY_COMMAND_SETTLE_MS]   = { "session",   "command_settle_ms",  VALUE_UINT,       0, 600000,    FIELD(command_settle_ms), 0, false },
        [KEY_START_TIMEOUT]       = { "session",   "start_timeout",      VALUE_UINT,       1, 3600,      FIELD(start_timeout), 0, false },
        [KEY_IDLE_STOP_MINUTES]   = { "session",   "idle_stop_minutes",  VALUE_UINT,       0, 525600,    FIELD(idle_stop_minutes), 0, false },
        [KEY_WALLPAPER]           = { "session",   "wallpaper",          VALUE_PATH,       0, 0,         FIELD(wallpaper), 0, false },
        [KEY_EXEC_PASS_ENV]       = { "session",   "exec_pass_env",      VALUE_ENV_NAMES,  0, 0,         FIELD(exec_pass_env), 0, false },
        [KEY_AUTO_START]          = { "session",   "auto_start",         VALUE_BOOL,       0, 0,         FIELD(auto_start), 0, false },
        [KEY_MIN_FREE_MEMORY_MB]  = { "resources", "min_free_memory_mb", VALUE_UINT,       0, 1048576,   FIELD(min_free_memory_mb), 0, false },
        [KEY_BROWSER_EXECUTABLE]  = { "browser",   "executable",         VALUE_EXECUTABLE, 0, 0,         FIELD(browser_executable), 0, false },
        [KEY_BROWSER_PROFILE_DIR] = { "browser",   "profile_dir",        VALUE_DIR,        0, 0,         FIELD(browser_profile_dir), 0, false },
        [KEY_DISK_CACHE_MB]       = { "browser",   "disk_cache_mb",      VALUE_UINT,       0, 65536,     FIELD(disk_cache_mb), 0, false },
        [KEY_MAX_CUT_TEXT]        = { "rfb",       "max_cut_text",       VALUE_UINT,       0, 16777216,  FIELD(max_cut_text), 0, false },
        [KEY_RELEASE_ON_CLOSE]    = { "web",       "release_on_close",   VALUE_BOOL,       0, 0,         FIELD(release_on_close), 0, false },
        [KEY_SPARES]              = { "pool",      "spares",             VALUE_UINT,       0, CONFIG_SPARES_MAX, FIELD(spares), 0, false, true },
        [KEY_USER]                = { NULL,        "user",               VALUE_USER,       0, 0,         FIELD(user), 0, true },
        [KEY_PLACEMENT]           = { NULL,        "placement",          VALUE_PLACEMENT,  0, 0,         FIELD(placement), 0, false },
        [KEY_EXEC]                = { NULL,        "exec",               VALUE_ARGV,       0, 0,         FIELD(exec), 0, false },
        /* Where install finds sudo and the package manager: host-wide, so a
         * user's file cannot point them elsewhere (tests point it at fakes). */
        [KEY_SYSTEM_PATH]         = { "install",   "system_path",        VALUE_SEARCH_PATH, 0, 0,        FIELD(install_system_path), 0, true },
};

static const char *const sections[] = { "display", "session", "resources", "browser", "rfb", "web", "install", "pool" };

#define GEOMETRY_WIDTH_MIN 320U
#define GEOMETRY_HEIGHT_MIN 200U
#define GEOMETRY_MAX 8192U

struct value {
        unsigned a, b;
        char *s;
};

/* One validated "key = value" line of one file. */
struct entry {
        unsigned key;
        unsigned line;
        const char *file;  /* borrowed from the parsed_file */
        char *profile;     /* NULL: a global section */
        struct value v;
};

struct parsed_file {
        const char *name;
        struct entry *entries;
        size_t n_entries, n_allocated;
};

/* Which keys one section name has set in one file, for duplicate detection. */
struct seen_section {
        char *name;
        unsigned line[_KEY_MAX]; /* 0 = not set yet */
};

enum section_state {
        SECTION_NONE, /* before the first header */
        SECTION_OK,
        SECTION_BAD,  /* already reported; its keys are not reported again */
};

struct parser {
        const char *file;
        const char *pos, *end;
        unsigned line;
        bool started;
        bool user_file;

        enum section_state section_state;
        char *section;
        const char *profile; /* points into section for [profile.NAME] */
        struct seen_section *seen;
        size_t n_seen, cur_seen;

        struct parsed_file *out;
        struct config_errors *errs;
        int r; /* -ENOMEM once an allocation failed */
};

static void value_done(struct value *v) {
        free(v->s);
        v->s = NULL;
}

static void parsed_file_done(struct parsed_file *f) {
        for (size_t i = 0; i < f->n_entries; i++) {
                free(f->entries[i].profile);
                value_done(&f->entries[i].v);
        }
        free(f->entries);
        *f = (struct parsed_file) {};
}

void config_defaults(struct bd_config *c) {
        *c = (struct bd_config) {
                .band_min = 20,
                .band_max = 89,
                .width = 1440,
                .height = 900,
                .depth = 24,
                .dpi = 96,
                .frame_rate = 30,
                .desktop = DESKTOP_XFCE,
                .command_settle_ms = 500,
                .start_timeout = 15,
                .idle_stop_minutes = 30,
                .min_free_memory_mb = 1536,
                .disk_cache_mb = 256,
                .max_cut_text = 262144,
                .release_on_close = true,
        };
        /* NULL only when out of memory; config_load() turns that into -ENOMEM. */
        c->browser_executable = strdup("auto");
}

void config_done(struct bd_config *c) {
        if (!c)
                return;
        free(c->command);
        free(c->wallpaper);
        free(c->exec_pass_env);
        free(c->browser_executable);
        free(c->browser_profile_dir);
        free(c->install_system_path);
        free(c->user);
        free(c->exec);
        *c = (struct bd_config) {};
}

void config_errors_done(struct config_errors *e) {
        if (!e)
                return;
        for (size_t i = 0; i < e->n; i++) {
                free(e->items[i].file);
                free(e->items[i].message);
        }
        free(e->items);
        *e = (struct config_errors) {};
}

/* The struct has no capacity field: grow to the next power of two whenever
 * n reaches one, so that a file full of errors stays linear. */
static int errors_grow(struct config_errors *e) {
        struct config_error *items;
        size_t cap;

        if (e->n == 0)
                cap = 8;
        else if (e->n >= 8 && (e->n & (e->n - 1)) == 0)
                cap = e->n * 2;
        else
                return 0;
        items = reallocarray(e->items, cap, sizeof(*items));
        if (!items)
                return -ENOMEM;
        e->items = items;
        return 0;
}

__attribute__((format(printf, 4, 0)))
static int errors_addv(struct config_errors *e, const char *file, unsigned line, const char *fmt, va_list ap) {
        _cleanup_free_ char *message = NULL, *f = NULL;

        if (vasprintf(&message, fmt, ap) < 0) {
                message = NULL;
                return -ENOMEM;
        }
        f = strdup(file);
        if (!f || errors_grow(e) < 0)
                return -ENOMEM;
        e->items[e->n++] = (struct config_error) {
                .file = TAKE_PTR(f),
                .line = line,
                .message = TAKE_PTR(message),
        };
        return 0;
}

_printf_(4, 5)
static int errors_add(struct config_errors *e, const char *file, unsigned line, const char *fmt, ...) {
        va_list ap;
        int r;

        va_start(ap, fmt);
        r = errors_addv(e, file, line, fmt, ap);
        va_end(ap);
        return r;
}

/* Records an error on the current line. Returns -EINVAL, the value callers
 * propagate for "reported, keep going", or -ENOMEM (remembered in p->r). */
_printf_(2, 3)
static int parser_error(struct parser *p, const char *fmt, ...) {
        va_list ap;
        int r;

        va_start(ap, fmt);
        r = errors_addv(p->errs, p->file, p->line, fmt, ap);
        va_end(ap);
        if (r < 0) {
                p->r = r;
                return r;
        }
        return -EINVAL;
}

/* Config text ends up on terminals and in the journal: control characters
 * from a hostile file are shown escaped, never emitted. */
static char *escape(const char *s) {
        size_t n = strlen(s);
        char *ret, *q;

        ret = malloc(n * 4 + 1);
        if (!ret)
                return NULL;
        q = ret;
        for (; *s; s++) {
                unsigned char ch = (unsigned char) *s;

                if (ch < 0x20 || ch == 0x7f)
                        q += sprintf(q, "\\x%02x", ch);
                else
                        *q++ = (char) ch;
        }
        *q = '\0';
        return ret;
}

/* "KEY = VALUE: what is wrong (what is allowed)" */
_printf_(4, 5)
static int value_error(struct parser *p, const struct key_def *k, const char *value, const char *fmt, ...) {
        _cleanup_free_ char *v = NULL, *detail = NULL;
        va_list ap;
        int r;

        va_start(ap, fmt);
        r = vasprintf(&detail, fmt, ap);
        va_end(ap);
        if (r < 0) {
                detail = NULL;
                p->r = -ENOMEM;
                return -ENOMEM;
        }
        v = escape(value);
        if (!v) {
                p->r = -ENOMEM;
                return -ENOMEM;
        }
        return parser_error(p, "%s = %s: %s", k->name, v, detail);
}

/* The portable subset useradd accepts by default (NAME_REGEX in adduser.conf). */
static bool user_name_valid(const char *name) {
        size_t i;

        if (!((name[0] >= 'a' && name[0] <= 'z') || name[0] == '_'))
                return false;
        for (i = 1; name[i]; i++) {
                char ch = name[i];

                if (i >= USER_NAME_MAX)
                        return false;
                if (!((ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '_' || ch == '-'))
                        return false;
        }
        return true;
}

static int parse_number(struct parser *p, const struct key_def *k, const char *value, unsigned *ret) {
        unsigned long long n;
        int r;

        r = parse_uint(value, k->max, &n);
        if (r == -ERANGE || (r >= 0 && n < k->min))
                return value_error(p, k, value, "out of range (allowed: %u..%u)", k->min, k->max);
        if (r < 0)
                return value_error(p, k, value, "not a decimal number (allowed: %u..%u)", k->min, k->max);
        *ret = (unsigned) n;
        return 0;
}

/* Splits "AsepB" into two decimal numbers. Returns -EINVAL when the shape is
 * wrong, -ERANGE (with *bad set to the offending half) when a number is above
 * its maximum or below its minimum. */
static int parse_pair(const char *value, char sep, unsigned min_a, unsigned min_b, unsigned max,
                      unsigned *a, unsigned *b, const char **bad) {
        _cleanup_free_ char *first = NULL;
        const char *s = strchr(value, sep);
        unsigned long long x, y;
        int r1, r2;

        if (!s)
                return -EINVAL;
        first = strndup(value, (size_t) (s - value));
        if (!first)
                return -ENOMEM;
        r1 = parse_uint(first, max, &x);
        r2 = parse_uint(s + 1, max, &y);
        if (r1 == -EINVAL || r2 == -EINVAL)
                return -EINVAL;
        if (r1 == -ERANGE || (r1 >= 0 && x < min_a)) {
                *bad = "first";
                return -ERANGE;
        }
        if (r2 == -ERANGE || (r2 >= 0 && y < min_b)) {
                *bad = "second";
                return -ERANGE;
        }
        *a = (unsigned) x;
        *b = (unsigned) y;
        return 0;
}

static int parse_band(struct parser *p, const struct key_def *k, const char *value, struct value *ret) {
        const char *bad = NULL;
        int r;

        r = parse_pair(value, '-', k->min, k->min, k->max, &ret->a, &ret->b, &bad);
        if (r == -ENOMEM)
                return p->r = r;
        if (r == -EINVAL)
                return value_error(p, k, value, "expected MIN-MAX, two display numbers %u..%u (e.g. 20-89)",
                                   k->min, k->max);
        if (r == -ERANGE)
                return value_error(p, k, value, "the %s display number is out of range (allowed: %u..%u)",
                                   streq(bad, "first") ? "minimum" : "maximum", k->min, k->max);
        if (ret->a > ret->b)
                return value_error(p, k, value, "the minimum %u is above the maximum %u", ret->a, ret->b);
        return 0;
}

static int parse_geometry(struct parser *p, const struct key_def *k, const char *value, struct value *ret) {
        const char *bad = NULL;
        int r;

        r = parse_pair(value, 'x', GEOMETRY_WIDTH_MIN, GEOMETRY_HEIGHT_MIN, GEOMETRY_MAX,
                       &ret->a, &ret->b, &bad);
        if (r == -ENOMEM)
                return p->r = r;
        if (r == -EINVAL)
                return value_error(p, k, value, "expected WIDTHxHEIGHT (e.g. 1440x900)");
        if (r == -ERANGE && streq(bad, "first"))
                return value_error(p, k, value, "the width is out of range (allowed: %u..%u)",
                                   GEOMETRY_WIDTH_MIN, GEOMETRY_MAX);
        if (r == -ERANGE)
                return value_error(p, k, value, "the height is out of range (allowed: %u..%u)",
                                   GEOMETRY_HEIGHT_MIN, GEOMETRY_MAX);
        return 0;
}

/* Returns 0 with *ret filled (ret->s owned by the caller), -EINVAL when the
 * error was recorded, -ENOMEM. */
static int parse_value(struct parser *p, const struct key_def *k, const char *value, struct value *ret) {
        *ret = (struct value) {};

        switch (k->kind) {
        case VALUE_UINT:
                return parse_number(p, k, value, &ret->a);
        case VALUE_BAND:
                return parse_band(p, k, value, ret);
        case VALUE_GEOMETRY:
                return parse_geometry(p, k, value, ret);
        case VALUE_DEPTH: {
                unsigned long long n;

                if (parse_uint(value, 32, &n) < 0 || (n != 16 && n != 24 && n != 32))
                        return value_error(p, k, value, "not a supported depth (allowed: 16, 24 or 32)");
                ret->a = (unsigned) n;
                return 0;
        }
        case VALUE_DESKTOP:
                if (streq(value, "xfce"))
                        ret->a = DESKTOP_XFCE;
                else if (streq(value, "command"))
                        ret->a = DESKTOP_COMMAND;
                else
                        return value_error(p, k, value, "unknown desktop (allowed: xfce or command)");
                return 0;
        case VALUE_PLACEMENT:
                if (streq(value, "host"))
                        ret->a = PLACEMENT_HOST;
                else if (streq(value, "exec"))
                        ret->a = PLACEMENT_EXEC;
                else
                        return value_error(p, k, value, "unknown placement (allowed: host or exec)");
                return 0;
        case VALUE_ARGV: {
                _cleanup_strv_free_ char **words = NULL;
                int r = argv_split(value, &words);

                if (r == -ENOMEM)
                        return p->r = r;
                if (r == -ENODATA)
                        return value_error(p, k, value, "empty (give a command prefix, e.g. podman exec -i NAME)");
                if (r == -EBADMSG)
                        return value_error(p, k, value,
                                           "unterminated quote (close every ' and \"; a ';' after a space starts a comment)");
                if (r < 0)
                        return value_error(p, k, value, "ends with a backslash (nothing left to escape)");
                break;
        }
        case VALUE_BOOL:
                if (streq(value, "yes") || streq(value, "true") || streq(value, "on") || streq(value, "1"))
                        ret->a = 1;
                else if (streq(value, "no") || streq(value, "false") || streq(value, "off") || streq(value, "0"))
                        ret->a = 0;
                else
                        return value_error(p, k, value, "not a boolean (allowed: yes or no)");
                return 0;
        case VALUE_STRING:
                break;
        case VALUE_PATH:
                if (value[0] != '\0' && value[0] != '/')
                        return value_error(p, k, value, "not an absolute path (allowed: empty or a path starting with /)");
                break;
        case VALUE_DIR:
                /* ~ is the user's own home only: another user's is no place for this user's data. */
                if (value[0] == '~' && value[1] != '\0' && value[1] != '/')
                        return value_error(p, k, value,
                                           "~NAME is not supported (allowed: empty, an absolute path, ~, ~/PATH or a path relative to the state dir)");
                break;
        case VALUE_EXECUTABLE:
                if (!streq(value, "auto") && !streq(value, "none") && value[0] != '/')
                        return value_error(p, k, value, "expected auto, none or an absolute path");
                break;
        case VALUE_ENV_NAMES:
                for (const char *n = value; *n;) {
                        size_t l = strcspn(n, " \t");
                        _cleanup_free_ char *name = strndup(n, l);

                        if (!name)
                                return -ENOMEM;
                        if (l > 0 && !env_key_valid(name))
                                return value_error(p, k, value,
                                                   "\"%s\" is not a variable name (allowed: names of [A-Za-z_][A-Za-z0-9_]*, separated by spaces)",
                                                   name);
                        n += l;
                        n += strspn(n, " \t");
                }
                break;
        case VALUE_SEARCH_PATH:
                for (const char *d = value; *d;) {
                        size_t l = strcspn(d, ":");

                        if (d[0] != '/')
                                return value_error(p, k, value,
                                                   "\"%.*s\" is not an absolute directory (allowed: absolute directories separated by ':')",
                                                   (int) l, d);
                        d += l;
                        if (*d == ':' && !*++d)
                                return value_error(p, k, value, "ends in ':' (allowed: absolute directories separated by ':')");
                }
                break;
        case VALUE_USER:
                if (!user_name_valid(value))
                        return value_error(p, k, value,
                                           "not a valid user name (allowed: [a-z_][a-z0-9_-]*, at most %u characters)",
                                           USER_NAME_MAX);
                break;
        }

        if (value[0] != '\0') {
                ret->s = strdup(value);
                if (!ret->s)
                        return p->r = -ENOMEM;
        }
        return 0;
}

static int key_lookup(const char *name) {
        for (size_t i = 0; i < ELEMENTSOF(keys); i++)
                if (streq(keys[i].name, name))
                        return (int) i;
        return -1;
}

static int entry_append(struct parser *p, unsigned key, struct value *v) {
        struct parsed_file *f = p->out;
        _cleanup_free_ char *profile = NULL;

        if (p->profile) {
                profile = strdup(p->profile);
                if (!profile)
                        return -ENOMEM;
        }
        if (f->n_entries == f->n_allocated) {
                size_t cap = f->n_allocated ? f->n_allocated * 2 : 16;
                struct entry *e = reallocarray(f->entries, cap, sizeof(*e));

                if (!e)
                        return -ENOMEM;
                f->entries = e;
                f->n_allocated = cap;
        }
        f->entries[f->n_entries++] = (struct entry) {
                .key = key,
                .line = p->line,
                .file = f->name,
                .profile = TAKE_PTR(profile),
                .v = *v,
        };
        *v = (struct value) {};
        return 0;
}

/* inih's handler: called for lines the reader already accepted, with
 * p->line still the line being parsed. Always returns "success": every
 * error is in p->errs, and inih's own first-error line would add nothing. */
static int handler(void *userdata, const char *section_unused, const char *name, const char *value) {
        struct parser *p = userdata;
        _cleanup_free_ char *ename = NULL;
        struct value v = {};
        const struct key_def *k;
        unsigned *first;
        int i, r;

        (void) section_unused; /* inih truncates section names; p->section is the whole one */

        if (p->r < 0 || p->section_state == SECTION_BAD)
                return 1;

        ename = escape(name);
        if (!ename) {
                p->r = -ENOMEM;
                return 1;
        }

        if (p->section_state == SECTION_NONE) {
                (void) parser_error(p, "'%s' is outside of any section (put it below a header such as [display])",
                                    ename);
                return 1;
        }

        i = key_lookup(name);
        if (i < 0) {
                (void) parser_error(p, "unknown key '%s' in [%s]", ename, p->section);
                return 1;
        }
        k = &keys[i];

        if (!p->profile && !k->section) {
                (void) parser_error(p, "unknown key '%s' in [%s] (it is only allowed in [profile.NAME])",
                                    ename, p->section);
                return 1;
        }
        if (p->profile && k->not_per_profile) {
                (void) parser_error(p, "'%s' cannot be set per profile; set it in [%s]", k->name, k->section);
                return 1;
        }
        if (!p->profile && !streq(k->section, p->section)) {
                (void) parser_error(p, "unknown key '%s' in [%s] (it belongs in [%s])",
                                    ename, p->section, k->section);
                return 1;
        }

        first = &p->seen[p->cur_seen].line[i];
        if (*first != 0) {
                (void) parser_error(p, "duplicate key '%s' in [%s] (first set on line %u)",
                                    ename, p->section, *first);
                return 1;
        }
        *first = p->line;

        if (k->host_wide && p->user_file) {
                (void) parser_error(p, "'%s' is host-wide and may only be set in %s",
                                    k->name, CONFIG_SYSTEM_PATH);
                return 1;
        }

        r = parse_value(p, k, value, &v);
        if (r < 0)
                return 1;

        r = entry_append(p, (unsigned) i, &v);
        if (r < 0) {
                value_done(&v);
                p->r = r;
        }
        return 1;
}

static int section_enter(struct parser *p, const char *name, size_t len) {
        _cleanup_free_ char *ename = NULL;
        const char *profile;
        size_t i;

        free(p->section);
        p->section = strndup(name, len);
        p->profile = NULL;
        p->section_state = SECTION_BAD;
        if (!p->section)
                return p->r = -ENOMEM;

        ename = escape(p->section);
        if (!ename)
                return p->r = -ENOMEM;

        /* A NUL byte was refused earlier, so strlen() is the whole name. */
        profile = startswith(p->section, "profile.");
        if (profile) {
                if (!profile_name_valid(profile))
                        return parser_error(p, "invalid profile name in [%s] (allowed: 1-%u characters of "
                                            "A-Z, a-z, 0-9, '_' and '-', starting with a letter or digit)",
                                            ename, PROFILE_NAME_MAX);
                p->profile = profile;
        } else {
                for (i = 0; i < ELEMENTSOF(sections); i++)
                        if (streq(sections[i], p->section))
                                break;
                if (i >= ELEMENTSOF(sections))
                        return parser_error(p, "unknown section [%s] (allowed: [display], [session], "
                                            "[resources], [browser], [rfb], [profile.NAME])", ename);
        }

        for (i = 0; i < p->n_seen; i++)
                if (streq(p->seen[i].name, p->section))
                        break;
        if (i >= p->n_seen) {
                struct seen_section *s = reallocarray(p->seen, p->n_seen + 1, sizeof(*s));

                if (!s)
                        return p->r = -ENOMEM;
                p->seen = s;
                s[p->n_seen] = (struct seen_section) { .name = strdup(p->section) };
                if (!s[p->n_seen].name)
                        return p->r = -ENOMEM;
                p->n_seen++;
        }
        p->cur_seen = i;
        p->section_state = SECTION_OK;
        return 0;
}

/* inih's rule for where a name (chars "=:") or section name (chars "]") ends:
 * at one of chars, or at an inline ';' comment, which needs whitespace
 * before it. */
static const char *find_chars_or_comment(const char *s, const char *chars) {
        bool was_space = false;

        for (; *s; s++) {
                if (chars && strchr(chars, *s))
                        break;
                if (was_space && *s == ';')
                        break;
                was_space = isspace((unsigned char) *s);
        }
        return s;
}

static bool is_comment_start(char ch) {
        return ch == ';' || ch == '#';
}

/* Returns true when line (NUL-terminated, without its newline) should go to
 * inih, false when it is blank, a comment, or an error (recorded). */
static bool classify_line(struct parser *p, const char *line) {
        const char *s = line, *e;

        s += strspn(s, " \t\v\f\r");
        if (*s == '\0' || is_comment_start(*s))
                return false;

        if (s != line) {
                /* inih (like Python's configparser) would append an indented
                 * line to the previous value; a stray indent silently
                 * changing a value is worse than an error. */
                (void) parser_error(p, "continuation lines are not supported (remove the indentation)");
                return false;
        }

        if (*s == '[') {
                e = find_chars_or_comment(s + 1, "]");
                if (*e != ']') {
                        /* The keys below belong to a section we cannot name:
                         * report the header, not each of them. */
                        p->section_state = SECTION_BAD;
                        (void) parser_error(p, "expected 'key = value' or '[section]'");
                        return false;
                }
                if (section_enter(p, s + 1, (size_t) (e - (s + 1))) == -ENOMEM)
                        return false;
                e++;
                e += strspn(e, " \t\v\f\r");
                if (*e != '\0' && *e != ';')
                        (void) parser_error(p, "unexpected text after ']' (only a ';' comment may follow)");
                return true;
        }

        e = find_chars_or_comment(s, "=:");
        if (*e != '=' && *e != ':') {
                (void) parser_error(p, "expected 'key = value' or '[section]'");
                return false;
        }
        if (e == s) {
                (void) parser_error(p, "missing key name before '%c'", *e);
                return false;
        }
        return true;
}

static char *reader(char *buf, int size, void *userdata) {
        struct parser *p = userdata;
        size_t max;

        /* Room for the line, the "\n" inih expects and the NUL. */
        if (size < 3 || p->r < 0)
                return NULL;
        max = (size_t) size - 2;
        if (max > CONFIG_MAX_LINE)
                max = CONFIG_MAX_LINE;

        /* inih strips a UTF-8 BOM from what it thinks is line 1. Give it a
         * blank line 1, so that only this reader decides what a BOM is. */
        if (!p->started) {
                p->started = true;
                strcpy(buf, "\n");
                return buf;
        }

        while (p->pos < p->end && p->r >= 0) {
                const char *l = p->pos, *nl, *e;
                size_t len;

                nl = memchr(l, '\n', (size_t) (p->end - l));
                e = nl ?: p->end;
                p->pos = nl ? nl + 1 : p->end;
                p->line++;

                if (p->line == 1 && e - l >= 3 && memcmp(l, "\xef\xbb\xbf", 3) == 0)
                        l += 3;
                if (e > l && e[-1] == '\r')
                        e--;
                len = (size_t) (e - l);

                if (len > max) {
                        (void) parser_error(p, "line too long (max %zu characters)", max);
                        continue;
                }
                if (memchr(l, '\0', len)) {
                        (void) parser_error(p, "unexpected NUL byte");
                        continue;
                }

                memcpy(buf, l, len);
                buf[len] = '\0';
                if (!classify_line(p, buf))
                        continue;
                buf[len] = '\n';
                buf[len + 1] = '\0';
                return buf;
        }
        return NULL;
}

/* Validates one file's text, appending every error to errs and every valid
 * entry to out. Returns 0 or -ENOMEM; errors in the text are not failures
 * here. */
static int parse_text(const char *name, const char *text, size_t size, bool user_file,
                      struct parsed_file *out, struct config_errors *errs) {
        struct parser p = {
                .file = name,
                .pos = text,
                .end = text + size,
                .user_file = user_file,
                .out = out,
                .errs = errs,
        };
        int r;

        out->name = name;
        r = ini_parse_stream(reader, &p, handler, &p);
        if (r == -2 && p.r >= 0)
                p.r = -ENOMEM;

        free(p.section);
        for (size_t i = 0; i < p.n_seen; i++)
                free(p.seen[i].name);
        free(p.seen);
        return p.r < 0 ? p.r : 0;
}

static int entry_apply(struct bd_config *c, const struct entry *e) {
        const struct key_def *k = &keys[e->key];
        char *base = (char *) c;

        switch (k->kind) {
        case VALUE_UINT:
        case VALUE_DEPTH:
                *(unsigned *) (base + k->offset) = e->v.a;
                break;
        case VALUE_BAND:
        case VALUE_GEOMETRY:
                *(unsigned *) (base + k->offset) = e->v.a;
                *(unsigned *) (base + k->offset2) = e->v.b;
                break;
        case VALUE_DESKTOP:
                c->desktop = (enum desktop_kind) e->v.a;
                break;
        case VALUE_BOOL:
                *(bool *) (base + k->offset) = e->v.a;
                break;
        case VALUE_PLACEMENT:
                c->placement = (enum placement_kind) e->v.a;
                break;
        case VALUE_ARGV:
        case VALUE_STRING:
        case VALUE_PATH:
        case VALUE_SEARCH_PATH:
        case VALUE_DIR:
        case VALUE_EXECUTABLE:
        case VALUE_ENV_NAMES:
        case VALUE_USER: {
                char **field = (char **) (base + k->offset), *copy = NULL;

                if (e->v.s) {
                        copy = strdup(e->v.s);
                        if (!copy)
                                return -ENOMEM;
                }
                free(*field);
                *field = copy;
                break;
        }
        }
        return 0;
}

static bool entry_applies(const struct entry *e, bool globals, const char *profile) {
        if (globals)
                return !e->profile;
        return profile && e->profile && streq(e->profile, profile);
}

/* Defaults, then the globals of every file, then profile's sections of every
 * file: a profile section of the system file still beats the user file's
 * globals, because it was written for this one profile. */
static int build(struct bd_config *c, const struct parsed_file *files, size_t n_files, const char *profile) {
        int r;

        config_defaults(c);
        if (!c->browser_executable)
                return -ENOMEM;

        for (int pass = 0; pass < 2; pass++)
                for (size_t i = 0; i < n_files; i++)
                        for (size_t j = 0; j < files[i].n_entries; j++) {
                                const struct entry *e = &files[i].entries[j];

                                if (!entry_applies(e, pass == 0, profile))
                                        continue;
                                r = entry_apply(c, e);
                                if (r < 0)
                                        return r;
                        }
        return 0;
}

/*
 * "desktop = command" needs a command, but the two may come from different
 * files and sections. Check the effective pair for the globals and for every
 * profile that sets either key (any other profile inherits the globals'
 * pair), and report each offending desktop line once.
 */
static int check_desktop_command(const struct parsed_file *files, size_t n_files, struct config_errors *errs) {
        _cleanup_free_ const struct entry **relevant = NULL, **reported = NULL;
        size_t n_relevant = 0, n_reported = 0, total = 0;
        int r;

        for (size_t i = 0; i < n_files; i++)
                total += files[i].n_entries;
        relevant = calloc(total + 1, sizeof(*relevant));
        reported = calloc(total + 1, sizeof(*reported));
        if (!relevant || !reported)
                return -ENOMEM;

        /* File order is kept: it is the order of application. */
        for (size_t i = 0; i < n_files; i++)
                for (size_t j = 0; j < files[i].n_entries; j++) {
                        const struct entry *e = &files[i].entries[j];

                        if (e->key == KEY_DESKTOP || e->key == KEY_COMMAND)
                                relevant[n_relevant++] = e;
                }

        for (size_t cand = 0; cand <= n_relevant; cand++) {
                const char *profile = cand == 0 ? NULL : relevant[cand - 1]->profile;
                const struct entry *desktop = NULL;
                bool have_command = false, done = false;

                if (cand > 0) {
                        if (!profile)
                                continue;
                        for (size_t i = 0; i + 1 < cand && !done; i++)
                                done = relevant[i]->profile && streq(relevant[i]->profile, profile);
                        if (done)
                                continue;
                }

                for (int pass = 0; pass < 2; pass++)
                        for (size_t i = 0; i < n_relevant; i++) {
                                const struct entry *e = relevant[i];

                                if (!entry_applies(e, pass == 0, profile))
                                        continue;
                                if (e->key == KEY_DESKTOP)
                                        desktop = e->v.a == DESKTOP_COMMAND ? e : NULL;
                                else
                                        have_command = e->v.s;
                        }

                if (!desktop || have_command)
                        continue;
                for (size_t i = 0; i < n_reported && !done; i++)
                        done = reported[i] == desktop;
                if (done)
                        continue;
                reported[n_reported++] = desktop;

                r = errors_add(errs, desktop->file, desktop->line,
                               "desktop = command, but no command is set%s%s%s (set 'command' in [session]%s)",
                               profile ? " for profile '" : "", profile ?: "", profile ? "'" : "",
                               desktop->profile ? " or in the profile's section" : "");
                if (r < 0)
                        return r;
        }
        return 0;
}

/*
 * "placement = exec" needs an exec prefix. Both keys live only in profile
 * sections, so a profile's effective pair is its last entries in the order
 * of application; the effective placement line is the one reported.
 */
static int check_placement_exec(const struct parsed_file *files, size_t n_files, struct config_errors *errs) {
        for (size_t i = 0; i < n_files; i++)
                for (size_t j = 0; j < files[i].n_entries; j++) {
                        const struct entry *e = &files[i].entries[j], *last = NULL;
                        bool have_exec = false;
                        int r;

                        if (e->key != KEY_PLACEMENT || e->v.a != PLACEMENT_EXEC || !e->profile)
                                continue;
                        for (size_t x = 0; x < n_files; x++)
                                for (size_t y = 0; y < files[x].n_entries; y++) {
                                        const struct entry *o = &files[x].entries[y];

                                        if (!o->profile || !streq(o->profile, e->profile))
                                                continue;
                                        if (o->key == KEY_PLACEMENT)
                                                last = o;
                                        else if (o->key == KEY_EXEC)
                                                have_exec = true;
                                }
                        if (last != e || have_exec)
                                continue;
                        r = errors_add(errs, e->file, e->line,
                                       "placement = exec, but no exec prefix is set for profile '%s' (set 'exec', "
                                       "e.g. exec = podman exec -i NAME, in the profile's section)",
                                       e->profile);
                        if (r < 0)
                                return r;
                }
        return 0;
}

static int finish(struct bd_config *c, const char *profile, const struct parsed_file *files, size_t n_files,
                  struct config_errors *errs, int r_files) {
        int r;

        r = check_desktop_command(files, n_files, errs);
        if (r < 0)
                return r;
        r = check_placement_exec(files, n_files, errs);
        if (r < 0)
                return r;

        config_done(c);
        r = build(c, files, n_files, profile);
        if (r < 0)
                return r;

        if (r_files < 0)
                return r_files;
        return errs->n > 0 ? -EINVAL : 0;
}

int config_load_string(struct bd_config *c, const char *profile, const char *text,
                       const char *name, bool is_user_file, struct config_errors *errs) {
        struct config_errors local = {};
        struct parsed_file f = {};
        int r;

        if (!errs)
                errs = &local;
        *errs = (struct config_errors) {};
        config_defaults(c);

        r = parse_text(name ?: "<string>", text ?: "", text ? strlen(text) : 0, is_user_file, &f, errs);
        if (r >= 0)
                r = finish(c, profile, &f, 1, errs, 0);

        parsed_file_done(&f);
        config_errors_done(&local);
        return r;
}

static int read_fd(int fd, char **ret, size_t *ret_size) {
        _cleanup_free_ char *buf = NULL;
        ssize_t k;
        size_t n;

        /* One byte more than allowed, to tell "exactly the maximum" from "more". */
        buf = malloc(CONFIG_FILE_MAX + 2);
        if (!buf)
                return -ENOMEM;
        k = read_small(fd, buf, CONFIG_FILE_MAX + 1);
        if (k < 0)
                return (int) k;
        n = (size_t) k;
        buf[n] = '\0';
        *ret = TAKE_PTR(buf);
        *ret_size = n;
        return 0;
}

/* Returns 1 when the file was parsed, 0 when it does not exist, or a
 * negative errno (recorded in errs with line 0). */
static int load_file(const char *path, bool root_context, bool user_file, struct parsed_file *out,
                     struct config_errors *errs) {
        _cleanup_close_ int fd = -EBADF;
        _cleanup_free_ char *text = NULL;
        struct stat st;
        size_t size = 0;
        int r, q;

        /* O_NONBLOCK: a FIFO planted at the path must not hang a login. */
        fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
        if (fd < 0) {
                if (errno == ENOENT)
                        return 0;
                r = negative_errno();
                q = errors_add(errs, path, 0, "cannot open: %s", strerrordesc_np(-r) ?: "unknown error");
                return q < 0 ? q : r;
        }
        if (fstat(fd, &st) < 0) {
                r = negative_errno();
                q = errors_add(errs, path, 0, "cannot stat: %s", strerrordesc_np(-r) ?: "unknown error");
                return q < 0 ? q : r;
        }
        if (!S_ISREG(st.st_mode)) {
                q = errors_add(errs, path, 0, "not a regular file");
                return q < 0 ? q : (S_ISDIR(st.st_mode) ? -EISDIR : -EINVAL);
        }
        if (root_context) {
                /* Checked on the opened file, so a rename between a check and
                 * the open cannot swap in another file. */
                bool refuse = false;

                if (st.st_uid != 0) {
                        q = errors_add(errs, path, 0, "must be owned by root (owned by uid %u), refusing to use it",
                                       (unsigned) st.st_uid);
                        if (q < 0)
                                return q;
                        refuse = true;
                }
                if (st.st_mode & (S_IWGRP | S_IWOTH)) {
                        q = errors_add(errs, path, 0,
                                       "must not be writable by group or others (mode %04o), refusing to use it",
                                       (unsigned) (st.st_mode & 07777));
                        if (q < 0)
                                return q;
                        refuse = true;
                }
                if (refuse)
                        return -EPERM;
        }

        r = read_fd(fd, &text, &size);
        if (r == -EFBIG) {
                q = errors_add(errs, path, 0, "file too large (max %u bytes)", CONFIG_FILE_MAX);
                return q < 0 ? q : r;
        }
        if (r == -ENOMEM)
                return r;
        if (r < 0) {
                q = errors_add(errs, path, 0, "cannot read: %s", strerrordesc_np(-r) ?: "unknown error");
                return q < 0 ? q : r;
        }

        r = parse_text(path, text, size, user_file, out, errs);
        if (r < 0)
                return r;
        return 1;
}

static int default_user_path(char **ret) {
        const char *e;

        *ret = NULL;
        /* The XDG spec says to ignore a relative XDG_CONFIG_HOME. */
        e = secure_getenv("XDG_CONFIG_HOME");
        if (e && e[0] == '/') {
                *ret = strdup_printf("%s/botdesk/botdesk.ini", e);
                return *ret ? 0 : -ENOMEM;
        }
        e = secure_getenv("HOME");
        if (e && e[0] == '/') {
                *ret = strdup_printf("%s/.config/botdesk/botdesk.ini", e);
                return *ret ? 0 : -ENOMEM;
        }
        return 0; /* no home, no user file */
}

int config_load(struct bd_config *c, const char *profile, const struct config_sources *src,
                struct config_errors *errs) {
        static const struct config_sources no_sources = {};
        _cleanup_free_ char *default_user = NULL;
        struct config_errors local = {};
        struct parsed_file files[2] = {};
        const char *system_path, *user_path;
        size_t n_files = 0;
        int r, r_files = 0;

        if (!src)
                src = &no_sources;
        if (!errs)
                errs = &local;
        *errs = (struct config_errors) {};
        config_defaults(c);

        /* secure_getenv: a setuid caller must not be pointed at another file. */
        system_path = src->system_path;
        if (!system_path) {
                system_path = secure_getenv("BOTDESK_CONFIG");
                if (!system_path || system_path[0] == '\0')
                        system_path = CONFIG_SYSTEM_PATH;
        }

        user_path = src->user_path;
        if (!user_path) {
                r = default_user_path(&default_user);
                if (r < 0)
                        goto out;
                user_path = default_user;
        }
        if (user_path && user_path[0] == '\0')
                user_path = NULL;

        /* Both files are always read, so that one bad file does not hide the
         * errors of the other. */
        r = load_file(system_path, src->root_context, false, &files[n_files], errs);
        if (r == -ENOMEM)
                goto out;
        if (r < 0)
                r_files = r;
        n_files++;

        if (user_path) {
                r = load_file(user_path, false, true, &files[n_files], errs);
                if (r == -ENOMEM)
                        goto out;
                if (r < 0 && r_files >= 0)
                        r_files = r;
                n_files++;
        }

        r = finish(c, profile, files, n_files, errs, r_files);

out:
        for (size_t i = 0; i < ELEMENTSOF(files); i++)
                parsed_file_done(&files[i]);
        config_errors_done(&local);
        return r;
}

static void dump_string(FILE *f, const char *key, const char *value) {
        if (value && value[0])
                fprintf(f, "%s = %s\n", key, value);
        else
                fprintf(f, "%s =\n", key);
}

void config_dump(const struct bd_config *c, FILE *f) {
        fprintf(f,
                "[display]\n"
                "band = %u-%u\n"
                "geometry = %ux%u\n"
                "depth = %u\n"
                "dpi = %u\n"
                "frame_rate = %u\n"
                "\n"
                "[session]\n"
                "desktop = %s\n",
                c->band_min, c->band_max, c->width, c->height, c->depth, c->dpi, c->frame_rate,
                c->desktop == DESKTOP_COMMAND ? "command" : "xfce");
        dump_string(f, "command", c->command);
        fprintf(f,
                "command_settle_ms = %u\n"
                "start_timeout = %u\n"
                "idle_stop_minutes = %u\n",
                c->command_settle_ms, c->start_timeout, c->idle_stop_minutes);
        dump_string(f, "wallpaper", c->wallpaper);
        dump_string(f, "exec_pass_env", c->exec_pass_env);
        fprintf(f, "auto_start = %s\n", c->auto_start ? "yes" : "no");
        fprintf(f,
                "\n"
                "[resources]\n"
                "min_free_memory_mb = %u\n"
                "\n"
                "[browser]\n",
                c->min_free_memory_mb);
        dump_string(f, "executable", c->browser_executable ?: "auto");
        dump_string(f, "profile_dir", c->browser_profile_dir);
        fprintf(f,
                "disk_cache_mb = %u\n"
                "\n"
                "[rfb]\n"
                "max_cut_text = %u\n"
                "\n"
                "[web]\n"
                "release_on_close = %s\n"
                "\n"
                "[install]\n",
                c->disk_cache_mb, c->max_cut_text, c->release_on_close ? "yes" : "no");
        dump_string(f, "system_path", c->install_system_path);
        fprintf(f,
                "\n"
                "[pool]\n"
                "spares = %u\n",
                c->spares);
        /* `user` is only valid inside [profile.NAME], and the name is not
         * part of the effective values: a comment keeps the output valid. */
        fprintf(f, "\n; from [profile.NAME]:\n; user =%s%s\n", c->user ? " " : "", c->user ?: "");
        fprintf(f, "; placement = %s\n; exec =%s%s\n", c->placement == PLACEMENT_EXEC ? "exec" : "host",
                c->exec ? " " : "", c->exec ?: "");
}

char *config_error_text(const struct config_error *x) {
        if (x->line > 0)
                return strdup_printf("%s:%u: %s", x->file, x->line, x->message);
        return strdup_printf("%s: %s", x->file, x->message);
}

void config_errors_print(const struct config_errors *e, FILE *f) {
        for (size_t i = 0; i < e->n; i++) {
                _cleanup_free_ char *t = config_error_text(&e->items[i]);

                fprintf(f, "%s\n", t ?: e->items[i].message);
        }
}
