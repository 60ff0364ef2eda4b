/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>

#include "argv-split.h"
#include "cli-remote.h"
#include "cli.h"
#include "container-placement.h"
#include "remote-status.h"
#include "remote-container.h"
#include "remote-run.h"
#include "config.h"
#include "envfile.h"
#include "find-executable.h"
#include "json.h"
#include "log.h"
#include "owner.h"
#include "placement-kind.h"
#include "profile.h"
#include "launch.h"
#include "util.h"
#include "verb-table.h"

/* container_inspect() through the engine the prefix names, found on PATH; NULL when it cannot be asked. */
static char *inspect(char *const *prefix, const char *name, int *ret_status) {
        _cleanup_free_ char *engine = NULL;

        if (find_executable(prefix[0], NULL, &engine) < 0)
                return NULL;
        return container_inspect(engine, name, ret_status);
}

/* ---- the verbs ----------------------------------------------------------------------------- */

/* A verb's deadline there when neither its rule nor --timeout gives one. */
#define REMOTE_DEADLINE_DEFAULT_S 30u

/* How long the verb may take there (verb-table.h: its rule): 0 for the
 * verbs that last as long as their caller (rfb, exec, watch, mcp, act, lease
 * wait), which also get our stdin: MCP's stdio crosses podman exec -i, ssh
 * -T and kubectl exec -i as it is. A prefix that hangs is killed then. */
static unsigned verb_timeout(const struct verb *v, const struct cli_args *a, const struct bd_config *c) {
        unsigned t = a->timeout;

        switch (v->remote_timeout) {
        case REMOTE_TIMEOUT_NONE:
                return 0;
        case REMOTE_TIMEOUT_LEASE:
                if (streq_ptr(a->action, "wait"))
                        return t ? t + 10 : 0;
                break;
        case REMOTE_TIMEOUT_START:
                return (t ?: c->start_timeout) + 10;
        case REMOTE_TIMEOUT_RESTART:
                return (t ?: c->start_timeout) + 70;
        case REMOTE_TIMEOUT_STOP:
                return t ?: 60;
        case REMOTE_TIMEOUT_DEFAULT:
        case _REMOTE_TIMEOUT_MAX:
                break;
        }
        return t ?: REMOTE_DEADLINE_DEFAULT_S;
}

static bool from_botdesk(const struct run_result *res) {
        /* The other side's botdesk says "botdesk: ..." when it fails; the
         * prefix's own failures (podman's "Error: ...", ssh's) do not. */
        return startswith(res->err, "botdesk: ") || strstr(res->err, "\nbotdesk: ");
}

/* Did the prefix fail, rather than the verb there? */
static bool prefix_failed(const struct run_result *res) {
        if (res->timed_out || res->signaled)
                return true;
        /* 125: podman/docker's own error; 126/127: not executable / not found there; 255: ssh's. */
        return (res->status == 125 || res->status == 126 || res->status == 127 || res->status == 255) &&
               !from_botdesk(res);
}

