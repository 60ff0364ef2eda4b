/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The desktop's MCP tools (mcp-tools.h): one row each, its handler above
 * it. The handlers run through agent.h, the code of botdesk input and
 * thumbnail behind the same lease gate.
 */
#include <errno.h>

#include "agent-journal.h"
#include "agent.h"
#include "cli.h"
#include "lease.h"
#include "mcp-a11y.h"
#include "mcp-ask.h"
#include "mcp-files.h"
#include "mcp-view.h"
#include "mcp-resources.h"
#include "mcp-tools.h"
#include "mcp-wait.h"
#include "thumbnail.h"
#include "util.h"

#define BATCH_MAX 64

/* The outcome as the agent reads it: a JSON text, and the picture when there is one. */
static int outcome_result(const struct mcp_action *act, const struct agent_outcome *o, struct mcp_result *res) {
        _cleanup_free_ char *text = NULL;
        struct json_mem m;

        if (json_mem_open(&m) < 0)
                return -ENOMEM;
        agent_outcome_write(&m.j, act, o);
        if (json_mem_close(&m, &text) < 0)
                return -ENOMEM;
        if (!o->ok)
                mcp_result_error(res, text);
        else
                mcp_result_text(res, text);
        if (o->ok && o->image_base64)
                mcp_result_image(res, "image/jpeg", o->image_base64);
        return 0;
}

/*
 * A call's "epoch" (tools.h): the lease epoch its actions are pinned to,
 * else the process's (--epoch, or none). false, with the error result,
 * when it is not a lease epoch: nothing runs.
 */
static bool pin_epoch(struct agent *a, const struct json_value *args, unsigned long long fallback,
                      struct mcp_result *res) {
        const struct json_value *e = json_get(args, "epoch");
        long long v;

        a->epoch_pin = fallback;
        if (!e || e->type == JSON_NULL)
                return true;
        if (json_get_int(e, 0, (long long) LEASE_EPOCH_MAX, &v) < 0) {
                mcp_result_error(res, "epoch must be the lease epoch the call was approved at: a whole number, "
                                      "0-9007199254740991 (the status tool says the current one).");
                return false;
        }
        a->epoch_pin = (unsigned long long) v;
        return true;
}

/* What a parse of one action gave (parsed, its error): refused with the error, or run with a screenshot after. */
static int run_parsed(struct agent *a, int parsed, const struct mcp_action *act, const char *error,
                      struct mcp_result *res) {
        _cleanup_(agent_outcome_done) struct agent_outcome o = {};
        int r;

        if (parsed == -ENOMEM)
                return parsed;
        if (parsed < 0) {
                mcp_result_error(res, error);
                return 0;
        }
        r = agent_run(a, act, true, &o);
        if (r < 0)
                return r;
        return outcome_result(act, &o, res);
}

static int tool_computer(void *userdata, const char *name, const struct json_value *args, struct mcp_result *res) {
        struct agent *a = userdata;
        _cleanup_free_ char *error = NULL;
        struct mcp_action act;
        int r = mcp_action_parse(args, &a->space, &act, &error);

        return run_parsed(a, r, &act, error, res);
}

/* A toolset member's own tool: its name and input, as the model wrote the tool_use (action.h). */
static int tool_member(void *userdata, const char *member, const struct json_value *args, struct mcp_result *res) {
        struct agent *a = userdata;
        _cleanup_free_ char *error = NULL;
        struct json_value empty = { .type = JSON_OBJECT };
        struct mcp_action act;
        /* No arguments at all is the empty input (cursor_position, screenshot). */
        int r = mcp_action_parse_member(member, args ?: &empty, &a->space, &act, &error);

        return run_parsed(a, r, &act, error, res);
}

