/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <string.h>
#include <strings.h>

#include "http.h"
#include "util.h"

void http_request_init(struct http_request *r) {
        r->method = r->target = r->path = r->query = NULL;
        r->minor = 0;
        r->n_headers = 0;
        r->content_length = 0;
        r->body_max = 0;
        r->size = 0;
        r->crlf = 0;
        r->done = false;
        r->buf[0] = 0;
}

/* RFC 9110 5.6.2 tchar. */
static bool is_tchar(unsigned char c) {
        if ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))
                return true;
        return c && strchr("!#$%&'*+-.^_`|~", c);
}

static bool is_token(const char *s) {
        if (!*s)
                return false;
        for (; *s; s++)
                if (!is_tchar((unsigned char) *s))
                        return false;
        return true;
}

static int parse_request_line(struct http_request *r, char *line) {
        char *sp1, *sp2, *q;

        sp1 = strchr(line, ' ');
        if (!sp1)
                return -EBADMSG;
        *sp1 = 0;
        sp2 = strchr(sp1 + 1, ' ');
        if (!sp2)
                return -EBADMSG;
        *sp2 = 0;
        if (!is_token(line))
                return -EBADMSG;
        r->method = line;
        r->target = sp1 + 1;
        /* origin-form only: a path, no absolute URL, no asterisk. */
        if (r->target[0] != '/')
                return -EBADMSG;
        for (const char *p = r->target; *p; p++)
                if ((unsigned char) *p <= 0x20 || (unsigned char) *p >= 0x7f)
                        return -EBADMSG;
        if (strncmp(sp2 + 1, "HTTP/1.", 7) != 0 || sp2[8] < '0' || sp2[8] > '9' || sp2[9] != 0)
                return -EBADMSG;
        r->minor = (unsigned) (sp2[8] - '0');

        /* The path alone gets a NUL-terminated copy once the head is parsed. */
        q = strchr(r->target, '?');
        r->path = q ? NULL : r->target;
        r->query = q ? q + 1 : NULL;
        return 0;
}

static int parse_header(struct http_request *r, char *line) {
        char *colon = strchr(line, ':'), *v, *end;

        /* Leading whitespace is obs-fold, refused by RFC 9112 5.2. */
        if (!colon || colon == line)
                return -EBADMSG;
        *colon = 0;
        if (!is_token(line))
                return -EBADMSG;
        v = colon + 1;
        while (*v == ' ' || *v == '\t')
                v++;
        end = v + strlen(v);
        while (end > v && (end[-1] == ' ' || end[-1] == '\t'))
                *--end = 0;
        for (const char *p = v; *p; p++) {
                unsigned char c = (unsigned char) *p;
                if ((c < 0x20 && c != '\t') || c == 0x7f)
                        return -EBADMSG;
        }
        if (r->n_headers >= HTTP_HEADERS_MAX)
                return -EBADMSG;
        r->headers[r->n_headers++] = (struct http_header) { .name = line, .value = v };
        return 0;
}

static int count_headers(const struct http_request *r, const char *name) {
        int n = 0;
        for (size_t i = 0; i < r->n_headers; i++)
                n += strcasecmp(r->headers[i].name, name) == 0;
        return n;
}

static int parse_head(struct http_request *r) {
        char *p = r->buf, *end = r->buf + r->size, *nl;
        bool first = true;
        unsigned long long length;
        const char *cl;
        int k;

        if (memchr(r->buf, 0, r->size))
                return -EBADMSG;
        /* The head ends in "\r\n\r\n": drop the last CRLF pair so every line ends in one. */
        end -= 2;
        while (p < end) {
                nl = memchr(p, '\n', (size_t) (end - p));
                if (!nl || nl == p || nl[-1] != '\r')
                        return -EBADMSG;
                nl[-1] = 0;
                *nl = 0;
                if (strchr(p, '\r'))
                        return -EBADMSG;
                k = first ? parse_request_line(r, p) : parse_header(r, p);
                if (k < 0)
                        return k;
                first = false;
                p = nl + 1;
        }
        if (first)
                return -EBADMSG;

        if (r->query) {
                /* In the second half of buf: the head fills at most the first. */
                size_t plen = (size_t) (r->query - 1 - r->target);
                char *copy = r->buf + r->size + 1;

                memcpy(copy, r->target, plen);
                copy[plen] = 0;
                r->path = copy;
        }

        if (count_headers(r, "Host") > 1 || count_headers(r, "Content-Length") > 1)
                return -EBADMSG;
        if (r->minor >= 1 && count_headers(r, "Host") == 0)
                return -EBADMSG;
        /* A body only where the caller takes one, of a length said first: a chunked one could only smuggle. */
        if (count_headers(r, "Transfer-Encoding") > 0)
                return -EBADMSG;
        cl = http_header(r, "Content-Length");
        if (!cl)
                return 0;
        if (r->body_max == 0)
                return strcmp(cl, "0") == 0 ? 0 : -EBADMSG;
        if (!*cl || strspn(cl, "0123456789") != strlen(cl))
                return -EBADMSG;
        /* Digits alone: past 19 of them, or past the cap, it is too long whatever it says. */
        if (strlen(cl) > 19 || parse_uint(cl, r->body_max, &length) < 0)
                return -EFBIG;
        r->content_length = (size_t) length;
        return 0;
}

