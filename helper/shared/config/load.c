/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "entries.h"
#include "reader.h"
#include "profile.h"

/*
 * Texts to entries, in one pass: each file (sources.c says which, in which
 * order, and reads it once) is parsed once (reader.c, through libinih), and
 * every entry is judged against the key table (keys.c) as it comes, so that
 * every error is recorded with its file and line. What is valid is kept as
 * entries of a config_set; every profile's values are built from them
 * (profiles.c).
 */

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
        unsigned line;
        bool user_file;

        enum section_state section_state;
        char *section;
        const char *profile; /* points into section for [profile.NAME] */
        struct seen_section *seen;
        size_t n_seen, cur_seen;

        struct config_file *out;
        struct config_errors *errs;
};

void config_file_done(struct config_file *f) {
        for (size_t i = 0; i < f->n_entries; i++) {
                free(f->entries[i].profile);
                config_value_done(&f->entries[i].v);
        }
        free(f->entries);
        free(f->name);
        *f = (struct config_file) {};
}

struct config_set *config_set_free(struct config_set *s) {
        if (!s)
                return NULL;
        for (size_t i = 0; i < s->n_files; i++)
                config_file_done(&s->files[i]);
        free(s->files);
        free(s);
        return NULL;
}

/* Records an error on the current line. Returns 0, the value callers
 * propagate for "reported, keep going", or -ENOMEM. */
_printf_(2, 3)
static int parser_error(struct parser *p, const char *fmt, ...) {
        va_list ap;
        int r;

        va_start(ap, fmt);
        r = config_errors_addv(p->errs, p->file, p->line, fmt, ap);
        va_end(ap);
        return r;
}

/* Config text ends up on terminals and in the journal: control characters
 * from a hostile file are shown escaped, never emitted. */
char *config_escape(const char *s) {
        static const char hex[] = "0123456789abcdef";
        size_t n = strlen(s);
        char *ret, *q;

        ret = malloc(n * 4 + 1);
        if (!ret)
                return NULL;
        q = ret;
        for (; *s; s++) {
                unsigned char ch = (unsigned char) *s;

                /* Four bytes at most per byte of s: the buffer's size. */
                if (ch < 0x20 || ch == 0x7f) {
                        *q++ = '\\';
                        *q++ = 'x';
                        *q++ = hex[ch >> 4];
                        *q++ = hex[ch & 0xf];
                } else
                        *q++ = (char) ch;
        }
        *q = '\0';
        return ret;
}

static int entry_append(struct parser *p, enum config_key key, struct config_value *v) {
        struct config_file *f = p->out;
        _cleanup_free_ char *profile = NULL;

        if (p->profile) {
                profile = strdup(p->profile);
                if (!profile)
                        return -ENOMEM;
        }
        if (ARRAY_GROW(f->entries, f->n_entries, f->n_allocated, 16) < 0)
                return -ENOMEM;
        f->entries[f->n_entries++] = (struct config_entry) {
                .key = key,
                .line = p->line,
                .file = f->name,
                .profile = TAKE_PTR(profile),
                .v = *v,
        };
        *v = (struct config_value) {};
        return 0;
}

/* Judges one "key = value" against the key table. */
static int on_entry(void *userdata, unsigned line, const char *name, const char *value) {
        struct parser *p = userdata;
        _cleanup_free_ char *ename = NULL, *problem = NULL, *evalue = NULL;
        struct config_value v = {};
        const struct config_key_def *k;
        unsigned *first;
        int i, r;

        p->line = line;
        if (p->section_state == SECTION_BAD)
                return 0;

        ename = config_escape(name);
        if (!ename)
                return -ENOMEM;

        if (p->section_state == SECTION_NONE)
                return parser_error(p, "'%s' is outside of any section (put it below a header such as [display])",
                                    ename);

        i = config_key_lookup(name);
        if (i < 0)
                return parser_error(p, "unknown key '%s' in [%s]", ename, p->section);
        k = &config_keys[i];

        if (!p->profile && !k->section)
                return parser_error(p, "unknown key '%s' in [%s] (it is only allowed in [profile.NAME])",
                                    ename, p->section);
        if (p->profile && k->not_per_profile)
                return parser_error(p, "'%s' cannot be set per profile; set it in [%s]", k->name, k->section);
        if (!p->profile && !streq(k->section, p->section))
                return parser_error(p, "unknown key '%s' in [%s] (it belongs in [%s])",
                                    ename, p->section, k->section);

        first = &p->seen[p->cur_seen].line[i];
        if (*first != 0)
                return parser_error(p, "duplicate key '%s' in [%s] (first set on line %u)",
                                    ename, p->section, *first);
        *first = line;

        if (k->host_wide && p->user_file)
                return parser_error(p, "'%s' is host-wide and may only be set in a system file: %s",
                                    k->name, CONFIG_SYSTEM_FILES);

        r = config_value_parse(k, value, &v, &problem);
        if (r == -EINVAL) {
                /* "KEY = VALUE: what is wrong (what is allowed)" */
                evalue = config_escape(value);
                if (!evalue)
                        return -ENOMEM;
                return parser_error(p, "%s = %s: %s", k->name, evalue, problem);
        }
        if (r < 0)
                return r;

        r = entry_append(p, (enum config_key) i, &v);
        if (r < 0)
                config_value_done(&v);
        return r;
}

