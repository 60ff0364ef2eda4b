/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <stdlib.h>

#include "cdp-relay.h"
#include "tap.h"
#include "util.h"

#define BROWSER (-1)

/* The messages in a buffer, each NUL shown as '|', and the buffer emptied. */
static char *take(struct buffer *b) {
        size_t n = buffer_len(b);
        char *s = malloc(n + 1);

        if (n)
                memcpy(s, buffer_data(b), n);
        for (size_t i = 0; i < n; i++)
                if (s[i] == 0)
                        s[i] = '|';
        s[n] = 0;
        buffer_consume(b, n);
        return s;
}

/* take(), compared and freed. */
#define TAKE_EQ(buf, want, ...)                 \
        do {                                    \
                char *_s = take(buf);           \
                TAP_EQ_STR(_s, want, __VA_ARGS__); \
                free(_s);                       \
        } while (0)

/* Feed text, each '|' a NUL, one byte at a time or all at once, as the browser's or a client's (its slot). */
static int feed(struct cdp_relay *r, int who, const char *text, bool bytewise) {
        size_t n = strlen(text);
        char *d = strdup(text);
        int k = 0;

        for (size_t i = 0; i < n; i++)
                if (d[i] == '|')
                        d[i] = 0;
        for (size_t i = 0; i < n && k >= 0; i += bytewise ? 1 : n) {
                size_t len = bytewise ? 1 : n;
                k = who == BROWSER ? cdp_relay_from_browser(r, d + i, len)
                                   : cdp_relay_from_client(r, (unsigned) who, d + i, len);
        }
        free(d);
        return k;
}

static struct buffer *out(struct cdp_relay *r, int slot) {
        return &r->clients[slot].to_client;
}

/* A client connected and its browser session (session, unquoted) attached: its slot. */
static int attached_client(struct cdp_relay *r, const char *session) {
        int slot = cdp_relay_client_open(r);
        char *s = take(&r->to_browser), answer[128];
        unsigned long long id = 0;

        if (sscanf(s, "{\"id\":%llu,\"method\":\"Target.attachToBrowserTarget\"}|", &id) != 1)
                tap_ok(false, "the relay asks for a browser session, not %s", s);
        free(s);
        snprintf(answer, sizeof answer, "{\"id\":%llu,\"result\":{\"sessionId\":\"%s\"}}|", id, session);
        feed(r, BROWSER, answer, false);
        return slot;
}

static const char *id_of(const char *msg) {
        static char o[64];
        size_t s, e;
        int k = cdp_message_id(msg, strlen(msg), &s, &e);

        if (k < 0)
                return "bad";
        if (k == 0)
                return "none";
        snprintf(o, sizeof o, "%.*s", (int) (e - s), msg + s);
        return o;
}

/* msg with the member key cut out, or what went wrong. */
static const char *cut_of(const char *msg, const char *key) {
        static char o[256];
        struct cdp_member m;
        bool escaped;
        int k = cdp_message_scan(msg, strlen(msg), key, &m, &escaped);

        if (k != 1)
                snprintf(o, sizeof o, "count %d%s", k, escaped ? " escaped" : "");
        else
                snprintf(o, sizeof o, "%.*s%s", (int) m.cut, msg, msg + m.cut_end);
        return o;
}

static void test_message_id(void) {
        bool escaped;

        TAP_EQ_STR(id_of("{\"id\":7,\"method\":\"Browser.getVersion\"}"), "7", "the top-level id of a command");
        TAP_EQ_STR(id_of(" { \"method\" : \"x\" , \"id\" : 12 } "), "12", "whitespace around keys and values");
        TAP_EQ_STR(id_of("{\"params\":{\"id\":3,\"a\":[{\"id\":4}]},\"id\":12}"), "12",
                   "an id nested in params is not the message's id");
        TAP_EQ_STR(id_of("{\"method\":\"a\\\"id\\\":5,\",\"id\":9}"), "9",
                   "an id spelled inside a string value is not the message's id");
        TAP_EQ_STR(id_of("{\"result\":{\"s\":\"}}}\"},\"id\":-3}"), "-3", "brackets inside strings do not end a value");
        TAP_EQ_STR(id_of("{\"method\":\"Target.targetCreated\",\"params\":{\"id\":1}}"), "none", "an event has no id");
        TAP_EQ_STR(id_of("{\"id\":1,\"id\":2}"), "none", "an id given twice is no usable id");
        TAP_EQ_STR(id_of("{\"id\":\"3\"}"), "none", "a string id is no usable id");
        TAP_EQ_STR(id_of("{\"id\":1.5}"), "none", "a fractional id is no usable id");
        TAP_EQ_STR(id_of("{\"\\u0069d\":1}"), "none", "an escaped key is not taken for id");
        TAP_EQ_STR(id_of("[1,2]"), "none", "an array is not a command");
        TAP_EQ_STR(id_of("{}"), "none", "an empty object has no id");
        TAP_EQ_STR(id_of("{\"id\":1"), "bad", "an unterminated object is malformed");
        TAP_EQ_STR(id_of("{\"id\":1}x"), "bad", "text after the object is malformed");
        TAP_EQ_STR(id_of("{\"id\" 1}"), "bad", "a member without ':' is malformed");
        TAP_EQ_STR(id_of("{\"m\":\"abc}"), "bad", "an unterminated string is malformed");

        TAP_EQ_STR(cut_of("{\"sessionId\":\"S\", \"id\":1}", "sessionId"), "{ \"id\":1}",
                   "the cut of a first member runs from its key to its comma (what the relay inserts, exactly)");
        TAP_EQ_STR(cut_of("{\"id\":1, \"result\":{},\"sessionId\" : \"S\" }", "sessionId"), "{\"id\":1, \"result\":{} }",
                   "the cut of a last member runs from the value before it");
        TAP_EQ_STR(cut_of("{ \"sessionId\":\"S\" }", "sessionId"), "{  }", "the cut of the only member leaves an empty object");
        TAP_EQ_STR(cut_of("{\"sessionId\":\"S\",\"sessionId\":\"T\"}", "sessionId"), "count 2",
                   "the scan counts a key given twice");
        TAP_EQ_STR(cut_of("{\"\\u0073essionId\":\"S\",\"id\":1}", "sessionId"), "count 0 escaped",
                   "the scan reports a key written with an escape, without taking it for the key it may spell");
        TAP_EQ_INT(cdp_message_scan("{\"a\":{\"\\u0073\":1}}", 18, "x", NULL, &escaped), 0,
                   "an escape in a nested key ...");
        TAP_EQ_INT(escaped, false, "... is not a top-level escape");
}

