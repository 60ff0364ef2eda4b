/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The vendors' shapes of botdesk act (act-vendor.h): parse all, run in order, answer in kind. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "act-vendor.h"
#include "cli.h"
#include "gemini.h"
#include "log.h"
#include "util.h"
#include "vendor.h"

/* What a refused or failed action says: its message, or the gate's word. */
static const char *outcome_error(const struct agent_outcome *o) {
        return o->message ?: o->voided ? "A human took control of this screen while it ran; its result is void."
                                       : "The action failed.";
}

/* Why an action did not run, for the model: with the gate's word and the epoch when control moved. */
static char *suppressed_why(const struct agent_outcome *o) {
        if (o->refused || o->voided)
                return strdup_printf("%s (suppressed: %s, epoch %llu)", outcome_error(o),
                                     o->suppressed ?: "human_has_control", (unsigned long long) o->epoch);
        return strdup(outcome_error(o));
}

/*
 * Why call i of a turn of n calls does not run: the turn is too long, the
 * call itself does not parse (error), another does not (bad), or an
 * earlier one was refused (stopped; SIZE_MAX: none). A new string, or NULL
 * with *ret_run set when it runs (and on -ENOMEM, *ret_run false).
 */
static char *turn_refusal(size_t n, const char *error, size_t bad, size_t stopped, bool *ret_run) {
        *ret_run = false;
        if (n > ACT_BATCH_MAX)
                return strdup_printf("A turn of %zu calls: botdesk runs at most %d at once; none was run.", n,
                                     ACT_BATCH_MAX);
        if (error)
                return strdup_printf("%s Nothing of this turn was run.", error);
        if (bad != SIZE_MAX)
                return strdup_printf("Not run: call %zu of this turn is invalid, so none was run.", bad + 1);
        if (stopped != SIZE_MAX)
                return strdup_printf("Not run: call %zu of this turn was refused.", stopped + 1);
        *ret_run = true;
        return NULL;
}

/* ---- Anthropic: tool_use blocks, answered by tool_result blocks ---- */

/* The SDK driver's acknowledgment of a pure action (lib/internal/toolsets/computer-members.js, ROWS). */
static const struct {
        const char *member, *ack;
} acks[] = {
        { "key", "Pressed {text}." },          { "hold_key", "Held {text} for {duration}s." },
        { "type", "Typed." },                   { "mouse_move", "Moved the mouse." },
        { "left_mouse_down", "Left mouse button pressed." },
        { "left_mouse_up", "Left mouse button released." },
        { "left_click", "Clicked." },           { "left_click_drag", "Dragged." },
        { "right_click", "Right-clicked." },    { "middle_click", "Middle-clicked." },
        { "double_click", "Double-clicked." }, { "triple_click", "Triple-clicked." },
        { "scroll", "Scrolled {scroll_direction}." }, { "wait", "Waited {duration}s." },
};

/* The acknowledgment of member, its {field}s filled from input once (a value is never read as a field). */
static char *ack_line(const char *member, const struct json_value *input) {
        _cleanup_free_ char *out = NULL;
        const char *t = NULL;
        size_t size = 0;
        FILE *f;

        for (size_t i = 0; i < ELEMENTSOF(acks); i++)
                if (streq(acks[i].member, member))
                        t = acks[i].ack;
        if (!t)
                return NULL;
        f = open_memstream(&out, &size);
        if (!f)
                return NULL;
        for (const char *p = t; *p;) {
                const char *close = *p == '{' ? strchr(p, '}') : NULL;

                if (!close) {
                        fputc(*p++, f);
                        continue;
                }
                {
                        _cleanup_free_ char *key = strndup(p + 1, (size_t) (close - p - 1));
                        const struct json_value *v = key ? json_get(input, key) : NULL;

                        if (v && v->type == JSON_STRING)
                                /* One line, as the SDK folds it. */
                                for (const char *s = v->string; *s; s++)
                                        fputc(*s == '\n' || *s == '\r' ? ' ' : *s, f);
                        else if (v && v->type == JSON_NUMBER)
                                fprintf(f, "%g", v->number);
                }
                p = close + 1;
        }
        if (fclose(f) != 0)
                return NULL;
        return TAKE_PTR(out);
}

static void text_block(struct json *j, const char *text) {
        json_object_begin(j);
        json_kv_string(j, "type", "text");
        json_kv_string(j, "text", text);
        json_object_end(j);
}