static int tool_batch(void *userdata, const char *name, const struct json_value *args, struct mcp_result *res) {
        struct agent *a = userdata;
        const struct json_value *list = json_get(args, "actions"), *shot = json_get(args, "screenshot");
        unsigned long long batch_pin = a->epoch_pin;
        _cleanup_free_ char *text = NULL;
        size_t size = 0;
        _cleanup_fclose_ FILE *f = NULL;
        struct json j;
        bool ok = true;
        char *image = NULL;

        if (!list || list->type != JSON_ARRAY || list->n == 0 || list->n > BATCH_MAX) {
                mcp_result_error(res, "batch needs {\"actions\": [ACTION, ...]}: 1 to 64 computer actions of either schema.");
                return 0;
        }
        if (shot && shot->type != JSON_TRUE && shot->type != JSON_FALSE) {
                mcp_result_error(res, "batch: \"screenshot\" must be true (the default: a picture after the last "
                                 "action) or false (none, the screen still settled).");
                return 0;
        }
        f = open_memstream(&text, &size);
        if (!f)
                return -ENOMEM;
        json_init(&j, f);
        json_object_begin(&j);
        json_key(&j, "results");
        json_array_begin(&j);
        for (size_t i = 0; i < list->n && ok; i++) {
                _cleanup_free_ char *error = NULL;
                _cleanup_(agent_outcome_done) struct agent_outcome o = {};
                struct mcp_action act;
                int r;

                r = mcp_action_parse(&list->items[i], &a->space, &act, &error);
                if (r == -ENOMEM)
                        return r;
                if (r < 0) {
                        json_object_begin(&j);
                        json_kv_bool(&j, "ok", false);
                        json_kv_string(&j, "error", error);
                        json_object_end(&j);
                        ok = false;
                        break;
                }
                /* An action's own epoch pins it, else the batch's (call()). */
                if (!pin_epoch(a, &list->items[i], batch_pin, res))
                        return 0;
                /* One picture, after the last action, unless the call declined it. */
                r = agent_run(a, &act, i + 1 == list->n && !(shot && shot->type == JSON_FALSE), &o);
                if (r < 0)
                        return r;
                agent_outcome_write(&j, &act, &o);
                ok = o.ok;
                if (ok && o.image_base64)
                        image = TAKE_PTR(o.image_base64);
        }
        json_array_end(&j);
        json_kv_bool(&j, "ok", ok);
        json_object_end(&j);
        if (fflush(f) != 0) {
                free(image);
                return -ENOMEM;
        }
        if (ok)
                mcp_result_text(res, text);
        else
                mcp_result_error(res, text);
        if (image)
                mcp_result_image(res, "image/jpeg", image);
        free(image);
        return 0;
}

static int tool_windows(void *userdata, const char *name, const struct json_value *args, struct mcp_result *res) {
        struct agent *a = userdata;
        _cleanup_(agent_outcome_done) struct agent_outcome o = {};
        _cleanup_free_ char *text = NULL;

        if (agent_windows(a, &text, &o) < 0)
                return -ENOMEM;
        if (!o.ok)
                return outcome_result(NULL, &o, res);
        mcp_result_text(res, text);
        return 0;
}

static int tool_status(void *userdata, const char *name, const struct json_value *args, struct mcp_result *res) {
        struct agent *a = userdata;
        struct lease l;

        (void) lease_read_at(a->dirfd, &l);
        mcp_result_textf(res,
                         "{\"profile\": \"%s\", \"control\": \"%s\", \"epoch\": %llu, \"screen\": [%u, %u], "
                         "\"screenshot\": [%u, %u], \"scale\": %.6g, \"settle\": %s}",
                         a->profile, l.holder == LEASE_HUMAN ? "human" : "agent", (unsigned long long) l.epoch,
                         a->space.screen_w, a->space.screen_h, a->space.image_w, a->space.image_h,
                         mcp_space_scale(&a->space), a->have_settle ? "true" : "false");
        return 0;
}