static int on_section(void *userdata, unsigned line, const char *name) {
        struct parser *p = userdata;
        _cleanup_free_ char *ename = NULL;
        const char *profile;
        size_t i;

        p->line = line;
        free(p->section);
        p->section = strdup(name);
        p->profile = NULL;
        p->section_state = SECTION_BAD;
        if (!p->section)
                return -ENOMEM;

        ename = config_escape(p->section);
        if (!ename)
                return -ENOMEM;

        profile = startswith(p->section, "profile.");
        if (profile) {
                if (!profile_name_valid(profile))
                        return parser_error(p, "invalid profile name in [%s] (allowed: 1-%u characters of "
                                            "A-Z, a-z, 0-9, '_' and '-', starting with a letter or digit)",
                                            ename, PROFILE_BASE_MAX);
                p->profile = profile;
        } else if (!config_section_known(p->section)) {
                _cleanup_free_ char *allowed = config_sections_list();

                if (!allowed)
                        return -ENOMEM;
                return parser_error(p, "unknown section [%s] (allowed: %s)", ename, allowed);
        }

        for (i = 0; i < p->n_seen; i++)
                if (streq(p->seen[i].name, p->section))
                        break;
        if (i >= p->n_seen) {
                struct seen_section *s = reallocarray(p->seen, p->n_seen + 1, sizeof(*s));

                if (!s)
                        return -ENOMEM;
                p->seen = s;
                s[p->n_seen] = (struct seen_section) { .name = strdup(p->section) };
                if (!s[p->n_seen].name)
                        return -ENOMEM;
                p->n_seen++;
        }
        p->cur_seen = i;
        p->section_state = SECTION_OK;
        return 0;
}

static int on_bad_section(void *userdata, unsigned line) {
        struct parser *p = userdata;

        p->line = line;
        p->section_state = SECTION_BAD;
        return 0;
}

static int on_error(void *userdata, unsigned line, const char *message) {
        struct parser *p = userdata;

        p->line = line;
        return parser_error(p, "%s", message);
}

static const struct config_reader_ops parser_ops = {
        .section = on_section,
        .bad_section = on_bad_section,
        .entry = on_entry,
        .error = on_error,
};

/* Judges one file's text, appending every error to errs and every valid
 * entry to out (whose name is already set). Returns 0 or -ENOMEM; errors in
 * the text are not failures here. */
int config_parse_text(const char *text, size_t size, bool user_file, struct config_file *out,
                      struct config_errors *errs) {
        struct parser p = {
                .file = out->name,
                .user_file = user_file,
                .out = out,
                .errs = errs,
        };
        int r;

        r = config_read(text, size, &parser_ops, &p);

        free(p.section);
        for (size_t i = 0; i < p.n_seen; i++)
                free(p.seen[i].name);
        free(p.seen);
        return r;
}

/* The checks across entries, then what the load returns: the first
 * failure to read a file, else whether there were errors. */
static int set_finish(const struct config_set *s, struct config_errors *errs, int r_files) {
        int r;

        r = config_set_check(s, errs);
        if (r < 0)
                return r;
        if (r_files < 0)
                return r_files;
        return errs->n > 0 ? -EINVAL : 0;
}

static int set_load(const struct config_sources *src, struct config_set **ret, struct config_errors *errs) {
        _cleanup_(config_set_freep) struct config_set *s = NULL;
        int r;

        s = calloc(1, sizeof(*s));
        if (!s)
                return -ENOMEM;
        /* Every file is read, so that one bad file does not hide the errors
         * of the others; the first failure to read one is what is returned. */
        r = config_sources_read(src, s, errs);
        if (r == -ENOMEM)
                return r;
        r = set_finish(s, errs, r);
        if (r == -ENOMEM)
                return r;
        *ret = TAKE_PTR(s);
        return r;
}

int config_set_load(const struct config_sources *src, struct config_set **ret, struct config_errors *errs) {
        struct config_errors local = {};
        int r;

        *ret = NULL;
        if (!errs)
                errs = &local;
        *errs = (struct config_errors) {};
        r = set_load(src, ret, errs);
        config_errors_done(&local);
        return r;
}

/* config_load() and config_load_string(): the set built for profile, the
 * defaults alone when the set could not be made. Both fill c with the
 * defaults first: it may arrive uninitialized, and config_done() runs on it. */
static int load_and_build(struct bd_config *c, const char *profile, struct config_set *s, int r) {
        int q;

        config_done(c);
        if (!s) {
                config_defaults(c);
                return r;
        }
        q = config_set_build(s, profile, c);
        config_set_free(s);
        return q < 0 ? q : r;
}

int config_load(struct bd_config *c, const char *profile, const struct config_sources *src,
                struct config_errors *errs) {
        struct config_set *s = NULL;
        int r;

        config_defaults(c);
        r = config_set_load(src, &s, errs);
        return load_and_build(c, profile, s, r);
}

int config_load_string(struct bd_config *c, const char *profile, const char *text,
                       const char *name, bool is_user_file, struct config_errors *errs) {
        struct config_errors local = {};
        struct config_set *s = NULL;
        int r;

        config_defaults(c);
        if (!errs)
                errs = &local;
        *errs = (struct config_errors) {};

        s = calloc(1, sizeof(*s));
        if (!s)
                return -ENOMEM;
        s->files = calloc(1, sizeof(*s->files));
        if (!s->files) {
                free(s);
                return -ENOMEM;
        }
        s->n_files = s->n_allocated = 1;
        s->files[0].name = strdup(name ?: "<string>");
        if (!s->files[0].name)
                r = -ENOMEM;
        else
                r = config_parse_text(text ?: "", text ? strlen(text) : 0, is_user_file, &s->files[0], errs);
        if (r >= 0)
                r = set_finish(s, errs, 0);
        if (r == -ENOMEM)
                s = config_set_free(s);
        r = load_and_build(c, profile, s, r);
        config_errors_done(&local);
        return r;
}
