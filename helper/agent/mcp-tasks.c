/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Tasks of `botdesk mcp P` (mcp-tasks.h): a process per task, its answer
 * read from a pipe by the poll loop of its server (stdio's, or HTTP's).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "lease.h"
#include "log.h"
#include "mcp-subs.h"
#include "mcp-tasks.h"
#include "mcp-tools.h"
#include "util.h"

/* A task's answer is a tool result: a screenshot and its words, far below this. */
#define ANSWER_MAX (64u << 20)

struct run {
        pid_t pid;
        int fd;                         /* the read end of the task's pipe */
        char *buf;
        size_t len, size;
};

struct mcp_task_host {
        struct agent *a;
        struct mcp_tasks tasks;
        struct mcp_subs subs;
        /* What the last mcp_task_host_fds() put in the poll set, in its order: tasks, then subscriptions. */
        struct mcp_task *polled_tasks[MCP_TASKS_MAX];
        struct mcp_sub *polled_subs[MCP_SUBS_MAX];
        size_t n_polled_tasks, n_polled_subs;
};

static struct run *run_free(struct run *run) {
        if (!run)
                return NULL;
        safe_close(run->fd);
        free(run->buf);
        free(run);
        return NULL;
}

/* The tools/call the task's process answers: the same call, as a 2026 request that declares nothing (no task again,
 * no elicitation: ask_human waits for the hand-back itself, as for a 2025 client). */
static char *task_request(const char *tool, const struct json_value *params) {
        const struct json_value *args = json_get(params, "arguments");
        _cleanup_free_ char *text = NULL;
        struct json_mem m;

        if (json_mem_open(&m) < 0)
                return NULL;
        json_object_begin(&m.j);
        json_kv_string(&m.j, "jsonrpc", "2.0");
        json_kv_int(&m.j, "id", 1);
        json_kv_string(&m.j, "method", "tools/call");
        json_key(&m.j, "params");
        json_object_begin(&m.j);
        json_kv_string(&m.j, "name", tool);
        if (args) {
                json_key(&m.j, "arguments");
                json_value_write(&m.j, args);
        }
        json_key(&m.j, "_meta");
        json_object_begin(&m.j);
        json_kv_string(&m.j, MCP_META_PROTOCOL_VERSION, mcp_modern_versions[0]);
        json_key(&m.j, MCP_META_CLIENT_CAPABILITIES);
        json_object_begin(&m.j);
        json_object_end(&m.j);
        json_object_end(&m.j);
        json_object_end(&m.j);
        json_object_end(&m.j);
        if (json_mem_close(&m, &text) < 0)
                return NULL;
        return TAKE_PTR(text);
}

/* The task's process: its own connection to the desktop, the one answer on fd, then gone. */
void mcp_child_begin(pid_t server, int keep_fd) {
        sigset_t none;
        int null;

        sigemptyset(&none);
        (void) sigprocmask(SIG_SETMASK, &none, NULL);
        /* Nothing of a task or a subscription outlives the server that answers for it. */
        if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != server)
                _exit(EXIT_FAILED);
        /* Nor does it keep what the server holds open: an HTTP server's listening socket and its clients'
         * connections, the server's X connection, the other tasks' pipes. */
        if (keep_fd <= STDERR_FILENO || close_range(STDERR_FILENO + 1, (unsigned) keep_fd - 1, 0) < 0 ||
            close_range((unsigned) keep_fd + 1, ~0U, 0) < 0)
                _exit(EXIT_FAILED);
        /* The protocol's stream is the server's alone: the child's pipe is its only way to it. */
        null = open("/dev/null", O_RDWR | O_CLOEXEC);
        if (null < 0 || dup2(null, STDIN_FILENO) < 0 || dup2(null, STDOUT_FILENO) < 0)
                _exit(EXIT_FAILED);
}

pid_t mcp_child_fork(int *ret_fd) {
        int p[2];
        pid_t pid;

        if (pipe2(p, O_CLOEXEC) < 0)
                return negative_errno();
        /* Or what stdout holds would be written twice, once by the child. */
        fflush(stdout);
        fflush(stderr);
        pid = fork();
        if (pid < 0) {
                int r = negative_errno();

                safe_close(p[0]);
                safe_close(p[1]);
                return r;
        }
        if (pid == 0) {
                safe_close(p[0]);
                *ret_fd = p[1];
                return 0;
        }
        safe_close(p[1]);
        *ret_fd = p[0];
        (void) fcntl(*ret_fd, F_SETFL, O_NONBLOCK);
        return pid;
}

static _noreturn_ void task_child(const char *profile, const char *request, int fd, pid_t server) {
        struct mcp_server s;
        struct agent a = {};
        FILE *f;
        int r;

        mcp_child_begin(server, fd);
        if (agent_open(&a, profile) != EXIT_OK)
                _exit(EXIT_FAILED);
        f = fdopen(fd, "w");
        if (!f)
                _exit(EXIT_FAILED);
        mcp_desktop_server_init(&s, &a);
        r = mcp_server_handle(&s, request, strlen(request), f);
        if (fclose(f) != 0 && r >= 0)
                r = -EIO;
        agent_close(&a);
        /* _exit: the server's memory, copied at the fork, is the server's to free. */
        _exit(r < 0 ? EXIT_FAILED : EXIT_OK);
}