static int tool_ask_human(void *userdata, const char *name, const struct json_value *args, struct mcp_result *res) {
        struct agent *a = userdata;
        const struct json_value *reason = json_get(args, "reason"), *timeout = json_get(args, "timeout");
        _cleanup_free_ char *text = NULL, *error = NULL;
        unsigned timeout_ms = AGENT_ASK_TIMEOUT_MS_DEFAULT;
        size_t size = 0;
        FILE *f;
        struct json j;
        int r;

        if (!reason || reason->type != JSON_STRING || !*reason->string) {
                mcp_result_error(res, "ask_human needs {\"reason\": \"what the human should do\"} (and optionally "
                                      "\"timeout\": seconds, 1-3600).");
                return 0;
        }
        if (timeout && timeout->type != JSON_NULL) {
                if (timeout->type != JSON_NUMBER || timeout->number < 1 || timeout->number > AGENT_ASK_TIMEOUT_MS_MAX / 1000) {
                        mcp_result_error(res, "ask_human: timeout must be seconds, 1-3600.");
                        return 0;
                }
                timeout_ms = (unsigned) (timeout->number * 1000.0);
        }
        /* A 2026 client that can ask its user: rounds of input requests, no request held open. */
        if (res->call && res->call->modern && mcp_call_client_can(res->call, "elicitation"))
                return mcp_ask_human_rounds(a, reason->string, res->call, res);
        f = open_memstream(&text, &size);
        if (!f)
                return -ENOMEM;
        json_init(&j, f);
        r = agent_ask_human(a, reason->string, timeout_ms, &j, &error);
        if (fclose(f) != 0 && r >= 0)
                r = -ENOMEM;
        if (r == -EINVAL) {
                mcp_result_error(res, error);
                return 0;
        }
        if (r < 0) {
                mcp_result_error(res, "ask_human: the control lease cannot be read or watched.");
                return r == -ENOMEM ? r : 0;
        }
        mcp_result_text(res, text);
        return 0;
}

static int tool_clipboard(void *userdata, const char *name, const struct json_value *args, struct mcp_result *res) {
        struct agent *a = userdata;
        bool write = streq(name, "clipboard_write");
        const struct json_value *type = json_get(args, "type"), *text = json_get(args, "text");
        _cleanup_(agent_outcome_done) struct agent_outcome o = {};
        _cleanup_free_ uint8_t *data = NULL;
        _cleanup_free_ char *b64 = NULL;
        size_t size = 0;
        bool png = false;
        int r;

        if (type && type->type != JSON_NULL) {
                if (type->type != JSON_STRING || (!streq(type->string, "text/plain") && !streq(type->string, "image/png"))) {
                        mcp_result_errorf(res, "%s: type is text/plain or image/png.", name);
                        return 0;
                }
                png = streq(type->string, "image/png");
        }
        if (write) {
                const struct json_value *content = json_get(args, "content");

                if (png) {
                        if (!content || content->type != JSON_STRING) {
                                mcp_result_error(res, "clipboard_write of an image needs {\"type\": \"image/png\", "
                                                      "\"content\": \"BASE64\"}: the PNG's bytes in base64.");
                                return 0;
                        }
                        r = mcp_base64_decode(content->string, a->clipboard_max, &data, &size);
                        if (r == -EINVAL) {
                                mcp_result_error(res, "\"content\" is not base64.");
                                return 0;
                        }
                        if (r == -EFBIG) {
                                mcp_result_errorf(res, "The image is larger than [agent] clipboard_max_bytes (%zu bytes).",
                                                  a->clipboard_max);
                                return 0;
                        }
                        if (r < 0)
                                return r;
                } else if (!text || text->type != JSON_STRING) {
                        mcp_result_error(res, "clipboard_write needs {\"text\": \"...\"}, or {\"type\": \"image/png\", "
                                              "\"content\": \"BASE64\"}.");
                        return 0;
                }
                r = png ? agent_clipboard_write(a, true, data, size, &o)
                        : agent_clipboard_write(a, false, text->string, strlen(text->string), &o);
                if (r < 0)
                        return r;
                return outcome_result(NULL, &o, res);
        }
        r = agent_clipboard_read(a, png, &data, &size, &o);
        if (r < 0)
                return r;
        agent_journal_clipboard_read(a, png, size, &o);
        if (!o.ok)
                return outcome_result(NULL, &o, res);
        if (png) {
                b64 = thumb_base64(data, size);
                if (!b64)
                        return -ENOMEM;
                mcp_result_image(res, "image/png", b64);
        } else if (strlen((const char *) data) != size)
                mcp_result_error(res, "The clipboard's text holds a NUL byte.");
        else
                mcp_result_text(res, (const char *) data);
        explicit_bzero(data, size);
        return 0;
}


