/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * subscriptions/listen's table and wire (subscriptions.h): the filter read
 * strictly, the acknowledgment, the notifications, and both ends of a
 * subscription.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "jsonrpc.h"
#include "server.h"
#include "subscriptions.h"
#include "util.h"

void mcp_subs_init(struct mcp_subs *ss, const char *profile, const struct mcp_sub_runner *runner, void *userdata) {
        *ss = (struct mcp_subs) { .profile = profile, .runner = runner, .userdata = userdata };
}

static struct mcp_sub *sub_free(struct mcp_sub *sub) {
        if (!sub)
                return NULL;
        free(sub->id);
        free(sub);
        return NULL;
}

/* Out of the table, its work stopped. */
static void sub_drop(struct mcp_subs *ss, size_t i) {
        struct mcp_sub *sub = ss->subs[i];

        if (sub->run)
                ss->runner->stop(ss->userdata, sub);
        sub_free(sub);
        memmove(ss->subs + i, ss->subs + i + 1, (ss->n - i - 1) * sizeof *ss->subs);
        ss->n--;
}

void mcp_subs_done(struct mcp_subs *ss) {
        while (ss->n > 0)
                sub_drop(ss, ss->n - 1);
}

/* params.notifications: what botdesk serves of it in *ret, or an error's message (-EINVAL; NULL: -ENOMEM). */
static int filter_parse(const struct mcp_subs *ss, const struct json_value *params, unsigned *ret, char **ret_error) {
        const struct json_value *f = json_get(params, "notifications"), *uris;
        unsigned what = 0;

        if (!f || f->type != JSON_OBJECT) {
                *ret_error = strdup("subscriptions/listen needs params.notifications, an object (the filter).");
                return -EINVAL;
        }
        for (size_t i = 0; i < f->n; i++) {
                const struct json_value *m = &f->items[i];

                if (streq(m->key, "resourceSubscriptions"))
                        continue;
                /* The list-changed flags are booleans; the spec's other fields, and any to come, are left out of
                 * the acknowledgment rather than refused, as the spec asks of what a server does not support. */
                if ((streq(m->key, "toolsListChanged") || streq(m->key, "promptsListChanged") ||
                     streq(m->key, "resourcesListChanged")) && m->type != JSON_TRUE && m->type != JSON_FALSE) {
                        *ret_error = strdup_printf("params.notifications.%s must be a boolean.", m->key);
                        return -EINVAL;
                }
        }
        uris = json_get(f, "resourceSubscriptions");
        if (uris && uris->type != JSON_ARRAY) {
                *ret_error = strdup("params.notifications.resourceSubscriptions must be an array of URIs.");
                return -EINVAL;
        }
        for (size_t i = 0; uris && i < uris->n; i++) {
                if (uris->items[i].type != JSON_STRING) {
                        *ret_error = strdup("params.notifications.resourceSubscriptions must hold strings (URIs).");
                        return -EINVAL;
                }
                /* The viewer is a page, not a state: nothing to watch. */
                what |= mcp_resource_of(ss->profile, uris->items[i].string) & MCP_RESOURCES_ALL;
        }
        *ret = what;
        return 0;
}

static struct mcp_sub *sub_find(const struct mcp_subs *ss, const char *id, size_t *ret_index) {
        for (size_t i = 0; i < ss->n; i++)
                if (streq(ss->subs[i]->id, id)) {
                        if (ret_index)
                                *ret_index = i;
                        return ss->subs[i];
                }
        return NULL;
}

int mcp_subs_listen(struct mcp_subs *ss, const struct json_value *id, const struct json_value *params, FILE *out) {
        _cleanup_free_ char *error = NULL;
        struct mcp_sub *sub;
        unsigned what = 0;
        int r;

        r = filter_parse(ss, params, &what, &error);
        if (r < 0) {
                if (!error)
                        return -ENOMEM;
                jsonrpc_write_error(out, id, JSONRPC_INVALID_PARAMS, error);
                return 0;
        }
        sub = calloc(1, sizeof *sub);
        if (!sub)
                return -ENOMEM;
        sub->id = json_value_text(id);
        sub->what = what;
        if (!sub->id) {
                sub_free(sub);
                return -ENOMEM;
        }
        /* The id is all that ties a notification to its subscription: two alike could not be told apart. */
        if (sub_find(ss, sub->id, NULL)) {
                sub_free(sub);
                jsonrpc_write_error(out, id, JSONRPC_INVALID_REQUEST,
                                    "A subscription with this request id is open: cancel it or use another id.");
                return 0;
        }
        if (ss->n >= MCP_SUBS_MAX) {
                sub_free(sub);
                jsonrpc_write_error(out, id, JSONRPC_INTERNAL_ERROR,
                                    "Too many subscriptions open on this connection: cancel one first.");
                return 0;
        }
        if (what == 0)
                /* Nothing to watch: acknowledged empty, and it stays open for the client to cancel. */
                mcp_sub_write_ack(out, sub, ss->profile, 0);
        else {
                r = ss->runner->start(ss->userdata, sub);
                if (r == -ENOMEM) {
                        sub_free(sub);
                        return r;
                }
                if (r < 0) {
                        _cleanup_free_ char *m = strdup_printf("Cannot watch the desktop: %s.", strerror(-r));

                        sub_free(sub);
                        jsonrpc_write_error(out, id, JSONRPC_INTERNAL_ERROR, m ?: "Cannot watch the desktop.");
                        return 0;
                }
        }
        ss->subs[ss->n++] = sub;
        return 0;
}

