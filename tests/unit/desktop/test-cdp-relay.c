/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <stdlib.h>

#include "cdp-relay.h"
#include "tap.h"
#include "util.h"

/* The messages in a buffer, each NUL shown as '|', and the buffer emptied. */
static char *take(struct cdp_buf *b) {
        size_t n = cdp_buf_len(b);
        char *s = malloc(n + 1);

        memcpy(s, b->data + b->start, n);
        for (size_t i = 0; i < n; i++)
                if (s[i] == 0)
                        s[i] = '|';
        s[n] = 0;
        cdp_buf_consume(b, n);
        return s;
}

/* Feed text, each '|' a NUL, one byte at a time or all at once. */
static int feed(struct cdp_relay *r, bool browser, const char *text, bool bytewise) {
        size_t n = strlen(text);
        char *d = strdup(text);
        int k = 0;

        for (size_t i = 0; i < n; i++)
                if (d[i] == '|')
                        d[i] = 0;
        for (size_t i = 0; i < n && k >= 0; i += bytewise ? 1 : n) {
                size_t len = bytewise ? 1 : n;
                k = browser ? cdp_relay_from_browser(r, d + i, len) : cdp_relay_from_client(r, d + i, len);
        }
        free(d);
        return k;
}

static const char *id_of(const char *msg) {
        static char out[64];
        size_t s, e;
        int k = cdp_message_id(msg, strlen(msg), &s, &e);

        if (k < 0)
                return "bad";
        if (k == 0)
                return "none";
        snprintf(out, sizeof out, "%.*s", (int) (e - s), msg + s);
        return out;
}

static void test_message_id(void) {
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
}

static void test_relay(bool bytewise) {
        const char *how = bytewise ? "one byte at a time" : "in one piece";
        struct cdp_relay r;
        char *s;

        cdp_relay_init(&r);
        feed(&r, true, "{\"method\":\"Target.targetCreated\",\"params\":{}}|", bytewise);
        TAP_EQ_INT(cdp_buf_len(&r.to_client), 0, "%s: an event while no client is attached goes nowhere", how);

        cdp_relay_client_open(&r);
        TAP_EQ_INT(feed(&r, false, "{\"id\":5,\"method\":\"A\"}|{\"method\":\"B\", \"id\":6 }|{\"method\":\"C\"}|{\"id\":", bytewise),
                   0, "%s: commands are accepted", how);
        s = take(&r.to_browser);
        TAP_EQ_STR(s, "{\"id\":1,\"method\":\"A\"}|{\"method\":\"B\", \"id\":2 }|{\"method\":\"C\"}|",
                   "%s: whole commands reach the browser framed by NUL, with the relay's ids; a partial one waits; "
                   "one without id passes unchanged", how);
        free(s);

        feed(&r, true, "{\"id\":2,\"result\":{\"v\":\"{\\\"id\\\":1}\"}}|{\"method\":\"E\",\"params\":{\"id\":1}}|{\"id\":1,\"result\":{}}|",
             bytewise);
        s = take(&r.to_client);
        TAP_EQ_STR(s, "{\"id\":6,\"result\":{\"v\":\"{\\\"id\\\":1}\"}}|{\"method\":\"E\",\"params\":{\"id\":1}}|{\"id\":5,\"result\":{}}|",
                   "%s: answers get the client's ids back, in the browser's order; events pass unchanged", how);
        free(s);

        feed(&r, false, "7,\"method\":\"D\"}|", bytewise);
        s = take(&r.to_browser);
        TAP_EQ_STR(s, "{\"id\":3,\"method\":\"D\"}|", "%s: a command split across reads is relayed once whole", how);
        free(s);

        /* The client leaves with command 3 unanswered; the next client reuses id 7. */
        cdp_relay_client_gone(&r);
        cdp_relay_client_open(&r);
        feed(&r, false, "{\"id\":7,\"method\":\"F\"}|", bytewise);
        s = take(&r.to_browser);
        TAP_EQ_STR(s, "{\"id\":4,\"method\":\"F\"}|", "%s: the next client's reused id gets a fresh relay id", how);
        free(s);
        feed(&r, true, "{\"id\":3,\"result\":{\"old\":true}}|{\"id\":4,\"result\":{\"new\":true}}|", bytewise);
        s = take(&r.to_client);
        TAP_EQ_STR(s, "{\"id\":7,\"result\":{\"new\":true}}|",
                   "%s: a late answer to the departed client is dropped, not given to the next one", how);
        free(s);
        TAP_EQ_INT(r.dropped_answers, 1, "%s: ... and counted", how);

        feed(&r, true, "{\"id\":99,\"result\":{}}|", bytewise);
        TAP_EQ_INT(cdp_buf_len(&r.to_client), 0, "%s: an answer to no command of ours is dropped", how);
        cdp_relay_done(&r);
}

