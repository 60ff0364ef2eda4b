/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <xcb/xcbext.h>

#include "util.h"
#include "xsecurity.h"

#define SECURITY_GENERATE_AUTHORIZATION 1
#define SECURITY_VALUE_TIMEOUT 0x1u
#define SECURITY_VALUE_TRUST_LEVEL 0x2u
#define SECURITY_CLIENT_TRUSTED 0u

static xcb_extension_t security_extension = { "SECURITY", 0 };

/* The request's fixed part; the opcode and length are xcb's to fill in. */
struct generate_request {
        uint8_t major_opcode;
        uint8_t minor_opcode;
        uint16_t length;
        uint16_t protocol_name_len;
        uint16_t protocol_data_len;
        uint32_t value_mask;
};

struct generate_reply {
        uint8_t response_type;
        uint8_t pad0;
        uint16_t sequence;
        uint32_t length;
        uint32_t authorization_id;
        uint16_t data_len;
        uint8_t pad1[18];
};

int xsecurity_new_cookie(xcb_connection_t *conn, uint8_t ret_cookie[XAUTH_COOKIE_SIZE], uint32_t *ret_id) {
        static const char protocol[] = XAUTH_PROTOCOL;
        static const uint8_t zeros[4] = {};
        const xcb_query_extension_reply_t *ext;
        struct generate_request req = {
                .protocol_name_len = sizeof protocol - 1,
                /* No data of ours: the server would only mix it into the
                 * random cookie it makes, which the reply carries. */
                .protocol_data_len = 0,
                .value_mask = SECURITY_VALUE_TIMEOUT | SECURITY_VALUE_TRUST_LEVEL,
        };
        /* The values in the order of their mask bits. Timeout 0: the
         * authorization never expires. Without it the server's default
         * applies, 60 s after its last client leaves, and an adopted
         * desktop left without X clients would refuse the profile's next
         * one with the cookie its environment names. */
        uint32_t values[2] = { 0, SECURITY_CLIENT_TRUSTED };
        /* xcb_send_request() needs two spare iovecs before the request's. */
        struct iovec parts[2 + 4] = {};
        struct iovec *v = parts + 2;
        xcb_protocol_request_t pr = {
                .count = 4,
                .ext = &security_extension,
                .opcode = SECURITY_GENERATE_AUTHORIZATION,
                .isvoid = 0,
        };
        struct generate_reply *reply;
        xcb_generic_error_t *err = NULL;
        unsigned seq;

        ext = xcb_get_extension_data(conn, &security_extension);
        if (!ext || !ext->present)
                return -EOPNOTSUPP;
        v[0] = (struct iovec) { &req, sizeof req };
        v[1] = (struct iovec) { (void *) protocol, sizeof protocol - 1 };
        v[2] = (struct iovec) { (void *) zeros, (4 - (sizeof protocol - 1) % 4) % 4 };
        v[3] = (struct iovec) { values, sizeof values };
        seq = xcb_send_request(conn, XCB_REQUEST_CHECKED, v, &pr);
        if (seq == 0)
                return -EPIPE;
        reply = xcb_wait_for_reply(conn, seq, &err);
        if (!reply) {
                free(err);
                return xcb_connection_has_error(conn) ? -EPIPE : -EPROTO;
        }
        if (reply->data_len != XAUTH_COOKIE_SIZE || reply->length * 4 < XAUTH_COOKIE_SIZE) {
                free(reply);
                return -EPROTO;
        }
        memcpy(ret_cookie, reply + 1, XAUTH_COOKIE_SIZE);
        if (ret_id)
                *ret_id = reply->authorization_id;
        free(reply);
        return 0;
}
