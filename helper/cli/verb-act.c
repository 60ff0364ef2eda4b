/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * botdesk act PROFILE: the agent's actions for a gateway without MCP. One
 * action object a line on stdin (Anthropic's or OpenAI's schema, as the
 * computer tool takes them), one JSON result a line on stdout, in order.
 * The same parsing, gate, strokes, settle and pictures as botdesk mcp
 * (agent.h); a line that is not an action gets a result that says why,
 * and the stream goes on.
 */
#include <fcntl.h>
#include <unistd.h>

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

/* PROFILE [--screenshots base64|DIR] [--start], read by main.c's parser
 * (verb-table.c: its row and usage). */
int verb_act(const struct cli_args *args) {
        _cleanup_close_ int out_dirfd = -EBADF;
        struct jsonrpc_reader rd = {};
        struct agent a = {};
        const char *profile = args->operand, *shots = args->screenshots;
        bool start = args->start, every = false, files = false;
        unsigned n = 0;
        int r, ret = EXIT_OK;

        if (cli_check_profile(profile) < 0)
                return EXIT_USAGE;
        if (shots) {
                every = true;
                files = !streq(shots, "base64");
                if (files) {
                        out_dirfd = open(shots, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
                        if (out_dirfd < 0) {
                                log_error_errno(negative_errno(), "Cannot open --screenshots directory %s: %m", shots);
                                return EXIT_USAGE;
                        }
                }
        }
        r = agent_serve_stdin(&a, &rd, profile, start);
        if (r != EXIT_OK)
                return r;
        for (;;) {
                _cleanup_(agent_outcome_done) struct agent_outcome o = {};
                _cleanup_free_ char *error = NULL;
                struct json_value *v = NULL;
                struct mcp_action act;
                struct json j;
                char *line;
                size_t len;

                r = jsonrpc_read_line(&rd, &line, &len);
                if (r == 0)
                        break;
                json_init(&j, stdout);
                if (r == -EMSGSIZE || (r > 0 && len > 0 && json_parse(line, len, &v) < 0)) {
                        json_object_begin(&j);
                        json_kv_bool(&j, "ok", false);
                        json_kv_string(&j, "error", r == -EMSGSIZE ? "The line is longer than 1 MiB; it was dropped."
                                                                  : "The line is not one JSON value.");
                        json_object_end(&j);
                        fputc('\n', stdout);
                        fflush(stdout);
                        continue;
                }
                if (r < 0) {
                        log_error_errno(r, "Cannot read standard input: %m");
                        ret = EXIT_FAILED;
                        break;
                }
                if (len == 0)
                        continue;
                r = mcp_action_parse(v, &a.space, &act, &error);
                if (r == -EINVAL) {
                        json_object_begin(&j);
                        json_kv_bool(&j, "ok", false);
                        json_kv_string(&j, "error", error);
                        json_object_end(&j);
                } else if (r >= 0)
                        r = agent_run(&a, &act, every, &o);
                if (r == -ENOMEM) {
                        json_value_free(v);
                        log_error("Out of memory.");
                        ret = EXIT_FAILED;
                        break;
                }
                if (r >= 0) {
                        json_object_begin(&j);
                        agent_outcome_fields(&j, &act, &o);
                        if (o.ok && o.image && files) {
                                char name[32];

                                if (write_image(out_dirfd, ++n, o.image, o.image_size, name, sizeof name) < 0)
                                        json_kv_string(&j, "image_error", "Cannot write the screenshot.");
                                else {
                                        _cleanup_free_ char *path = strdup_printf("%s/%s", shots, name);
                                        json_kv_string(&j, "image_file", path);
                                }
                        } else if (o.ok && o.image_base64)
                                json_kv_string(&j, "image", o.image_base64);
                        json_object_end(&j);
                }
                json_value_free(v);
                fputc('\n', stdout);
                fflush(stdout);
                if (xcb_connection_has_error(a.conn)) {
                        log_error("The X connection to desktop %s broke (stopped or restarted?); ending.", profile);
                        ret = EXIT_FAILED;
                        break;
                }
        }
        jsonrpc_reader_done(&rd);
        agent_close(&a);
        return ret;
}