/* While a human holds control: every message answered with the fence's error, nothing to the browser. */
static void test_fence(bool bytewise) {
        const char *how = bytewise ? "one byte at a time" : "in one piece";
        struct cdp_relay r;
        char *s;

        cdp_relay_init(&r);
        cdp_relay_client_open(&r);
        feed(&r, false, "{\"id\":5,\"method\":\"Runtime.evaluate\",\"sessionId\":\"AB12\"}|{\"id\":6,\"method\":\"B\"}|",
             bytewise);
        free(take(&r.to_browser));
        TAP_EQ_INT(cdp_relay_fence(&r, true), 0, "%s: the fence goes up", how);
        s = take(&r.to_client);
        TAP_EQ_STR(s, "{\"id\": 5, \"error\": {\"code\": -32000, \"message\": \"human_has_control\"}, \"sessionId\": \"AB12\"}|"
                      "{\"id\": 6, \"error\": {\"code\": -32000, \"message\": \"human_has_control\"}}|",
                   "%s: the commands in flight are answered with human_has_control at once, with their sessionId", how);
        free(s);
        feed(&r, true, "{\"id\":1,\"result\":{\"secret\":1}}|{\"method\":\"Page.frameNavigated\",\"params\":{}}|", bytewise);
        TAP_EQ_INT(cdp_buf_len(&r.to_client), 0, "%s: their late results and the browser's events do not reach the agent", how);

        feed(&r, false, "{\"id\":7,\"method\":\"Runtime.evaluate\",\"params\":{\"expression\":\"1\"}}|{\"method\":\"x\"}|",
             bytewise);
        TAP_EQ_INT(cdp_buf_len(&r.to_browser), 0, "%s: a command under the fence never reaches the browser", how);
        s = take(&r.to_client);
        TAP_EQ_STR(s, "{\"id\": 7, \"error\": {\"code\": -32000, \"message\": \"human_has_control\"}}|"
                      "{\"error\": {\"code\": -32000, \"message\": \"human_has_control\"}}|",
                   "%s: ... and is answered with the error (without id when it had none)", how);
        free(s);
        TAP_EQ_INT(r.fenced_messages, 4, "%s: ... each counted", how);

        TAP_EQ_INT(cdp_relay_fence(&r, false), 0, "%s: the fence goes down", how);
        feed(&r, false, "{\"id\":8,\"method\":\"C\"}|", bytewise);
        s = take(&r.to_browser);
        TAP_EQ_STR(s, "{\"id\":3,\"method\":\"C\"}|", "%s: after the hand-back commands reach the browser again", how);
        free(s);
        feed(&r, true, "{\"id\":3,\"result\":{}}|{\"method\":\"E\"}|", bytewise);
        s = take(&r.to_client);
        TAP_EQ_STR(s, "{\"id\":8,\"result\":{}}|{\"method\":\"E\"}|", "%s: ... and answers and events reach the agent", how);
        free(s);
        cdp_relay_done(&r);
}

/* A message over the cap: the client is refused (the caller drops that connection alone). */
static void test_oversized(void) {
        struct cdp_relay r;
        size_t chunk = 1024, sent = 0;
        char *big = malloc(chunk);
        int k = 0;

        memset(big, 'x', chunk);
        big[0] = '{';
        cdp_relay_init(&r);
        TAP_EQ_INT(r.message_max, CDP_MESSAGE_MAX, "the cap is CDP_MESSAGE_MAX (lowered below for the test)");
        r.message_max = 64 * 1024;
        cdp_relay_client_open(&r);
        while (k == 0 && sent <= r.message_max) {
                k = cdp_relay_from_client(&r, big, chunk);
                big[0] = 'x';
                sent += chunk;
        }
        TAP_EQ_INT(k, -EMSGSIZE, "a client message past the cap without its NUL is refused (-EMSGSIZE)");
        TAP_EQ_INT(cdp_buf_len(&r.to_browser), 0, "... and nothing of it reached the browser");
        cdp_relay_client_gone(&r);
        cdp_relay_client_open(&r);
        TAP_EQ_INT(feed(&r, false, "{\"id\":1,\"method\":\"A\"}|", false), 0, "the next connection is served");
        cdp_relay_done(&r);
        free(big);
}

int main(void) {
        test_message_id();
        test_relay(false);
        test_relay(true);
        test_fence(false);
        test_fence(true);
        test_oversized();
        return tap_done();
}