void mcp_subs_cancelled(struct mcp_subs *ss, const struct json_value *params) {
        const struct json_value *rid = json_get(params, "requestId");
        _cleanup_free_ char *id = NULL;
        size_t i;

        if (!rid || (rid->type != JSON_STRING && rid->type != JSON_NUMBER))
                return;
        id = json_value_text(rid);
        /* Out of memory, the subscription stays: the next cancellation, or the end of input, ends it. */
        if (id && sub_find(ss, id, &i))
                sub_drop(ss, i);
}

struct mcp_sub *mcp_subs_find(const struct mcp_subs *ss, const char *id) {
        return sub_find(ss, id, NULL);
}

void mcp_subs_drop(struct mcp_subs *ss, struct mcp_sub *sub) {
        for (size_t i = 0; i < ss->n; i++)
                if (ss->subs[i] == sub) {
                        sub_drop(ss, i);
                        return;
                }
}

/* {"jsonrpc": "2.0", ...: the start of a message of sub, up to its method or id. */
static void message_begin(struct json *j, FILE *out) {
        json_init(j, out);
        json_object_begin(j);
        json_kv_string(j, "jsonrpc", "2.0");
}

static void meta_subscription(struct json *j, const struct mcp_sub *sub) {
        json_key(j, MCP_META_SUBSCRIPTION_ID);
        json_raw(j, sub->id);
}

static void message_end(struct json *j, FILE *out) {
        json_object_end(j);
        fputc('\n', out);
        fflush(out);
}

void mcp_subs_end(struct mcp_subs *ss, struct mcp_sub *sub, FILE *out, const char *reason, bool acknowledged) {
        struct json j;
        size_t i;

        if (!acknowledged) {
                struct json_value *id = NULL;

                /* Never open: the listen failed, and nothing else of it is said. */
                if (json_parse(sub->id, strlen(sub->id), &id) >= 0)
                        jsonrpc_write_error(out, id, JSONRPC_INTERNAL_ERROR, reason);
                json_value_free(id);
                goto drop;
        }
        /* The graceful end the spec asks for: the listen request's completion. */
        message_begin(&j, out);
        json_key(&j, "id");
        json_raw(&j, sub->id);
        json_key(&j, "result");
        json_object_begin(&j);
        json_kv_string(&j, "resultType", "complete");
        json_key(&j, "_meta");
        json_object_begin(&j);
        meta_subscription(&j, sub);
        json_object_end(&j);
        json_object_end(&j);
        message_end(&j, out);
        /* And the cancellation a server must send on stdio when it tears a subscription down. */
        message_begin(&j, out);
        json_kv_string(&j, "method", "notifications/cancelled");
        json_key(&j, "params");
        json_object_begin(&j);
        json_key(&j, "requestId");
        json_raw(&j, sub->id);
        json_kv_string(&j, "reason", reason);
        json_object_end(&j);
        message_end(&j, out);
drop:
        if (sub_find(ss, sub->id, &i))
                sub_drop(ss, i);
}

void mcp_sub_write_ack(FILE *out, const struct mcp_sub *sub, const char *profile, unsigned what) {
        struct json j;

        message_begin(&j, out);
        json_kv_string(&j, "method", "notifications/subscriptions/acknowledged");
        json_key(&j, "params");
        json_object_begin(&j);
        json_key(&j, "_meta");
        json_object_begin(&j);
        meta_subscription(&j, sub);
        json_object_end(&j);
        json_key(&j, "notifications");
        json_object_begin(&j);
        if (what) {
                json_key(&j, "resourceSubscriptions");
                json_array_begin(&j);
                mcp_resource_uris(&j, profile, what);
                json_array_end(&j);
        }
        json_object_end(&j);
        json_object_end(&j);
        message_end(&j, out);
}

void mcp_sub_write_updated(FILE *out, const struct mcp_sub *sub, const char *profile, unsigned one, const char *meta) {
        struct json j;

        message_begin(&j, out);
        json_kv_string(&j, "method", "notifications/resources/updated");
        json_key(&j, "params");
        json_object_begin(&j);
        json_key(&j, "_meta");
        json_object_begin(&j);
        meta_subscription(&j, sub);
        if (meta) {
                _cleanup_free_ char *key = strdup_printf("botdesk/%s", mcp_resource_name(one));

                json_key(&j, key ?: "botdesk/event");
                json_raw(&j, meta);
        }
        json_object_end(&j);
        json_key(&j, "uri");
        mcp_resource_uris(&j, profile, one);
        json_object_end(&j);
        message_end(&j, out);
}