/* The picture, as the API's image block; oversized_image "error": the API never rescales what botdesk sized. */
static void image_block(struct json *j, const char *base64) {
        json_object_begin(j);
        json_kv_string(j, "type", "image");
        json_key(j, "source");
        json_object_begin(j);
        json_kv_string(j, "type", "base64");
        json_kv_string(j, "media_type", "image/jpeg");
        json_kv_string(j, "data", base64);
        json_object_end(j);
        json_key(j, "transformations");
        json_object_begin(j);
        json_kv_string(j, "oversized_image", "error");
        json_object_end(j);
        json_object_end(j);
}

struct anthropic_call {
        const struct json_value *block;
        const char *id;                 /* "" when the block has none */
        bool toolset;                   /* a toolset member's, not the 2025 tool's */
        const char *member;             /* the member, or the 2025 action's name */
        struct mcp_action act;
        char *error;                    /* why it cannot run, or NULL */
};

static void tool_result_error(struct json *j, const struct anthropic_call *c, const char *text) {
        json_object_begin(j);
        json_kv_string(j, "type", "tool_result");
        json_kv_string(j, "tool_use_id", c->id);
        if (c->toolset)
                json_kv_string(j, "toolset_name", "computer");
        json_kv_bool(j, "is_error", true);
        json_key(j, "content");
        json_array_begin(j);
        text_block(j, text);
        json_array_end(j);
        json_object_end(j);
}

/* A screenshot asked with since_revision (botdesk's own, never the SDK's): what it found, as a text block first. */
static int revision_block(struct json *j, const struct agent_outcome *o) {
        _cleanup_free_ char *text = NULL;
        struct json_mem m;

        if (json_mem_open(&m) < 0)
                return -ENOMEM;
        json_object_begin(&m.j);
        agent_revision_fields(&m.j, o);
        json_object_end(&m.j);
        if (json_mem_close(&m, &text) < 0)
                return -ENOMEM;
        text_block(j, text);
        return 0;
}

static int tool_result(struct json *j, const struct anthropic_call *c, const struct agent_outcome *o) {
        _cleanup_free_ char *ack = NULL;
        char line[64];

        json_object_begin(j);
        json_kv_string(j, "type", "tool_result");
        json_kv_string(j, "tool_use_id", c->id);
        if (c->toolset)
                json_kv_string(j, "toolset_name", "computer");
        json_key(j, "content");
        json_array_begin(j);
        if (o->have_cursor) {
                snprintf(line, sizeof line, "X=%u,Y=%u", o->cursor_x, o->cursor_y);
                text_block(j, line);
        } else if (c->act.kind != MCP_ACT_SCREENSHOT && c->act.kind != MCP_ACT_ZOOM) {
                const struct json_value *input = json_get(c->block, "input");

                ack = ack_line(c->act.name, input);
                if (!ack)
                        return -ENOMEM;
                text_block(j, ack);
        }
        /* Without since_revision the blocks stay the SDK driver's: an image alone. */
        if (o->since_given && revision_block(j, o) < 0)
                return -ENOMEM;
        if (o->image_base64)
                image_block(j, o->image_base64);
        json_array_end(j);
        json_object_end(j);
        return 0;
}

/* One block: what it asks for, or why not in c->error. */
static int anthropic_parse(struct agent *a, const struct json_value *b, struct anthropic_call *c) {
        const struct json_value *input;
        const char *name, *toolset;
        int r;

        c->block = b;
        c->id = json_member_string(b, "id") ?: "";
        if (!mcp_vendor_is_tool_use(b))
                return (c->error = strdup("Not a tool_use block: {\"type\": \"tool_use\", \"id\": ..., \"name\": "
                                          "MEMBER, \"toolset_name\": \"computer\", \"input\": {...}}.")) ? 0 : -ENOMEM;
        name = json_member_string(b, "name");
        toolset = json_member_string(b, "toolset_name");
        input = json_get(b, "input");
        c->toolset = toolset != NULL;
        if (!*c->id)
                return (c->error = strdup("The tool_use block has no \"id\": its result could not name it.")) ? 0
                                                                                                              : -ENOMEM;
        if (toolset && !streq(toolset, "computer"))
                r = (c->error = strdup_printf("botdesk serves the toolset \"computer\", not \"%s\".", toolset)) ? -EINVAL
                                                                                                              : -ENOMEM;
        else if (toolset) {
                r = mcp_action_parse_member(name, input, &a->space, &c->act, &c->error);
                for (size_t i = 0; r >= 0 && i < mcp_members_count(); i++)
                        if ((a->tools.members_off & (UINT32_C(1) << i)) && streq(mcp_member_name(i), name))
                                r = (c->error = strdup_printf("The member %s is not offered on this desktop "
                                                              "([agent] toolset_disabled): the declaration botdesk "
                                                              "toolset prints disables it.", name))
                                            ? -EINVAL
                                            : -ENOMEM;
        }
        else if (streq_ptr(name, "computer")) {
                r = mcp_action_parse(input, &a->space, &c->act, &c->error);
                if (r >= 0 && c->act.schema != MCP_SCHEMA_ANTHROPIC)
                        r = (c->error = strdup("The computer tool's input names its action with \"action\", as "
                                               "{\"action\": \"left_click\", \"coordinate\": [x, y]}."))
                                    ? -EINVAL
                                    : -ENOMEM;
        } else
                r = (c->error = strdup_printf("botdesk serves the computer toolset (toolset_name \"computer\") and the "
                                              "computer tool, not \"%s\".", strnull(name)))
                            ? -EINVAL
                            : -ENOMEM;
        return r == -ENOMEM ? r : 0;
}

