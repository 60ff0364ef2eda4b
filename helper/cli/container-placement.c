/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <stdlib.h>

#include "cli.h"
#include "cli-remote.h"
#include "container-placement.h"
#include "find-executable.h"
#include "json.h"
#include "log.h"
#include "owner.h"
#include "verbs.h"
#include "placement-kind.h"
#include "remote-run.h"
#include "remote-status.h"
#include "util.h"

/* Asking the engine is quick; making a container may pull its image first. */
#define ENGINE_ASK_TIMEOUT 30U
#define ENGINE_MAKE_TIMEOUT 600U

void container_info_done(struct container_info *i) {
        free(i->name);
        free(i->id);
        free(i->state);
        free(i->profile);
        free(i->image);
        *i = (struct container_info) {};
}

/* The engine's last line of complaint, for a message. */
static const char *last_line(struct run_result *res) {
        char *e = res->err + res->err_len, *b;

        while (e > res->err && (e[-1] == '\n' || e[-1] == '\r'))
                e--;
        *e = '\0';
        for (b = e; b > res->err && b[-1] != '\n'; b--)
                ;
        return *b ? b : "no message";
}

/* Runs ENGINE ARGS... captured. Returns 0 with *res filled, or an exit code (said) when the engine cannot run. */
static int engine_run(const struct bd_config *c, char **args, unsigned timeout_s, struct run_result *res) {
        _cleanup_free_ char *prog = NULL;
        _cleanup_strv_free_ char **argv = NULL;
        const char *engine = placement_engine(c->placement);
        int r;

        r = find_executable(engine, NULL, &prog);
        if (r < 0) {
                log_error("placement = %s, but %s is not installed on this host: nothing was started (install it, or "
                          "set another placement).", engine, engine);
                return EXIT_REFUSED;
        }
        if (strv_push(&argv, TAKE_PTR(prog)) < 0)
                return log_oom(), EXIT_FAILED;
        for (size_t i = 0; args[i]; i++)
                if (strv_push(&argv, strdup(args[i])) < 0)
                        return log_oom(), EXIT_FAILED;
        r = remote_run(argv, false, true, -1, timeout_s, res);
        if (r < 0)
                return log_error_errno(r, "Cannot run %s: %m", engine), EXIT_FAILED;
        if (res->timed_out) {
                log_error("%s %s did not finish within %u s.", engine, args[0], timeout_s);
                run_result_done(res);
                return EXIT_FAILED;
        }
        return 0;
}

/* "<no value>" is what the engines' templates print for a label a container lacks. */
static char *label_value(const char *s, size_t n) {
        if (n == 0 || (n == 10 && strncmp(s, "<no value>", 10) == 0))
                return NULL;
        return strndup(s, n);
}

int container_look(const struct bd_config *c, const char *profile, struct container_info *ret) {
        _cleanup_free_ char *name = placement_container_name(profile);
        char *args[] = { (char *) "inspect", (char *) "--type", (char *) "container", (char *) "--format",
                         (char *) "{{.Id}}\t{{.State.Status}}\t{{index .Config.Labels \"" CONTAINER_LABEL_PROFILE "\"}}\t"
                                  "{{index .Config.Labels \"" CONTAINER_LABEL_IMAGE "\"}}",
                         name, NULL };
        struct run_result res;
        const char *f[4];
        size_t len[4];
        const char *p;
        int r;

        *ret = (struct container_info) {};
        if (!name)
                return log_oom(), EXIT_FAILED;
        r = engine_run(c, args, ENGINE_ASK_TIMEOUT, &res);
        if (r != 0)
                return r;
        ret->name = TAKE_PTR(name);
        if (res.status != 0) {
                /* podman: "no such container"; docker: "No such container" (or "object"). */
                bool missing = strcasestr(res.err, "no such");

                if (!missing)
                        log_error("Cannot ask %s about container %s: %s", placement_engine(c->placement), ret->name,
                                  last_line(&res));
                run_result_done(&res);
                return missing ? 0 : EXIT_FAILED;
        }
        p = res.out ?: "";
        for (size_t i = 0; i < 4; i++) {
                f[i] = p;
                len[i] = strcspn(p, i < 3 ? "\t\n" : "\n");
                p += len[i] + (p[len[i]] == '\t');
        }
        ret->exists = true;
        ret->id = strndup(f[0], len[0]);
        ret->state = strndup(f[1], len[1]);
        ret->profile = label_value(f[2], len[2]);
        ret->image = label_value(f[3], len[3]);
        run_result_done(&res);
        if (!ret->id || !ret->state) {
                container_info_done(ret);
                return log_oom(), EXIT_FAILED;
        }
        return 0;
}

