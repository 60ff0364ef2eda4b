/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "entries.h"

/*
 * Which files make the configuration, in which order, under which rules
 * (config.h has the order): the main files and their drop-in directories,
 * each file opened, judged on what was opened, read and handed to the
 * parser (load.c). Everything is read even after an error, so that `botdesk
 * config check` names every bad file at once.
 */

/* A config file is a few dozen lines; the cap bounds the work a hostile file
 * can cause (every check is at worst quadratic in the number of sections or
 * desktop/command entries). */
#define CONFIG_FILE_MAX (64U * 1024U)

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

/* What a file is held to before anything of it is read. */
struct file_rules {
        bool user_file;       /* host-wide keys are errors */
        bool root_context;    /* a main file: root's and writable by no one else, or refused */
        bool dropin;          /* a regular file of root or the reader, writable by no one else, or refused */
        bool named_by_caller; /* the program chose the system files (PAM, the generator, tests), not the environment */
};

static int file_error(struct config_errors *errs, const char *name, int r, const char *what) {
        int q = config_errors_add(errs, name, 0, "%s: %s", what, strerrordesc_np(-r) ?: "unknown error");

        return q < 0 ? q : r;
}

static const char *file_type_name(mode_t mode) {
        switch (mode & S_IFMT) {
        case S_IFDIR:
                return "a directory";
        case S_IFIFO:
                return "a FIFO";
        case S_IFSOCK:
                return "a socket";
        case S_IFCHR:
                return "a character device";
        case S_IFBLK:
                return "a block device";
        default:
                return "not a regular file";
        }
}

/* A drop-in's type, owner and mode, judged on what is open (or, before the
 * open, on what the name leads to). Returns 0, or -EPERM/-EINVAL with the
 * reasons recorded. */
static int dropin_judge(const struct stat *st, const char *name, struct config_errors *errs) {
        uid_t reader = geteuid();
        bool refuse = false;
        int q;

        if (!S_ISREG(st->st_mode)) {
                q = config_errors_add(errs, name, 0,
                                      "%s, not a regular file: a drop-in must be one, refusing to read it",
                                      file_type_name(st->st_mode));
                return q < 0 ? q : -EINVAL;
        }
        if (st->st_uid != 0 && st->st_uid != reader) {
                q = config_errors_add(errs, name, 0,
                                      "owned by uid %u: a drop-in must be owned by root or by the reader (uid %u), "
                                      "refusing to read it",
                                      (unsigned) st->st_uid, (unsigned) reader);
                if (q < 0)
                        return q;
                refuse = true;
        }
        if (st->st_mode & (S_IWGRP | S_IWOTH)) {
                q = config_errors_add(errs, name, 0,
                                      "writable by group or others (mode %04o): a drop-in must be writable by its "
                                      "owner alone (chmod go-w), refusing to read it",
                                      (unsigned) (st->st_mode & 07777));
                if (q < 0)
                        return q;
                refuse = true;
        }
        return refuse ? -EPERM : 0;
}

/* A main file in root context: root's, and writable by no one else. */
static int root_judge(const struct stat *st, const char *name, struct config_errors *errs) {
        bool refuse = false;
        int q;

        if (st->st_uid != 0) {
                q = config_errors_add(errs, name, 0, "must be owned by root (owned by uid %u), refusing to use it",
                                      (unsigned) st->st_uid);
                if (q < 0)
                        return q;
                refuse = true;
        }
        if (st->st_mode & (S_IWGRP | S_IWOTH)) {
                q = config_errors_add(errs, name, 0,
                                      "must not be writable by group or others (mode %04o), refusing to use it",
                                      (unsigned) (st->st_mode & 07777));
                if (q < 0)
                        return q;
                refuse = true;
        }
        return refuse ? -EPERM : 0;
}

/*
 * Reads dir_fd/path (path alone when dir_fd is AT_FDCWD) into out, named
 * name in its entries and errors. Returns 1 when the file was parsed, 0
 * when it does not exist, or a negative errno (recorded in errs with line
 * 0). Symlinks are followed on purpose: a ConfigMap's files are symlinks
 * into its ..data/, and systemd follows them in its drop-in directories
 * too. What is judged is what the name leads to, and again what was opened.
 */