int http_request_feed(struct http_request *r, const void *data, size_t n, size_t *consumed) {
        const char *d = data;
        size_t i;
        int k;

        *consumed = 0;
        if (r->done)
                return 1;
        for (i = 0; i < n; i++) {
                char c = d[i];

                if (r->size >= HTTP_HEAD_MAX) {
                        *consumed = i;
                        return -E2BIG;
                }
                r->buf[r->size++] = c;
                if (c == '\r')
                        r->crlf = (r->crlf == 0 || r->crlf == 2) ? r->crlf + 1 : 1;
                else if (c == '\n' && (r->crlf == 1 || r->crlf == 3))
                        r->crlf++;
                else
                        r->crlf = 0;
                if (r->crlf == 4) {
                        *consumed = i + 1;
                        r->buf[r->size] = 0;
                        k = parse_head(r);
                        if (k < 0)
                                return k;
                        r->done = true;
                        return 1;
                }
        }
        *consumed = n;
        return 0;
}

const char *http_header(const struct http_request *r, const char *name) {
        for (size_t i = 0; i < r->n_headers; i++)
                if (strcasecmp(r->headers[i].name, name) == 0)
                        return r->headers[i].value;
        return NULL;
}

bool http_header_has_token(const struct http_request *r, const char *name, const char *token) {
        size_t tl = strlen(token);

        for (size_t i = 0; i < r->n_headers; i++) {
                const char *p;

                if (strcasecmp(r->headers[i].name, name) != 0)
                        continue;
                for (p = r->headers[i].value; *p;) {
                        size_t l;

                        while (*p == ' ' || *p == '\t' || *p == ',')
                                p++;
                        l = strcspn(p, ", \t");
                        if (l == tl && strncasecmp(p, token, tl) == 0)
                                return true;
                        p += l;
                }
        }
        return false;
}

static int copy_value(const char *v, size_t l, char *ret, size_t size) {
        if (l + 1 > size)
                return -ENOBUFS;
        memcpy(ret, v, l);
        ret[l] = 0;
        return 1;
}

int http_query_get(const char *query, const char *key, char *ret, size_t size) {
        size_t kl = strlen(key);

        for (const char *p = query; p && *p;) {
                size_t l = strcspn(p, "&");

                if (l > kl && strncmp(p, key, kl) == 0 && p[kl] == '=')
                        return copy_value(p + kl + 1, l - kl - 1, ret, size);
                p += l;
                if (*p == '&')
                        p++;
        }
        return 0;
}

int http_cookie_get(const struct http_request *r, const char *name, char *ret, size_t size) {
        size_t nl = strlen(name);

        for (size_t i = 0; i < r->n_headers; i++) {
                if (strcasecmp(r->headers[i].name, "Cookie") != 0)
                        continue;
                for (const char *p = r->headers[i].value; *p;) {
                        size_t l;

                        while (*p == ' ' || *p == ';')
                                p++;
                        l = strcspn(p, ";");
                        if (l > nl && strncmp(p, name, nl) == 0 && p[nl] == '=')
                                return copy_value(p + nl + 1, l - nl - 1, ret, size);
                        p += l;
                }
        }
        return 0;
}

static int unhex(char c) {
        if (c >= '0' && c <= '9')
                return c - '0';
        if (c >= 'a' && c <= 'f')
                return c - 'a' + 10;
        if (c >= 'A' && c <= 'F')
                return c - 'A' + 10;
        return -1;
}

int http_segment_decode(const char *s, size_t n, char *ret, size_t size) {
        size_t o = 0;

        for (size_t i = 0; i < n; i++) {
                char c = s[i];

                if (c == '%') {
                        int hi, lo;

                        if (n - i < 3 || (hi = unhex(s[i + 1])) < 0 || (lo = unhex(s[i + 2])) < 0)
                                return -EINVAL;
                        c = (char) (hi << 4 | lo);
                        i += 2;
                        if (c == 0 || c == '/' || c == '\\')
                                return -EINVAL;
                }
                if (o + 1 >= size)
                        return -EINVAL;
                ret[o++] = c;
        }
        ret[o] = 0;
        /* ".", ".." and hidden names never reach openat(). */
        if (o == 0 || ret[0] == '.')
                return -EINVAL;
        return 0;
}

const char *http_status_text(unsigned status) {
        switch (status) {
        case 101: return "Switching Protocols";
        case 200: return "OK";
        case 202: return "Accepted";
        case 303: return "See Other";
        case 400: return "Bad Request";
        case 401: return "Unauthorized";
        case 403: return "Forbidden";
        case 404: return "Not Found";
        case 405: return "Method Not Allowed";
        case 413: return "Content Too Large";
        case 415: return "Unsupported Media Type";
        case 426: return "Upgrade Required";
        case 429: return "Too Many Requests";
        case 431: return "Request Header Fields Too Large";
        case 500: return "Internal Server Error";
        case 502: return "Bad Gateway";
        case 503: return "Service Unavailable";
        default: return "Unknown";
        }
}