/* True when botdesk made that container for profile; else says why it is left alone. */
static bool container_is_ours(const struct container_info *i, const struct bd_config *c, const char *profile) {
        if (streq_ptr(i->profile, profile))
                return true;
        log_error("Container %s exists, and botdesk did not make it for profile %s (its label %s is %s): it is not "
                  "touched. Remove or rename it (%s rm %s), or set another placement.", i->name, profile,
                  CONTAINER_LABEL_PROFILE, i->profile ?: "missing", placement_engine(c->placement), i->name);
        return false;
}

/* ENGINE VERB [-f] NAME; what: the verb in words for a failure's message, NULL for none. */
static int engine_simple(const struct bd_config *c, const char *verb, const char *name, const char *what) {
        char *args[] = { (char *) verb, (char *) "-f", (char *) name, NULL };
        struct run_result res;
        int r;

        /* start takes no -f. */
        if (streq(verb, "start")) {
                args[1] = (char *) name;
                args[2] = NULL;
        }
        r = engine_run(c, args, ENGINE_ASK_TIMEOUT, &res);
        if (r != 0)
                return r;
        if (res.status != 0) {
                if (what)
                        log_error("Cannot %s container %s: %s", what, name, last_line(&res));
                run_result_done(&res);
                return EXIT_FAILED;
        }
        run_result_done(&res);
        return 0;
}

static int container_make(const struct bd_config *c, const char *profile, const char *name) {
        _cleanup_free_ char *label_profile = strdup_printf("%s=%s", CONTAINER_LABEL_PROFILE, profile);
        _cleanup_free_ char *label_image = strdup_printf("%s=%s", CONTAINER_LABEL_IMAGE, c->image);
        char *args[] = { (char *) "run", (char *) "--detach", (char *) "--name", (char *) name,
                         (char *) "--label", label_profile, (char *) "--label", label_image, (char *) "--init",
                         (char *) "--cap-drop=ALL", (char *) "--security-opt=no-new-privileges", c->image, NULL };
        struct run_result res;
        int r;

        if (!label_profile || !label_image)
                return log_oom(), EXIT_FAILED;
        log_info("Making container %s from image %s.", name, c->image);
        r = engine_run(c, args, ENGINE_MAKE_TIMEOUT, &res);
        if (r != 0)
                return r;
        if (res.status != 0) {
                log_error("Cannot make container %s from image %s: %s. Nothing was started (build the image with "
                          "scripts/build-image.sh --tag %s, or set [placement] image).", name, c->image,
                          last_line(&res), c->image);
                run_result_done(&res);
                /* A container that was made but did not start is not left behind (none is the usual case). */
                (void) engine_simple(c, "rm", name, NULL);
                return EXIT_FAILED;
        }
        run_result_done(&res);
        return 0;
}

/* The profile's container looked at, refused (said) when one of its name is not botdesk's for profile. */
static int look_ours(const struct bd_config *c, const char *profile, struct container_info *i) {
        int r = container_look(c, profile, i);

        if (r != 0)
                return r;
        return i->exists && !container_is_ours(i, c, profile) ? EXIT_REFUSED : 0;
}

