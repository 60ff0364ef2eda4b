/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>

#include "json.h"
#include "mcp-wire.h"

/*
 * The Tasks extension of MCP 2026-07-28 (io.modelcontextprotocol/tasks,
 * SEP-2663): a tools/call the server chooses to run long answers at once
 * with a handle (resultType "task"), and the client follows it with
 * tasks/get (the status, and the result or error inline once terminal),
 * tasks/update (answers to input requests: botdesk's tasks ask for none,
 * so only acknowledged) and tasks/cancel. The server decides per request;
 * the client only declares the extension among its capabilities' extensions.
 *
 * This is the table, without any of the work: ids no other client can
 * guess (the id is the only thing that binds a task to its caller), a cap
 * on how many exist, the time each expires, and the task's wire shape. The
 * work is the runner's (agent/mcp-tasks.c runs each in a process of its own).
 */

#define MCP_TASKS_MAX 16
#define MCP_TASK_ID_LEN 32                      /* hex: 128 random bits */
#define MCP_TASK_TTL_MS (70ULL * 60 * 1000)     /* the longest wait (ask_human's hour), and 10 min to fetch it */
#define MCP_TASK_POLL_MS 1000

enum {
        MCP_ERROR_MISSING_CAPABILITY = -32021,  /* data: {"requiredCapabilities": {...}} */
};

enum mcp_task_status {
        MCP_TASK_WORKING,
        MCP_TASK_COMPLETED,
        MCP_TASK_FAILED,
        MCP_TASK_CANCELLED,
};

struct mcp_task {
        char id[MCP_TASK_ID_LEN + 1];
        char tool[64];                  /* the tool it runs */
        enum mcp_task_status status;
        char *status_message;
        unsigned long long created, updated;    /* CLOCK_REALTIME usec: createdAt, lastUpdatedAt */
        unsigned long long expires;             /* CLOCK_MONOTONIC usec: gone from the table then */
        unsigned long long ttl_ms;
        char *result;                   /* completed: what tools/call would have returned (a JSON object) */
        char *error;                    /* failed: the JSON-RPC error (a JSON object) */
        void *run;                      /* the runner's, while working */
};

struct mcp_task_runner {
        /* Begin t's work: tools/call with params. 0, or -errno (and there is no task). */
        int (*start)(void *userdata, struct mcp_task *t, const struct json_value *params);
        /* End t's work now (cancelled, expired, the server ends): nothing of it may go on after. */
        void (*stop)(void *userdata, struct mcp_task *t);
};

struct mcp_tasks {
        struct mcp_task *tasks[MCP_TASKS_MAX];  /* oldest first */
        size_t n;
        const struct mcp_task_runner *runner;
        void *userdata;
        unsigned long long ttl_ms;
};

void mcp_tasks_init(struct mcp_tasks *ts, const struct mcp_task_runner *runner, void *userdata);
/* Every task stopped (if working) and freed. */
void mcp_tasks_done(struct mcp_tasks *ts);

/*
 * A new task for tool, started with params, at now (CLOCK_MONOTONIC usec):
 * 0 with it in *ret (the table's); -EBUSY when MCP_TASKS_MAX are working
 * (a finished one makes room: the oldest is dropped); the runner's error;
 * -ENOMEM.
 */
int mcp_tasks_spawn(struct mcp_tasks *ts, const char *tool, const struct json_value *params, unsigned long long now,
                    struct mcp_task **ret);

/*
 * tools/call of tool as a task: 1 with the CreateTaskResult's members
 * (resultType "task" among them) through j; 0 with a tool result that
 * refuses it (isError: MCP_TASKS_MAX are working); -errno as
 * mcp_tasks_spawn().
 */
int mcp_tasks_call(struct mcp_tasks *ts, const char *tool, const struct json_value *params, unsigned long long now,
                   struct json *j);

/* The task with id, or NULL. */
struct mcp_task *mcp_tasks_find(const struct mcp_tasks *ts, const char *id);

/* A working task's end (status terminal; payload, a JSON object, taken: the result or the error; message taken). */
void mcp_task_finish(struct mcp_task *t, enum mcp_task_status status, char *payload, char *message);

/* tasks/cancel: a working task stopped and cancelled; a finished one stays as it is. 0, or -ENOENT. */
int mcp_tasks_cancel(struct mcp_tasks *ts, const char *id);

/* Tasks whose time is up at now gone (stopped first if working). Returns how many. */
size_t mcp_tasks_expire(struct mcp_tasks *ts, unsigned long long now);
/* When the next one expires (CLOCK_MONOTONIC usec), or 0 for none. */
unsigned long long mcp_tasks_next_expiry(const struct mcp_tasks *ts);

const char *mcp_task_status_name(enum mcp_task_status s);

/* The Task's members into an object the caller opened; with detail, its result or error as well (tasks/get). */
void mcp_task_write(struct json *j, const struct mcp_task *t, bool detail);

/*
 * The method named method (tasks/get, tasks/update, tasks/cancel)
 * for params: its result's members written through j, or 1 with a
 * JSON-RPC error in *ret_code, *ret_message and *ret_data (new, data
 * NULL when none); -ENOMEM. declared: whether the request's client
 * capabilities name the extension.
 */
int mcp_tasks_method(struct mcp_tasks *ts, const char *method, const struct json_value *params, bool declared,
                     struct json *j, int *ret_code, char **ret_message, char **ret_data);