static int task_start(void *userdata, struct mcp_task *t, const struct json_value *params) {
        struct mcp_task_host *h = userdata;
        _cleanup_free_ char *request = task_request(t->tool, params);
        struct run *run;
        pid_t server = getpid();

        if (!request)
                return -ENOMEM;
        run = calloc(1, sizeof *run);
        if (!run)
                return -ENOMEM;
        run->pid = mcp_child_fork(&run->fd);
        if (run->pid < 0) {
                int r = run->pid;

                free(run);
                return r;
        }
        if (run->pid == 0)
                task_child(h->a->profile, request, run->fd, server);
        t->run = run;
        log_debug("Task %s: %s runs as process %d.", t->id, t->tool, (int) run->pid);
        return 0;
}

void mcp_child_reap(pid_t pid, int *ret_status) {
        int status = 0;

        while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
                ;
        if (ret_status)
                *ret_status = status;
}

/* ask_human's request for control, withdrawn as a declined hand-off withdraws it. */
static void withdraw_ask(struct mcp_task_host *h, const struct mcp_task *t) {
        struct lease l;

        if (streq(t->tool, "ask_human"))
                (void) lease_withdraw_at(h->a->dirfd, AGENT_ASK_VIEWER, &l);
}

static void task_stop(void *userdata, struct mcp_task *t) {
        struct mcp_task_host *h = userdata;
        struct run *run = t->run;

        if (!run)
                return;
        /* A wait has nothing to finish: the X server frees what its connection held. */
        (void) kill(run->pid, SIGKILL);
        mcp_child_reap(run->pid, NULL);
        t->run = run_free(run);
        withdraw_ask(h, t);
        log_debug("Task %s (%s) stopped.", t->id, t->tool);
}

static const struct mcp_task_runner runner = {
        .start = task_start,
        .stop = task_stop,
};

/* The JSON-RPC error of a task whose process gave no answer. */
static char *internal_error(const char *message) {
        _cleanup_free_ char *text = NULL;
        struct json_mem m;

        if (json_mem_open(&m) < 0)
                return NULL;
        json_object_begin(&m.j);
        json_kv_int(&m.j, "code", JSONRPC_INTERNAL_ERROR);
        json_kv_string(&m.j, "message", message);
        json_object_end(&m.j);
        if (json_mem_close(&m, &text) < 0)
                return NULL;
        return TAKE_PTR(text);
}

/* The process is done: its answer, a JSON-RPC response, made the task's outcome. */
static void task_end(struct mcp_task *t, bool cut) {
        struct run *run = t->run;
        struct json_value *answer = NULL;
        const struct json_value *v;
        int status;

        mcp_child_reap(run->pid, &status);
        if (!cut && run->len > 0 && json_parse(run->buf, run->len, &answer) >= 0 && (v = json_get(answer, "result")) &&
            v->type == JSON_OBJECT)
                mcp_task_finish(t, MCP_TASK_COMPLETED, json_value_text(v), strdup("Done."));
        else if (!cut && answer && (v = json_get(answer, "error")) && v->type == JSON_OBJECT)
                mcp_task_finish(t, MCP_TASK_FAILED, json_value_text(v),
                                strdup(json_member_string(v, "message") ?: "The call failed."));
        else {
                const char *why = cut ? "The task's answer was too long or could not be read."
                                      : "The task's process ended without an answer (it could not reach the desktop: "
                                        "see the server's log).";

                mcp_task_finish(t, MCP_TASK_FAILED, internal_error(why), strdup(why));
        }
        json_value_free(answer);
        run_free(run);
        log_debug("Task %s (%s): %s (process status %d).", t->id, t->tool, mcp_task_status_name(t->status), status);
}

/* What the task's process wrote since the last time, and its end when it closed the pipe. */
static void task_pump(struct mcp_task *t) {
        struct run *run = t->run;

        for (;;) {
                ssize_t n;

                if (run->len == run->size) {
                        size_t size = run->size ? run->size * 2 : 65536;
                        char *b;

                        if (size > ANSWER_MAX || !(b = realloc(run->buf, size))) {
                                (void) kill(run->pid, SIGKILL);
                                return task_end(t, true);
                        }
                        run->buf = b;
                        run->size = size;
                }
                n = read(run->fd, run->buf + run->len, run->size - run->len);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0 && errno == EAGAIN)
                        return;
                if (n < 0) {
                        (void) kill(run->pid, SIGKILL);
                        return task_end(t, true);
                }
                if (n == 0)
                        return task_end(t, false);
                run->len += (size_t) n;
        }
}