/* One client: the handshake, the ids, the sessionId inserted and taken back out. */
static void test_relay(bool bytewise) {
        const char *how = bytewise ? "one byte at a time" : "in one piece";
        struct cdp_relay r;
        int a;

        cdp_relay_init(&r);
        feed(&r, BROWSER, "{\"method\":\"Target.targetCreated\",\"params\":{}}|", bytewise);
        TAP_EQ_INT(r.dropped_events, 1, "%s: an event of the pipe's own session goes to nobody", how);

        a = cdp_relay_client_open(&r);
        TAP_EQ_INT(a, 0, "%s: the first client gets slot 0", how);
        TAKE_EQ(&r.to_browser, "{\"id\":1,\"method\":\"Target.attachToBrowserTarget\"}|",
                "%s: a client's connection makes the relay ask for a browser session of its own", how);
        TAP_EQ_INT(feed(&r, a, "{\"id\":5,\"method\":\"A\"}|{\"method\":\"B\", \"id\":6 }|{\"id\":", bytewise), 0,
                   "%s: commands before the session exists are accepted", how);
        TAP_EQ_INT(buffer_len(&r.to_browser), 0, "%s: ... and wait for it: nothing reaches the browser", how);
        feed(&r, BROWSER, "{\"method\":\"Target.attachedToTarget\",\"params\":{\"sessionId\":\"B1\"}}|"
                          "{\"id\":1,\"result\":{\"sessionId\":\"B1\"}}|", bytewise);
        TAKE_EQ(&r.to_browser, "{\"sessionId\":\"B1\",\"id\":2,\"method\":\"A\"}|{\"sessionId\":\"B1\",\"method\":\"B\", \"id\":3 }|",
                "%s: once the session exists the queued commands reach the browser framed by NUL, with the relay's ids "
                "and the client's browser session inserted; a partial one waits", how);
        TAP_EQ_INT(buffer_len(out(&r, a)), 0, "%s: the attach's answer and event are not the client's", how);

        feed(&r, BROWSER, "{\"id\":3,\"result\":{\"v\":\"{\\\"id\\\":1}\"},\"sessionId\":\"B1\"}|"
                          "{\"method\":\"E\",\"params\":{\"id\":1},\"sessionId\":\"B1\"}|"
                          "{\"id\":2,\"result\":{},\"sessionId\":\"B1\"}|{\"method\":\"Root\"}|", bytewise);
        TAKE_EQ(out(&r, a), "{\"id\":6,\"result\":{\"v\":\"{\\\"id\\\":1}\"}}|{\"method\":\"E\",\"params\":{\"id\":1}}|"
                            "{\"id\":5,\"result\":{}}|",
                "%s: answers get the client's ids back and events of its browser session reach it, both without that "
                "sessionId (its root connection), in the browser's order; the pipe's own events do not", how);

        feed(&r, a, "7,\"method\":\"D\"}|", bytewise);
        TAKE_EQ(&r.to_browser, "{\"sessionId\":\"B1\",\"id\":4,\"method\":\"D\"}|",
                "%s: a command split across reads is relayed once whole", how);

        feed(&r, a, "{\"method\":\"C\"}|{\"id\":\"x\"}|[1]|{\"id\":1|{\"\\u0069d\":8,\"id\":9}|"
                    "{\"id\":10,\"sessionId\":\"B1\",\"sessionId\":\"B1\"}|", bytewise);
        TAP_EQ_INT(buffer_len(&r.to_browser), 0, "%s: commands the relay cannot route never reach the browser", how);
        TAKE_EQ(out(&r, a), "{\"error\": {\"code\": -32600, \"message\": \"Message must have integer 'id' property\"}}|"
                            "{\"error\": {\"code\": -32600, \"message\": \"Message must have integer 'id' property\"}}|"
                            "{\"error\": {\"code\": -32600, \"message\": \"Message must have integer 'id' property\"}}|"
                            "{\"error\": {\"code\": -32700, \"message\": \"Message must be a JSON object\"}}|"
                            "{\"id\": 9, \"error\": {\"code\": -32600, \"message\": \"Message keys must be written without escapes\"}}|"
                            "{\"id\": 10, \"error\": {\"code\": -32600, \"message\": \"Message has more than one 'sessionId' property\"}}|",
                "%s: ... and are answered at once: no id, a string id, no object, malformed JSON, an escaped key "
                "(the browser would read \\u0069d as id), sessionId twice", how);
        TAP_EQ_INT(r.refused_messages, 6, "%s: ... each counted", how);

        feed(&r, a, "{\"id\":11,\"sessionId\":\"B1\",\"method\":\"F\"}|", bytewise);
        TAKE_EQ(&r.to_browser, "{\"id\":5,\"sessionId\":\"B1\",\"method\":\"F\"}|",
                "%s: a command naming the client's browser session passes with it", how);
        feed(&r, BROWSER, "{\"id\":5,\"result\":{},\"sessionId\":\"B1\"}|", bytewise);
        TAKE_EQ(out(&r, a), "{\"id\":11,\"result\":{},\"sessionId\":\"B1\"}|", "%s: ... and its answer keeps it", how);

        /* The client leaves with command 4 unanswered; the next client reuses id 7. */
        cdp_relay_client_gone(&r, (unsigned) a);
        TAKE_EQ(&r.to_browser, "{\"id\":6,\"method\":\"Target.detachFromTarget\",\"params\":{\"sessionId\":\"B1\"}}|",
                "%s: a client that leaves has its browser session detached", how);
        a = attached_client(&r, "B2");
        TAP_EQ_INT(a, 0, "%s: the next client gets the free slot", how);
        feed(&r, a, "{\"id\":7,\"method\":\"F\"}|", bytewise);
        TAKE_EQ(&r.to_browser, "{\"sessionId\":\"B2\",\"id\":8,\"method\":\"F\"}|",
                "%s: the next client's reused id gets a fresh relay id, and its own session", how);
        feed(&r, BROWSER, "{\"id\":6,\"result\":{}}|{\"id\":4,\"result\":{\"old\":true},\"sessionId\":\"B1\"}|"
                          "{\"method\":\"Old\",\"sessionId\":\"B1\"}|{\"id\":8,\"result\":{\"new\":true},\"sessionId\":\"B2\"}|",
             bytewise);
        TAKE_EQ(out(&r, a), "{\"id\":7,\"result\":{\"new\":true}}|",
                "%s: the detach's answer, a late answer and a late event of the departed client are dropped, not "
                "given to the next one", how);
        TAP_EQ_INT(r.dropped_answers, 1, "%s: ... the late answer counted", how);

        feed(&r, BROWSER, "{\"id\":99,\"result\":{}}|", bytewise);
        TAP_EQ_INT(buffer_len(out(&r, a)), 0, "%s: an answer to no command of ours is dropped", how);
        cdp_relay_done(&r);
}

