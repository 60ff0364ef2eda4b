/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The table of MCP tasks (helper/mcp/tasks.c) with a runner that only
 * counts: ids unguessable and distinct, the cap that never pushes out a
 * working task, expiry that stops what it drops, cancel cooperative, and
 * the errors of the tasks/ methods.
 */
#undef NDEBUG
#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "jsonrpc.h"
#include "tap.h"
#include "tasks.h"
#include "util.h"

static unsigned started, stopped;

static int start(void *userdata, struct mcp_task *t, const struct json_value *params) {
        started++;
        return json_get(params, "refuse") ? -EIO : 0;
}

static void stop(void *userdata, struct mcp_task *t) {
        stopped++;
}

static const struct mcp_task_runner runner = { .start = start, .stop = stop };

/* A tasks/ method's answer: its result's members as text, or the error's code. */
static int method(struct mcp_tasks *ts, const char *name, const char *id, bool declared, char **ret_text) {
        _cleanup_free_ char *message = NULL, *data = NULL, *params_text = NULL;
        struct json_value *params = NULL;
        struct json_mem m;
        int code = 0, r;

        params_text = strdup_printf("{\"taskId\": \"%s\"}", id);
        assert(params_text && json_parse(params_text, strlen(params_text), &params) == 0);
        assert(json_mem_open(&m) == 0);
        json_object_begin(&m.j);
        r = mcp_tasks_method(ts, name, params, declared, &m.j, &code, &message, &data);
        json_object_end(&m.j);
        assert(json_mem_close(&m, ret_text) == 0);
        json_value_free(params);
        assert(r >= 0);
        return r > 0 ? code : 0;
}

int main(void) {
        struct mcp_tasks ts;
        struct mcp_task *t, *first = NULL;
        struct json_value empty = { .type = JSON_OBJECT };
        struct json_value *refuse = NULL;
        _cleanup_free_ char *text = NULL;

        mcp_tasks_init(&ts, &runner, NULL);
        for (unsigned i = 0; i < MCP_TASKS_MAX; i++) {
                TAP_EQ_INT(mcp_tasks_spawn(&ts, "wait_until", &empty, 1000, &t), 0, "task %u made", i);
                if (!first)
                        first = t;
        }
        tap_ok(strlen(first->id) == MCP_TASK_ID_LEN && strspn(first->id, "0123456789abcdef") == MCP_TASK_ID_LEN,
               "an id is 32 hex digits (128 random bits)");
        tap_ok(!streq(first->id, t->id), "two tasks have two ids");
        TAP_EQ_INT(mcp_tasks_spawn(&ts, "wait_until", &empty, 1000, &t), -EBUSY,
                   "with %d working, the next is refused (-EBUSY), none pushed out", MCP_TASKS_MAX);
        TAP_EQ_INT((int) ts.n, MCP_TASKS_MAX, "... and the table still holds them all");

        /* A finished task makes room: the oldest finished goes. */
        mcp_task_finish(ts.tasks[3], MCP_TASK_COMPLETED, strdup("{\"content\": [], \"isError\": false}"), NULL);
        TAP_EQ_INT(mcp_tasks_spawn(&ts, "ask_human", &empty, 2000, &t), 0, "once one finished, a new task finds room");
        TAP_EQ_INT((int) ts.n, MCP_TASKS_MAX, "... in the finished one's place");

        /* get: working has no result; cancel: cancelled, stopped once; a second cancel changes nothing. */
        TAP_EQ_INT(method(&ts, "tasks/get", first->id, true, &text), 0, "tasks/get of a known id answers");
        tap_ok(strstr(text, "\"status\": \"working\"") && !strstr(text, "\"result\""), "... working, with no result: %s", text);
        free(text);
        stopped = 0;
        TAP_EQ_INT(method(&ts, "tasks/cancel", first->id, true, &text), 0, "tasks/cancel of a working task answers");
        TAP_EQ_INT((int) first->status, MCP_TASK_CANCELLED, "... and it is cancelled");
        TAP_EQ_INT((int) stopped, 1, "... its work stopped once");
        free(text);
        TAP_EQ_INT(method(&ts, "tasks/cancel", first->id, true, &text), 0, "a second cancel answers too");
        TAP_EQ_INT((int) stopped, 1, "... and stops nothing more");
        free(text);
        TAP_EQ_INT(method(&ts, "tasks/get", "ffffffffffffffffffffffffffffffff", true, &text), JSONRPC_INVALID_PARAMS,
                   "an id never made: -32602");
        free(text);
        TAP_EQ_INT(method(&ts, "tasks/cancel", "nope", true, &text), JSONRPC_INVALID_PARAMS, "its cancel too");
        free(text);
        TAP_EQ_INT(method(&ts, "tasks/get", first->id, false, &text), MCP_ERROR_MISSING_CAPABILITY,
                   "a client that did not declare the extension: -32021");
        free(text);
        text = NULL;

        /* Expiry: at their time, gone, the working ones stopped. */
        TAP_EQ_INT((int) mcp_tasks_expire(&ts, 1000 + MCP_TASK_TTL_MS * 1000ULL - 1), 0, "nothing expires before its ttl");
        tap_ok(mcp_tasks_next_expiry(&ts) == 1000 + MCP_TASK_TTL_MS * 1000ULL, "the next expiry is the oldest's");
        stopped = 0;
        TAP_EQ_INT((int) mcp_tasks_expire(&ts, 1000 + MCP_TASK_TTL_MS * 1000ULL), MCP_TASKS_MAX - 1,
                   "at the ttl, the tasks made then are gone");
        TAP_EQ_INT((int) stopped, MCP_TASKS_MAX - 2, "... the working among them stopped (not the cancelled one)");
        TAP_EQ_INT((int) ts.n, 1, "... the later one stays");

        /* A runner that cannot start: no task. */
        assert(json_parse("{\"refuse\": true}", 16, &refuse) == 0);
        TAP_EQ_INT(mcp_tasks_spawn(&ts, "wait_until", refuse, 3000, &t), -EIO, "a task that cannot start is the runner's error");
        TAP_EQ_INT((int) ts.n, 1, "... and is not in the table");
        json_value_free(refuse);

        stopped = 0;
        mcp_tasks_done(&ts);
        TAP_EQ_INT((int) stopped, 1, "the end stops what still works");
        TAP_EQ_INT((int) ts.n, 0, "... and frees every task");
        return tap_done();
}
