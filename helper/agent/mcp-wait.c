/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdlib.h>
#include <sys/inotify.h>

#include "agent.h"
#include "cli.h"
#include "lease-watch.h"
#include "mcp-tools.h"
#include "mcp-wait.h"
#include "util.h"
#include "wait-until.h"

const char mcp_wait_schema[] =
        "{\"type\": \"object\", \"properties\": {\"for\": {\"type\": \"string\", \"minLength\": 1, \"description\": "
        "\"" WAIT_CONDITIONS "\"}, \"timeout\": {\"type\": \"integer\", \"minimum\": 1, \"maximum\": 600}, "
        "\"screenshot\": {\"type\": \"boolean\"}, \"since_revision\": " MCP_SINCE_REVISION_SCHEMA ", "
        MCP_EPOCH_PROPERTY "}, \"required\": [\"for\"]}";

struct wait_args {
        const char *spec;
        long long timeout;
        bool screenshot;
        struct screen_since since;
};

/* args judged: 0, or -EINVAL with the reason in *ret_error (new). */
static int parse_args(const struct json_value *args, struct wait_args *ret, char **ret_error) {
        const struct json_value *v;

        *ret = (struct wait_args) { .timeout = WAIT_TIMEOUT_DEFAULT, .screenshot = true };
        v = json_get(args, "for");
        if (!v || v->type != JSON_STRING || !*v->string) {
                *ret_error = strdup("wait_until needs \"for\": one of " WAIT_CONDITIONS ", e.g. "
                                    "\"window=Save As\" or \"a11y=push button:OK\".");
                return -EINVAL;
        }
        ret->spec = v->string;
        v = json_get(args, "timeout");
        if (v && json_get_int(v, 1, WAIT_TIMEOUT_MAX, &ret->timeout) < 0) {
                *ret_error = strdup("\"timeout\" must be whole seconds, 1-600 (default 30).");
                return -EINVAL;
        }
        v = json_get(args, "screenshot");
        if (v && v->type != JSON_TRUE && v->type != JSON_FALSE) {
                *ret_error = strdup("\"screenshot\" must be true or false.");
                return -EINVAL;
        }
        if (v)
                ret->screenshot = v->type == JSON_TRUE;
        v = json_get(args, "since_revision");
        if (v) {
                if (v->type != JSON_STRING ||
                    screen_revision_parse(v->string, ret->since.run_id, &ret->since.hash) < 0) {
                        *ret_error = strdup("\"since_revision\" must be " SCREEN_REVISION_FORM ".");
                        return -EINVAL;
                }
                ret->since.given = true;
        }
        return 0;
}

/* The answer when it matched: what, and the settled screenshot unless not wanted. */
static int matched(struct agent *a, const struct wait_args *w, const struct wait_condition *c,
                   const struct wait_match *m, const struct lease *admitted, struct mcp_result *res) {
        _cleanup_(agent_outcome_done) struct agent_outcome o = {};
        _cleanup_free_ char *text = NULL;
        struct mcp_action shot = {
                .kind = MCP_ACT_SCREENSHOT,
                .schema = MCP_SCHEMA_ANTHROPIC,
                .name = "screenshot",
                .since = w->since,
        };
        enum settle_state st = SETTLE_UNSUPPORTED;
        unsigned settle_ms = 0;
        struct json_mem j;
        int r;

        /* What matched may still be drawing (a window mapped, a page's text): the answer once it is quiet, as
         * after an action, with a picture or without (keys typed into a window still mapping are lost). quiet
         * itself needs no more. */
        if (a->have_settle && c->kind != WAIT_QUIET) {
                settle_begin(&a->settle);
                if (settle_wait(&a->settle, a->quiet_ms, a->settle_cap_ms, &st, &settle_ms) < 0) {
                        mcp_result_error(res, "The X connection to the desktop broke.");
                        return 0;
                }
        }
        if (w->screenshot) {
                r = agent_run(a, &shot, true, &o);
                if (r < 0)
                        return r;
                if (!o.ok) {
                        _cleanup_free_ char *said = NULL;
                        struct json_mem e;

                        if (json_mem_open(&e) < 0)
                                return -ENOMEM;
                        agent_outcome_write(&e.j, &shot, &o);
                        if (json_mem_close(&e, &said) < 0)
                                return -ENOMEM;
                        mcp_result_error(res, said);
                        return 0;
                }
        }
        if (json_mem_open(&j) < 0)
                return -ENOMEM;
        json_object_begin(&j.j);
        json_kv_bool(&j.j, "ok", true);
        wait_match_fields(&j.j, c, m);
        json_kv_int(&j.j, "epoch", (long long) admitted->epoch);
        if (st != SETTLE_UNSUPPORTED) {
                json_kv_string(&j.j, "settle", settle_state_name(st));
                json_kv_int(&j.j, "settle_ms", settle_ms);
        }
        if (w->screenshot)
                agent_revision_fields(&j.j, &o);
        json_object_end(&j.j);
        if (json_mem_close(&j, &text) < 0)
                return -ENOMEM;
        mcp_result_text(res, text);
        if (o.image_base64)
                mcp_result_image(res, "image/jpeg", o.image_base64);
        return 0;
}

