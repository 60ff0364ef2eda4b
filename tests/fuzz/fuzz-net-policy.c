/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * [network] allow and deny come from configuration files and from `botdesk
 * network P set`: parse arbitrary text; what parses must survive format →
 * parse with the same ranges, every range must cover its own first address,
 * and the helper's probe address must never be one the list allows (or the
 * proof that the firewall holds would prove nothing).
 */
#undef NDEBUG
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "net-policy.h"
#include "util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        _cleanup_(net_list_done) struct net_list l = {}, again = {};
        _cleanup_free_ char *text = NULL, *problem = NULL, *formatted = NULL;
        size_t flen = 0;
        FILE *f;
        uint8_t probe[4];
        bool domains = size > 0 && (data[0] & 1);
        int r;

        if (size > 0) {
                data++;
                size--;
        }
        text = strndup((const char *) data, size);
        if (!text)
                return 0;
        r = net_list_parse(text, domains, &l, &problem);
        if (r == -ENOMEM)
                return 0;
        if (r < 0) {
                /* A refusal always says why. */
                if (r != -EINVAL || !problem)
                        abort();
                return 0;
        }
        if (!domains && l.domains)
                abort();

        f = open_memstream(&formatted, &flen);
        if (!f)
                return 0;
        for (size_t i = 0; i < l.n_cidrs; i++) {
                char buf[NET_CIDR_TEXT_MAX];

                if (!net_list_covers(&l, l.cidrs[i].family, l.cidrs[i].addr))
                        abort();
                fprintf(f, "%s ", net_cidr_format(&l.cidrs[i], buf));
        }
        for (char **d = l.domains; d && *d; d++)
                fprintf(f, "%s,", *d);
        if (fclose(f) != 0)
                return 0;
        free(problem);
        problem = NULL;
        r = net_list_parse(formatted, domains, &again, &problem);
        if (r == -ENOMEM)
                return 0;
        if (r < 0 || again.n_cidrs != l.n_cidrs || strv_length(again.domains) != strv_length(l.domains))
                abort();
        for (size_t i = 0; i < l.n_cidrs; i++)
                if (memcmp(&again.cidrs[i], &l.cidrs[i], sizeof l.cidrs[i]) != 0)
                        abort();

        if (net_policy_probe_address(&l, probe) == 0 && net_list_covers(&l, AF_INET, probe))
                abort();
        return 0;
}