/* Two clients at once: answers and events never cross. */
static void test_two_clients(bool bytewise) {
        const char *how = bytewise ? "one byte at a time" : "in one piece";
        struct cdp_relay r;
        int a, b;

        cdp_relay_init(&r);
        a = cdp_relay_client_open(&r);
        b = cdp_relay_client_open(&r);
        TAP_EQ_INT(b, 1, "%s: a second client is served beside the first (slot 1)", how);
        TAKE_EQ(&r.to_browser, "{\"id\":1,\"method\":\"Target.attachToBrowserTarget\"}|"
                               "{\"id\":2,\"method\":\"Target.attachToBrowserTarget\"}|",
                "%s: ... each with a browser session asked for", how);
        feed(&r, a, "{\"id\":1,\"method\":\"Target.setAutoAttach\"}|", bytewise);
        feed(&r, b, "{\"id\":1,\"method\":\"Target.setAutoAttach\"}|", bytewise);
        /* The browser answers the second one first. */
        feed(&r, BROWSER, "{\"id\":2,\"result\":{\"sessionId\":\"BB\"}}|", bytewise);
        TAKE_EQ(&r.to_browser, "{\"sessionId\":\"BB\",\"id\":3,\"method\":\"Target.setAutoAttach\"}|",
                "%s: the client whose session exists goes on; the other one still waits", how);
        feed(&r, BROWSER, "{\"id\":1,\"result\":{\"sessionId\":\"BA\"}}|", bytewise);
        TAKE_EQ(&r.to_browser, "{\"sessionId\":\"BA\",\"id\":4,\"method\":\"Target.setAutoAttach\"}|",
                "%s: ... then the first, on its own session", how);

        feed(&r, BROWSER, "{\"id\":4,\"result\":{},\"sessionId\":\"BA\"}|"
                          "{\"method\":\"Target.attachedToTarget\",\"params\":{\"sessionId\":\"PB\"},\"sessionId\":\"BB\"}|"
                          "{\"id\":3,\"result\":{},\"sessionId\":\"BB\"}|"
                          "{\"method\":\"Target.attachedToTarget\",\"params\":{\"sessionId\":\"PA\"},\"sessionId\":\"BA\"}|",
             bytewise);
        TAKE_EQ(out(&r, a), "{\"id\":1,\"result\":{}}|{\"method\":\"Target.attachedToTarget\",\"params\":{\"sessionId\":\"PA\"}}|",
                "%s: the first client gets its answer to id 1 and its attachedToTarget only", how);
        TAKE_EQ(out(&r, b), "{\"method\":\"Target.attachedToTarget\",\"params\":{\"sessionId\":\"PB\"}}|{\"id\":1,\"result\":{}}|",
                "%s: the second client gets its attachedToTarget and its answer to id 1 only", how);

        feed(&r, a, "{\"id\":2,\"method\":\"Runtime.evaluate\",\"sessionId\":\"PA\"}|", bytewise);
        feed(&r, b, "{\"id\":2,\"method\":\"Runtime.evaluate\",\"sessionId\":\"PB\"}|", bytewise);
        TAKE_EQ(&r.to_browser, "{\"id\":5,\"method\":\"Runtime.evaluate\",\"sessionId\":\"PA\"}|"
                               "{\"id\":6,\"method\":\"Runtime.evaluate\",\"sessionId\":\"PB\"}|",
                "%s: commands on owned child sessions pass with their sessionId", how);
        feed(&r, BROWSER, "{\"id\":6,\"result\":{\"v\":\"b\"},\"sessionId\":\"PB\"}|{\"method\":\"Page.x\",\"sessionId\":\"PA\"}|"
                          "{\"id\":5,\"result\":{\"v\":\"a\"},\"sessionId\":\"PA\"}|{\"method\":\"Page.y\",\"sessionId\":\"PB\"}|",
             bytewise);
        TAKE_EQ(out(&r, a), "{\"method\":\"Page.x\",\"sessionId\":\"PA\"}|{\"id\":2,\"result\":{\"v\":\"a\"},\"sessionId\":\"PA\"}|",
                "%s: the first client gets its page's answer and events, sessionId kept", how);
        TAKE_EQ(out(&r, b), "{\"id\":2,\"result\":{\"v\":\"b\"},\"sessionId\":\"PB\"}|{\"method\":\"Page.y\",\"sessionId\":\"PB\"}|",
                "%s: the second client gets its page's, never the first's", how);

        feed(&r, b, "{\"id\":3,\"method\":\"Runtime.evaluate\",\"sessionId\":\"PA\"}|"
                    "{\"id\":4,\"method\":\"Browser.close\",\"sessionId\":\"BA\"}|", bytewise);
        TAP_EQ_INT(buffer_len(&r.to_browser), 0, "%s: a message naming another client's session never reaches the browser", how);
        TAKE_EQ(out(&r, b), "{\"id\": 3, \"error\": {\"code\": -32001, \"message\": \"Session with given id not found for this client\"}, \"sessionId\": \"PA\"}|"
                            "{\"id\": 4, \"error\": {\"code\": -32001, \"message\": \"Session with given id not found for this client\"}, \"sessionId\": \"BA\"}|",
                "%s: ... it is answered at once with -32001, be it a child session or the other's browser session", how);
        TAP_EQ_INT(buffer_len(out(&r, a)), 0, "%s: ... and the owner hears nothing of it", how);

        /* The first leaves: the second keeps working, the first's sessions are nobody's. */
        feed(&r, a, "{\"id\":9,\"method\":\"Slow\"}|", bytewise);
        free(take(&r.to_browser));
        cdp_relay_client_gone(&r, (unsigned) a);
        TAKE_EQ(&r.to_browser, "{\"id\":8,\"method\":\"Target.detachFromTarget\",\"params\":{\"sessionId\":\"BA\"}}|",
                "%s: the departed client's browser session is detached", how);
        feed(&r, BROWSER, "{\"id\":7,\"result\":{},\"sessionId\":\"BA\"}|{\"method\":\"Page.x\",\"sessionId\":\"PA\"}|"
                          "{\"id\":8,\"result\":{}}|", bytewise);
        TAP_EQ_INT(buffer_len(out(&r, b)), 0, "%s: its late answer, its page's events, the detach's answer reach no one", how);
        feed(&r, b, "{\"id\":5,\"method\":\"Runtime.evaluate\",\"sessionId\":\"PB\"}|", bytewise);
        TAKE_EQ(&r.to_browser, "{\"id\":9,\"method\":\"Runtime.evaluate\",\"sessionId\":\"PB\"}|",
                "%s: the remaining client is served on", how);
        cdp_relay_done(&r);
}

