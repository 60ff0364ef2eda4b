/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The agent's files over MCP (mcp-files.h): the handlers of botdesk files'
 * operations, each answering the model in words that name the rule it
 * broke, and the JSON of what was done.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "beneath.h"
#include "cli.h"
#include "files.h"
#include "journal-hook.h"
#include "lease.h"
#include "mcp-files.h"
#include "mcp-tools.h"
#include "profile.h"
#include "tools.h"
#include "thumbnail.h"
#include "util.h"

const char mcp_file_upload_schema[] =
        "{\"type\": \"object\", \"properties\": {\"path\": {\"type\": \"string\", \"minLength\": 1}, "
        "\"content\": {\"type\": \"string\"}, \"force\": {\"type\": \"boolean\"}, "
        MCP_EPOCH_PROPERTY "}, \"required\": [\"path\", \"content\"]}";
const char mcp_file_download_schema[] =
        "{\"type\": \"object\", \"properties\": {\"path\": {\"type\": \"string\", \"minLength\": 1}, "
        MCP_EPOCH_PROPERTY "}, \"required\": [\"path\"]}";
const char mcp_file_list_schema[] =
        "{\"type\": \"object\", \"properties\": {\"path\": {\"type\": \"string\"}, " MCP_EPOCH_PROPERTY "}}";
const char mcp_downloads_schema[] =
        "{\"type\": \"object\", \"properties\": {\"since\": {\"type\": \"string\"}, "
        "\"wait_ms\": {\"type\": \"integer\", \"minimum\": 0, \"maximum\": 50000}, "
        MCP_EPOCH_PROPERTY "}}";

/* A path argument as the rules take it: NULL, with the error result, when it is not one. */
static const char *path_arg(const struct json_value *args, const char *tool, bool required, struct mcp_result *res,
                            int *ret) {
        const struct json_value *v = json_get(args, "path");
        const char *problem;

        *ret = 0;
        if (!v || v->type == JSON_NULL) {
                if (required)
                        *ret = mcp_result_error_take(res, strdup_printf("%s needs \"path\": a file's path relative to the "
                                                               "desktop's home, e.g. \"Downloads/report.pdf\".", tool));
                return NULL;
        }
        if (v->type != JSON_STRING)
                return *ret = mcp_result_error_take(res, strdup("\"path\" must be a string.")), NULL;
        if (!required && !*v->string)
                return "";
        /* The parser refuses a \u0000 inside a string: strlen is its length. */
        problem = beneath_path_problem(v->string, strlen(v->string));
        if (problem)
                return *ret = mcp_result_error_take(res, strdup_printf("Refused \"path\": %s. Nothing was read or written.",
                                                              problem)), NULL;
        return v->string;
}

static int void_result(struct mcp_result *res, const char *tool) {
        return mcp_tool_voided(res, tool, streq(tool, "file_upload") ? "nothing was written" : "nothing was read");
}

/* Why path cannot be used, as the model reads it. */
static int refused_result(struct mcp_result *res, int r, const char *path, uint64_t max) {
        const char *rule = files_error_rule(r);

        if (r == -EEXIST)
                return mcp_result_error_take(res, strdup_printf("%s exists in the desktop's home: call again with \"force\": true "
                                                       "to replace it. Nothing was written.", path));
        if (r == -EFBIG)
                return mcp_result_error_take(res, strdup_printf("%s is larger than %llu bytes, the cap of files over MCP ([files] "
                                                       "mcp_max_bytes). Nothing was copied.",
                                                       path, (unsigned long long) max));
        if (rule)
                return mcp_result_error_take(res, strdup_printf("Refused %s: %s. Nothing was read or written.", path, rule));
        if (r == -ENOMEM)
                return r;
        return mcp_result_error_take(res, strdup_printf("Cannot copy %s: %s.", path, strerrordesc_np(-r) ?: "unknown error"));
}

static void journal_args(struct json *j, const struct journal_redact *redact, const void *userdata) {
        const struct files_transfer *t = userdata;

        json_kv_string(j, "path", t->path);
        json_kv_int(j, "size", (long long) t->size);
        if (t->sha256[0])
                json_kv_string(j, "sha256", t->sha256);
        json_kv_string(j, "via", "mcp");
}

