/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * botdesk files PROFILE put LOCAL [DEST] | get SRC [LOCAL] | ls [DIR] |
 * rm PATH | downloads [--since CURSOR] [--timeout S]: files between the
 * caller and the desktop's home (files.h), gated by the lease like every
 * agent action and journaled (name, size, SHA-256; never the content).
 */
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "files.h"
#include "journal-hook.h"
#include "lease.h"
#include "log.h"
#include "owner.h"
#include "profile.h"
#include "running.h"
#include "util.h"
#include "verb-table.h"
#include "verbs.h"

struct files_run {
        const char *profile;
        int dirfd;                      /* the runtime dir: the lease */
        int home;
        const struct lease *admitted;
        const struct bd_config *config;
        bool json;
};

static bool lease_still(void *userdata) {
        const struct files_run *f = userdata;

        return cli_action_still_valid(f->dirfd, f->admitted);
}

static void journal_transfer_args(struct json *j, const struct journal_redact *redact, const void *userdata) {
        const struct files_transfer *t = userdata;

        json_kv_string(j, "path", t->path);
        json_kv_int(j, "size", (long long) t->size);
        if (t->sha256[0])
                json_kv_string(j, "sha256", t->sha256);
}

static void record(const struct files_run *f, const char *action, const char *result, const struct files_transfer *t) {
        cli_journal_record(f->profile, &(const struct cli_journal_action) {
                .action = action, .admitted = f->admitted, .config = f->config, .result = result, .no_frame = true,
                .args = journal_transfer_args, .userdata = t,
        });
}

/* A refusal by the rules of paths and sizes, said: EXIT_REFUSED for a path or file the rules refuse, else EXIT_FAILED. */
static int say_refused(const struct files_run *f, int r, const char *path, uint64_t max) {
        const char *rule = files_error_rule(r);

        if (r == -EEXIST)
                log_error("%s exists in the home of desktop %s: give --force to replace it. Nothing was written.", path,
                          f->profile);
        else if (r == -EFBIG)
                log_error("%s is larger than %llu bytes ([files] max_bytes). Nothing was copied.", path,
                          (unsigned long long) max);
        else if (r == -ESTALE)
                log_error("A human took control of desktop %s while %s was copied: nothing was written.", f->profile, path);
        else if (rule)
                log_error("Refused %s in the home of desktop %s: %s. Nothing was read or written.", path, f->profile, rule);
        else
                return log_error_errno(r, "Cannot copy %s for desktop %s: %m", path, f->profile), EXIT_FAILED;
        return EXIT_REFUSED;
}

static void print_transfer(const struct files_run *f, const char *what, const struct files_transfer *t, const char *local) {
        struct json j;

        if (!f->json) {
                printf("%s %s (%llu bytes, sha256 %s)\n", what, t->path, (unsigned long long) t->size, t->sha256);
                return;
        }
        json_init(&j, stdout);
        json_object_begin(&j);
        json_kv_string(&j, "path", t->path);
        if (local)
                json_kv_string(&j, "local", local);
        json_kv_int(&j, "size", (long long) t->size);
        json_kv_string(&j, "sha256", t->sha256);
        json_object_end(&j);
        putchar('\n');
}

/* The last name of a path, for a copy that keeps it (no basename(): it may change its argument). */
static const char *last_name(const char *path) {
        const char *slash = strrchr(path, '/');

        return slash ? slash + 1 : path;
}

