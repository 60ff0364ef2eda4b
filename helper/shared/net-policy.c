/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "net-policy.h"
#include "util.h"

#define DOMAIN_MAX 253
#define LABEL_MAX 63

const char *const net_mode_words[_NET_MODE_MAX + 1] = {
        [NET_MODE_OPEN] = "open",
        [NET_MODE_ALLOWLIST] = "allowlist",
        [NET_MODE_OFFLINE] = "offline",
        NULL,
};

const char *net_mode_to_string(enum net_mode m) {
        return m >= 0 && m < _NET_MODE_MAX ? net_mode_words[m] : NULL;
}

int net_mode_from_string(const char *s) {
        for (int m = 0; m < _NET_MODE_MAX; m++)
                if (streq(s, net_mode_words[m]))
                        return m;
        return -EINVAL;
}

void net_list_done(struct net_list *l) {
        free(l->cidrs);
        strv_free(l->domains);
        *l = (struct net_list) {};
}

/* Whether the bits of addr past prefix are all zero. */
static bool host_bits_zero(const uint8_t *addr, unsigned bytes, unsigned prefix) {
        for (unsigned bit = prefix; bit < bytes * 8; bit++)
                if (addr[bit / 8] & (0x80u >> (bit % 8)))
                        return false;
        return true;
}

/* 1 and *c filled when word is a CIDR or an address; 0 when it is not one
 * (a name, perhaps); -EINVAL with the problem when it is one gone wrong. */
static int parse_cidr(const char *word, struct net_cidr *c, char **ret_problem) {
        char text[INET6_ADDRSTRLEN + 5];
        const char *slash = strchr(word, '/');
        size_t l = slash ? (size_t) (slash - word) : strlen(word);
        unsigned long long prefix;
        unsigned bytes;

        if (l >= INET6_ADDRSTRLEN)
                return 0;
        memcpy(text, word, l);
        text[l] = '\0';
        *c = (struct net_cidr) {};
        if (inet_pton(AF_INET, text, c->addr) == 1) {
                c->family = AF_INET;
                bytes = 4;
        } else if (inet_pton(AF_INET6, text, c->addr) == 1) {
                c->family = AF_INET6;
                bytes = 16;
        } else
                return slash ? problemf(ret_problem, "\"%s\" is not an address range (allowed: A.B.C.D/N or IPV6/N)",
                                        word) : 0;
        c->prefix = bytes * 8;
        if (slash) {
                if (parse_uint(slash + 1, bytes * 8, &prefix) < 0)
                        return problemf(ret_problem, "\"%s\": the prefix length is not 0..%u", word, bytes * 8);
                c->prefix = (unsigned) prefix;
        }
        if (!host_bits_zero(c->addr, bytes, c->prefix))
                return problemf(ret_problem, "\"%s\" has bits set past its /%u: name the range by its first address",
                                word, c->prefix);
        return 1;
}

static bool label_valid(const char *s, size_t l) {
        if (l == 0 || l > LABEL_MAX || s[0] == '-' || s[l - 1] == '-')
                return false;
        for (size_t i = 0; i < l; i++) {
                char ch = s[i];

                if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '-'))
                        return false;
        }
        return true;
}

/* A domain name, or "*." and one: 0, or -EINVAL with the problem. */
static int check_domain(const char *word, char **ret_problem) {
        const char *name = word;
        size_t labels = 0;

        if (startswith(word, "*."))
                name = word + 2;
        if (strchr(name, '*'))
                return problemf(ret_problem,
                                "\"%s\": a wildcard is one \"*.\" before a name, for the names one label below it", word);
        if (strlen(name) > DOMAIN_MAX)
                return problemf(ret_problem, "\"%s\" is longer than a domain name may be (%d characters)", word,
                                DOMAIN_MAX);
        for (const char *s = name;;) {
                size_t l = strcspn(s, ".");

                if (!label_valid(s, l))
                        return problemf(ret_problem,
                                        "\"%s\" is neither an address range nor a domain name (labels of A-Z a-z 0-9 -, "
                                        "at most %d each, separated by dots)", word, LABEL_MAX);
                labels++;
                s += l;
                if (!*s)
                        break;
                s++;
        }
        /* "*.org" would be a whole top-level domain. */
        if (name != word && labels < 2)
                return problemf(ret_problem, "\"%s\": a wildcard needs a name of two labels or more below it", word);
        return 0;
}