bool mcp_tool_admit(struct agent *a, const char *tool, struct lease *admitted, struct mcp_result *res, int *ret) {
        const char *veto = cli_action_admit_pinned(a->dirfd, tool, a->epoch_pin, admitted);

        *ret = 0;
        if (!veto)
                return true;
        if (streq(veto, "epoch_moved"))
                *ret = mcp_result_error_take(res, strdup_printf("{\"ok\": false, \"suppressed\": \"epoch_moved\", \"epoch\": "
                                                                "%llu, \"error\": \"Control of this screen changed since "
                                                                "the epoch this action was approved at; %s is refused.\"}",
                                                                (unsigned long long) admitted->epoch, tool));
        else
                *ret = mcp_result_error_take(res, strdup_printf("{\"ok\": false, \"suppressed\": \"human_has_control\", "
                                                                "\"epoch\": %llu, \"error\": \"A human has control of this "
                                                                "screen; %s is refused. Tell the user what you need, and "
                                                                "wait until they hand control back.\"}",
                                                                (unsigned long long) admitted->epoch, tool));
        return false;
}

int mcp_tool_voided(struct mcp_result *res, const char *tool, const char *voided) {
        return mcp_result_error_take(res, strdup_printf("{\"ok\": false, \"suppressed\": \"human_has_control\", "
                                                        "\"error\": \"A human took control of this screen while %s "
                                                        "ran; %s.\"}", tool, voided));
}

static void space(void *userdata, struct mcp_space *ret) {
        struct agent *a = userdata;
        *ret = a->space;
}

/* An acting tool's call is pinned to its "epoch", else to the process's --epoch (tools.h). */
static bool acts(void *userdata, const struct json_value *args, struct mcp_result *res) {
        return pin_epoch(userdata, args, cli_epoch_pin(), res);
}

static const char empty_schema[] = "{\"type\": \"object\", \"properties\": {}}";
static const char epoch_schema[] = "{\"type\": \"object\", \"properties\": {" MCP_EPOCH_PROPERTY "}}";
static const char ask_schema[] =
        "{\"type\": \"object\", \"properties\": {\"reason\": {\"type\": \"string\", \"minLength\": 1, "
        "\"maxLength\": 256}, \"timeout\": {\"type\": \"number\", \"minimum\": 1, \"maximum\": 3600}}, "
        "\"required\": [\"reason\"]}";
static const char clip_read_schema[] =
        "{\"type\": \"object\", \"properties\": {\"type\": {\"type\": \"string\", \"enum\": [\"text/plain\", "
        "\"image/png\"]}, " MCP_EPOCH_PROPERTY "}}";
static const char clip_write_schema[] =
        "{\"type\": \"object\", \"properties\": {\"text\": {\"type\": \"string\"}, \"type\": {\"type\": "
        "\"string\", \"enum\": [\"text/plain\", \"image/png\"]}, \"content\": {\"type\": \"string\"}, "
        MCP_EPOCH_PROPERTY "}}";
#define A11Y_READ_PROPERTIES                                                                                           \
        "\"window\": {\"type\": [\"integer\", \"string\"]}, "                                                          \
        "\"max_nodes\": {\"type\": \"integer\", \"minimum\": 1, \"maximum\": 100000}"