/* Child sessions: owned through attachedToTarget and the attachToTarget answer, forgotten on detachedFromTarget. */
static void test_children(void) {
        struct cdp_relay r;
        int a, b;

        cdp_relay_init(&r);
        a = attached_client(&r, "BA");
        b = attached_client(&r, "BB");
        feed(&r, a, "{\"id\":1,\"method\":\"Target.attachToTarget\",\"params\":{\"targetId\":\"T\",\"flatten\":true}}|", false);
        TAKE_EQ(&r.to_browser, "{\"sessionId\":\"BA\",\"id\":3,\"method\":\"Target.attachToTarget\",\"params\":{\"targetId\":\"T\",\"flatten\":true}}|",
                "Target.attachToTarget goes on the client's browser session");
        feed(&r, BROWSER, "{\"id\":3,\"result\":{\"sessionId\":\"C1\"},\"sessionId\":\"BA\"}|", false);
        TAKE_EQ(out(&r, a), "{\"id\":1,\"result\":{\"sessionId\":\"C1\"}}|", "its answer names the new session");
        feed(&r, a, "{\"id\":2,\"method\":\"Page.enable\",\"sessionId\":\"C1\"}|", false);
        TAKE_EQ(&r.to_browser, "{\"id\":4,\"method\":\"Page.enable\",\"sessionId\":\"C1\"}|",
                "the session in the answer to Target.attachToTarget is the client's");
        feed(&r, b, "{\"id\":1,\"method\":\"Page.enable\",\"sessionId\":\"C1\"}|", false);
        TAP_EQ_INT(buffer_len(&r.to_browser), 0, "... and not the other client's");
        free(take(out(&r, b)));

        /* Nested: a worker auto-attached below C1. */
        feed(&r, BROWSER, "{\"method\":\"Target.attachedToTarget\",\"params\":{\"sessionId\":\"W1\",\"targetInfo\":{}},\"sessionId\":\"C1\"}|", false);
        TAKE_EQ(out(&r, a), "{\"method\":\"Target.attachedToTarget\",\"params\":{\"sessionId\":\"W1\",\"targetInfo\":{}},\"sessionId\":\"C1\"}|",
                "attachedToTarget on a child session reaches the child's owner");
        feed(&r, BROWSER, "{\"method\":\"Runtime.consoleAPICalled\",\"sessionId\":\"W1\"}|", false);
        TAKE_EQ(out(&r, a), "{\"method\":\"Runtime.consoleAPICalled\",\"sessionId\":\"W1\"}|",
                "... and the grandchild it names is that client's too");
        TAP_EQ_INT(r.clients[a].n_sessions, 3, "... three sessions: the browser session, the page, the worker");

        feed(&r, BROWSER, "{\"method\":\"Target.detachedFromTarget\",\"params\":{\"sessionId\":\"W1\"},\"sessionId\":\"C1\"}|"
                          "{\"method\":\"Runtime.consoleAPICalled\",\"sessionId\":\"W1\"}|", false);
        TAKE_EQ(out(&r, a), "{\"method\":\"Target.detachedFromTarget\",\"params\":{\"sessionId\":\"W1\"},\"sessionId\":\"C1\"}|",
                "detachedFromTarget reaches the owner, and later events of the detached session none");
        feed(&r, a, "{\"id\":3,\"method\":\"Runtime.enable\",\"sessionId\":\"W1\"}|", false);
        TAP_EQ_INT(buffer_len(&r.to_browser), 0, "a detached session is forgotten: a command on it is refused");
        free(take(out(&r, a)));
        TAP_EQ_INT(r.clients[a].n_sessions, 2, "... two sessions left");
        cdp_relay_done(&r);
}