/* Why the prefix failed, in words, with what to do. */
static char *prefix_reason(char *const *prefix, const struct run_result *res, unsigned timeout_s) {
        _cleanup_free_ char *joined = argv_join_quoted(prefix), *last = NULL, *state = NULL;
        const char *name = prefix_container(prefix);
        int st = -1;

        /* The last line it wrote, as the detail. */
        if (res->err_len > 0) {
                const char *e = res->err + res->err_len, *b;
                while (e > res->err && (e[-1] == '\n' || e[-1] == '\r'))
                        e--;
                for (b = e; b > res->err && b[-1] != '\n'; b--)
                        ;
                last = strndup(b, (size_t) (e - b));
        }
        if (name)
                state = inspect(prefix, name, &st);

        if (res->timed_out)
                return strdup_printf("the exec prefix (%s) did not finish within %u s and was killed with its "
                                     "process group (check that the sandbox is up and reachable)", strnull(joined), timeout_s);
        if (name && st > 0)
                return strdup_printf("container %s does not exist (%s): it was removed, or never created",
                                     name, state && state[0] ? state : "no such container");
        if (name && st == 0 && state && !strstr(state, " running"))
                return strdup_printf("container %s is not running (%s); start it, e.g. podman start %s", name,
                                     strchr(state, ' ') ? strchr(state, ' ') + 1 : state, name);
        if (res->status == 127)
                return strdup_printf("botdesk, or a program of the prefix, was not found on the other side of %s%s%s%s: "
                                     "install botdesk there (in an image: scripts/build-image.sh builds one with it)",
                                     strnull(joined), last ? " (" : "", last ?: "", last ? ")" : "");
        if (res->status == 126)
                return strdup_printf("botdesk cannot be executed on the other side of %s%s%s%s: install botdesk there "
                                     "(scripts/build-image.sh builds an image with it)",
                                     strnull(joined), last ? " (" : "", last ?: "", last ? ")" : "");
        if (res->signaled)
                return strdup_printf("the exec prefix (%s) was killed by signal %d", strnull(joined),
                                     res->status - 128);
        return strdup_printf("the exec prefix (%s) failed with exit status %d%s%s%s (check that the sandbox is up and reachable)",
                             strnull(joined), res->status, last ? " (" : "", last ?: "", last ? ")" : "");
}

/* ssh and its kin hand the words of their command to a shell on the far
 * side: exec_shell = auto quotes for that shell when one of these runs. */
static const char *const shell_prefixes[] = { "ssh", "autossh", "dbclient", "rsh", "remsh", "slogin" };

/* mosh quotes each word of its command for the shell of the ssh it runs
 * (--ssh=/usr/bin/ssh names that one), and mosh-server execs the words as
 * they arrive: a second quoting of ours would reach botdesk as quotes. */
static const char *const quoting_prefixes[] = { "mosh" };

static bool prefix_hands_to_shell(char *const *prefix, enum exec_shell_kind kind) {
        if (kind != EXEC_SHELL_AUTO)
                return kind == EXEC_SHELL_YES;
        /* First, or behind a wrapper such as sshpass: the first that names one decides. */
        for (char *const *w = prefix; *w; w++) {
                for (size_t i = 0; i < ELEMENTSOF(quoting_prefixes); i++)
                        if (streq(remote_program_name(*w), quoting_prefixes[i]))
                                return false;
                for (size_t i = 0; i < ELEMENTSOF(shell_prefixes); i++)
                        if (streq(remote_program_name(*w), shell_prefixes[i]))
                                return true;
        }
        return false;
}

/* PREFIX... botdesk VERB ARGS..., the prefix's program as the path prog.
 * When the prefix hands its words to a shell there ([profile.P]
 * exec_shell), each of ours is quoted so that it arrives as one word: text
 * an agent types often comes from web pages, and unquoted it would be
 * that shell's code. */
static int remote_argv(const char *prog, char *const *prefix, enum exec_shell_kind shell_kind, const char *verb,
                       char *const *args, char ***ret) {
        _cleanup_strv_free_ char **full = NULL;
        bool quote = prefix_hands_to_shell(prefix, shell_kind);
        int r;

        r = strv_push(&full, strdup(prog));
        for (size_t i = 1; r >= 0 && prefix[i]; i++)
                r = strv_push(&full, strdup(prefix[i]));
        if (r >= 0)
                r = strv_push(&full, strdup("botdesk"));
        if (r >= 0)
                r = strv_push(&full, quote ? shell_quote(verb) : strdup(verb));
        for (size_t i = 0; r >= 0 && args[i]; i++)
                r = strv_push(&full, quote ? shell_quote(args[i]) : strdup(args[i]));
        if (r < 0)
                return r;
        *ret = TAKE_PTR(full);
        return 0;
}

/*
 * restart of a desktop whose container was made from another image than the configured one: its
 * desktop stopped there, its record gone, the container made again (container-placement.h). Returns 0
 * (the caller goes on with a start), or an exit code (said).
 */
