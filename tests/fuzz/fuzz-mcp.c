/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * botdesk mcp reads whatever its client writes: every line of the input
 * through the message handler, tools/call's arguments through the action
 * schemas (action.c) as the real backend does; a call of the tool
 * "member" ({"name", "input"}) through the toolset's member parser, and of
 * "gemini" ({"name", "args"}) through Gemini's functions (gemini.c), as
 * botdesk act's shapes reach them. Whatever comes in, each request gets
 * exactly one response line that is itself valid JSON, a notification
 * none, and an action that parses has its points on the screen. The
 * tool "long" runs as a task (tasks.h) for a 2026 request that declares
 * the extension, through a runner that does no work: it finishes a task
 * whose arguments say "done" at once, and leaves the others working, so
 * that tasks/get, tasks/update and tasks/cancel meet every status.
 * subscriptions/listen (subscriptions.h) runs through a runner that
 * watches nothing and refuses the screen alone, so that its refusal is
 * met too; a listen gets no line or one (its error, or the empty one's
 * acknowledgment), and one whose id is "end" is ended by the server at
 * once: a completion and a cancellation when it watches the lease (taken
 * as acknowledged), else the error of a watch that failed before its
 * acknowledgment, each a line of JSON.
 */
#undef NDEBUG
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "action.h"
#include "gemini.h"
#include "server.h"
#include "util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct mcp_space fuzz_space;

static void space(void *userdata, struct mcp_space *ret) {
        *ret = fuzz_space;
}

/* What parsed is on the screen. */
static void check(const struct mcp_action *a) {
        if (a->have_point && (a->x >= fuzz_space.screen_w || a->y >= fuzz_space.screen_h))
                abort();
        for (size_t i = 0; i < a->n_path; i++)
                if (a->path[i][0] >= fuzz_space.screen_w || a->path[i][1] >= fuzz_space.screen_h)
                        abort();
        if (a->kind == MCP_ACT_KEY && a->repeat > MCP_REPEAT_MAX)
                abort();
}

static int call(void *userdata, const char *tool, const struct json_value *args, struct mcp_result *res) {
        _cleanup_free_ char *err = NULL;
        struct mcp_gemini_call g = {};
        struct mcp_action a;
        int r;

        if (streq(tool, "member"))
                r = mcp_action_parse_member(json_member_string(args, "name"), json_get(args, "input"), &fuzz_space, &a,
                                            &err);
        else if (streq(tool, "gemini"))
                r = mcp_gemini_parse(json_member_string(args, "name"), json_get(args, "args"), &fuzz_space, &g, &err);
        else
                r = mcp_action_parse(args, &fuzz_space, &a, &err);
        if (r == -ENOMEM)
                return r;
        if (r < 0) {
                if (!err)
                        abort();        /* a refusal always says why */
                mcp_result_error(res, err);
                return 0;
        }
        if (streq(tool, "gemini")) {
                if (g.n_steps == 0 || g.n_steps > MCP_GEMINI_STEPS_MAX)
                        abort();
                for (size_t i = 0; i < g.n_steps; i++)
                        check(&g.steps[i]);
        } else
                check(&a);
        mcp_result_text(res, tool);
        return 0;
}

/* A read of each resource: the lease fails, the screen is a blob, the windows a text. */
static int read_resource(void *userdata, unsigned one, struct mcp_resource_contents *ret) {
        if (one == MCP_RESOURCE_LEASE)
                return -EIO;
        ret->mime = one == MCP_RESOURCE_SCREEN ? "image/jpeg" : "application/json";
        if (one == MCP_RESOURCE_SCREEN)
                ret->blob = strdup("AAAA");
        else
                ret->text = strdup("{}");
        return ret->blob || ret->text ? 0 : -ENOMEM;
}

static const struct mcp_backend backend = { .space = space, .read_resource = read_resource };

static int task_start(void *userdata, struct mcp_task *t, const struct json_value *params) {
        if (json_get(json_get(params, "arguments"), "done"))
                mcp_task_finish(t, MCP_TASK_COMPLETED, strdup("{\"content\": [], \"isError\": false}"), NULL);
        return 0;
}

static void task_stop(void *userdata, struct mcp_task *t) {
}

static const struct mcp_task_runner runner = { .start = task_start, .stop = task_stop };

