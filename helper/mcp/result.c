/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What a tool's handler writes (server.h): its result's content items,
 * text, images and embedded files, an error result, or input requests;
 * and what it may ask of the request it runs for.
 */
#include <errno.h>
#include <nettle/base64.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "server.h"
#include "util.h"

void mcp_result_text(struct mcp_result *res, const char *text) {
        json_object_begin(&res->j);
        json_kv_string(&res->j, "type", "text");
        json_kv_string(&res->j, "text", text);
        json_object_end(&res->j);
}

/* A text item (an error result's, when error) from a format. */
_printf_(3, 0) static void text_vprintf(struct mcp_result *res, bool error, const char *fmt, va_list ap) {
        _cleanup_free_ char *t = strdup_vprintf(fmt, ap);

        if (error)
                res->is_error = true;
        mcp_result_text(res, t ?: "(out of memory)");
}

void mcp_result_textf(struct mcp_result *res, const char *fmt, ...) {
        va_list ap;

        va_start(ap, fmt);
        text_vprintf(res, false, fmt, ap);
        va_end(ap);
}

void mcp_result_errorf(struct mcp_result *res, const char *fmt, ...) {
        va_list ap;

        va_start(ap, fmt);
        text_vprintf(res, true, fmt, ap);
        va_end(ap);
}

int mcp_result_error_take(struct mcp_result *res, char *message) {
        if (!message)
                return -ENOMEM;
        mcp_result_error(res, message);
        free(message);
        return 0;
}

void mcp_result_image(struct mcp_result *res, const char *mime, const char *base64) {
        json_object_begin(&res->j);
        json_kv_string(&res->j, "type", "image");
        json_kv_string(&res->j, "data", base64);
        json_kv_string(&res->j, "mimeType", mime);
        json_object_end(&res->j);
}

int mcp_base64_decode(const char *b64, size_t max, uint8_t **ret, size_t *ret_size) {
        _cleanup_free_ uint8_t *buf = NULL;
        struct base64_decode_ctx ctx;
        size_t len = strlen(b64), n = 0;

        /* Refused before a byte is allocated: 4 characters make 3 bytes. */
        if (len / 4 > max / 3 + 1)
                return -EFBIG;
        buf = malloc(BASE64_DECODE_LENGTH(len) + 1);
        if (!buf)
                return -ENOMEM;
        base64_decode_init(&ctx);
        if (!base64_decode_update(&ctx, &n, buf, len, b64) || !base64_decode_final(&ctx))
                return -EINVAL;
        if (n > max)
                return -EFBIG;
        *ret = TAKE_PTR(buf);
        *ret_size = n;
        return 0;
}

void mcp_result_blob(struct mcp_result *res, const char *uri, const char *mime, const char *base64) {
        json_object_begin(&res->j);
        json_kv_string(&res->j, "type", "resource");
        json_key(&res->j, "resource");
        json_object_begin(&res->j);
        json_kv_string(&res->j, "uri", uri);
        json_kv_string(&res->j, "mimeType", mime);
        json_kv_string(&res->j, "blob", base64);
        json_object_end(&res->j);
        json_object_end(&res->j);
}

void mcp_result_error(struct mcp_result *res, const char *text) {
        res->is_error = true;
        mcp_result_text(res, text);
}

void mcp_result_input_required(struct mcp_result *res, char *input_requests, char *request_state) {
        free(res->input_requests);
        free(res->request_state);
        res->input_requests = input_requests;
        res->request_state = request_state;
}

bool mcp_call_client_can(const struct mcp_call *call, const char *name) {
        const struct json_value *v = call ? json_get(call->client_capabilities, name) : NULL;

        return v && v->type == JSON_OBJECT;
}

bool mcp_call_client_extends(const struct mcp_call *call, const char *name) {
        const struct json_value *v = call ? json_get(json_get(call->client_capabilities, "extensions"), name) : NULL;

        return v && v->type == JSON_OBJECT;
}
