/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * ask_human under MCP 2026-07-28, for a client that can elicit (mcp-ask.h):
 * the hand-off as rounds of input requests instead of one request held
 * open for minutes. Round one records the request for control (watchers
 * see it) and answers with an elicitation for the client's user: take
 * over, do it, hand back, then accept (or decline). Each later round
 * reads the client's answer and the lease: handed back since the ask is
 * the outcome "returned"; a human still holding is asked again; declined
 * withdraws the request. The requestState carries the epoch the ask was
 * made at and its expiry, signed (mcp-state.h), so no client can forge an
 * outcome by rewriting it.
 */
#include <errno.h>

#include "lease.h"
#include "log.h"
#include "mcp-ask.h"
#include "mcp-state.h"
#include "util.h"

#define ASK_TTL_USEC (3600ULL * 1000000ULL)    /* as ask_human's longest timeout */
#define KEY "handoff"

/* The elicitation of round one and of every round that asks again. */
static char *input_requests(const struct agent *a, const char *reason, const char *why) {
        _cleanup_free_ char *message = NULL, *text = NULL;
        struct json_mem m;

        message = strdup_printf("%sThe agent on desktop %s asks for a human: %s. Take over in the desktop's viewer, "
                                "do it, and hand control back; then accept here (or decline to refuse).",
                                why ?: "", a->profile, reason);
        if (!message || json_mem_open(&m) < 0)
                return NULL;
        json_object_begin(&m.j);
        json_key(&m.j, KEY);
        json_object_begin(&m.j);
        json_kv_string(&m.j, "method", "elicitation/create");
        json_key(&m.j, "params");
        json_object_begin(&m.j);
        json_kv_string(&m.j, "mode", "form");
        json_kv_string(&m.j, "message", message);
        json_key(&m.j, "requestedSchema");
        json_raw(&m.j, "{\"type\": \"object\", \"properties\": {}}");
        json_object_end(&m.j);
        json_object_end(&m.j);
        json_object_end(&m.j);
        if (json_mem_close(&m, &text) < 0)
                return NULL;
        return TAKE_PTR(text);
}

static int ask_again(struct agent *a, const char *reason, const char *why, const char *state, struct mcp_result *res) {
        char *requests = input_requests(a, reason, why), *copy = strdup(state);

        if (!requests || !copy) {
                free(requests);
                free(copy);
                return -ENOMEM;
        }
        mcp_result_input_required(res, requests, copy);
        return 0;
}

static void outcome(struct mcp_result *res, const char *what, const struct lease *l) {
        mcp_result_textf(res, "{\"outcome\": \"%s\", \"control\": \"%s\", \"epoch\": %llu}", what,
                         l->holder == LEASE_HUMAN ? "human" : "agent", (unsigned long long) l->epoch);
}

/* Round one: the request recorded (unless a human holds already), the state that remembers the epoch. */
static int first_round(struct agent *a, const char *reason, struct mcp_result *res) {
        _cleanup_free_ char *payload = NULL, *state = NULL;
        struct lease l;
        int r;

        (void) lease_read_at(a->dirfd, &l);
        payload = strdup_printf("ask_human:%llu:%llu", (unsigned long long) l.epoch, realtime_usec() + ASK_TTL_USEC);
        if (!payload)
                return -ENOMEM;
        if (l.holder != LEASE_HUMAN) {
                r = lease_request_at(a->dirfd, AGENT_ASK_VIEWER, reason, NULL);
                if (r == -EINVAL) {
                        mcp_result_textf(res, "ask_human: the reason must be 1-%d bytes of text without control "
                                              "characters.", LEASE_REASON_MAX);
                        res->is_error = true;
                        return 0;
                }
                if (r < 0) {
                        mcp_result_error(res, "ask_human: the control lease cannot be read or written.");
                        return 0;
                }
                log_info("Desktop %s: the agent asks for a human: %s", a->profile, reason);
        }
        r = mcp_state_sign(a->dirfd, payload, &state);
        if (r < 0) {
                log_error_errno(r, "Cannot sign ask_human's state in desktop %s's runtime dir: %m", a->profile);
                return r == -ENOMEM ? r : -EIO;
        }
        return ask_again(a, reason, NULL, state, res);
}

int mcp_ask_human_rounds(struct agent *a, const char *reason, const struct mcp_call *call, struct mcp_result *res) {
        _cleanup_free_ char *payload = NULL, *first = NULL;
        unsigned long long epoch, expires;
        const struct json_value *answer;
        const char *action, *p, *colon;
        struct lease l;

        if (!call->request_state)
                return first_round(a, reason, res);
        /* Every later round: the state as signed, not yet expired. */
        if (mcp_state_verify(a->dirfd, call->request_state, &payload) < 0 || !(p = startswith(payload, "ask_human:")))
                return -EBADMSG;
        colon = strchr(p, ':');
        if (!colon || !(first = strndup(p, (size_t) (colon - p))))
                return colon ? -ENOMEM : -EBADMSG;
        if (parse_uint(first, LEASE_EPOCH_MAX, &epoch) < 0 || parse_uint(colon + 1, ~0ULL, &expires) < 0 ||
            expires <= realtime_usec())
                return -EBADMSG;

        answer = json_get(call->input_responses, KEY);
        action = json_member_string(answer, "action");
        /* No answer (or none we asked for): ask again, as the specification bids. */
        if (!action)
                return ask_again(a, reason, NULL, call->request_state, res);
        (void) lease_read_at(a->dirfd, &l);
        if (!streq(action, "accept")) {
                (void) lease_withdraw_at(a->dirfd, AGENT_ASK_VIEWER, &l);
                outcome(res, "declined", &l);
                return 0;
        }
        if (l.holder == LEASE_HUMAN && !l.failed)
                return ask_again(a, reason, "A human still has control: hand it back first. ", call->request_state, res);
        if (!l.failed && l.epoch > epoch) {
                outcome(res, "returned", &l);
                return 0;
        }
        /* Accepted, and nobody took over: the request is withdrawn, the agent goes on. */
        (void) lease_withdraw_at(a->dirfd, AGENT_ASK_VIEWER, &l);
        outcome(res, "not_taken", &l);
        return 0;
}