/* As botdesk files journals it ("files put", "files get"): the same actions, whoever carried them. */
static void record(struct agent *a, const char *action, const struct lease *admitted, const char *result,
                   const struct files_transfer *t) {
        cli_journal_record(a->profile, &(const struct cli_journal_action) {
                .action = action, .admitted = admitted, .result = result, .no_frame = true,
                .args = journal_args, .userdata = t,
        });
}

/* What was copied, as the model reads it. */
static int transfer_text(struct mcp_result *res, const struct files_transfer *t) {
        _cleanup_free_ char *text = NULL;
        struct json_mem m;

        if (json_mem_open(&m) < 0)
                return -ENOMEM;
        json_object_begin(&m.j);
        json_kv_bool(&m.j, "ok", true);
        json_kv_string(&m.j, "path", t->path);
        json_kv_int(&m.j, "size", (long long) t->size);
        json_kv_string(&m.j, "sha256", t->sha256);
        json_object_end(&m.j);
        if (json_mem_close(&m, &text) < 0)
                return -ENOMEM;
        mcp_result_text(res, text);
        return 0;
}

struct gate {
        struct agent *a;
        const struct lease *admitted;
};

static bool lease_still(void *userdata) {
        const struct gate *g = userdata;

        return cli_action_still_valid(g->a->dirfd, g->admitted);
}

