/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The table of MCP tasks (tasks.h). Errors as SEP-2663 has them: an id not
 * in the table, never made or expired and dropped, is -32602 (the
 * specification bids it for tasks/get and suggests it for update and
 * cancel); a client that did not declare the extension asks for nothing of
 * it, -32021 with the capability it lacks.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include "jsonrpc.h"
#include "tasks.h"
#include "util.h"

static const char *const status_names[] = {
        [MCP_TASK_WORKING] = "working",
        [MCP_TASK_COMPLETED] = "completed",
        [MCP_TASK_FAILED] = "failed",
        [MCP_TASK_CANCELLED] = "cancelled",
};

const char *mcp_task_status_name(enum mcp_task_status s) {
        return status_names[s];
}

void mcp_tasks_init(struct mcp_tasks *ts, const struct mcp_task_runner *runner, void *userdata) {
        *ts = (struct mcp_tasks) { .runner = runner, .userdata = userdata, .ttl_ms = MCP_TASK_TTL_MS };
}

static struct mcp_task *task_free(struct mcp_task *t) {
        if (!t)
                return NULL;
        free(t->status_message);
        free(t->result);
        free(t->error);
        free(t);
        return NULL;
}

/* The task at i out of the table: its work stopped first, so no process or fd outlives it. */
static void drop(struct mcp_tasks *ts, size_t i) {
        struct mcp_task *t = ts->tasks[i];

        if (t->status == MCP_TASK_WORKING && ts->runner)
                ts->runner->stop(ts->userdata, t);
        task_free(t);
        memmove(ts->tasks + i, ts->tasks + i + 1, (ts->n - i - 1) * sizeof ts->tasks[0]);
        ts->n--;
}

void mcp_tasks_done(struct mcp_tasks *ts) {
        while (ts->n > 0)
                drop(ts, ts->n - 1);
}

int mcp_tasks_spawn(struct mcp_tasks *ts, const char *tool, const struct json_value *params, unsigned long long now,
                    struct mcp_task **ret) {
        uint8_t rnd[MCP_TASK_ID_LEN / 2];
        struct mcp_task *t;
        int r;

        if (ts->n == MCP_TASKS_MAX) {
                /* Room from the oldest that finished: a working one is never pushed out. */
                size_t i;

                for (i = 0; i < ts->n && ts->tasks[i]->status == MCP_TASK_WORKING; i++)
                        ;
                if (i == ts->n)
                        return -EBUSY;
                drop(ts, i);
        }
        if (getrandom(rnd, sizeof rnd, 0) != (ssize_t) sizeof rnd)
                return -EIO;
        t = calloc(1, sizeof *t);
        if (!t)
                return -ENOMEM;
        hex_encode(rnd, sizeof rnd, t->id);
        snprintf(t->tool, sizeof t->tool, "%s", tool);
        t->status = MCP_TASK_WORKING;
        t->created = t->updated = realtime_usec();
        t->ttl_ms = ts->ttl_ms;
        t->expires = now + ts->ttl_ms * 1000ULL;
        r = ts->runner ? ts->runner->start(ts->userdata, t, params) : 0;
        if (r < 0) {
                task_free(t);
                return r;
        }
        ts->tasks[ts->n++] = t;
        *ret = t;
        return 0;
}

int mcp_tasks_call(struct mcp_tasks *ts, const char *tool, const struct json_value *params, unsigned long long now,
                   struct json *j) {
        _cleanup_free_ char *text = NULL;
        struct mcp_task *t;
        int r = mcp_tasks_spawn(ts, tool, params, now, &t);

        if (r == -EBUSY) {
                /* A result the model reads, as a refused action is: the cap is no protocol fault. */
                text = strdup_printf("Too many tasks: %d are working already. Wait for one to finish (tasks/get) or "
                                     "cancel one (tasks/cancel), then call %s again.", MCP_TASKS_MAX, tool);
                if (!text)
                        return -ENOMEM;
                json_key(j, "content");
                json_array_begin(j);
                json_object_begin(j);
                json_kv_string(j, "type", "text");
                json_kv_string(j, "text", text);
                json_object_end(j);
                json_array_end(j);
                json_kv_bool(j, "isError", true);
                return 0;
        }
        if (r < 0)
                return r;
        json_kv_string(j, "resultType", "task");
        mcp_task_write(j, t, false);
        return 1;
}

struct mcp_task *mcp_tasks_find(const struct mcp_tasks *ts, const char *id) {
        for (size_t i = 0; id && i < ts->n; i++)
                if (streq(ts->tasks[i]->id, id))
                        return ts->tasks[i];
        return NULL;
}

void mcp_task_finish(struct mcp_task *t, enum mcp_task_status status, char *payload, char *message) {
        free(t->status_message);
        t->status_message = message;
        if (status == MCP_TASK_COMPLETED)
                t->result = payload;
        else if (status == MCP_TASK_FAILED)
                t->error = payload;
        else
                free(payload);
        t->status = status;
        t->updated = realtime_usec();
        t->run = NULL;
}