static int switch_image(const char *prog, char *const *prefix, const struct bd_config *c, const char *profile,
                        bool force, int dirfd) {
        char *sargs[] = { (char *) profile, force ? (char *) "--force" : NULL, NULL };
        _cleanup_strv_free_ char **sfull = NULL;
        _cleanup_free_ char *why = NULL;
        struct run_result res;
        bool fresh;
        int r;

        r = remote_argv(prog, prefix, c->exec_shell, "stop", sargs, &sfull);
        if (r < 0)
                return log_oom(), EXIT_FAILED;
        /* Captured: a restart prints the start's answer, not the stop's line. */
        r = remote_run(sfull, false, true, -1, 60, &res);
        if (r < 0 || prefix_failed(&res) || res.status != EXIT_OK) {
                why = r < 0 ? strdup(strerror(-r)) : strdup_printf("%s", res.err_len ? res.err : "its stop failed");
                if (r >= 0)
                        run_result_done(&res);
                log_error("Cannot stop %s to make its container again from image %s: %s", profile, c->image,
                          strnull(why));
                return r >= 0 && res.status == EXIT_REFUSED ? EXIT_REFUSED : EXIT_FAILED;
        }
        run_result_done(&res);
        (void) owner_remove_at(dirfd);
        return container_ready(c, profile, false, &fresh);
}

static int far_status_write(FILE *f, const char *profile, const struct bd_config *c, const char *text, size_t n);

/* What the configuration says of profile's place, for a message: "exec = ..." or "placement = host". */
static char *setting_words(const struct bd_config *c) {
        return c->placement == PLACEMENT_EXEC && c->exec ? strdup_printf("exec = %s", c->exec)
               : placement_engine(c->placement)          ? strdup_printf("placement = %s", placement_engine(c->placement))
                                                          : strdup("placement = host");
}

/* The verb runs here: the configuration read to decide goes to it (moved), read once. */
static int run_here(struct bd_config *c, struct bd_config *ret, bool *ret_read) {
        config_done(ret);
        *ret = *c;
        *c = (struct bd_config) {};
        *ret_read = true;
        return -1;
}