/* Leaving: before the session exists, and while commands are in flight. */
static void test_gone(void) {
        struct cdp_relay r;
        int a;

        cdp_relay_init(&r);
        a = cdp_relay_client_open(&r);
        free(take(&r.to_browser));
        feed(&r, a, "{\"id\":1,\"method\":\"A\"}|", false);
        cdp_relay_client_gone(&r, (unsigned) a);
        TAP_EQ_INT(buffer_len(&r.to_browser), 0, "a client leaving before its session exists sends nothing ...");
        feed(&r, BROWSER, "{\"id\":1,\"result\":{\"sessionId\":\"BX\"}}|", false);
        TAKE_EQ(&r.to_browser, "{\"id\":2,\"method\":\"Target.detachFromTarget\",\"params\":{\"sessionId\":\"BX\"}}|",
                "... and its session is detached when it comes, its queued commands never sent");
        feed(&r, BROWSER, "{\"id\":2,\"result\":{}}|", false);
        TAP_EQ_INT(r.n_pending, 0, "nothing stays pending");
        TAP_EQ_INT(r.dropped_answers, 0, "the relay's own answers are not counted as dropped");

        a = cdp_relay_client_open(&r);
        free(take(&r.to_browser));
        feed(&r, BROWSER, "{\"id\":3,\"error\":{\"code\":-32000,\"message\":\"no\"}}|", false);
        TAP_EQ_INT(r.clients[a].error, -EPROTO, "a client whose browser session is refused is failed (the caller drops it)");
        cdp_relay_client_gone(&r, (unsigned) a);
        TAP_EQ_INT(buffer_len(&r.to_browser), 0, "... and there is nothing to detach");
        cdp_relay_done(&r);
}

