/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * botdesk act PROFILE: the agent's actions for a gateway without MCP. A
 * model's computer-use output a line on stdin, as the model wrote it
 * (act-vendor.h: Anthropic's tool_use blocks, OpenAI's computer_call,
 * Gemini's functionCall parts), or one bare action object (Anthropic's or
 * OpenAI's schema, as the computer tool takes them); the answer a line on
 * stdout, in order, in the line's own shape. The same parsing, gate,
 * strokes, settle and pictures as botdesk mcp (agent.h); a line that is
 * not an action gets a result that says why, and the stream goes on.
 */
#include <fcntl.h>
#include <unistd.h>

#include "act-vendor.h"
#include "agent.h"
#include "cli.h"
#include "jsonrpc.h"
#include "log.h"
#include "util.h"
#include "verbs.h"

/* The picture into dir as N.jpg, mode 0600 (it shows whatever the screen shows). */
static int write_image(int dirfd, unsigned n, const uint8_t *data, size_t size, char *ret_name, size_t name_size) {
        snprintf(ret_name, name_size, "%06u.jpg", n);
        return write_file_atomic_at(dirfd, ret_name, data, size, 0600);
}

/* Where the pictures go: base64 in the result, files in a directory, or none unless asked for. */
struct act_output {
        const char *shots;
        int dirfd;
        bool every, files;
        unsigned n;
        enum mcp_vendor vendor;         /* --vendor; MCP_VENDOR_AUTO: by each line's shape */
        bool said[_MCP_VENDOR_MAX];     /* auto: which shape it read, said once each on stderr */
        int exit;                       /* the status act ends with, once a line ended it */
};

/* A line that is no action, said on its own line of stdout. */
static void say_not_an_action(const char *error) {
        struct json j;

        json_init(&j, stdout);
        json_object_begin(&j);
        json_kv_bool(&j, "ok", false);
        json_kv_string(&j, "error", error);
        json_object_end(&j);
        fputc('\n', stdout);
        fflush(stdout);
}

/* One action: its result on a line of stdout. */
static int act_line(struct agent *a, const char *line, size_t len, void *userdata) {
        _cleanup_(agent_outcome_done) struct agent_outcome o = {};
        _cleanup_free_ char *error = NULL;
        struct act_output *out = userdata;
        struct json_value *v = NULL;
        struct mcp_action act;
        struct json j;
        int r;

        if (!line) {
                say_not_an_action("The line is longer than 1 MiB; it was dropped.");
                return 0;
        }
        if (json_parse(line, len, &v) < 0) {
                say_not_an_action("The line is not one JSON value.");
                return 0;
        }
        {
                enum mcp_vendor shape = mcp_vendor_detect(v);

                if (out->vendor != MCP_VENDOR_AUTO && shape != out->vendor) {
                        _cleanup_free_ char *why = strdup_printf(
                                "With --vendor %s, a line must be %s's shape; this one reads as %s.",
                                mcp_vendor_name(out->vendor), mcp_vendor_name(out->vendor),
                                shape == MCP_VENDOR_ACTION ? "a bare action" : mcp_vendor_name(shape));

                        json_value_free(v);
                        say_not_an_action(why ?: "Out of memory.");
                        return why ? 0 : -ENOMEM;
                }
                if (shape != MCP_VENDOR_ACTION) {
                        if (out->vendor == MCP_VENDOR_AUTO && !out->said[shape]) {
                                log_info("act: answering %s's shape.", mcp_vendor_name(shape));
                                out->said[shape] = true;
                        }
                        r = act_vendor_answer(a, shape, v, out->every && !out->files, stdout);
                        json_value_free(v);
                        if (r > 0) {
                                out->exit = r;
                                return -ECANCELED;
                        }
                        if (r < 0)
                                log_oom();
                        return r;
                }
        }
        json_init(&j, stdout);
        r = mcp_action_parse(v, &a->space, &act, &error);
        if (r == -EINVAL) {
                json_object_begin(&j);
                json_kv_bool(&j, "ok", false);
                json_kv_string(&j, "error", error);
                json_object_end(&j);
        } else if (r >= 0)
                r = agent_run(a, &act, out->every, &o);
        if (r == -ENOMEM) {
                json_value_free(v);
                log_oom();
                return r;
        }
        if (r >= 0) {
                json_object_begin(&j);
                agent_outcome_fields(&j, &act, &o);
                if (o.ok && o.image && out->files) {
                        char name[32];

                        if (write_image(out->dirfd, ++out->n, o.image, o.image_size, name, sizeof name) < 0)
                                json_kv_string(&j, "image_error", "Cannot write the screenshot.");
                        else {
                                _cleanup_free_ char *path = strdup_printf("%s/%s", out->shots, name);
                                json_kv_string(&j, "image_file", path);
                        }
                } else if (o.ok && o.image_base64)
                        json_kv_string(&j, "image", o.image_base64);
                json_object_end(&j);
        }
        json_value_free(v);
        fputc('\n', stdout);
        fflush(stdout);
        return 0;
}

/* PROFILE [--screenshots base64|DIR] [--start], read by main.c's parser
 * (verb-table.c: its row and usage). */
int verb_act(const struct cli_args *args) {
        _cleanup_close_ int out_dirfd = -EBADF;
        struct jsonrpc_reader rd = {};
        struct agent a = {};
        const char *profile = args->operand, *shots = args->screenshots;
        struct act_output out = { .shots = shots, .dirfd = -EBADF };
        int r;

        if (args->vendor_given)
                out.vendor = args->vendor;
        if (shots) {
                out.every = true;
                out.files = !streq(shots, "base64");
                if (out.files) {
                        out_dirfd = open(shots, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
                        if (out_dirfd < 0) {
                                log_error_errno(negative_errno(), "Cannot open --screenshots directory %s: %m", shots);
                                return EXIT_USAGE;
                        }
                        out.dirfd = out_dirfd;
                }
        }
        r = agent_serve_stdin(&a, &rd, profile, args->start);
        if (r != EXIT_OK)
                return r;
        r = agent_serve_lines(&a, &rd, profile, act_line, &out);
        jsonrpc_reader_done(&rd);
        agent_close(&a);
        return out.exit ?: r;
}