int remote_dispatch(const struct verb *v, const struct cli_args *a, struct bd_config *ret_config, bool *ret_read,
                    bool *ret_far) {
        _cleanup_(config_done) struct bd_config c = {};
        _cleanup_(paths_done) struct bd_paths p = {};
        _cleanup_(owner_done) struct owner rec = {};
        _cleanup_strv_free_ char **prefix = NULL, **full = NULL;
        _cleanup_strv_free_ char **targs = NULL;
        _cleanup_free_ char *prog = NULL, *why = NULL, *out_tmp = NULL;
        _cleanup_close_ int dirfd = -EBADF, lock = -EBADF, out_fd = -EBADF;
        const char *out_path = NULL, *verb = a->verb, *profile = a->operand;
        char **args = a->far_words;
        _cleanup_(run_result_done) struct run_result res = {};
        bool starting, stopping, force = a->force, json = a->json, have_rec, remove = false;
        unsigned timeout_s;
        int r, source;

        /* The parser judged it: a profile's verb with none (status, watch) is about every profile, here. */
        if (!v->words || !startswith(v->words, "PROFILE") || !profile)
                return -1;
        if (cli_load_config(profile, &c) < 0)
                return EXIT_USAGE;
        /* placement = refuse: no verb of the profile runs anywhere. */
        if (c.placement == PLACEMENT_REFUSE) {
                if (streq(verb, "status") && !a->quiet)
                        remote_status_unreachable(stdout, profile, &c, NULL, "its placement is refuse", json);
                log_error("Profile %s has placement = refuse: its desktop runs nowhere, so %s is refused. Set another "
                          "placement ([profile.%s] placement, or [placement] default) to run it.", profile, verb,
                          profile);
                return EXIT_REFUSED;
        }
        /* The verbs that are not placed (lookup, web ticket, files, network, journal...) are about this host. */
        if (!v->placed)
                return run_here(&c, ret_config, ret_read);
        /* A VNC server botdesk did not start: the verbs that serve one run here, the rest refuse. */
        if (c.remote && !v->serves_remote) {
                log_error("Profile %s fronts a VNC server botdesk did not start (remote = %s): botdesk serves its "
                          "screen, input, thumbnail and lease, but %s needs what only a desktop botdesk runs has "
                          "(its life, windows, files or processes), so it is refused. botdesk status %s says what it is.",
                          profile, c.remote, verb, profile);
                return EXIT_REFUSED;
        }
        if (c.remote)
                return run_here(&c, ret_config, ret_read);
        /* Without a runtime dir verified as ours there is no record to
         * follow, and the setting alone decides: a host profile is the
         * verb's own business here (status of someone else's forged
         * fallback dir reads as not running, and a first start creates
         * the dir). Only an exec profile needs the dir for its record. */
        if (paths_for_profile(profile, &p) < 0)
                return run_here(&c, ret_config, ret_read);
        dirfd = paths_open_runtime(&p, NULL);
        if (dirfd < 0) {
                _cleanup_strv_free_ char **setting = NULL;

                if (owner_decide(NULL, &c, profile, &setting) == OWNER_HOST)
                        return run_here(&c, ret_config, ret_read);
                paths_done(&p);
                if (cli_open_profile(profile, &p, &dirfd) < 0)
                        return EXIT_FAILED;
        }

        starting = streq(verb, "start") || streq(verb, "restart");
        stopping = streq(verb, "stop");
        if (starting || stopping) {
                /* Starts and stops of one profile, here or there, take turns: the record is theirs. */
                lock = profile_lock(dirfd);
                if (lock < 0)
                        return log_error_errno(lock, "Cannot lock profile %s: %m", profile), EXIT_FAILED;
        }

        r = owner_read_at(dirfd, &rec);
        if (r == -EBADMSG || (r < 0 && r != -ENOENT)) {
                if (stopping && force) {
                        log_warning_errno(r, "The owner record of %s is unreadable (%m); forgetting it (stop --force).",
                                          profile);
                        (void) owner_remove_at(dirfd);
                } else {
                        log_error_errno(r, "The owner record %s/%s is unreadable (%m), so where %s runs is unknown; "
                                        "botdesk stop --force %s forgets it.", p.runtime, OWNER_FILE, profile, profile);
                        return EXIT_FAILED;
                }
        }
        have_rec = r >= 0;
        source = owner_decide(have_rec ? &rec : NULL, &c, profile, &prefix);
        if (source == -OWNER_MISMATCH) {
                /* Never run: the record's words are whoever wrote the runtime dir's, and that may be the desktop. */
                _cleanup_free_ char *setting = setting_words(&c);

                if (!(stopping && force)) {
                        log_error("The owner record %s/%s is not the configured prefix of %s ([profile.%s] %s), so it "
                                  "is not run and where %s runs is not reached. Put back the setting it was started "
                                  "with, or forget the record: botdesk stop --force %s.",
                                  p.runtime, OWNER_FILE, profile, profile, strnull(setting), profile, profile);
                        return EXIT_FAILED;
                }
                log_warning("The owner record %s/%s is not the configured prefix of %s ([profile.%s] %s); forgetting "
                            "it without running it (stop --force).", p.runtime, OWNER_FILE, profile, profile,
                            strnull(setting));
                (void) owner_remove_at(dirfd);
                owner_done(&rec);
                have_rec = false;
                source = owner_decide(NULL, &c, profile, &prefix);
        }
        if (source < 0)
                return log_error_errno(source, "Cannot read the exec prefix of %s: %m", profile), EXIT_FAILED;
        if (source == OWNER_HOST)
                return run_here(&c, ret_config, ret_read);
        if (placement_engine(c.placement)) {
                r = container_before_verb(&c, a, dirfd, &have_rec);
                if (r >= 0)
                        return r;
                /* stop --remove: the container goes once the desktop in it has stopped (no option there). */
                remove = stopping && a->remove;
        } else if (stopping && a->remove) {
                log_error("--remove removes the container of placement = podman or docker; %s is placed by its exec "
                          "prefix, whose container (if any) is not botdesk's to remove.", profile);
                return EXIT_USAGE;
        }
        /* The status of a desktop placed elsewhere, as JSON, in the words of this side: placement_kind, image. */
        if (streq(verb, "status") && json && !a->quiet) {
                _cleanup_free_ char *text = NULL;

                r = remote_status_text(profile, &c, true, verb_timeout(v, a, &c), &text);
                if (r < 0)
                        return log_error_errno(r, "Cannot read the status of %s: %m", profile), EXIT_FAILED;
                if (text)
                        fputs(text, stdout);
                *ret_far = true;
                return EXIT_OK;
        }

        timeout_s = verb_timeout(v, a, &c);
        r = find_executable(prefix[0], NULL, &prog);
        if (r < 0) {
                _cleanup_free_ char *joined = argv_join_quoted(prefix);
                if (streq(verb, "status")) {
                        _cleanup_free_ char *reason = strdup_printf("its exec prefix %s cannot run here: %s is not installed",
                                                                    strnull(joined), prefix[0]);
                        remote_status_unreachable(stdout, profile, &c, prefix, strnull(reason), json);
                        return EXIT_OK;
                }
                log_error("Cannot run %s for %s: the exec prefix's program %s is not installed on this host (exec = %s). "
                          "Nothing was started here.", verb, profile, prefix[0], strnull(joined));
                return EXIT_FAILED;
        }

        if (streq(verb, "restart") && have_rec && placement_engine(c.placement) && container_switch_pending(&c, profile)) {
                r = switch_image(prog, prefix, &c, profile, force, dirfd);
                if (r != 0)
                        return r;
                have_rec = false;
                verb = "start";
                r = argv_without(args, (char *[]) { (char *) "--force", (char *) "-f", NULL }, &targs);
                if (r < 0)
                        return log_oom(), EXIT_FAILED;
                args = targs;
        }
        /* thumbnail -o FILE names a file of ours, not of the far side's (whose words lack it): the image
         * comes back on stdout and is written here, replaced atomically, 0600, as the verb does here. */
        out_path = a->output;

        r = remote_argv(prog, prefix, c.exec_shell, verb, args, &full);
        if (r < 0) {
                log_oom();
                return EXIT_FAILED;
        }

        if (starting && !have_rec) {
                /* Recorded before the start, so that a start that is cut off
                 * half-way is still stopped there, never forgotten. */
                struct owner o = { .argv = prefix };
                _cleanup_free_ char *id = NULL;
                const char *name = prefix_container(prefix);
                int st = -1;

                if (name) {
                        id = inspect(prefix, name, &st);
                        /* st < 0: the engine could not be asked; the prefix itself will tell. */
                        if (st > 0) {
                                log_error("Cannot start %s in container %s: it does not exist (%s). Nothing was started on this host.",
                                          profile, name, id && id[0] ? id : "no such container");
                                return EXIT_FAILED;
                        }
                        if (st == 0 && id && !strstr(id, " running")) {
                                log_error("Cannot start %s in container %s: it is not running (%s); start it first, e.g. %s start %s. "
                                          "Nothing was started on this host.", profile, name,
                                          strchr(id, ' ') ? strchr(id, ' ') + 1 : id, remote_program_name(prefix[0]), name);
                                return EXIT_FAILED;
                        }
                        if (st == 0 && id) {
                                id[strcspn(id, " ")] = '\0';
                                o.container_id = id;
                        }
                }
                r = owner_write_at(dirfd, &o);
                if (r < 0)
                        return log_error_errno(r, "Cannot write the owner record of %s: %m", profile), EXIT_FAILED;
        }

        if (out_path) {
                out_tmp = strdup_printf("%s.XXXXXX", out_path);
                if (!out_tmp)
                        return log_oom(), EXIT_FAILED;
                out_fd = mkostemp(out_tmp, O_CLOEXEC);
                if (out_fd < 0 || fchmod(out_fd, 0600) < 0) {
                        log_error_errno(negative_errno(), "Cannot create %s: %m", out_tmp);
                        if (out_fd >= 0)
                                (void) unlink(out_tmp);
                        return EXIT_FAILED;
                }
        }
        /* clipboard set reads its content from stdin, within the verb's deadline. */
        /* A start's status object is said in this side's words too (placement_kind, image): read, then written. */
        r = remote_run(full, !timeout_s || v->remote_stdin, starting && json, out_fd, timeout_s, &res);
        if (out_path) {
                /* The image is the caller's only once it is whole. */
                bool whole = r >= 0 && res.status == EXIT_OK && !prefix_failed(&res);

                if (whole && rename(out_tmp, out_path) < 0) {
                        log_error_errno(negative_errno(), "Cannot write %s: %m", out_path);
                        res.status = EXIT_FAILED;
                        whole = false;
                }
                if (!whole)
                        (void) unlink(out_tmp);
        }
        if (r < 0) {
                if (starting && !have_rec)
                        (void) owner_remove_at(dirfd);
                log_error_errno(r, "Cannot run the exec prefix of %s (%s): %m. Nothing was started on this host.", profile,
                                prog);
                return EXIT_FAILED;
        }

        if (!prefix_failed(&res)) {
                if ((stopping && res.status == EXIT_OK) || (starting && !have_rec && res.status != EXIT_OK))
                        (void) owner_remove_at(dirfd);
                if (remove && res.status == EXIT_OK) {
                        r = container_remove(&c, profile);
                        if (r != 0)
                                return r;
                }
                if (starting && json && res.out && (res.status != EXIT_OK ||
                                                    far_status_write(stdout, profile, &c, res.out, strlen(res.out)) < 0))
                        fputs(res.out, stdout);
                *ret_far = true;
                return res.status;
        }

        why = prefix_reason(prefix, &res, timeout_s);
        if (streq(verb, "status")) {
                remote_status_unreachable(stdout, profile, &c, prefix, strnull(why), json);
                return EXIT_OK;
        }
        if (stopping && force) {
                (void) owner_remove_at(dirfd);
                log_warning("Cannot stop %s there: %s; forgot its owner record (stop --force).", profile, strnull(why));
                if (!a->quiet)
                        printf("%s: not running\n", profile);
                return EXIT_OK;
        }
        if (starting && !have_rec && !res.timed_out)
                (void) owner_remove_at(dirfd);
        log_error("Cannot %s %s: %s.%s%s", verb, profile, strnull(why),
                  starting ? " Nothing was started on this host." : "",
                  stopping ? " Its owner record is kept; botdesk stop --force forgets it." :
                  starting && res.timed_out ? " The start may still complete there; botdesk stop stops it." : "");
        return EXIT_FAILED;
}