static void test_caps(void) {
        struct cdp_relay r;
        char msg[128];
        int slots[CDP_CLIENTS_MAX], a, k = 0;

        cdp_relay_init(&r);
        for (unsigned i = 0; i < CDP_CLIENTS_MAX; i++)
                slots[i] = cdp_relay_client_open(&r);
        TAP_EQ_INT(slots[CDP_CLIENTS_MAX - 1], CDP_CLIENTS_MAX - 1, "%d clients are served at once", CDP_CLIENTS_MAX);
        TAP_EQ_INT(cdp_relay_client_open(&r), -EUSERS, "one more is refused with -EUSERS");
        cdp_relay_client_gone(&r, 3);
        TAP_EQ_INT(cdp_relay_client_open(&r), 3, "a slot is free again when its client leaves");
        cdp_relay_done(&r);

        cdp_relay_init(&r);
        r.queue_max = 1024;
        a = cdp_relay_client_open(&r);
        for (unsigned i = 0; i < 64 && k == 0; i++)
                k = feed(&r, a, "{\"id\":1,\"method\":\"Runtime.evaluate\",\"params\":{\"expression\":\"1\"}}|", false);
        TAP_EQ_INT(k, -ENOBUFS, "a client queueing more than queue_max before its session exists is refused (-ENOBUFS)");
        cdp_relay_done(&r);

        cdp_relay_init(&r);
        a = attached_client(&r, "BA");
        for (unsigned i = 1; i < CDP_SESSIONS_MAX; i++) {
                snprintf(msg, sizeof msg, "{\"method\":\"Target.attachedToTarget\",\"params\":{\"sessionId\":\"C%u\"},\"sessionId\":\"BA\"}|", i);
                feed(&r, BROWSER, msg, false);
        }
        TAP_EQ_INT(r.clients[a].n_sessions, CDP_SESSIONS_MAX, "a client owns up to %d sessions", CDP_SESSIONS_MAX);
        TAP_EQ_INT(r.clients[a].error, 0, "... and is served");
        feed(&r, BROWSER, "{\"method\":\"Target.attachedToTarget\",\"params\":{\"sessionId\":\"C1\"},\"sessionId\":\"BA\"}|", false);
        TAP_EQ_INT(r.clients[a].error, 0, "a session attached again is no new one");
        feed(&r, BROWSER, "{\"method\":\"Target.attachedToTarget\",\"params\":{\"sessionId\":\"CX\"},\"sessionId\":\"BA\"}|", false);
        TAP_EQ_INT(r.clients[a].error, -ENOBUFS, "one more fails the client (-ENOBUFS: its events could not be routed)");
        TAP_EQ_INT(r.clients[a].n_sessions, CDP_SESSIONS_MAX, "... and is not remembered");
        cdp_relay_done(&r);

        cdp_relay_init(&r);
        a = attached_client(&r, "BA");
        for (unsigned i = 0; i < CDP_PENDING_MAX; i++)
                feed(&r, a, "{\"id\":1,\"method\":\"Runtime.evaluate\"}|", false);
        TAP_EQ_INT(r.clients[a].n_pending, CDP_PENDING_MAX, "a client has up to %d commands in flight", CDP_PENDING_MAX);
        free(take(out(&r, a)));
        free(take(&r.to_browser));
        feed(&r, a, "{\"id\":2,\"method\":\"Runtime.evaluate\"}|", false);
        TAP_EQ_INT(buffer_len(&r.to_browser), 0, "one more never reaches the browser");
        TAKE_EQ(out(&r, a), "{\"id\": 2, \"error\": {\"code\": -32000, \"message\": \"Too many commands in flight for this client\"}}|",
                "... and is answered at once");
        TAP_EQ_INT(r.n_pending, CDP_PENDING_MAX, "the relay's pending list does not grow past the cap");
        cdp_relay_done(&r);
}

