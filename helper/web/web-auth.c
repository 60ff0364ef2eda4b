/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * botdesk web: whether a request's Host and Origin are ours. Pure
 * predicates over the request; web-http.c answers a refusal (HTTP 403, or
 * close 4403 on a WebSocket upgrade).
 */
#include <arpa/inet.h>
#include <strings.h>

#include "util.h"
#include "web.h"

/* The first of a comma-separated list (a proxy chain's X-Forwarded-Host), without blanks. */
static bool first_item_equals(const char *list, const char *text) {
        size_t l;

        list += strspn(list, " \t");
        l = strcspn(list, ", \t");
        return l > 0 && strlen(text) == l && strncasecmp(list, text, l) == 0;
}

/*
 * A state-changing request (take, release, the stream) comes from our own
 * page or from no page at all. A browser names the page's origin in Origin
 * on every POST and WebSocket upgrade, so a page of another site, or of
 * another port or subdomain of the gateway, is refused; SameSite does not
 * keep those out, since every port of a host is the same site.
 *
 * The origin must be [web] origin when set; else, over TCP, http:// and
 * the Host (already checked to be the loopback); behind a proxy (Unix
 * socket), http:// or https:// and the host the proxy forwards
 * (X-Forwarded-Host, else Host). by_cookie: over TCP, a request that only
 * a cookie vouches for must carry an Origin (a ticket is its own token;
 * a cookie is sent by the browser whoever asks).
 */
enum web_origin_verdict web_origin_check(const struct web_server *s, const struct http_request *req,
                                         const char *configured, bool by_cookie) {
        const char *origin = http_header(req, "Origin"), *host = http_header(req, "Host"), *o;
        const char *fwd = s->tcp ? NULL : http_header(req, "X-Forwarded-Host");

        if (!origin)
                return !s->tcp || !by_cookie ? WEB_ORIGIN_OK : WEB_ORIGIN_MISSING;
        if (configured && configured[0]) {
                if (strcasecmp(origin, configured) == 0)
                        return WEB_ORIGIN_OK;
        } else if (s->tcp) {
                o = startswith(origin, "http://");
                if (o && host && strcasecmp(o, host) == 0)
                        return WEB_ORIGIN_OK;
        } else {
                o = startswith(origin, "https://") ?: startswith(origin, "http://");
                if (o && (fwd ? first_item_equals(fwd, o) : host && strcasecmp(o, host) == 0))
                        return WEB_ORIGIN_OK;
        }
        return WEB_ORIGIN_OTHER;
}

/*
 * Over TCP the Host must name the loopback: a name of another site that
 * resolves here (DNS rebinding) would otherwise make its pages same-origin
 * with ours. Tickets already keep such pages out; this keeps them from
 * even seeing a 401.
 */
bool web_host_ok(const struct web_server *s, const struct http_request *req) {
        const char *host = http_header(req, "Host");
        char name[64];
        struct in_addr a;
        size_t l;

        if (!s->tcp)
                return true;
        if (host && host[0] == '[')
                l = strcspn(host, "]") + 1;
        else
                l = host ? strcspn(host, ":") : 0;
        if (host && l < sizeof name && (host[l] == 0 || host[l] == ':')) {
                memcpy(name, host, l);
                name[l] = 0;
                if (streq(name, "localhost") || streq(name, "[::1]") ||
                    (inet_pton(AF_INET, name, &a) == 1 && (ntohl(a.s_addr) >> 24) == 127))
                        return true;
        }
        return false;
}