/*
 * Of a turn's content (or the Message holding it), the blocks that are
 * botdesk's to answer: tool_use blocks of the computer toolset or the
 * computer tool. The model's text and thinking need no answer, and another
 * tool's calls are the gateway's own.
 */
static bool for_botdesk(const struct json_value *b) {
        const char *toolset = json_member_string(b, "toolset_name");

        return mcp_vendor_is_tool_use(b) &&
               (streq_ptr(toolset, "computer") || (!json_get(b, "toolset_name") &&
                                                   streq_ptr(json_member_string(b, "name"), "computer")));
}

static int anthropic_answer(struct agent *a, const struct json_value *v, bool screenshots, FILE *out) {
        _cleanup_free_ struct anthropic_call *calls = NULL;
        const struct json_value *list = mcp_vendor_is_message(v) ? json_get(v, "content") : v;
        bool turn = list->type == JSON_ARRAY;
        size_t n = 0, bad = SIZE_MAX, stopped = SIZE_MAX;
        struct json j;
        int r = 0;

        calls = calloc(turn ? list->n + 1 : 1, sizeof *calls);
        if (!calls)
                return -ENOMEM;
        for (size_t k = 0; k < (turn ? list->n : 1) && r >= 0; k++) {
                const struct json_value *b = turn ? &list->items[k] : list;

                /* A lone block is answered whatever it is: it was sent to botdesk. */
                if (turn && !for_botdesk(b))
                        continue;
                r = anthropic_parse(a, b, &calls[n]);
                if (r >= 0 && calls[n].error && bad == SIZE_MAX)
                        bad = n;
                n++;
        }
        json_init(&j, out);
        if (turn)
                json_array_begin(&j);
        for (size_t i = 0; i < n && r >= 0; i++) {
                _cleanup_(agent_outcome_done) struct agent_outcome o = {};
                bool run;
                _cleanup_free_ char *why = turn_refusal(n, calls[i].error, bad, stopped, &run);

                if (run) {
                        r = agent_run(a, &calls[i].act, screenshots, &o);
                        if (r < 0)
                                break;
                        if (o.ok) {
                                r = tool_result(&j, &calls[i], &o);
                                continue;
                        }
                        stopped = i;
                        why = suppressed_why(&o);
                }
                if (!why)
                        r = -ENOMEM;
                else
                        tool_result_error(&j, &calls[i], why);
        }
        if (turn)
                json_array_end(&j);
        for (size_t i = 0; i < n; i++)
                free(calls[i].error);
        return r < 0 ? r : 0;
}

/* ---- OpenAI: a computer_call, answered by one computer_call_output ---- */