static int files_put(const struct files_run *f, const char *local, const char *dest, bool force, uint64_t max) {
        _cleanup_(files_transfer_done) struct files_transfer t = {};
        _cleanup_close_ int fd = -EBADF;
        bool from_stdin = word_is_stdio(local);
        struct stat st;
        int r;

        if (from_stdin && (!dest || !*dest)) {
                log_error("put - needs DEST: the name to give what standard input holds.");
                return EXIT_USAGE;
        }
        fd = from_stdin ? fcntl(STDIN_FILENO, F_DUPFD_CLOEXEC, 3) : open(local, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
        if (fd < 0)
                return log_error_errno(negative_errno(), "Cannot open %s: %m", local), EXIT_FAILED;
        if (fstat(fd, &st) < 0)
                return log_error_errno(negative_errno(), "Cannot stat %s: %m", local), EXIT_FAILED;
        if (!from_stdin && !S_ISREG(st.st_mode)) {
                log_error("%s is not a regular file; put copies files (or standard input, as -).", local);
                return EXIT_USAGE;
        }
        if (S_ISREG(st.st_mode) && (uint64_t) st.st_size > max) {
                log_error("%s is larger than %llu bytes ([files] max_bytes). Nothing was copied.", local,
                          (unsigned long long) max);
                return EXIT_REFUSED;
        }
        if (!from_stdin && fcntl(fd, F_SETFL, 0) < 0)
                return log_error_errno(negative_errno(), "Cannot read %s: %m", local), EXIT_FAILED;
        r = files_put_fd(f->home, dest, last_name(local), fd, max, force,
                         &(const struct files_gate) { lease_still, (void *) f }, &t);
        if (r < 0) {
                if (r == -ESTALE)
                        record(f, "files put", "suppressed", &(struct files_transfer) { .path = (char *) (dest ?: local) });
                return say_refused(f, r, dest && *dest ? dest : last_name(local), max);
        }
        record(f, "files put", "ok", &t);
        print_transfer(f, "put", &t, NULL);
        return EXIT_OK;
}

static int files_get(const struct files_run *f, const char *src, const char *local, bool force, uint64_t max) {
        _cleanup_(files_transfer_done) struct files_transfer t = {};
        _cleanup_free_ char *tmp = NULL;
        _cleanup_close_ int fd = -EBADF;
        bool to_stdout;
        int r;

        local = local ?: last_name(src);
        to_stdout = word_is_stdio(local);
        if (!*local || streq(local, ".") || streq(local, "..")) {
                log_error("get %s needs LOCAL: its name here.", src);
                return EXIT_USAGE;
        }
        if (!to_stdout && !force && access(local, F_OK) == 0) {
                log_error("%s exists here: give --force to replace it. Nothing was copied.", local);
                return EXIT_REFUSED;
        }
        if (!to_stdout) {
                /* Whole or not at all, here too. */
                tmp = strdup_printf("%s.XXXXXX", local);
                if (!tmp)
                        return log_oom(), EXIT_FAILED;
                fd = mkostemp(tmp, O_CLOEXEC);
                if (fd < 0 || fchmod(fd, 0600) < 0)
                        return log_error_errno(negative_errno(), "Cannot create a file beside %s: %m", local), EXIT_FAILED;
        }
        r = files_get_fd(f->home, src, max, to_stdout ? STDOUT_FILENO : fd, &t);
        /* What a human did meanwhile is not the agent's to read. */
        if (r >= 0 && !cli_action_still_valid(f->dirfd, f->admitted))
                r = -ESTALE;
        if (r >= 0 && !to_stdout && (force ? rename(tmp, local) : renameat2(AT_FDCWD, tmp, AT_FDCWD, local, RENAME_NOREPLACE)) < 0)
                r = errno == EEXIST ? -EEXIST : negative_errno();
        if (r < 0) {
                if (tmp)
                        (void) unlink(tmp);
                record(f, "files get", r == -ESTALE ? "suppressed" : "error", &(struct files_transfer) { .path = (char *) src });
                if (r == -ESTALE) {
                        log_error("A human took control of desktop %s while %s was read: nothing was copied.", f->profile, src);
                        return EXIT_REFUSED;
                }
                if (r == -EEXIST) {
                        log_error("%s appeared here meanwhile: give --force to replace it. Nothing was copied.", local);
                        return EXIT_REFUSED;
                }
                return say_refused(f, r, src, max);
        }
        record(f, "files get", "ok", &t);
        if (!to_stdout)
                print_transfer(f, "got", &t, local);
        return EXIT_OK;
}

static int files_ls(const struct files_run *f, const char *dir) {
        struct files_entry *e = NULL;
        size_t n = 0;
        int r;

        r = files_list(f->home, dir, &e, &n);
        if (r < 0)
                return say_refused(f, r, dir ?: ".", 0);
        if (f->json) {
                struct json j;

                json_init(&j, stdout);
                files_list_write(&j, dir, e, n);
                putchar('\n');
        } else
                for (size_t i = 0; i < n; i++)
                        printf("%-9s %12llu  %s  %s\n", e[i].type, (unsigned long long) e[i].size, e[i].mtime, e[i].name);
        files_entries_free(e, n);
        return EXIT_OK;
}

static int files_rm(const struct files_run *f, const char *path) {
        struct files_transfer t = { .path = (char *) path };
        int r = files_remove(f->home, path);

        record(f, "files rm", r < 0 ? "error" : "ok", &t);
        if (r < 0)
                return say_refused(f, r, path, 0);
        if (f->json)
                printf("{\"removed\":true}\n");
        else
                printf("removed %s\n", path);
        return EXIT_OK;
}

static int files_downloads_run(const struct files_run *f, const char *since, unsigned timeout_s) {
        _cleanup_free_ char *text = NULL;
        struct timespec from = {};
        struct json_mem m;
        unsigned count = 0;
        int r;

        if (since && files_cursor_parse(since, &from) < 0) {
                log_error("Invalid --since \"%s\": give the cursor a previous downloads answered "
                          "(seconds since the epoch, with up to 9 decimals).", since);
                return EXIT_USAGE;
        }
        if (json_mem_open(&m) < 0)
                return log_oom(), EXIT_FAILED;
        r = files_downloads(f->home, &from, timeout_s * 1000u, &m.j, &count);
        if (json_mem_close(&m, &text) < 0)
                return log_oom(), EXIT_FAILED;
        if (r < 0)
                return say_refused(f, r, FILES_DOWNLOADS_DIR, 0);
        if (!cli_action_still_valid(f->dirfd, f->admitted)) {
                log_error("A human took control of desktop %s meanwhile: the list is not the agent's to read.", f->profile);
                return EXIT_REFUSED;
        }
        puts(text);
        /* As wait's timeout: waited for one and none came. */
        return timeout_s && count == 0 ? EXIT_FAILED : EXIT_OK;
}

static const char *word(const struct cli_args *a, size_t i) {
        return a->n_operands > i ? a->operands[i] : NULL;
}

static int run_put(struct files_run *f, const struct cli_args *a) {
        return files_put(f, word(a, 2), word(a, 3), a->force, f->config->files_max_bytes);
}

static int run_get(struct files_run *f, const struct cli_args *a) {
        return files_get(f, word(a, 2), word(a, 3), a->force, f->config->files_max_bytes);
}

static int run_ls(struct files_run *f, const struct cli_args *a) {
        return files_ls(f, word(a, 2));
}

static int run_rm(struct files_run *f, const struct cli_args *a) {
        return files_rm(f, word(a, 2));
}

static int run_downloads(struct files_run *f, const struct cli_args *a) {
        return files_downloads_run(f, a->since, a->timeout);
}

/* The actions, each with the words it takes after it. */
static const struct files_action {
        const char *name;
        size_t min_words, max_words;
        const char *words;              /* what they are, for a usage error */
        int (*run)(struct files_run *f, const struct cli_args *a);
} files_actions[] = {
        { "put", 1, 2, "LOCAL [DEST]", run_put },
        { "get", 1, 2, "SRC [LOCAL]", run_get },
        { "ls", 0, 1, "at most DIR", run_ls },
        { "rm", 1, 1, "PATH", run_rm },
        { "downloads", 0, 0, "no words", run_downloads },
};

/* "put, get, ls, rm or downloads". */
static char *action_names(void) {
        _cleanup_free_ char *text = NULL;
        size_t size = 0;
        FILE *f = open_memstream(&text, &size);

        if (!f)
                return NULL;
        for (size_t i = 0; i < ELEMENTSOF(files_actions); i++)
                fprintf(f, "%s%s", i == 0 ? "" : i + 1 == ELEMENTSOF(files_actions) ? " or " : ", ",
                        files_actions[i].name);
        if (fclose(f) != 0)
                return NULL;
        return TAKE_PTR(text);
}

/* PROFILE ACTION [WORD [WORD]], read by main.c's parser (verb-table.c: its row and usage). */
int verb_files(const struct cli_args *a) {
        _cleanup_(config_done) struct bd_config storage = {};
        _cleanup_(paths_done) struct bd_paths p = {};
        _cleanup_close_ int dirfd = -EBADF, home = -EBADF;
        _cleanup_strv_free_ char **prefix = NULL;
        const char *profile = a->operand, *action = word(a, 1);
        const struct files_action *act = NULL;
        const struct bd_config *cfg;
        struct lease admitted;
        struct files_run f;
        int r;

        for (size_t i = 0; action && i < ELEMENTSOF(files_actions); i++)
                if (streq(action, files_actions[i].name))
                        act = &files_actions[i];
        if (!act) {
                _cleanup_free_ char *names = action_names();

                if (action)
                        log_error("Unknown files action \"%s\": give %s.", action, strnull(names));
                else
                        log_error("files needs an action: %s.", strnull(names));
                return EXIT_USAGE;
        }
        /* PROFILE ACTION, then its words. */
        if (a->n_operands < 2 + act->min_words || a->n_operands > 2 + act->max_words) {
                log_error("files %s takes %s.", action, act->words);
                return EXIT_USAGE;
        }
        cfg = cli_config(a->config, profile, &storage);
        if (!cfg)
                return EXIT_USAGE;
        if (cfg->remote) {
                log_error("Profile %s fronts a VNC server botdesk did not start (remote = %s): it has no home botdesk "
                          "can reach.", profile, cfg->remote);
                return EXIT_REFUSED;
        }
        /* A placed desktop's home is on the far side of its prefix, which this verb does not cross. */
        if (owner_decide(NULL, cfg, profile, &prefix) != OWNER_HOST) {
                log_error("Desktop %s is placed through an exec prefix ([profile.%s] placement); botdesk files moves "
                          "files only for a desktop on this host.", profile, profile);
                return EXIT_REFUSED;
        }
        r = running_desktop_live(profile, &p, &dirfd);
        if (r != EXIT_OK)
                return r;
        home = files_home_open(profile);
        if (home < 0)
                return log_error_errno(home, "Cannot open the home of desktop %s (%s): %m", profile, p.state), EXIT_FAILED;
        {
                _cleanup_free_ char *what = strdup_printf("files %s", action);

                if (!what)
                        return log_oom(), EXIT_FAILED;
                r = cli_action_admit(dirfd, profile, what, a->json, &admitted);
                if (r != EXIT_OK)
                        return r;
        }
        activity_stamp(dirfd);
        f = (struct files_run) {
                .profile = profile, .dirfd = dirfd, .home = home, .admitted = &admitted, .config = cfg, .json = a->json,
        };
        return act->run(&f, a);
}