static const char a11y_tree_schema[] =
        "{\"type\": \"object\", \"properties\": {" A11Y_READ_PROPERTIES ", " MCP_EPOCH_PROPERTY "}}";
static const char a11y_find_schema[] =
        "{\"type\": \"object\", \"properties\": {\"find\": {\"type\": \"string\", \"minLength\": 1}, "
        A11Y_READ_PROPERTIES ", " MCP_EPOCH_PROPERTY "}, \"required\": [\"find\"]}";
static const char a11y_do_schema[] =
        "{\"type\": \"object\", \"properties\": {\"id\": {\"type\": \"string\"}, \"action\": {\"type\": "
        "\"string\"}, \"text\": {\"type\": \"string\"}, " MCP_EPOCH_PROPERTY "}, \"required\": [\"id\", \"action\"]}";

const struct mcp_tool mcp_desktop_tools[] = {
        { "computer", .describe = mcp_computer_describe, .schema = mcp_computer_schema,
          .flags = MCP_TOOL_ACTS | MCP_TOOL_SINGLE, .call = tool_computer },
        { "batch",
          "Run a list of computer actions in order (either schema), stopping at the first that fails or is refused; "
          "one screenshot at the end (\"screenshot\": false: none, once the screen settled).",
          .schema = mcp_batch_schema, .flags = MCP_TOOL_ACTS | MCP_TOOL_SINGLE, .call = tool_batch },
        { "windows", "The window manager's windows: id, title, class, geometry (screen pixels), active.",
          .schema = epoch_schema, .flags = MCP_TOOL_ACTS | MCP_TOOL_DESKTOP, .call = tool_windows },
        { "status",
          "The desktop: who has control (agent or human), the lease epoch, the screen and screenshot sizes and scale.",
          .schema = empty_schema, .call = tool_status },
        { "ask_human",
          "Hand the desktop to a human, with the reason (a login, a captcha, a decision): the request is shown to the "
          "people watching; returns once a human took control and handed it back (outcome returned), or after "
          "timeout seconds (default 50; outcome timeout). To a 2026-07-28 client that can elicit, it answers at "
          "once with an elicitation for its user instead (take over, hand back, accept; or decline), and the "
          "outcome (returned, declined, not_taken) when called again with the answer.",
          .schema = ask_schema, .flags = MCP_TOOL_LONG, .call = tool_ask_human },
        { "clipboard_read", "The desktop's clipboard: text (default) or a PNG image (type image/png).",
          .schema = clip_read_schema, .flags = MCP_TOOL_ACTS | MCP_TOOL_DESKTOP, .call = tool_clipboard },
        { "clipboard_write",
          "Make text the desktop's clipboard (to paste with ctrl+v), or a PNG image: type image/png with content its "
          "bytes in base64.",
          .schema = clip_write_schema, .flags = MCP_TOOL_ACTS | MCP_TOOL_DESKTOP, .call = tool_clipboard },
        { "a11y_tree",
          "The accessibility tree of the screen, or of one window (an id of the windows tool): each element's id, "
          "role, name, states, actions, text (never a password's) and bounds, on the screen and in screenshot pixels "
          "(screenshot_bounds: click its centre with the computer tool). At most max_nodes (default 2000); cut says "
          "when there were more.",
          .schema = a11y_tree_schema, .flags = MCP_TOOL_ACTS | MCP_TOOL_DESKTOP, .call = mcp_a11y_tool },
        { "a11y_find",
          "Elements of the accessibility tree that match find: comma-separated role=ROLE, name=TEXT (contains), "
          "name==TEXT (exactly), state=STATE or state=!STATE, e.g. \"role=push button,name==Save\".",
          .schema = a11y_find_schema, .flags = MCP_TOOL_ACTS | MCP_TOOL_DESKTOP, .call = mcp_a11y_tool },
        { "a11y_do",
          "Act on an element by its id (from a11y_tree or a11y_find): action is one it offers (click, press, "
          "activate, ...) or set-text with text.",
          .schema = a11y_do_schema, .flags = MCP_TOOL_ACTS | MCP_TOOL_DESKTOP, .call = mcp_a11y_tool },
        { "wait_until",
          "Wait on the desktop instead of taking screenshots until something shows: for is window=TITLE (a window "
          "whose title contains TITLE), gone=TITLE (until none), a11y=ROLE:NAME (an element, e.g. \"push "
          "button:OK\"), text=STRING (an element showing it), quiet[=MS] (the screen still that long) or changed. "
          "At most timeout seconds (default 30); returns what matched and a settled screenshot (screenshot: false "
          "for none).",
          .schema = mcp_wait_schema, .flags = MCP_TOOL_ACTS | MCP_TOOL_DESKTOP | MCP_TOOL_LONG, .call = mcp_wait_tool },
        { "file_upload",
          "Put a file into the desktop's home (where its browser's Downloads are): path relative to the home, "
          "content its bytes in base64; force replaces a file that exists. Written whole or not at all.",
          .schema = mcp_file_upload_schema, .flags = MCP_TOOL_ACTS | MCP_TOOL_DESKTOP, .call = mcp_files_tool },
        { "file_download",
          "A file of the desktop's home (path relative to it, e.g. Downloads/report.pdf): its size and SHA-256, and "
          "its bytes as an embedded resource with a MIME type.",
          .schema = mcp_file_download_schema, .flags = MCP_TOOL_ACTS | MCP_TOOL_DESKTOP, .call = mcp_files_tool },
        { "file_list",
          "The entries of a directory of the desktop's home (path relative to it; default the home): name, type, "
          "size, mtime.",
          .schema = mcp_file_list_schema, .flags = MCP_TOOL_ACTS | MCP_TOOL_DESKTOP, .call = mcp_files_tool },
        { "downloads",
          "The files the desktop's browser finished downloading into Downloads since a cursor (the \"cursor\" of "
          "the last answer; default: all), oldest first. With wait_ms and none yet, waits that long for one.",
          .schema = mcp_downloads_schema, .flags = MCP_TOOL_ACTS | MCP_TOOL_DESKTOP, .call = mcp_files_tool },
        { "view",
          "Show the desktop to the user, live and watch-only: a host that renders MCP Apps shows it with this "
          "result (ui://botdesk/viewer); the result's viewer URL opens it once. Needs botdesk web on a loopback "
          "port of this host.",
          .schema = empty_schema, .flags = MCP_TOOL_VIEWER, .call = mcp_view_tool },
        { "view_take",
          "For the viewer's page alone (its Take over): control of the desktop to the user watching it in the chat.",
          .schema = empty_schema, .flags = MCP_TOOL_VIEWER | MCP_TOOL_APP, .call = mcp_view_control_tool },
        { "view_release",
          "For the viewer's page alone (its Hand back): control of the desktop back to the agent.",
          .schema = empty_schema, .flags = MCP_TOOL_VIEWER | MCP_TOOL_APP, .call = mcp_view_control_tool },
        /* Last: tools/list has always ended with them. */
        { "(toolset members)", .flags = MCP_TOOL_ACTS | MCP_TOOL_MEMBERS, .call = tool_member },
};
const size_t mcp_desktop_tools_n = ELEMENTSOF(mcp_desktop_tools);

static const struct mcp_backend backend = {
        .space = space,
        .acts = acts,
        .read_resource = mcp_desktop_read_resource,
};

void mcp_desktop_server_init(struct mcp_server *s, struct agent *a) {
        mcp_server_init(s, &backend, mcp_desktop_tools, mcp_desktop_tools_n, a);
        s->tools.set = a->tools;
        s->profile = a->profile;
}