/* While a human holds control: every message of every client answered with the fence's error, nothing to the browser. */
static void test_fence(bool bytewise) {
        const char *how = bytewise ? "one byte at a time" : "in one piece";
        struct cdp_relay r;
        int a, b, c;

        cdp_relay_init(&r);
        a = attached_client(&r, "BA");
        b = attached_client(&r, "BB");
        feed(&r, BROWSER, "{\"method\":\"Target.attachedToTarget\",\"params\":{\"sessionId\":\"AB12\"},\"sessionId\":\"BA\"}|", false);
        free(take(out(&r, a)));
        feed(&r, a, "{\"id\":5,\"method\":\"Runtime.evaluate\",\"sessionId\":\"AB12\"}|{\"id\":6,\"method\":\"B\"}|", bytewise);
        feed(&r, b, "{\"id\":5,\"method\":\"C\"}|", bytewise);
        c = cdp_relay_client_open(&r);
        feed(&r, c, "{\"id\":1,\"method\":\"Q\"}|", bytewise);
        free(take(&r.to_browser));
        TAP_EQ_INT(cdp_relay_fence(&r, true), 0, "%s: the fence goes up", how);
        TAKE_EQ(out(&r, a), "{\"id\": 5, \"error\": {\"code\": -32000, \"message\": \"human_has_control\"}, \"sessionId\": \"AB12\"}|"
                            "{\"id\": 6, \"error\": {\"code\": -32000, \"message\": \"human_has_control\"}}|",
                "%s: the first client's commands in flight are answered with human_has_control at once, with their sessionId", how);
        TAKE_EQ(out(&r, b), "{\"id\": 5, \"error\": {\"code\": -32000, \"message\": \"human_has_control\"}}|",
                "%s: ... so are the second client's, to it", how);
        TAKE_EQ(out(&r, c), "{\"id\": 1, \"error\": {\"code\": -32000, \"message\": \"human_has_control\"}}|",
                "%s: ... and those of a client still waiting for its session", how);
        feed(&r, BROWSER, "{\"id\":5,\"result\":{\"secret\":1},\"sessionId\":\"BB\"}|"
                          "{\"method\":\"Page.frameNavigated\",\"params\":{},\"sessionId\":\"AB12\"}|"
                          "{\"method\":\"Target.attachedToTarget\",\"params\":{\"sessionId\":\"P2\"},\"sessionId\":\"BB\"}|", bytewise);
        TAP_EQ_INT(buffer_len(out(&r, a)) + buffer_len(out(&r, b)), 0,
                   "%s: late results and the browser's events reach neither client", how);

        feed(&r, a, "{\"id\":7,\"method\":\"Runtime.evaluate\",\"params\":{\"expression\":\"1\"}}|{\"method\":\"x\"}|", bytewise);
        feed(&r, b, "{\"id\":8,\"method\":\"Browser.getVersion\"}|", bytewise);
        TAP_EQ_INT(buffer_len(&r.to_browser), 0, "%s: a command under the fence never reaches the browser", how);
        TAKE_EQ(out(&r, a), "{\"id\": 7, \"error\": {\"code\": -32000, \"message\": \"human_has_control\"}}|"
                            "{\"error\": {\"code\": -32000, \"message\": \"human_has_control\"}}|",
                "%s: ... and is answered with the error (without id when it had none)", how);
        TAKE_EQ(out(&r, b), "{\"id\": 8, \"error\": {\"code\": -32000, \"message\": \"human_has_control\"}}|",
                "%s: ... to whichever client sent it", how);
        TAP_EQ_INT(r.fenced_messages, 7, "%s: ... each counted", how);

        TAP_EQ_INT(cdp_relay_fence(&r, false), 0, "%s: the fence goes down", how);
        feed(&r, a, "{\"id\":8,\"method\":\"C\"}|", bytewise);
        feed(&r, b, "{\"id\":9,\"method\":\"D\",\"sessionId\":\"P2\"}|", bytewise);
        TAKE_EQ(&r.to_browser, "{\"sessionId\":\"BA\",\"id\":7,\"method\":\"C\"}|{\"id\":8,\"method\":\"D\",\"sessionId\":\"P2\"}|",
                "%s: after the hand-back commands reach the browser again (on a session attached under the fence too)", how);
        feed(&r, BROWSER, "{\"id\":7,\"result\":{},\"sessionId\":\"BA\"}|{\"method\":\"E\",\"sessionId\":\"BA\"}|", bytewise);
        TAKE_EQ(out(&r, a), "{\"id\":8,\"result\":{}}|{\"method\":\"E\"}|", "%s: ... and answers and events reach the agent", how);
        cdp_relay_done(&r);
}

/* A message over the cap: the client is refused (the caller drops that connection alone). */
static void test_oversized(void) {
        struct cdp_relay r;
        size_t chunk = 1024, sent = 0;
        char *big = malloc(chunk);
        int k = 0, a, b;

        memset(big, 'x', chunk);
        big[0] = '{';
        cdp_relay_init(&r);
        TAP_EQ_INT(r.message_max, CDP_MESSAGE_MAX, "the cap is CDP_MESSAGE_MAX (lowered below for the test)");
        r.message_max = 64 * 1024;
        a = attached_client(&r, "BA");
        b = attached_client(&r, "BB");
        while (k == 0 && sent <= r.message_max) {
                k = cdp_relay_from_client(&r, (unsigned) a, big, chunk);
                big[0] = 'x';
                sent += chunk;
        }
        TAP_EQ_INT(k, -EMSGSIZE, "a client message past the cap without its NUL is refused (-EMSGSIZE)");
        TAP_EQ_INT(buffer_len(&r.to_browser), 0, "... and nothing of it reached the browser");
        TAP_EQ_INT(feed(&r, b, "{\"id\":1,\"method\":\"A\"}|", false), 0, "the other client is served on");
        free(take(&r.to_browser));
        cdp_relay_client_gone(&r, (unsigned) a);
        a = attached_client(&r, "BC");
        TAP_EQ_INT(feed(&r, a, "{\"id\":1,\"method\":\"A\"}|", false), 0, "the next connection is served");
        cdp_relay_done(&r);
        free(big);
}

