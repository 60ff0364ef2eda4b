/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * [network] allow and deny parsed (net-policy.h): address ranges and domain
 * names, and what each kind of bad entry is refused for; which addresses a
 * list covers, and where the helper's probe goes.
 */
#include "tap.h"

#include <arpa/inet.h>
#include <errno.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "net-policy.h"
#include "util.h"

/* text parses as a list of n_cidrs ranges (the first formatted as first) and n_domains names. */
static void good(const char *text, bool domains, size_t n_cidrs, const char *first, size_t n_domains) {
        _cleanup_(net_list_done) struct net_list l = {};
        _cleanup_free_ char *problem = NULL;
        char buf[NET_CIDR_TEXT_MAX];

        if (!tap_ok(net_list_parse(text, domains, &l, &problem) == 0, "\"%s\" parses", text)) {
                printf("#   %s\n", problem ?: "");
                return;
        }
        TAP_EQ_INT(l.n_cidrs, n_cidrs, "\"%s\": %zu ranges", text, n_cidrs);
        TAP_EQ_INT(strv_length(l.domains), n_domains, "\"%s\": %zu names", text, n_domains);
        if (first && l.n_cidrs > 0)
                TAP_EQ_STR(net_cidr_format(&l.cidrs[0], buf), first, "\"%s\": the first range", text);
}

/* text is refused, with a problem that contains why. */
static void bad(const char *text, bool domains, const char *why) {
        _cleanup_(net_list_done) struct net_list l = {};
        _cleanup_free_ char *problem = NULL;

        TAP_EQ_INT(net_list_parse(text, domains, &l, &problem), -EINVAL, "\"%s\" is refused", text);
        if (!tap_ok(problem && strstr(problem, why), "\"%s\": the problem says \"%s\"", text, why))
                printf("#   got: %s\n", problem ?: "(none)");
}

static bool covers(const struct net_list *l, const char *address) {
        uint8_t a[16];

        if (inet_pton(AF_INET, address, a) == 1)
                return net_list_covers(l, AF_INET, a);
        if (inet_pton(AF_INET6, address, a) == 1)
                return net_list_covers(l, AF_INET6, a);
        return false;
}

/* Whether the proxy's filter (one ERE a line, as tinyproxy's FilterType ere reads it) lets host through. */
static bool filter_passes(const char *filter, const char *host) {
        _cleanup_free_ char *copy = strdup(filter);
        bool pass = false;

        for (char *line = copy, *next; line && *line; line = next) {
                regex_t re;

                next = strchr(line, '\n');
                if (next)
                        *next++ = '\0';
                if (regcomp(&re, line, REG_EXTENDED | REG_NOSUB | REG_ICASE) != 0)
                        abort();
                pass |= regexec(&re, host, 0, NULL, 0) == 0;
                regfree(&re);
        }
        return pass;
}

static void check_proxy(void) {
        _cleanup_(net_policy_done) struct net_policy p = {};
        _cleanup_free_ char *problem = NULL, *filter = NULL;
        uint8_t a[4], b[4];

        net_proxy_address(1000, "work", a);
        net_proxy_address(1000, "play", b);
        tap_ok(a[0] == 127 && a[1] == 66 && a[2] >= 1 && a[2] <= 254 && a[3] >= 1 && a[3] <= 254,
               "the proxy's address is in 127.66.1.1-127.66.254.254 (%u.%u.%u.%u)", a[0], a[1], a[2], a[3]);
        tap_ok(memcmp(a, b, 4) != 0, "two profiles' proxies have addresses of their own");
        net_proxy_address(1000, "work", b);
        tap_ok(memcmp(a, b, 4) == 0, "the same profile's proxy is where it was");
        net_proxy_address(1001, "work", b);
        tap_ok(memcmp(a, b, 4) != 0, "another user's profile of the same name has another address");

        TAP_EQ_INT(net_policy_parse(NET_MODE_ALLOWLIST, "10.0.0.0/8 example.org *.Example.net", NULL, &p, &problem), 0,
                   "an allow list with names parses");
        tap_ok(net_policy_wants_proxy(&p), "allowlist with names wants the proxy");
        TAP_EQ_INT(net_policy_proxy_filter(&p, &filter), 0, "its filter is made");
        TAP_EQ_STR(filter, "^example\\.org$\n^[a-z0-9-]+\\.example\\.net$\n", "one anchored ERE a name");
        tap_ok(filter_passes(filter, "example.org"), "example.org passes");
        tap_ok(filter_passes(filter, "www.example.net"), "www.example.net passes (*.example.net)");
        tap_ok(!filter_passes(filter, "example.net"), "example.net itself does not (the wildcard is one label below)");
        tap_ok(!filter_passes(filter, "a.b.example.net"), "a.b.example.net does not (one label, not two)");
        tap_ok(!filter_passes(filter, "exampleXorg"), "exampleXorg does not (the dot is a dot)");
        tap_ok(!filter_passes(filter, "example.org.evil.test"), "example.org.evil.test does not (anchored)");
        tap_ok(!filter_passes(filter, "10.0.0.1"), "an address does not (ranges are the firewall's)");
        free(filter);
        filter = NULL;
        p.mode = NET_MODE_OFFLINE;
        TAP_EQ_INT(net_policy_proxy_filter(&p, &filter), 0, "offline's filter is made");
        TAP_EQ_STR(filter, "", "offline's filter lets nothing through");
        free(filter);
        p.mode = NET_MODE_OPEN;
        TAP_EQ_INT(net_policy_proxy_filter(&p, &filter), 0, "open has no filter");
        tap_ok(!filter, "... (NULL: the proxy filters nothing)");
        tap_ok(!net_policy_wants_proxy(&p), "open does not want the proxy");
}