static int load_file(int dir_fd, const char *path, const char *name, const struct file_rules *rules,
                     struct config_file *out, struct config_errors *errs) {
        _cleanup_close_ int fd = -EBADF;
        _cleanup_free_ char *text = NULL;
        struct stat st;
        size_t size = 0;
        int r, q;

        out->name = strdup(name);
        if (!out->name)
                return -ENOMEM;

        /* A drop-in that is not a regular file is not even opened: a device's
         * open may do something (a watchdog starts, a tape rewinds). */
        if (rules->dropin) {
                if (fstatat(dir_fd, path, &st, 0) < 0) {
                        if (errno == ENOENT)
                                return 0; /* gone since the directory was listed, or a dangling symlink */
                        return file_error(errs, name, negative_errno(), "cannot stat");
                }
                r = dropin_judge(&st, name, errs);
                if (r < 0)
                        return r;
        }

        /* O_NONBLOCK: a FIFO planted at the path must not hang a login. */
        fd = openat(dir_fd, path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
        if (fd < 0) {
                if (errno == ENOENT)
                        return 0;
                return file_error(errs, name, negative_errno(), "cannot open");
        }
        /* Checked on the opened file, so a rename between a check and the
         * open cannot swap in another file. */
        if (fstat(fd, &st) < 0)
                return file_error(errs, name, negative_errno(), "cannot stat");
        if (rules->dropin)
                r = dropin_judge(&st, name, errs);
        else if (!S_ISREG(st.st_mode)) {
                q = config_errors_add(errs, name, 0, "not a regular file");
                r = q < 0 ? q : (S_ISDIR(st.st_mode) ? -EISDIR : -EINVAL);
        } else
                r = rules->root_context ? root_judge(&st, name, errs) : 0;
        if (r < 0)
                return r;

        r = read_fd(fd, &text, &size);
        if (r == -EFBIG) {
                q = config_errors_add(errs, name, 0, "file too large (max %u bytes)", CONFIG_FILE_MAX);
                return q < 0 ? q : r;
        }
        if (r == -ENOMEM)
                return r;
        if (r < 0)
                return file_error(errs, name, r, "cannot read");

        r = config_parse_text(text, size, rules->user_file, out, errs);
        if (r < 0)
                return r;
        /* system_path picks the sudo that `botdesk install` hands a password
         * to: a system file anyone but root may write (BOTDESK_CONFIG names
         * any file) must not choose it. */
        if (!rules->user_file && !rules->named_by_caller && (st.st_uid != 0 || (st.st_mode & (S_IWGRP | S_IWOTH))))
                for (size_t i = 0; i < out->n_entries; i++)
                        if (out->entries[i].key == KEY_SYSTEM_PATH) {
                                q = config_errors_add(errs, name, out->entries[i].line,
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

/* One load in progress: the set so far, and the first failure to read a file. */
struct loader {
        struct config_set *set;
        struct config_errors *errs;
        int r_files;
};

/* load_file() into the set: a file that was read is kept (its entries and
 * its name, which config check lists), any other is dropped. 0 or -ENOMEM;
 * other failures are remembered, and the next file is read all the same, so
 * that one bad file does not hide the errors of the others. */
static int loader_file(struct loader *l, int dir_fd, const char *path, const char *name,
                       const struct file_rules *rules) {
        struct config_file f = {};
        int r;

        r = load_file(dir_fd, path, name, rules, &f, l->errs);
        if (r > 0) {
                if (ARRAY_GROW(l->set->files, l->set->n_files, l->set->n_allocated, 8) < 0) {
                        config_file_done(&f);
                        return -ENOMEM;
                }
                l->set->files[l->set->n_files++] = f;
                return 0;
        }
        config_file_done(&f);
        if (r == -ENOMEM)
                return r;
        if (r < 0 && l->r_files >= 0)
                l->r_files = r;
        return 0;
}

static int loader_failed(struct loader *l, const char *name, int r, const char *what) {
        r = file_error(l->errs, name, r, what);
        if (r == -ENOMEM)
                return r;
        if (l->r_files >= 0)
                l->r_files = r;
        return 0;
}

static int strcmp_ptr(const void *a, const void *b) {
        return strcmp(*(char *const *) a, *(char *const *) b);
}

/* The drop-ins of d in the order of application: the names ending in
 * ".ini" that are not hidden, sorted by strcmp() as systemd sorts its
 * drop-ins (so 10-a.ini before 9-b.ini: number them with equal widths).
 * As many as there are: none is left out. */
static int dropin_names(DIR *d, char ***ret, size_t *ret_n) {
        _cleanup_strv_free_ char **names = NULL;
        size_t n = 0;

        for (;;) {
                const struct dirent *de;
                const char *dot;
                int r;

                errno = 0;
                de = readdir(d);
                if (!de) {
                        if (errno != 0)
                                return negative_errno();
                        break;
                }
                /* Hidden files (and . and ..): editors' and kubelet's (..data) own. */
                if (de->d_name[0] == '.')
                        continue;
                dot = strrchr(de->d_name, '.');
                if (!dot || !streq(dot, CONFIG_DROPIN_SUFFIX))
                        continue;
                r = strv_push(&names, strdup(de->d_name));
                if (r < 0)
                        return r;
                n++;
        }
        if (n > 1)
                qsort(names, n, sizeof(*names), strcmp_ptr);
        *ret = TAKE_PTR(names);
        *ret_n = n;
        return 0;
}

/* The drop-ins of main file path: the .ini files of PATH.d/. A missing
 * directory has none. */
static int loader_dropins(struct loader *l, const char *path, const struct file_rules *main_rules) {
        struct file_rules rules = *main_rules;
        _cleanup_free_ char *dir = NULL, *edir = NULL;
        _cleanup_closedir_ DIR *d = NULL;
        _cleanup_strv_free_ char **names = NULL;
        size_t n = 0;
        int fd, r;

        rules.dropin = true;
        dir = strdup_printf("%s%s", path, CONFIG_DROPIN_DIR_SUFFIX);
        if (!dir)
                return -ENOMEM;
        edir = config_escape(dir);
        if (!edir)
                return -ENOMEM;

        /* Followed if a symlink: a ConfigMap's subdirectory is one. What is
         * in it is judged file by file. */
        fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOCTTY);
        if (fd < 0) {
                if (errno == ENOENT)
                        return 0;
                return loader_failed(l, edir, negative_errno(), "cannot open the drop-in directory");
        }
        r = dir_from_fd(fd, &d);
        if (r < 0)
                return loader_failed(l, edir, r, "cannot read the drop-in directory");
        r = dropin_names(d, &names, &n);
        if (r == -ENOMEM)
                return r;
        if (r < 0)
                return loader_failed(l, edir, r, "cannot read the drop-in directory");

        for (size_t i = 0; i < n; i++) {
                _cleanup_free_ char *ename = config_escape(names[i]), *name = NULL;

                if (!ename)
                        return -ENOMEM;
                /* Names are shown escaped: they are the directory's, not ours. */
                name = strdup_printf("%s/%s", edir, ename);
                if (!name)
                        return -ENOMEM;
                r = loader_file(l, dirfd(d), names[i], name, &rules);
                if (r < 0)
                        return r;
        }
        return 0;
}

/* A main file and its drop-ins. */
static int loader_main(struct loader *l, const char *path, const struct file_rules *rules, bool dropins) {
        _cleanup_free_ char *name = config_escape(path);
        int r;

        if (!name)
                return -ENOMEM;
        r = loader_file(l, AT_FDCWD, path, name, rules);
        if (r < 0 || !dropins)
                return r;
        return loader_dropins(l, path, rules);
}

int config_sources_read(const struct config_sources *src, struct config_set *s, struct config_errors *errs) {
        static const struct config_sources no_sources = {};
        _cleanup_free_ char *default_user = NULL, *legacy = NULL, *main_path = NULL;
        const char *system_path = NULL, *user_path;
        struct loader l = { .set = s, .errs = errs };
        struct file_rules system_rules;
        int r;

        if (!src)
                src = &no_sources;
        system_rules = (struct file_rules) {
                .root_context = src->root_context,
                .named_by_caller = src->system_path || src->sysconf_dir,
        };

        /* secure_getenv: a setuid caller must not be pointed at another file. */
        system_path = src->system_path;
        if (!system_path && !src->sysconf_dir) {
                system_path = secure_getenv("BOTDESK_CONFIG");
                if (system_path && system_path[0] == '\0')
                        system_path = NULL;
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

        if (system_path)
                /* BOTDESK_CONFIG names one file, and its drop-ins are beside
                 * it as for any main file: /etc/botdesk/botdesk.ini gives
                 * the same directory as no BOTDESK_CONFIG at all. */
                r = loader_main(&l, system_path, &system_rules, true);
        else {
                const char *dir = src->sysconf_dir ?: CONFIG_SYSCONF_DIR;

                legacy = strdup_printf("%s/botdesk.ini", dir);
                main_path = strdup_printf("%s/botdesk/botdesk.ini", dir);
                if (!legacy || !main_path)
                        return -ENOMEM;
                /* /etc/botdesk.ini first, the place it always had; no
                 * drop-ins of its own (/etc/botdesk/ is the directory). */
                r = loader_main(&l, legacy, &system_rules, false);
                if (r >= 0)
                        r = loader_main(&l, main_path, &system_rules, true);
        }
        if (r < 0)
                return r;

        if (user_path) {
                r = loader_main(&l, user_path, &(const struct file_rules) { .user_file = true }, true);
                if (r < 0)
                        return r;
        }
        return l.r_files;
}