static int sub_start(void *userdata, struct mcp_sub *sub) {
        return sub->what == MCP_RESOURCE_SCREEN ? -EIO : 0;
}

static void sub_stop(void *userdata, struct mcp_sub *sub) {
}

static const struct mcp_sub_runner sub_runner = { .start = sub_start, .stop = sub_stop };

/* Every line of out[0..n) one of JSON. */
static void check_lines(const char *out, size_t n) {
        for (const char *q = out; q < out + n;) {
                const char *nl = memchr(q, '\n', (size_t) (out + n - q));
                struct json_value *v = NULL;

                if (!nl)
                        abort();
                if (json_parse(q, (size_t) (nl - q), &v) == -EINVAL)
                        abort();
                json_value_free(v);
                q = nl + 1;
        }
}

/* The parsers behind tools: computer's and batch's actions, a member's input, a Gemini function call. */
static const char schema[] = "{\"type\": \"object\"}";
static const struct mcp_tool rows[] = {
        { "computer", "An action.", .schema = schema, .flags = MCP_TOOL_ACTS, .call = call },
        { "member", "{name, input}: a toolset member's call.", .schema = schema, .call = call },
        { "gemini", "{name, args}: a Gemini function call.", .schema = schema, .call = call },
        { "long", "A wait, as a task.", .schema = schema, .flags = MCP_TOOL_LONG, .call = call },
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        struct mcp_server s;
        struct mcp_tasks tasks;
        struct mcp_subs subs;
        const char *p = (const char *) data, *end = p + size;

        mcp_space_fit(1440, 900, 1000, 1150000, &fuzz_space);
        mcp_server_init(&s, &backend, rows, ELEMENTSOF(rows), NULL);
        mcp_tasks_init(&tasks, &runner, NULL);
        s.tasks = &tasks;
        mcp_subs_init(&subs, "fuzz", &sub_runner, NULL);
        s.subs = &subs;
        s.profile = "fuzz";
        while (p < end) {
                const char *nl = memchr(p, '\n', (size_t) (end - p));
                size_t len = nl ? (size_t) (nl - p) : (size_t) (end - p);
                _cleanup_free_ char *out = NULL;
                struct json_value *v = NULL;
                size_t n = 0;
                unsigned status = 0;
                FILE *f = open_memstream(&out, &n);
                /* A subscription's end is two lines: what a line that may end one writes is checked line by line. */
                bool subs_line = memmem(p, len, "end", 3) != NULL;

                if (!f)
                        return 0;
                /* A line that starts with 'H' is an HTTP request's body, with headers that agree or not. */
                struct mcp_http_headers h = { "2026-07-28", "tools/call", "computer" };
                int k = len > 0 && p[0] == 'H' ? mcp_server_handle_http(&s, p + 1, len - 1, &h, f, &status)
                                               : mcp_server_handle(&s, p, len, f);
                for (size_t i = 0; k != -ENOMEM && i < subs.n; i++)
                        if (streq(subs.subs[i]->id, "\"end\"")) {
                                mcp_subs_end(&subs, subs.subs[i], f, "The fuzzer ends it.", subs.subs[i]->what & MCP_RESOURCE_LEASE);
                                break;
                        }
                if (k == -ENOMEM) {
                        fclose(f);
                        mcp_subs_done(&subs);
                        mcp_tasks_done(&tasks);
                        return 0;
                }
                fclose(f);
                /* Over HTTP: a status of the list, and a body exactly when it is not 202. */
                if (len > 0 && p[0] == 'H' &&
                    ((status != 200 && status != 202 && status != 400 && status != 404) || (n == 0) != (status == 202)))
                        abort();
                if (n > 0 && subs_line) {
                        /* Lines of JSON, each whole. */
                        check_lines(out, n);
                } else if (n > 0) {
                        /* One line, and JSON. */
                        if (out[n - 1] != '\n' || memchr(out, '\n', n - 1))
                                abort();
                        if (json_parse(out, n - 1, &v) == -EINVAL)
                                abort();
                        json_value_free(v);
                }
                p += len + (nl ? 1 : 0);
        }
        if (tasks.n > MCP_TASKS_MAX || subs.n > MCP_SUBS_MAX)
                abort();
        mcp_subs_done(&subs);
        mcp_tasks_done(&tasks);
        return 0;
}