int mcp_tasks_cancel(struct mcp_tasks *ts, const char *id) {
        struct mcp_task *t = mcp_tasks_find(ts, id);

        if (!t)
                return -ENOENT;
        /* Cooperative, as the extension has it: what finished keeps its outcome. */
        if (t->status != MCP_TASK_WORKING)
                return 0;
        if (ts->runner)
                ts->runner->stop(ts->userdata, t);
        mcp_task_finish(t, MCP_TASK_CANCELLED, NULL, strdup("Cancelled by the client (tasks/cancel)."));
        return 0;
}

size_t mcp_tasks_expire(struct mcp_tasks *ts, unsigned long long now) {
        size_t gone = 0;

        for (size_t i = ts->n; i > 0; i--)
                if (ts->tasks[i - 1]->expires <= now) {
                        drop(ts, i - 1);
                        gone++;
                }
        return gone;
}

unsigned long long mcp_tasks_next_expiry(const struct mcp_tasks *ts) {
        unsigned long long next = 0;

        for (size_t i = 0; i < ts->n; i++)
                if (next == 0 || ts->tasks[i]->expires < next)
                        next = ts->tasks[i]->expires;
        return next;
}

/* ISO 8601 in UTC, to the millisecond. */
static void iso_time(unsigned long long usec, char ret[static 32]) {
        time_t s = (time_t) (usec / 1000000ULL);
        struct tm tm;

        if (!gmtime_r(&s, &tm) || strftime(ret, 32, "%Y-%m-%dT%H:%M:%S", &tm) == 0) {
                snprintf(ret, 32, "1970-01-01T00:00:00.000Z");
                return;
        }
        snprintf(ret + strlen(ret), 32 - strlen(ret), ".%03lluZ", (usec / 1000ULL) % 1000ULL);
}

void mcp_task_write(struct json *j, const struct mcp_task *t, bool detail) {
        char created[32], updated[32];

        iso_time(t->created, created);
        iso_time(t->updated, updated);
        json_kv_string(j, "taskId", t->id);
        json_kv_string(j, "status", mcp_task_status_name(t->status));
        if (t->status_message)
                json_kv_string(j, "statusMessage", t->status_message);
        json_kv_string(j, "createdAt", created);
        json_kv_string(j, "lastUpdatedAt", updated);
        json_kv_int(j, "ttlMs", (long long) t->ttl_ms);
        json_kv_int(j, "pollIntervalMs", MCP_TASK_POLL_MS);
        if (detail && t->status == MCP_TASK_COMPLETED && t->result) {
                json_key(j, "result");
                json_raw(j, t->result);
        }
        if (detail && t->status == MCP_TASK_FAILED && t->error) {
                json_key(j, "error");
                json_raw(j, t->error);
        }
}

static int method_error(int code, char *message, char *data, int *ret_code, char **ret_message, char **ret_data) {
        *ret_code = code;
        *ret_message = message;
        *ret_data = data;
        return message ? 1 : -ENOMEM;
}

int mcp_tasks_method(struct mcp_tasks *ts, const char *method, const struct json_value *params, bool declared,
                     struct json *j, int *ret_code, char **ret_message, char **ret_data) {
        const char *id = json_member_string(params, "taskId");
        struct mcp_task *t;

        *ret_data = NULL;
        if (!declared)
                return method_error(MCP_ERROR_MISSING_CAPABILITY,
                                    strdup_printf("Missing required client capability: %s needs the extension "
                                                  MCP_TASKS_EXTENSION " in the request's client capabilities.", method),
                                    strdup("{\"requiredCapabilities\": {\"extensions\": {\"" MCP_TASKS_EXTENSION
                                           "\": {}}}}"),
                                    ret_code, ret_message, ret_data);
        if (!id)
                return method_error(JSONRPC_INVALID_PARAMS, strdup_printf("%s needs params.taskId, a string.", method),
                                    NULL, ret_code, ret_message, ret_data);
        t = mcp_tasks_find(ts, id);
        if (!t)
                /* Never made here, or expired and gone: the same to the client. */
                return method_error(JSONRPC_INVALID_PARAMS,
                                    strdup_printf("Failed to retrieve task: Task not found (%s: no task %s; a task is "
                                                  "kept %llu s after it was made).", method, id,
                                                  (unsigned long long) ts->ttl_ms / 1000),
                                    NULL, ret_code, ret_message, ret_data);
        if (streq(method, "tasks/get"))
                mcp_task_write(j, t, true);
        else if (streq(method, "tasks/cancel"))
                (void) mcp_tasks_cancel(ts, id);
        /* tasks/update: botdesk's tasks have no input requests outstanding, so every response is one to ignore. */
        return 0;
}
