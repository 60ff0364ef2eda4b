/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "jsonrpc.h"
#include "util.h"

int jsonrpc_reader_init(struct jsonrpc_reader *r, int fd) {
        *r = (struct jsonrpc_reader) { .fd = fd };
        r->buf = malloc(JSONRPC_LINE_MAX + 1);
        return r->buf ? 0 : -ENOMEM;
}

void jsonrpc_reader_done(struct jsonrpc_reader *r) {
        free(r->buf);
        r->buf = NULL;
}

int jsonrpc_read_line(struct jsonrpc_reader *r, char **ret, size_t *ret_len) {
        size_t scanned = 0;

        /* Drop the line handed out last time. */
        if (r->line_end > 0) {
                memmove(r->buf, r->buf + r->line_end, r->len - r->line_end);
                r->len -= r->line_end;
                r->line_end = 0;
        }
        for (;;) {
                char *nl = memchr(r->buf + scanned, '\n', r->len - scanned);
                ssize_t n;

                if (nl) {
                        size_t end = (size_t) (nl - r->buf);

                        r->line_end = end + 1;
                        if (r->discarding) {
                                /* The tail of the oversized line: gone, and said once. */
                                r->discarding = false;
                                return -EMSGSIZE;
                        }
                        *nl = 0;
                        /* CRLF framing from a client that writes it is still one line. */
                        if (end > 0 && r->buf[end - 1] == '\r')
                                r->buf[--end] = 0;
                        *ret = r->buf;
                        *ret_len = end;
                        return 1;
                }
                scanned = r->len;
                if (r->len >= JSONRPC_LINE_MAX) {
                        /* Too long: forget what is buffered and skip to the newline. */
                        r->discarding = true;
                        r->len = scanned = 0;
                }
                n = read(r->fd, r->buf + r->len, JSONRPC_LINE_MAX - r->len);
                if (n < 0) {
                        if (errno == EINTR)
                                continue;
                        return negative_errno();
                }
                if (n == 0) {
                        if (r->discarding) {
                                r->discarding = false;
                                return -EMSGSIZE;
                        }
                        if (r->len == 0)
                                return 0;
                        /* A last line without its newline. */
                        r->buf[r->len] = 0;
                        r->line_end = r->len;
                        *ret = r->buf;
                        *ret_len = r->len;
                        return 1;
                }
                r->len += (size_t) n;
        }
}

bool jsonrpc_reader_buffered(const struct jsonrpc_reader *r) {
        return r->buf && memchr(r->buf + r->line_end, '\n', r->len - r->line_end);
}

static void begin(struct json *j, FILE *f, const struct json_value *id) {
        json_init(j, f);
        json_object_begin(j);
        json_kv_string(j, "jsonrpc", "2.0");
        json_key(j, "id");
        if (id)
                json_value_write(j, id);
        else
                json_null(j);
}

void jsonrpc_write_error_data(FILE *f, const struct json_value *id, int code, const char *message, const char *data) {
        struct json j;

        begin(&j, f, id);
        json_key(&j, "error");
        json_object_begin(&j);
        json_kv_int(&j, "code", code);
        json_kv_string(&j, "message", message);
        if (data) {
                json_key(&j, "data");
                json_raw(&j, data);
        }
        json_object_end(&j);
        json_object_end(&j);
        fputc('\n', f);
        fflush(f);
}

void jsonrpc_write_error(FILE *f, const struct json_value *id, int code, const char *message) {
        jsonrpc_write_error_data(f, id, code, message, NULL);
}

void jsonrpc_write_result(FILE *f, const struct json_value *id, const char *result) {
        struct json j;

        begin(&j, f, id);
        json_key(&j, "result");
        json_raw(&j, result);
        json_object_end(&j);
        fputc('\n', f);
        fflush(f);
}