int net_list_parse(const char *text, bool domains, struct net_list *ret, char **ret_problem) {
        _cleanup_(net_list_done) struct net_list l = {};
        const char *seps = " \t,";
        int r;

        *ret_problem = NULL;
        for (const char *w = text + strspn(text, seps); *w; w += strspn(w, seps)) {
                size_t n = strcspn(w, seps);
                _cleanup_free_ char *word = strndup(w, n);
                struct net_cidr c;

                w += n;
                if (!word)
                        return -ENOMEM;
                r = parse_cidr(word, &c, ret_problem);
                if (r < 0)
                        return r;
                if (r > 0) {
                        struct net_cidr *more = reallocarray(l.cidrs, l.n_cidrs + 1, sizeof *more);

                        if (!more)
                                return -ENOMEM;
                        l.cidrs = more;
                        l.cidrs[l.n_cidrs++] = c;
                        continue;
                }
                if (!domains)
                        return problemf(ret_problem, "\"%s\" is not an address range (allowed: A.B.C.D/N or IPV6/N; "
                                                     "domain names only in allow)", word);
                r = check_domain(word, ret_problem);
                if (r < 0)
                        return r;
                for (char *ch = word; *ch; ch++)
                        if (*ch >= 'A' && *ch <= 'Z')
                                *ch = (char) (*ch - 'A' + 'a');
                r = strv_push(&l.domains, TAKE_PTR(word));
                if (r < 0)
                        return r;
        }
        *ret = l;
        l = (struct net_list) {};
        return 0;
}

bool net_list_covers(const struct net_list *l, int family, const uint8_t *addr) {
        for (size_t i = 0; i < l->n_cidrs; i++) {
                const struct net_cidr *c = &l->cidrs[i];
                unsigned full = c->prefix / 8, rest = c->prefix % 8;

                if (c->family != family || memcmp(c->addr, addr, full) != 0)
                        continue;
                if (rest == 0 || ((c->addr[full] ^ addr[full]) & (uint8_t) (0xff00u >> rest)) == 0)
                        return true;
        }
        return false;
}

char *net_cidr_format(const struct net_cidr *c, char buf[static NET_CIDR_TEXT_MAX]) {
        char a[INET6_ADDRSTRLEN] = "";

        (void) inet_ntop(c->family, c->addr, a, sizeof a);
        snprintf(buf, NET_CIDR_TEXT_MAX, "%s/%u", a, c->prefix);
        return buf;
}

int net_policy_probe_address(const struct net_list *allow, uint8_t ret[static 4]) {
        /* Loopback addresses no service binds: the datagram, where it is
         * not refused, goes nowhere beyond this host. */
        static const uint8_t candidates[][4] = {
                { 127, 255, 255, 254 }, { 127, 254, 0, 1 }, { 127, 128, 0, 1 },
        };

        for (size_t i = 0; i < ELEMENTSOF(candidates); i++)
                if (!allow || !net_list_covers(allow, AF_INET, candidates[i])) {
                        memcpy(ret, candidates[i], 4);
                        return 0;
                }
        return -ENOENT;
}

int net_policy_parse(unsigned mode, const char *allow, const char *deny, struct net_policy *ret, char **ret_problem) {
        _cleanup_(net_policy_done) struct net_policy p = {};
        int r;

        *ret_problem = NULL;
        if (mode >= _NET_MODE_MAX)
                return problemf(ret_problem, "mode %u is not open, allowlist or offline", mode);
        p.mode = (enum net_mode) mode;
        r = net_list_parse(allow ?: "", true, &p.allow, ret_problem);
        if (r >= 0)
                r = net_list_parse(deny ?: "", false, &p.deny, ret_problem);
        if (r < 0)
                return r;
        *ret = p;
        p = (struct net_policy) {};
        return 0;
}

void net_policy_done(struct net_policy *p) {
        net_list_done(&p->allow);
        net_list_done(&p->deny);
}

void net_proxy_address(unsigned uid, const char *profile, uint8_t ret[static 4]) {
        /* FNV-1a of "UID:PROFILE", folded onto 127.66.1.1-127.66.254.254. */
        uint32_t h = 2166136261u;
        char text[64];
        int n = snprintf(text, sizeof text, "%u:%s", uid, profile);

        for (int i = 0; i < n && i < (int) sizeof text; i++) {
                h ^= (uint8_t) text[i];
                h *= 16777619u;
        }
        ret[0] = 127;
        ret[1] = 66;
        ret[2] = (uint8_t) (1 + (h >> 8) % 254);
        ret[3] = (uint8_t) (1 + h % 254);
}

int net_policy_proxy_filter(const struct net_policy *p, char **ret) {
        _cleanup_free_ char *text = NULL;
        size_t size = 0;
        FILE *f;

        *ret = NULL;
        if (p->mode == NET_MODE_OPEN)
                return 0;
        f = open_memstream(&text, &size);
        if (!f)
                return -ENOMEM;
        for (char **d = p->mode == NET_MODE_ALLOWLIST ? p->allow.domains : NULL; d && *d; d++) {
                const char *name = *d;

                fputc('^', f);
                if (startswith(name, "*.")) {
                        fputs("[a-z0-9-]+\\.", f);
                        name += 2;
                }
                /* Labels hold letters, digits and dashes: the dots are all there is to escape. */
                for (; *name; name++) {
                        if (*name == '.')
                                fputc('\\', f);
                        fputc(*name, f);
                }
                fputs("$\n", f);
        }
        if (fclose(f) != 0)
                return -ENOMEM;
        *ret = TAKE_PTR(text);
        if (!*ret)
                *ret = strdup("");
        return *ret ? 0 : -ENOMEM;
}