int mcp_wait_tool(void *userdata, const char *tool, const struct json_value *args, struct mcp_result *res) {
        struct agent *a = userdata;
        _cleanup_(a11y_source_done) struct a11y_source src = {};
        _cleanup_(wait_condition_done) struct wait_condition c = {};
        _cleanup_(wait_match_done) struct wait_match m = {};
        _cleanup_free_ char *error = NULL;
        _cleanup_close_ int ino = -EBADF;
        enum wait_outcome outcome = WAIT_TIMED_OUT;
        struct a11y_desktop d;
        struct lease admitted;
        struct wait_args w;
        bool tree;
        int r, code;

        r = parse_args(args, &w, &error);
        if (r == 0)
                r = wait_condition_parse(w.spec, &c, &error);
        if (r == -ENOMEM || (r < 0 && !error))
                return -ENOMEM;
        if (r < 0)
                return mcp_result_error_take(res, TAKE_PTR(error));
        tree = c.kind == WAIT_A11Y || c.kind == WAIT_TEXT;
        if (tree) {
                code = a11y_source_load(a->profile, a->dirfd, &src);
                if (code != EXIT_OK)
                        return mcp_result_error_take(res, strdup(code == EXIT_USAGE
                                                               ? "The configuration has errors: botdesk config check says which."
                                                               : "The desktop is not running."));
                a11y_source_desktop(&src, a->profile, a->conn, a->root, &a->space, &d);
        }
        if (!mcp_tool_admit(a, tool, &admitted, res, &code))
                return code;
        ino = inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
        if (ino < 0 || lease_watch_add(ino, a->dirfd) < 0)
                return mcp_result_error_take(res, strdup("Cannot watch the desktop's lease (inotify)."));
        r = wait_until(&(struct wait_target) {
                        .conn = a->conn,
                        .root = a->root,
                        .settle = a->have_settle ? &a->settle : NULL,
                        .a11y = tree ? &d : NULL,
                        .dirfd = a->dirfd,
                        .lease_watch = ino,
                        .admitted = &admitted,
                }, &c, now_usec() + (unsigned long long) w.timeout * 1000000ull, &outcome, &m, &error);
        if (r == -ENOMEM)
                return r;
        if (r == -EOPNOTSUPP)
                return mcp_result_error_take(res, strdup_printf("This desktop cannot be waited on for %s: its X server "
                                                               "or this build has no DAMAGE.", wait_kind_name(c.kind)));
        if (r == -ENODATA)
                return mcp_result_error_take(res, TAKE_PTR(error));
        if (r < 0)
                return mcp_result_error_take(res, strdup("The X connection to the desktop broke."));
        if (outcome == WAIT_SUPPRESSED || !cli_action_still_valid(a->dirfd, &admitted))
                return mcp_tool_voided(res, tool, "its result is void");
        if (outcome == WAIT_TIMED_OUT) {
                _cleanup_free_ char *text = NULL;
                struct json_mem j;

                if (json_mem_open(&j) < 0)
                        return -ENOMEM;
                json_object_begin(&j.j);
                json_kv_bool(&j.j, "ok", false);
                json_kv_bool(&j.j, "timed_out", true);
                json_kv_string(&j.j, "for", w.spec);
                json_kv_int(&j.j, "timeout", w.timeout);
                json_object_end(&j.j);
                if (json_mem_close(&j, &text) < 0)
                        return -ENOMEM;
                mcp_result_error(res, text);
                return 0;
        }
        activity_stamp(a->dirfd);
        return matched(a, &w, &c, &m, &admitted, res);
}