static int openai_answer(struct agent *a, const struct json_value *v, FILE *out) {
        _cleanup_free_ struct mcp_action *acts = NULL;
        _cleanup_(agent_outcome_done) struct agent_outcome last = {};
        const char *call_id = json_member_string(v, "call_id");
        const struct json_value *one = json_get(v, "action"), *batch = json_get(v, "actions"),
                                *checks = json_get(v, "pending_safety_checks");
        const struct json_value *items;
        size_t n;
        struct json j;
        int r;

        if (one && one->type == JSON_NULL)
                one = NULL;
        if (batch && batch->type == JSON_NULL)
                batch = NULL;
        if (!call_id || !*call_id) {
                log_error("The computer_call has no \"call_id\": its output could not name it; nothing was run.");
                return EXIT_USAGE;
        }
        if (!!one == !!batch || (batch && batch->type != JSON_ARRAY)) {
                log_error("computer_call %s: give either \"action\" (one) or \"actions\" (a list), not %s; nothing was run.",
                          call_id, one ? "both" : "neither");
                return EXIT_USAGE;
        }
        n = batch ? batch->n : 1;
        items = batch ? batch->items : one;
        if (n == 0 || n > ACT_BATCH_MAX) {
                log_error("computer_call %s: \"actions\" must hold 1 to %d actions, not %zu; nothing was run.", call_id,
                          ACT_BATCH_MAX, n);
                return EXIT_USAGE;
        }
        if (checks && checks->type != JSON_NULL && checks->type != JSON_ARRAY) {
                log_error("computer_call %s: \"pending_safety_checks\" must be a list; nothing was run.", call_id);
                return EXIT_USAGE;
        }
        acts = calloc(n, sizeof *acts);
        if (!acts)
                return -ENOMEM;
        for (size_t i = 0; i < n; i++) {
                _cleanup_free_ char *error = NULL;

                r = mcp_action_parse(&items[i], &a->space, &acts[i], &error);
                if (r == -ENOMEM)
                        return r;
                if (r >= 0 && acts[i].schema != MCP_SCHEMA_OPENAI)
                        r = -EINVAL;
                /* The output item always carries a screenshot: it has no room for "unchanged". */
                if (r >= 0 && acts[i].since.given) {
                        log_error("computer_call %s: action %zu: since_revision is botdesk's own (a bare action, or "
                                  "MCP); a computer_call_output always carries a screenshot. Nothing was run.",
                                  call_id, i + 1);
                        return EXIT_USAGE;
                }
                if (r < 0) {
                        log_error("computer_call %s: action %zu: %s; nothing was run.", call_id, i + 1,
                                  error ?: "OpenAI's actions name themselves with \"type\"");
                        return EXIT_USAGE;
                }
        }
        for (size_t i = 0; i < n; i++) {
                agent_outcome_done(&last);
                /* The picture the output carries: after the last action, settled. */
                r = agent_run(a, &acts[i], i == n - 1, &last);
                if (r < 0)
                        return r;
                if (!last.ok) {
                        bool suppressed = last.refused || last.voided;

                        log_error("computer_call %s: action %zu of %zu (%s) %s: %s Done before it: %zu; not run: %zu.",
                                  call_id, i + 1, n, acts[i].name,
                                  suppressed ? "was suppressed (human_has_control)" : "failed", outcome_error(&last), i,
                                  n - i - 1);
                        if (suppressed)
                                log_error("computer_call %s: epoch %llu.", call_id, (unsigned long long) last.epoch);
                        return suppressed ? EXIT_REFUSED : EXIT_FAILED;
                }
        }
        if (!last.image_base64) {
                log_error("computer_call %s: no screenshot could be taken after the last action.", call_id);
                return EXIT_FAILED;
        }
        json_init(&j, out);
        json_object_begin(&j);
        json_kv_string(&j, "type", "computer_call_output");
        json_kv_string(&j, "call_id", call_id);
        json_key(&j, "output");
        json_object_begin(&j);
        json_kv_string(&j, "type", "computer_screenshot");
        json_key(&j, "image_url");
        /* base64 needs no escaping: the picture goes out as it is, without a copy of it with its prefix. */
        json_raw(&j, "\"data:image/jpeg;base64,");
        fputs(last.image_base64, out);
        fputc('"', out);
        json_object_end(&j);
        /* The gateway acknowledges them by passing this on: botdesk only echoes what the model raised. */
        json_key(&j, "acknowledged_safety_checks");
        json_array_begin(&j);
        for (size_t i = 0; checks && checks->type == JSON_ARRAY && i < checks->n; i++)
                json_value_write(&j, &checks->items[i]);
        json_array_end(&j);
        json_object_end(&j);
        return 0;
}

/* ---- Gemini: functionCall parts, answered by functionResponse parts ---- */

static void function_response(struct json *j, const struct json_value *fc, const char *error, bool safety,
                              const struct agent_outcome *o) {
        const char *id = json_member_string(fc, "id");

        json_object_begin(j);
        json_key(j, "functionResponse");
        json_object_begin(j);
        json_kv_string(j, "name", json_member_string(fc, "name") ?: "");
        if (id)
                json_kv_string(j, "id", id);
        json_key(j, "response");
        json_object_begin(j);
        if (error)
                json_kv_string(j, "error", error);
        else {
                /* The desktop's state: it has no URL. */
                json_kv_bool(j, "ok", true);
                json_kv_int(j, "epoch", (long long) o->epoch);
                if (o->settled_known)
                        json_kv_string(j, "settle", settle_state_name(o->settle));
        }
        if (safety)
                json_kv_string(j, "safety_acknowledgement", "true");
        json_object_end(j);
        if (!error && o->image_base64) {
                json_key(j, "parts");
                json_array_begin(j);
                json_object_begin(j);
                json_key(j, "inlineData");
                json_object_begin(j);
                json_kv_string(j, "mimeType", "image/jpeg");
                json_kv_string(j, "data", o->image_base64);
                json_object_end(j);
                json_object_end(j);
                json_array_end(j);
        }
        json_object_end(j);
        json_object_end(j);
}