int main(void) {
        _cleanup_(net_list_done) struct net_list l = {};
        _cleanup_free_ char *problem = NULL;
        _cleanup_(net_policy_done) struct net_policy p = {};
        uint8_t probe[4];

        good("", true, 0, NULL, 0);
        good("  , ", true, 0, NULL, 0);
        good("192.0.2.0/24", false, 1, "192.0.2.0/24", 0);
        good("192.0.2.7", false, 1, "192.0.2.7/32", 0);
        good("2001:db8::/32, ::1", false, 2, "2001:db8::/32", 0);
        good("0.0.0.0/0", false, 1, "0.0.0.0/0", 0);
        good("10.0.0.0/8 example.org,*.example.org\tEXAMPLE.net", true, 1, "10.0.0.0/8", 3);
        good("xn--bcher-kva.example", true, 0, NULL, 1);

        bad("10.0.0.1/8", false, "bits set past its /8");
        bad("10.0.0.0/33", false, "prefix length is not 0..32");
        bad("2001:db8::/129", false, "0..128");
        bad("10.0.0.0/", false, "prefix length");
        bad("300.1.2.3/8", false, "not an address range");
        bad("example.org", false, "domain names only in allow");
        bad("*.*.example.org", true, "one \"*.\"");
        bad("ex*ample.org", true, "one \"*.\"");
        bad("*.org", true, "two labels or more");
        bad("-bad.example", true, "neither an address range nor a domain name");
        bad("a..b", true, "neither an address range nor a domain name");
        bad("under_score.example", true, "neither an address range nor a domain name");
        bad("a.b/24", true, "not an address range");

        tap_ok(net_list_parse("10.0.0.0/8 192.168.1.0/24 2001:db8::/32 127.0.0.2", false, &l, &problem) == 0,
               "a list of four ranges parses");
        tap_ok(covers(&l, "10.255.0.1"), "10.0.0.0/8 covers 10.255.0.1");
        tap_ok(!covers(&l, "11.0.0.1"), "nothing covers 11.0.0.1");
        tap_ok(covers(&l, "192.168.1.255") && !covers(&l, "192.168.2.0"), "a /24 ends where it should");
        tap_ok(covers(&l, "2001:db8:ffff::1") && !covers(&l, "2001:db9::1"), "an IPv6 /32 ends where it should");
        tap_ok(covers(&l, "127.0.0.2") && !covers(&l, "127.0.0.3"), "an address alone is its /32");
        tap_ok(!covers(&l, "::ffff:10.0.0.1"), "an IPv4 range does not cover an IPv6 address");

        TAP_EQ_INT(net_policy_probe_address(&l, probe), 0, "a probe address outside the allow list");
        TAP_EQ_INT(probe[0], 127, "the probe stays on loopback");
        net_list_done(&l);
        free(problem);
        problem = NULL;
        tap_ok(net_list_parse("127.255.0.0/16", false, &l, &problem) == 0, "127.255.0.0/16 parses");
        TAP_EQ_INT(net_policy_probe_address(&l, probe), 0, "a probe address beside an allowed loopback range");
        tap_ok(!net_list_covers(&l, AF_INET, probe), "the probe avoids the allowed range");
        net_list_done(&l);
        tap_ok(net_list_parse("127.0.0.0/8", false, &l, &problem) == 0, "127.0.0.0/8 parses");
        TAP_EQ_INT(net_policy_probe_address(&l, probe), -ENOENT, "no probe address when all loopback is allowed");

        TAP_EQ_INT(net_mode_from_string("allowlist"), NET_MODE_ALLOWLIST, "allowlist is a mode");
        TAP_EQ_INT(net_mode_from_string("closed"), -EINVAL, "closed is not a mode");
        TAP_EQ_INT(net_policy_parse(NET_MODE_OPEN, NULL, NULL, &p, &problem), 0, "open without lists parses");
        tap_ok(!net_policy_restricts(&p), "open without deny restricts nothing");
        net_policy_done(&p);
        TAP_EQ_INT(net_policy_parse(NET_MODE_OPEN, NULL, "192.0.2.0/24", &p, &problem), 0, "open with deny parses");
        tap_ok(net_policy_restricts(&p), "open with deny restricts");
        net_policy_done(&p);
        TAP_EQ_INT(net_policy_parse(NET_MODE_OFFLINE, NULL, "example.org", &p, &problem), -EINVAL,
                   "a name in deny is refused in a policy");
        check_proxy();
        return tap_done();
}
