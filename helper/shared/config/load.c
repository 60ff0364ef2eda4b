/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "entries.h"
#include "reader.h"
#include "profile.h"

/*
 * Files to entries, in one pass: each file is read once, parsed once
 * (reader.c, through libinih), and every entry is judged against the key
 * table (keys.c) as it comes, so that every error is recorded with its
 * file and line. What is valid is kept as entries of a config_set; every
 * profile's values are built from them (profiles.c).
 */

/* A config file is a few dozen lines; the cap bounds the work a hostile file
 * can cause (every check is at worst quadratic in the number of sections or
 * desktop/command entries). */
#define CONFIG_FILE_MAX (64U * 1024U)

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

static void config_file_done(struct config_file *f) {
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
static char *escape(const char *s) {
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

        ename = escape(name);
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
                return parser_error(p, "'%s' is host-wide and may only be set in %s",
                                    k->name, CONFIG_SYSTEM_PATH);

        r = config_value_parse(k, value, &v, &problem);
        if (r == -EINVAL) {
                /* "KEY = VALUE: what is wrong (what is allowed)" */
                evalue = escape(value);
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

        ename = escape(p->section);
        if (!ename)
                return -ENOMEM;

        profile = startswith(p->section, "profile.");
        if (profile) {
                if (!profile_name_valid(profile))
                        return parser_error(p, "invalid profile name in [%s] (allowed: 1-%u characters of "
                                            "A-Z, a-z, 0-9, '_' and '-', starting with a letter or digit)",
                                            ename, PROFILE_NAME_MAX);
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
static int parse_text(const char *text, size_t size, bool user_file, struct config_file *out,
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
/* named_by_caller: the program chose this system file (config check, tests), not the environment. */
static int load_file(const char *path, bool root_context, bool user_file, bool named_by_caller, struct config_file *out,
                     struct config_errors *errs) {
        _cleanup_close_ int fd = -EBADF;
        _cleanup_free_ char *text = NULL;
        struct stat st;
        size_t size = 0;
        int r, q;

        out->name = strdup(path);
        if (!out->name)
                return -ENOMEM;

        /* O_NONBLOCK: a FIFO planted at the path must not hang a login. */
        fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
        if (fd < 0) {
                if (errno == ENOENT)
                        return 0;
                r = negative_errno();
                q = config_errors_add(errs, path, 0, "cannot open: %s", strerrordesc_np(-r) ?: "unknown error");
                return q < 0 ? q : r;
        }
        if (fstat(fd, &st) < 0) {
                r = negative_errno();
                q = config_errors_add(errs, path, 0, "cannot stat: %s", strerrordesc_np(-r) ?: "unknown error");
                return q < 0 ? q : r;
        }
        if (!S_ISREG(st.st_mode)) {
                q = config_errors_add(errs, path, 0, "not a regular file");
                return q < 0 ? q : (S_ISDIR(st.st_mode) ? -EISDIR : -EINVAL);
        }
        if (root_context) {
                /* Checked on the opened file, so a rename between a check and
                 * the open cannot swap in another file. */
                bool refuse = false;

                if (st.st_uid != 0) {
                        q = config_errors_add(errs, path, 0,
                                              "must be owned by root (owned by uid %u), refusing to use it",
                                              (unsigned) st.st_uid);
                        if (q < 0)
                                return q;
                        refuse = true;
                }
                if (st.st_mode & (S_IWGRP | S_IWOTH)) {
                        q = config_errors_add(errs, path, 0,
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
                q = config_errors_add(errs, path, 0, "file too large (max %u bytes)", CONFIG_FILE_MAX);
                return q < 0 ? q : r;
        }
        if (r == -ENOMEM)
                return r;
        if (r < 0) {
                q = config_errors_add(errs, path, 0, "cannot read: %s", strerrordesc_np(-r) ?: "unknown error");
                return q < 0 ? q : r;
        }

        r = parse_text(text, size, user_file, out, errs);
        if (r < 0)
                return r;
        /* system_path picks the sudo that `botdesk install` hands a password
         * to: a system file anyone but root may write (BOTDESK_CONFIG names
         * any file) must not choose it. */
        if (!user_file && !named_by_caller && (st.st_uid != 0 || (st.st_mode & (S_IWGRP | S_IWOTH))))
                for (size_t i = 0; i < out->n_entries; i++)
                        if (out->entries[i].key == KEY_SYSTEM_PATH) {
                                q = config_errors_add(errs, path, out->entries[i].line,
                                                      "'system_path' may only be set in a file owned by root and "
                                                      "not writable by group or others (this one: uid %u, mode %04o)",
                                                      (unsigned) st.st_uid, (unsigned) (st.st_mode & 07777));
                                if (q < 0)
                                        return q;
                        }
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
        static const struct config_sources no_sources = {};
        _cleanup_free_ char *default_user = NULL;
        _cleanup_(config_set_freep) struct config_set *s = NULL;
        const char *system_path, *user_path;
        int r, r_files = 0;

        if (!src)
                src = &no_sources;

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
                        return r;
                user_path = default_user;
        }
        if (user_path && user_path[0] == '\0')
                user_path = NULL;

        s = calloc(1, sizeof(*s));
        if (!s)
                return -ENOMEM;

        /* Both files are always read, so that one bad file does not hide the
         * errors of the other. */
        r = load_file(system_path, src->root_context, false, src->system_path != NULL, &s->files[s->n_files++], errs);
        if (r == -ENOMEM)
                return r;
        if (r < 0)
                r_files = r;

        if (user_path) {
                r = load_file(user_path, false, true, false, &s->files[s->n_files++], errs);
                if (r == -ENOMEM)
                        return r;
                if (r < 0 && r_files >= 0)
                        r_files = r;
        }

        r = set_finish(s, errs, r_files);
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
        s->n_files = 1;
        s->files[0].name = strdup(name ?: "<string>");
        if (!s->files[0].name)
                r = -ENOMEM;
        else
                r = parse_text(text ?: "", text ? strlen(text) : 0, is_user_file, &s->files[0], errs);
        if (r >= 0)
                r = set_finish(s, errs, 0);
        if (r == -ENOMEM)
                s = config_set_free(s);
        r = load_and_build(c, profile, s, r);
        config_errors_done(&local);
        return r;
}