int mcp_task_host_timeout(const struct mcp_task_host *h) {
        unsigned long long next = mcp_tasks_next_expiry(&h->tasks), now = now_usec(), ms;

        if (next == 0)
                return -1;
        if (next <= now)
                return 0;
        ms = (next - now + 999) / 1000;
        return ms > INT_MAX ? INT_MAX : (int) ms;
}

size_t mcp_task_host_fds(struct mcp_task_host *h, struct pollfd *p) {
        size_t n = 0;

        h->n_polled_tasks = h->n_polled_subs = 0;
        for (size_t i = 0; i < h->tasks.n; i++) {
                struct run *run = h->tasks.tasks[i]->run;

                if (!run)
                        continue;
                h->polled_tasks[h->n_polled_tasks++] = h->tasks.tasks[i];
                p[n++] = (struct pollfd) { .fd = run->fd, .events = POLLIN };
        }
        for (size_t i = 0; i < h->subs.n; i++)
                if (mcp_sub_fd(h->subs.subs[i]) >= 0) {
                        h->polled_subs[h->n_polled_subs++] = h->subs.subs[i];
                        p[n++] = (struct pollfd) { .fd = mcp_sub_fd(h->subs.subs[i]), .events = POLLIN };
                }
        return n;
}

void mcp_task_host_dispatch(struct mcp_task_host *h, const struct pollfd *p, FILE *out) {
        for (size_t i = 0; i < h->n_polled_tasks; i++)
                if (p[i].revents)
                        task_pump(h->polled_tasks[i]);
        /* Each pump may end its own subscription, never another. */
        for (size_t i = 0; i < h->n_polled_subs; i++) {
                struct mcp_sub *sub = h->polled_subs[i];

                if (!p[h->n_polled_tasks + i].revents)
                        continue;
                /* Nowhere to say it (a transport that never gave it a stream): it ends unheard. */
                if (!sub->out && !out)
                        mcp_subs_drop(&h->subs, sub);
                else
                        mcp_sub_pump(&h->subs, sub, sub->out ?: out);
        }
        h->n_polled_tasks = h->n_polled_subs = 0;
        (void) mcp_tasks_expire(&h->tasks, now_usec());
}

struct mcp_task_host *mcp_task_host_new(struct agent *a, struct mcp_server *s, bool subscriptions) {
        struct mcp_task_host *h = calloc(1, sizeof *h);

        if (!h)
                return NULL;
        h->a = a;
        mcp_tasks_init(&h->tasks, &runner, h);
        mcp_subs_init(&h->subs, a->profile, &mcp_sub_processes, a);
        s->tasks = &h->tasks;
        if (subscriptions)
                s->subs = &h->subs;
        return h;
}

void mcp_task_host_free(struct mcp_task_host *h, struct mcp_server *s) {
        if (!h)
                return;
        /* No one is left to fetch what the tasks would find, nor to hear what changes. */
        mcp_subs_done(&h->subs);
        mcp_tasks_done(&h->tasks);
        s->tasks = NULL;
        if (s->subs == &h->subs)
                s->subs = NULL;
        free(h);
}

/* Lines of standard input answered, tasks' and subscriptions' pipes read, until the input ends. */
static int serve(struct agent *a, struct jsonrpc_reader *rd, struct mcp_server *s, struct mcp_task_host *h) {
        for (;;) {
                char *line;
                size_t len;
                int r;

                if (!jsonrpc_reader_buffered(rd)) {
                        struct pollfd p[1 + MCP_TASK_HOST_FDS_MAX] = { { .fd = rd->fd, .events = POLLIN } };
                        size_t n = 1 + mcp_task_host_fds(h, p + 1);

                        if (poll(p, n, mcp_task_host_timeout(h)) < 0) {
                                if (errno == EINTR)
                                        continue;
                                log_error_errno(errno, "Cannot wait for standard input: %m");
                                return EXIT_FAILED;
                        }
                        mcp_task_host_dispatch(h, p + 1, stdout);
                        if (!p[0].revents)
                                continue;
                }
                r = jsonrpc_read_line(rd, &line, &len);
                if (r == 0)
                        return EXIT_OK;
                if (r == -EMSGSIZE)
                        mcp_server_oversized(stdout);
                else if (r < 0) {
                        log_error_errno(r, "Cannot read standard input: %m");
                        return EXIT_FAILED;
                } else if (len > 0) {
                        if (agent_reopen(a) != EXIT_OK)
                                return EXIT_FAILED;
                        if (mcp_server_handle(s, line, len, stdout) < 0) {
                                log_oom();
                                return EXIT_FAILED;
                        }
                }
                if (agent_broken(a) && !agent_lose_if_dumped(a, true)) {
                        log_error("The connection to desktop %s broke (stopped or restarted?); ending.", a->profile);
                        return EXIT_FAILED;
                }
        }
}

int mcp_serve_stdio(struct agent *a, struct jsonrpc_reader *rd, struct mcp_server *s) {
        struct mcp_task_host *h = mcp_task_host_new(a, s, true);
        int r;

        if (!h)
                return log_oom(), EXIT_FAILED;
        r = serve(a, rd, s, h);
        mcp_task_host_free(h, s);
        return r;
}