int container_ready(const struct bd_config *c, const char *profile, bool desktop_recorded, bool *ret_fresh) {
        _cleanup_(container_info_done) struct container_info i = {};
        int r;

        *ret_fresh = false;
        r = look_ours(c, profile, &i);
        if (r != 0)
                return r;
        /* The image changed: a stopped desktop's container is made again from the new one. A running
         * desktop keeps its container until it is stopped (status says image_switch). */
        if (i.exists && !streq_ptr(i.image, c->image) && !desktop_recorded) {
                log_info("Container %s was made from image %s; [placement] image is %s: making it again.", i.name,
                         i.image ?: "(unknown)", c->image);
                r = engine_simple(c, "rm", i.name, "remove");
                if (r != 0)
                        return r;
                i.exists = false;
        }
        if (!i.exists) {
                r = container_make(c, profile, i.name);
                if (r != 0)
                        return r;
                *ret_fresh = true;
                return 0;
        }
        if (!streq(i.state, "running")) {
                r = engine_simple(c, "start", i.name, "start");
                if (r != 0)
                        return r;
                *ret_fresh = true;
        }
        return 0;
}

bool container_switch_pending(const struct bd_config *c, const char *profile) {
        _cleanup_(container_info_done) struct container_info i = {};

        return look_ours(c, profile, &i) == 0 && i.exists && !streq_ptr(i.image, c->image);
}

int container_remove(const struct bd_config *c, const char *profile) {
        _cleanup_(container_info_done) struct container_info i = {};
        int r;

        r = look_ours(c, profile, &i);
        if (r != 0 || !i.exists)
                return r;
        return engine_simple(c, "rm", i.name, "remove");
}

/*
 * placement = podman | docker, before the verb goes through the prefix: a
 * start readies the container (container_ready()), and a desktop recorded
 * in a container that had to be made or started again is gone, so its
 * record goes too. Any other verb finds the desktop not running while its
 * container does not run: status says why, stop has nothing to stop (and
 * --remove removes what is left), the rest exit 4. Returns -1 to go on, or
 * the exit code.
 */
int container_before_verb(const struct bd_config *c, const struct cli_args *a, int dirfd, bool *have_rec) {
        const char *profile = a->operand, *verb = a->verb;
        _cleanup_(container_info_done) struct container_info i = {};
        _cleanup_free_ char *why = NULL;
        bool fresh;
        int r;

        if (streq(verb, "start") || streq(verb, "restart")) {
                r = container_ready(c, profile, *have_rec, &fresh);
                if (r != 0)
                        return r;
                if (fresh && *have_rec) {
                        (void) owner_remove_at(dirfd);
                        *have_rec = false;
                }
                return -1;
        }
        r = look_ours(c, profile, &i);
        if (r != 0)
                return r;
        if (i.exists && streq(i.state, "running"))
                return -1;
        /* Nothing of the desktop runs: a record of it is stale. */
        if (*have_rec) {
                (void) owner_remove_at(dirfd);
                *have_rec = false;
        }
        why = i.exists ? strdup_printf("its container %s is %s", i.name, i.state)
                       : strdup_printf("its container %s does not exist (botdesk start %s makes it)", i.name, profile);
        if (!why)
                return log_oom(), EXIT_FAILED;
        if (streq(verb, "status")) {
                if (!a->quiet)
                        remote_status_unreachable(stdout, profile, c, NULL, why, a->json);
                return a->quiet ? EXIT_NOT_RUNNING : EXIT_OK;
        }
        if (streq(verb, "stop")) {
                if (a->remove && i.exists) {
                        r = container_remove(c, profile);
                        if (r != 0)
                                return r;
                }
                if (!a->quiet)
                        printf("%s: not running\n", profile);
                return EXIT_OK;
        }
        log_error("Desktop %s is not running: %s.", profile, why);
        return EXIT_NOT_RUNNING;
}

void placement_json(struct json *j, const struct bd_config *c, const struct container_info *i) {
        bool container = placement_engine(c->placement);

        json_kv_string(j, "placement_kind", placement_kind_name(c));
        json_kv_string(j, "image", container ? c->image : NULL);
        json_key(j, "image_switch");
        if (container && i && i->exists && !streq_ptr(i->image, c->image)) {
                json_object_begin(j);
                json_kv_string(j, "running", i->image);
                json_kv_string(j, "wanted", c->image);
                json_kv_bool(j, "restart_pending", true);
                json_object_end(j);
        } else
                json_null(j);
}
