/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <assert.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "a11y-agent.h"
#include "cli.h"
#include "journal-hook.h"
#include "lease.h"
#include "mcp-a11y.h"
#include "mcp-tools.h"
#include "util.h"

/* A string member, or NULL; -EINVAL (said in *ret_error) for a member of another type. */
static int arg_string(const struct json_value *args, const char *key, const char **ret, char **ret_error) {
        const struct json_value *v = json_get(args, key);

        *ret = NULL;
        if (!v || v->type == JSON_NULL)
                return 0;
        if (v->type != JSON_STRING) {
                *ret_error = strdup_printf("\"%s\" must be a string.", key);
                return -EINVAL;
        }
        *ret = v->string;
        return 0;
}

int mcp_a11y_tool(void *userdata, const char *tool, const struct json_value *args, struct mcp_result *res) {
        struct agent *a = userdata;
        _cleanup_(a11y_source_done) struct a11y_source src = {};
        _cleanup_(a11y_result_done) struct a11y_result r = {};
        _cleanup_free_ char *error = NULL, *text = NULL, *window_buf = NULL;
        const char *window = NULL, *find = NULL, *id = NULL, *action = NULL, *value = NULL;
        const struct json_value *w, *m;
        long long max_nodes = A11Y_MAX_NODES_DEFAULT;
        bool act = streq(tool, "a11y_do");
        struct lease admitted;
        size_t size = 0;
        FILE *f;
        int code;

        assert(act || streq(tool, "a11y_tree") || streq(tool, "a11y_find"));
        if (act) {
                if (arg_string(args, "id", &id, &error) < 0 || arg_string(args, "action", &action, &error) < 0 ||
                    arg_string(args, "text", &value, &error) < 0)
                        return mcp_result_error_take(res, TAKE_PTR(error));
                if (!id || !action)
                        return mcp_result_error_take(res, strdup("a11y_do needs \"id\" (from a11y_tree or a11y_find) and "
                                                        "\"action\" (click, press, activate, ... or set-text with "
                                                        "\"text\")."));
        } else {
                if (streq(tool, "a11y_find") &&
                    (arg_string(args, "find", &find, &error) < 0 || !find))
                        return mcp_result_error_take(res, error ? TAKE_PTR(error)
                                                       : strdup("a11y_find needs \"find\", e.g. "
                                                                "\"role=push button,name==Save\"."));
                w = json_get(args, "window");
                if (w && w->type == JSON_NUMBER) {
                        long long v;

                        if (json_get_int(w, 1, UINT32_MAX, &v) < 0)
                                return mcp_result_error_take(res, strdup("\"window\" must be a window id of the windows tool."));
                        window = window_buf = strdup_printf("%lld", v);
                        if (!window)
                                return -ENOMEM;
                } else if (arg_string(args, "window", &window, &error) < 0)
                        return mcp_result_error_take(res, TAKE_PTR(error));
                m = json_get(args, "max_nodes");
                if (m && json_get_int(m, 1, 100000, &max_nodes) < 0)
                        return mcp_result_error_take(res, strdup("\"max_nodes\" must be a whole number from 1 to 100000."));
        }

        code = a11y_source_load(a->profile, a->dirfd, &src);
        if (code == EXIT_USAGE)
                return mcp_result_error_take(res, strdup("The configuration has errors: botdesk config check says which."));
        if (code != EXIT_OK)
                return mcp_result_error_take(res, strdup("The desktop is not running."));
        if (!mcp_tool_admit(a, tool, &admitted, res, &code))
                return code;
        {
                struct a11y_desktop d;

                a11y_source_desktop(&src, a->profile, a->conn, a->root, &a->space, &d);
                code = act ? a11y_agent_do(&d, id, action, value, &error)
                           : a11y_agent_read(&d, window, find, (unsigned) max_nodes, &r, &error);
                if (act)
                        cli_journal_a11y_do(a->profile, &admitted, id, action, value, code, error);
                if (code != EXIT_OK)
                        return mcp_result_error_take(res, error ? TAKE_PTR(error) : strdup("Out of memory."));
                if (!cli_action_still_valid(a->dirfd, &admitted))
                        return mcp_tool_voided(res, tool, "its result is void");
                activity_stamp(a->dirfd);
                f = open_memstream(&text, &size);
                if (!f)
                        return -ENOMEM;
                if (act)
                        fprintf(f, "{\"ok\": true, \"epoch\": %llu}", (unsigned long long) admitted.epoch);
                else {
                        struct json j;

                        json_init(&j, f);
                        a11y_result_json(&j, &d, &r);
                }
                if (fclose(f) != 0)
                        return -ENOMEM;
        }
        mcp_result_text(res, text);
        return 0;
}
