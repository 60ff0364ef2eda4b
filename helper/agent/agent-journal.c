/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "agent-journal.h"
#include "journal-hook.h"
#include "journal.h"
#include "util.h"

/* The journal's "args" of an agent action: in screen pixels, as replay sends it again. */
static void journal_args(struct json *j, const struct journal_redact *redact, const void *userdata) {
        const struct agent *a = ((const void *const *) userdata)[0];
        const struct mcp_action *act = ((const void *const *) userdata)[1];

        json_kv_string(j, "verb", act->name);
        if (act->kind == MCP_ACT_DRAG && act->n_path >= 2) {
                json_kv_int(j, "x", act->path[0][0]);
                json_kv_int(j, "y", act->path[0][1]);
                json_kv_int(j, "x2", act->path[act->n_path - 1][0]);
                json_kv_int(j, "y2", act->path[act->n_path - 1][1]);
        } else if (act->have_point) {
                json_kv_int(j, "x", act->x);
                json_kv_int(j, "y", act->y);
        }
        if (act->kind == MCP_ACT_CLICK || act->kind == MCP_ACT_DRAG || act->kind == MCP_ACT_DOWN || act->kind == MCP_ACT_UP) {
                json_kv_int(j, "button", act->button);
                if (act->clicks > 1)
                        json_kv_int(j, "clicks", act->clicks);
        }
        if (act->kind == MCP_ACT_SCROLL) {
                json_kv_int(j, "dx", act->dx);
                json_kv_int(j, "dy", act->dy);
        }
        if (act->text && act->kind == MCP_ACT_TYPE)
                journal_text_fields(j, "text", act->text, redact);
        else if (act->text)
                json_kv_string(j, "keys", act->text);
        if (act->duration_ms)
                json_kv_int(j, "duration_ms", act->duration_ms);
        json_kv_size(j, "screen", a->space.screen_w, a->space.screen_h);
}

void agent_journal_action(struct agent *a, const struct mcp_action *act, const struct agent_outcome *o) {
        _cleanup_free_ char *what = strdup_printf("agent %s", act->name);
        const void *ud[2] = { a, act };

        if (o->refused || !what)
                return;
        cli_journal_record(a->profile, &(const struct cli_journal_action) {
                .action = what,
                .result = o->voided ? "suppressed" : o->ok ? "ok" : "error",
                .message = o->ok ? NULL : o->message,
                .settle = o->settled_known && o->settle != SETTLE_UNSUPPORTED ? settle_state_name(o->settle) : NULL,
                .settle_ms = o->settle_ms,
                .args = journal_args, .userdata = ud,
                .frame = o->frame, .frame_size = o->frame_size,
                /* The screen is as the agent last saw it: no frame read again for it. */
                .no_frame = o->unchanged,
        });
}

/* A clipboard's type and length, never its content. */
struct clip_info {
        bool png;
        size_t size;
};

static void journal_clipboard_args(struct json *j, const struct journal_redact *redact, const void *userdata) {
        const struct clip_info *c = userdata;

        json_kv_string(j, "type", c->png ? "image/png" : "text/plain");
        json_kv_int(j, "length", (long long) c->size);
}

void agent_journal_clipboard_write(struct agent *a, const struct lease *admitted, bool png, size_t size,
                                   const struct agent_outcome *o) {
        cli_journal_record(a->profile, &(const struct cli_journal_action) {
                .action = "agent clipboard_write", .admitted = admitted,
                .result = o->voided ? "suppressed" : o->ok ? "ok" : "error", .message = o->ok ? NULL : o->message,
                .args = journal_clipboard_args, .userdata = &(const struct clip_info) { png, size },
        });
}

void agent_journal_clipboard_read(struct agent *a, bool png, size_t size, const struct agent_outcome *o) {
        if (o->refused)
                return;
        /* Reading changes no screen: no frame. */
        cli_journal_record(a->profile, &(const struct cli_journal_action) {
                .action = "agent clipboard_read",
                .result = o->voided ? "suppressed" : o->ok ? "ok" : "error", .message = o->ok ? NULL : o->message,
                .no_frame = true,
                .args = journal_clipboard_args, .userdata = &(const struct clip_info) { png, o->ok ? size : 0 },
        });
}