/* botdesk.attachRoot: a page as the client's root connection, as a page's own WebSocket has it. */
static void test_root(void) {
        struct cdp_relay r;
        int a;

        cdp_relay_init(&r);
        a = attached_client(&r, "B1");
        TAP_EQ_INT(feed(&r, a, "{\"id\":1,\"method\":\"botdesk.attachRoot\",\"params\":{\"targetId\":\"AB12cd\"}}|"
                               "{\"id\":2,\"method\":\"Runtime.evaluate\"}|", false), 0,
                   "a client's first command botdesk.attachRoot, and one after it, are accepted");
        TAKE_EQ(&r.to_browser, "{\"id\":2,\"method\":\"Target.attachToTarget\",\"params\":{\"targetId\":\"AB12cd\",\"flatten\":true}}|",
                "... the relay attaches the page on the pipe's own session; the next command waits");
        feed(&r, BROWSER, "{\"method\":\"Target.attachedToTarget\",\"params\":{\"sessionId\":\"P1\"}}|"
                          "{\"id\":2,\"result\":{\"sessionId\":\"P1\"}}|", false);
        TAKE_EQ(&r.to_browser, "{\"id\":3,\"method\":\"Target.detachFromTarget\",\"params\":{\"sessionId\":\"B1\"}}|"
                               "{\"sessionId\":\"P1\",\"id\":4,\"method\":\"Runtime.evaluate\"}|",
                "once attached, its browser session is detached and the waiting command goes to the page");
        TAP_EQ_INT(buffer_len(out(&r, a)), 0, "botdesk.attachRoot gets no answer, and the attach's event is nobody's");
        feed(&r, BROWSER, "{\"id\":3,\"result\":{}}|{\"id\":4,\"result\":{\"v\":1},\"sessionId\":\"P1\"}|"
                          "{\"method\":\"Page.loadEventFired\",\"params\":{},\"sessionId\":\"P1\"}|"
                          "{\"method\":\"Target.targetCreated\",\"params\":{},\"sessionId\":\"B1\"}|", false);
        TAKE_EQ(out(&r, a), "{\"id\":2,\"result\":{\"v\":1}}|{\"method\":\"Page.loadEventFired\",\"params\":{}}|",
                "the page's answers and events reach it without a sessionId; the old browser session's are not its");
        feed(&r, a, "{\"id\":5,\"method\":\"botdesk.attachRoot\",\"params\":{\"targetId\":\"X\"}}|", false);
        TAKE_EQ(out(&r, a), "{\"id\": 5, \"error\": {\"code\": -32000, \"message\": \"botdesk.attachRoot must be the first command\"}}|",
                "botdesk.attachRoot after another command is refused");
        cdp_relay_client_gone(&r, (unsigned) a);
        TAKE_EQ(&r.to_browser, "{\"id\":5,\"method\":\"Target.detachFromTarget\",\"params\":{\"sessionId\":\"P1\"}}|",
                "a client that leaves has its page session detached");

        a = attached_client(&r, "B2");
        TAP_EQ_INT(feed(&r, a, "{\"id\":1,\"method\":\"botdesk.attachRoot\",\"params\":{\"targetId\":\"a\\\"b\"}}|", false),
                   -EPROTO, "a target id that is not letters and digits fails the client (-EPROTO)");
        TAP_EQ_INT(buffer_len(&r.to_browser), 0, "... and nothing of it reaches the browser");
        cdp_relay_client_gone(&r, (unsigned) a);
        free(take(&r.to_browser));
        a = attached_client(&r, "B3");
        feed(&r, a, "{\"id\":1,\"method\":\"botdesk.attachRoot\",\"params\":{\"targetId\":\"GONE\"}}|", false);
        {
                char *sent = take(&r.to_browser), answer[160];
                unsigned long long id = 0;

                tap_ok(sscanf(sent, "{\"id\":%llu,", &id) == 1, "the attach of a page the browser no longer has is sent");
                free(sent);
                snprintf(answer, sizeof answer,
                         "{\"id\":%llu,\"error\":{\"code\":-32602,\"message\":\"No target with given id found\"}}|", id);
                feed(&r, BROWSER, answer, false);
        }
        TAP_EQ_INT(r.clients[a].error, -EPROTO, "a target the browser cannot attach fails the client (its error -EPROTO)");
        cdp_relay_done(&r);
}

int main(void) {
        test_message_id();
        test_relay(false);
        test_relay(true);
        test_two_clients(false);
        test_two_clients(true);
        test_children();
        test_gone();
        test_caps();
        test_fence(false);
        test_fence(true);
        test_oversized();
        test_root();
        return tap_done();
}