/* "botdesk:/PROFILE/home/PATH", PATH's bytes but unreserved ones and '/' percent-encoded (RFC 3986). */
static char *home_uri(const char *profile, const char *path) {
        _cleanup_free_ char *enc = malloc(strlen(path) * 3 + 1);
        char *o = enc;

        if (!enc)
                return NULL;
        for (const unsigned char *p = (const unsigned char *) path; *p; p++) {
                if ((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') ||
                    strchr("-._~/", *p))
                        *o++ = (char) *p;
                else
                        o += sprintf(o, "%%%02X", *p);
        }
        *o = '\0';
        return strdup_printf("botdesk:/%s/home/%s", profile, enc);
}

static int tool_upload(struct agent *a, const struct json_value *args, uint64_t max, struct mcp_result *res) {
        _cleanup_(files_transfer_done) struct files_transfer t = {};
        const struct json_value *content = json_get(args, "content"), *force = json_get(args, "force");
        _cleanup_close_ int home = -EBADF;
        _cleanup_free_ uint8_t *data = NULL;
        struct lease admitted;
        const char *path;
        size_t size = 0;
        int r;

        path = path_arg(args, "file_upload", true, res, &r);
        if (!path)
                return r;
        if (!content || content->type != JSON_STRING)
                return mcp_result_error_take(res, strdup("file_upload needs \"content\": the file's bytes in base64."));
        if (force && force->type != JSON_TRUE && force->type != JSON_FALSE && force->type != JSON_NULL)
                return mcp_result_error_take(res, strdup("\"force\" must be true or false."));
        r = mcp_base64_decode(content->string, (size_t) max, &data, &size);
        if (r == -EINVAL)
                return mcp_result_error_take(res, strdup("\"content\" is not base64 (RFC 4648, with or without padding). Nothing "
                                                "was written."));
        if (r < 0)
                return refused_result(res, r, path, max);
        if (!mcp_tool_admit(a, "file_upload", &admitted, res, &r))
                return r;
        home = files_home_open(a->profile);
        if (home < 0)
                return refused_result(res, home, path, max);
        r = files_put_data(home, path, data, size, force && force->type == JSON_TRUE,
                           &(const struct files_gate) { lease_still, &(struct gate) { a, &admitted } }, &t);
        if (r == -ESTALE) {
                record(a, "files put", &admitted, "suppressed", &(struct files_transfer) { .path = (char *) path });
                return void_result(res, "file_upload");
        }
        if (r < 0)
                return refused_result(res, r, path, max);
        record(a, "files put", &admitted, "ok", &t);
        activity_stamp(a->dirfd);
        return transfer_text(res, &t);
}

static int tool_download(struct agent *a, const struct json_value *args, uint64_t max, struct mcp_result *res) {
        _cleanup_(files_transfer_done) struct files_transfer t = {};
        _cleanup_close_ int home = -EBADF;
        _cleanup_free_ uint8_t *data = NULL;
        _cleanup_free_ char *b64 = NULL, *uri = NULL;
        struct lease admitted;
        const char *path;
        int r;

        path = path_arg(args, "file_download", true, res, &r);
        if (!path)
                return r;
        if (!mcp_tool_admit(a, "file_download", &admitted, res, &r))
                return r;
        home = files_home_open(a->profile);
        if (home < 0)
                return refused_result(res, home, path, max);
        r = files_get_data(home, path, max, &data, &t);
        if (r < 0) {
                record(a, "files get", &admitted, "error", &(struct files_transfer) { .path = (char *) path });
                return refused_result(res, r, path, max);
        }
        /* What a human did meanwhile is not the agent's to read. */
        if (!cli_action_still_valid(a->dirfd, &admitted)) {
                record(a, "files get", &admitted, "suppressed", &t);
                return void_result(res, "file_download");
        }
        record(a, "files get", &admitted, "ok", &t);
        activity_stamp(a->dirfd);
        b64 = thumb_base64(data, t.size);
        uri = home_uri(a->profile, path);
        if (!b64 || !uri)
                return -ENOMEM;
        r = transfer_text(res, &t);
        if (r < 0)
                return r;
        mcp_result_blob(res, uri, files_mime_type(path), b64);
        return 0;
}

/* file_list and downloads: what their JSON says, read under the gate. */
static int tool_read(struct agent *a, const char *tool, const struct json_value *args, struct mcp_result *res) {
        _cleanup_close_ int home = -EBADF;
        _cleanup_free_ char *text = NULL;
        struct timespec since = {};
        struct lease admitted;
        const char *path = NULL;
        long long wait_ms = 0;
        struct json_mem m;
        unsigned count = 0;
        int r, q;

        if (streq(tool, "file_list")) {
                const struct json_value *p = json_get(args, "path");

                path = path_arg(args, tool, false, res, &r);
                if (p && p->type != JSON_NULL && !path)
                        return r;       /* refused, said */
                path = path ?: "";
        } else {
                const struct json_value *s = json_get(args, "since"), *w = json_get(args, "wait_ms");

                if (s && s->type != JSON_NULL && (s->type != JSON_STRING || files_cursor_parse(s->string, &since) < 0))
                        return mcp_result_error_take(res, strdup("\"since\" must be the \"cursor\" a previous downloads answered "
                                                        "(seconds since the epoch, up to 9 decimals, as a string)."));
                if (w && w->type != JSON_NULL && json_get_int(w, 0, FILES_WAIT_MS_MAX, &wait_ms) < 0)
                        return mcp_result_error_take(res, strdup_printf("\"wait_ms\" must be 0-%u.", FILES_WAIT_MS_MAX));
        }
        if (!mcp_tool_admit(a, tool, &admitted, res, &r))
                return r;
        home = files_home_open(a->profile);
        if (home < 0)
                return refused_result(res, home, path ?: FILES_DOWNLOADS_DIR, 0);
        if (json_mem_open(&m) < 0)
                return -ENOMEM;
        if (path) {
                struct files_entry *e = NULL;
                size_t n = 0;

                r = files_list(home, path, &e, &n);
                if (r >= 0)
                        files_list_write(&m.j, path, e, n);
                files_entries_free(e, n);
        } else
                r = files_downloads(home, &since, (unsigned) wait_ms, &m.j, &count);
        q = json_mem_close(&m, &text);
        if (r < 0)
                return refused_result(res, r, path ?: FILES_DOWNLOADS_DIR, 0);
        if (q < 0)
                return -ENOMEM;
        if (!cli_action_still_valid(a->dirfd, &admitted))
                return void_result(res, tool);
        activity_stamp(a->dirfd);
        mcp_result_text(res, text);
        return 0;
}

int mcp_files_tool(void *userdata, const char *tool, const struct json_value *args, struct mcp_result *res) {
        struct agent *a = userdata;

        if (streq(tool, "file_upload"))
                return tool_upload(a, args, a->files_mcp_max, res);
        if (streq(tool, "file_download"))
                return tool_download(a, args, a->files_mcp_max, res);
        return tool_read(a, tool, args, res);
}