/* One functionCall of a Gemini turn: the call, what it parsed to, or why it does not parse. */
struct gemini_turn_call {
        const struct json_value *fc;
        struct mcp_gemini_call call;
        char *error;
};

static int gemini_answer(struct agent *a, const struct json_value *v, FILE *out) {
        /* A lone part, a list of parts, or a content holding them. */
        bool content = v->type == JSON_OBJECT && !mcp_vendor_has_function_call(v), turn = content || v->type == JSON_ARRAY;
        const struct json_value *list = content ? json_get(v, "parts") : v;
        _cleanup_free_ struct gemini_turn_call *calls = NULL;
        size_t n = 0, n_items, bad = SIZE_MAX, stopped = SIZE_MAX;
        struct json j;
        int r = 0;

        if (content && (!list || list->type != JSON_ARRAY)) {
                log_error("A Gemini content's \"parts\" must be a list of parts with functionCall; none is answered.");
                list = NULL;
        }
        n_items = !turn ? 1 : list ? list->n : 0;
        calls = calloc(n_items ?: 1, sizeof *calls);
        if (!calls)
                return -ENOMEM;
        /* The model's text and thoughts ride in the same parts: only its calls are answered. */
        for (size_t k = 0; k < n_items; k++) {
                const struct json_value *p = turn ? &list->items[k] : v;

                if (mcp_vendor_has_function_call(p))
                        calls[n++].fc = json_get(p, "functionCall");
        }
        for (size_t i = 0; i < n && r >= 0; i++) {
                struct gemini_turn_call *c = &calls[i];

                if (c->fc->type != JSON_OBJECT)
                        r = (c->error = strdup("functionCall must be an object {\"name\", \"args\"}.")) ? -EINVAL : -ENOMEM;
                else
                        r = mcp_gemini_parse(json_member_string(c->fc, "name"), json_get(c->fc, "args"), &a->space,
                                             &c->call, &c->error);
                if (r == -EINVAL && bad == SIZE_MAX)
                        bad = i;
                if (r == -EINVAL)
                        r = 0;
        }
        json_init(&j, out);
        if (content) {
                json_object_begin(&j);
                json_kv_string(&j, "role", "user");
                json_key(&j, "parts");
        }
        if (turn)
                json_array_begin(&j);
        for (size_t i = 0; i < n && r >= 0; i++) {
                _cleanup_(agent_outcome_done) struct agent_outcome o = {};
                bool run;
                _cleanup_free_ char *why = turn_refusal(n, calls[i].error, bad, stopped, &run);

                if (run) {
                        for (size_t s = 0; s < calls[i].call.n_steps; s++) {
                                agent_outcome_done(&o);
                                r = agent_run(a, &calls[i].call.steps[s], s == calls[i].call.n_steps - 1, &o);
                                if (r < 0 || !o.ok)
                                        break;
                        }
                        if (r < 0)
                                break;
                        if (o.ok) {
                                function_response(&j, calls[i].fc, NULL, calls[i].call.safety_decision, &o);
                                continue;
                        }
                        stopped = i;
                        why = suppressed_why(&o);
                }
                if (!why)
                        r = -ENOMEM;
                else
                        function_response(&j, calls[i].fc, why, false, &o);
        }
        if (turn)
                json_array_end(&j);
        if (content)
                json_object_end(&j);
        for (size_t i = 0; i < n; i++)
                free(calls[i].error);
        return r < 0 ? r : 0;
}

int act_vendor_answer(struct agent *a, enum mcp_vendor vendor, const struct json_value *v, bool screenshots,
                      FILE *out) {
        int r;

        switch (vendor) {
        case MCP_VENDOR_ANTHROPIC:
                r = anthropic_answer(a, v, screenshots, out);
                break;
        case MCP_VENDOR_OPENAI:
                r = openai_answer(a, v, out);
                if (r != 0)
                        return r;       /* nothing printed: the output item has no room for why */
                break;
        case MCP_VENDOR_GEMINI:
                r = gemini_answer(a, v, out);
                break;
        default:
                return -EINVAL;
        }
        if (r < 0)
                return r;
        fputc('\n', out);
        fflush(out);
        return 0;
}