/*
 * The far side's status, text[0..n), into our list: exactly one JSON
 * object, whose one "profile" member names profile, written back out from
 * its parsed form, so that nothing else it sent (a second object, trailing
 * bytes, another profile's status) becomes part of ours. -EBADMSG else.
 */
static int far_status_write(FILE *f, const char *profile, const struct bd_config *c, const char *text, size_t n) {
        /* Said here, not there: inside, the desktop is a host's. */
        static const char *const ours[] = { "placement_kind", "image", "image_switch" };
        _cleanup_(container_info_done) struct container_info info = {};
        struct json_value *v = NULL;
        struct json j;
        size_t named = 0;
        int r;

        r = json_parse(text, n, &v);
        if (r < 0)
                return r == -ENOMEM ? r : -EBADMSG;
        if (v->type == JSON_OBJECT)
                for (size_t i = 0; i < v->n; i++)
                        if (streq(v->items[i].key, "profile"))
                                named++;
        if (named != 1 || !streq_ptr(json_member_string(v, "profile"), profile))
                r = -EBADMSG;
        else {
                if (placement_engine(c->placement))
                        (void) container_look(c, profile, &info);
                json_init(&j, f);
                json_object_begin(&j);
                for (size_t i = 0; i < v->n; i++) {
                        bool skip = false;

                        for (size_t k = 0; k < ELEMENTSOF(ours); k++)
                                skip = skip || streq(v->items[i].key, ours[k]);
                        if (skip)
                                continue;
                        json_key(&j, v->items[i].key);
                        json_value_write(&j, &v->items[i]);
                }
                placement_json(&j, c, &info);
                json_object_end(&j);
                fputc('\n', f);
        }
        json_value_free(v);
        return r;
}

