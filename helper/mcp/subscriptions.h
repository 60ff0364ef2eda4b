/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>
#include <stdio.h>

#include "json.h"
#include "resources.h"

/*
 * subscriptions/listen of MCP 2026-07-28: a request that stays open while
 * the server sends notifications tied to it (each carries the request's id
 * in _meta under MCP_META_SUBSCRIPTION_ID), first
 * notifications/subscriptions/acknowledged with the filter the server
 * honours, until the client sends notifications/cancelled for it (no
 * response then) or the server ends it (a completion result, then
 * notifications/cancelled, which the spec has a server send for nothing
 * else).
 *
 * The revision's filter names only list changes (tools, prompts,
 * resources: botdesk's lists never change, so those are left out of the
 * acknowledgment, as the spec asks of what a server does not support) and
 * notifications/resources/updated for URIs; the desktop's events are
 * therefore those of its resources (resources.h):
 *
 *   botdesk://P/lease     the lease changed hands or epoch (a human took over, handed back)
 *   botdesk://P/windows   a client window opened or closed
 *   botdesk://P/screen    the screen changed, at most once per MCP_SUBS_SCREEN_MS
 *
 * A URI of another kind or profile is left out of the acknowledgment. What
 * happened rides in the notification's _meta under "botdesk/lease" and
 * "botdesk/windows" (the spec lets _meta carry an implementation's keys).
 *
 * This is the table and the wire, without the watching: the runner starts
 * the work of a subscription (agent/mcp-subs.c: a process) that writes the
 * acknowledgment and the notifications.
 */

#define MCP_META_SUBSCRIPTION_ID "io.modelcontextprotocol/subscriptionId"
#define MCP_SUBS_MAX 4                  /* at once, per connection: a fifth is refused */
#define MCP_SUBS_SCREEN_MS 500u         /* botdesk://P/screen: at most one notification per this */

struct mcp_sub {
        char *id;                       /* the listen request's id, as JSON text */
        unsigned what;                  /* MCP_RESOURCE_*, what the client asked for that botdesk serves */
        void *run;                      /* the runner's, while it runs */
        FILE *out;                      /* the transport's stream of this one (HTTP's event stream); NULL: its output */
};

struct mcp_sub_runner {
        /* Begin sub's work, which acknowledges it. 0, or -errno (and there is no subscription). */
        int (*start)(void *userdata, struct mcp_sub *sub);
        /* End it now: nothing of it may be written after. */
        void (*stop)(void *userdata, struct mcp_sub *sub);
};

struct mcp_subs {
        struct mcp_sub *subs[MCP_SUBS_MAX];
        size_t n;
        const char *profile;            /* the URIs' */
        const struct mcp_sub_runner *runner;
        void *userdata;
};

void mcp_subs_init(struct mcp_subs *ss, const char *profile, const struct mcp_sub_runner *runner, void *userdata);
/* Every subscription stopped and freed (the transport ends: the spec sends nothing then). */
void mcp_subs_done(struct mcp_subs *ss);

/*
 * subscriptions/listen with id and params: the subscription started (its
 * runner acknowledges it; with nothing botdesk serves, acknowledged here
 * on out), or the JSON-RPC error on out: -32602 for a filter that is not
 * one, -32600 for an id a running subscription has, -32603 past
 * MCP_SUBS_MAX. 0, or -ENOMEM.
 */
int mcp_subs_listen(struct mcp_subs *ss, const struct json_value *id, const struct json_value *params, FILE *out);

/* notifications/cancelled's params: the subscription it names stopped and gone, without a word; others ignored. */
void mcp_subs_cancelled(struct mcp_subs *ss, const struct json_value *params);

/* The open subscription of a listen request's id (JSON text), or NULL. */
struct mcp_sub *mcp_subs_find(const struct mcp_subs *ss, const char *id);
/* sub stopped and gone without a word (its stream ended: the client is not there to read one). */
void mcp_subs_drop(struct mcp_subs *ss, struct mcp_sub *sub);

/*
 * The server ends sub on its own (its watch broke, the desktop went): once
 * acknowledged, the completion and the cancellation on out; before, the
 * listen request's error (-32603, reason), as for a watch that could not
 * start. sub stopped and freed.
 */
void mcp_subs_end(struct mcp_subs *ss, struct mcp_sub *sub, FILE *out, const char *reason, bool acknowledged);

/* The acknowledgment of sub, honouring what (a subset of sub->what), as one line on out. */
void mcp_sub_write_ack(FILE *out, const struct mcp_sub *sub, const char *profile, unsigned what);

/*
 * notifications/resources/updated of sub for the URI of one MCP_RESOURCE_*, as
 * one line on out; meta NULL, or the JSON text of what happened, put in
 * _meta under "botdesk/<the resource>".
 */
void mcp_sub_write_updated(FILE *out, const struct mcp_sub *sub, const char *profile, unsigned one, const char *meta);