int remote_status_text(const char *profile, const struct bd_config *c, bool json, unsigned timeout_s, char **ret) {
        _cleanup_(paths_done) struct bd_paths p = {};
        _cleanup_(owner_done) struct owner rec = {};
        _cleanup_strv_free_ char **prefix = NULL, **full = NULL;
        _cleanup_free_ char *prog = NULL, *why = NULL, *text = NULL;
        _cleanup_close_ int dirfd = -EBADF;
        char *args[] = { (char *) profile, json ? (char *) "--json" : NULL, NULL };
        struct run_result res = {};
        size_t size = 0;
        FILE *f;
        int r, source;

        r = paths_for_profile(profile, &p);
        if (r < 0)
                return r;
        dirfd = paths_open_runtime(&p, NULL);
        if (dirfd < 0)
                return dirfd == -ENOENT ? 0 : dirfd;
        f = open_memstream(&text, &size);
        if (!f)
                return -ENOMEM;
        r = owner_read_at(dirfd, &rec);
        if (r < 0 && r != -ENOENT) {
                /* Where it runs is unknown: never read as this host's. */
                why = strdup_printf("its owner record is unreadable (%s); botdesk stop --force %s forgets it",
                                    strerror(-r), profile);
                remote_status_unreachable(f, profile, c, NULL, strnull(why), json);
                goto done;
        }
        source = owner_decide(r >= 0 ? &rec : NULL, c, profile, &prefix);
        if (source == -OWNER_MISMATCH) {
                why = strdup_printf("its owner record is not the configured exec prefix, so it is not run; put back "
                                    "the setting it was started with, or botdesk stop --force %s forgets it", profile);
                remote_status_unreachable(f, profile, c, NULL, strnull(why), json);
                goto done;
        }
        if (source <= OWNER_HOST) {
                fclose(f);
                return source;
        }
        r = find_executable(prefix[0], NULL, &prog);
        if (r >= 0)
                r = remote_argv(prog, prefix, c->exec_shell, "status", args, &full);
        if (r >= 0)
                r = remote_run(full, false, true, -1, (timeout_s ?: REMOTE_DEADLINE_DEFAULT_S), &res);
        if (r >= 0 && !prefix_failed(&res) && res.status == EXIT_OK && res.out) {
                size_t n = strlen(res.out);
                while (n > 0 && res.out[n - 1] == '\n')
                        n--;
                if (!json)
                        fprintf(f, "%.*s\n", (int) n, res.out);
                else if (far_status_write(f, profile, c, res.out, n) < 0)
                        remote_status_unreachable(f, profile, c, prefix, "the far side's status is not one JSON object "
                                                 "of this profile", json);
        } else {
                why = r == -ENOENT ? strdup_printf("its exec prefix's program %s is not installed here", prefix[0])
                      : r < 0      ? strdup_printf("its exec prefix cannot run: %s", strerror(-r))
                                   : prefix_reason(prefix, &res, (timeout_s ?: REMOTE_DEADLINE_DEFAULT_S));
                remote_status_unreachable(f, profile, c, prefix, strnull(why), json);
        }
done:
        run_result_done(&res);
        if (fclose(f) != 0)
                return -ENOMEM;
        /* Without the final newline: the caller places it. */
        if (size > 0 && text[size - 1] == '\n')
                text[size - 1] = '\0';
        *ret = TAKE_PTR(text);
        return 1;
}
