/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "placement-kind.h"
#include "cli.h"
#include "envfile.h"
#include "log.h"
#include "network-proxy.h"
#include "network.h"
#include "util.h"

void network_texts_done(struct network_texts *t) {
        free(t->allow);
        free(t->deny);
        free(t->last_refused);
        *t = (struct network_texts) {};
}

static int dup_or_null(const char *s, char **ret) {
        *ret = NULL;
        if (!s || !*s)
                return 0;
        *ret = strdup(s);
        return *ret ? 0 : -ENOMEM;
}

static bool texts_valid(const struct network_texts *t) {
        _cleanup_(net_policy_done) struct net_policy p = {};
        _cleanup_free_ char *problem = NULL;

        return net_policy_parse(t->mode, t->allow, t->deny, &p, &problem) >= 0;
}

/* The runtime dir's override: 1 with *t filled, 0 when there is none (or it is not a policy: the runtime dir is
 * the desktop's user's, and what a process there wrote counts only when it is one). */
static int override_read(int runtime_fd, struct network_texts *t) {
        _cleanup_strv_free_ char **env = NULL;
        const char *mode;
        int m, r;

        if (envfile_read_at(runtime_fd, NETWORK_OVERRIDE, &env) < 0 || !(mode = strv_env_get(env, "mode")) ||
            (m = net_mode_from_string(mode)) < 0)
                return 0;
        t->mode = (unsigned) m;
        r = dup_or_null(strv_env_get(env, "allow"), &t->allow);
        if (r >= 0)
                r = dup_or_null(strv_env_get(env, "deny"), &t->deny);
        if (r < 0)
                return r;
        return texts_valid(t);
}

int network_texts_read(const char *profile, const struct bd_config *c, int runtime_fd, struct network_texts *ret) {
        _cleanup_(network_texts_done) struct network_texts t = {};
        int r = runtime_fd >= 0 ? override_read(runtime_fd, &t) : 0;

        if (r < 0)
                return r;
        if (r == 0) {
                network_texts_done(&t);
                t.mode = c->network_mode;
                r = dup_or_null(c->network_allow, &t.allow);
                if (r >= 0)
                        r = dup_or_null(c->network_deny, &t.deny);
                if (r < 0)
                        return r;
        }
        if (runtime_fd >= 0 && faccessat(runtime_fd, NETWORK_PROXY_CONF, F_OK, AT_SYMLINK_NOFOLLOW) == 0) {
                t.proxy = true;
                net_proxy_address((unsigned) getuid(), profile, t.proxy_address);
                t.proxy_running = network_proxy_running(runtime_fd);
                r = network_proxy_refused(runtime_fd, &t.refused, &t.last_refused);
                if (r == -ENOMEM)
                        return r;
        }
        *ret = t;
        t = (struct network_texts) {};
        return 0;
}

int network_override_write(int runtime_fd, const struct network_texts *t) {
        _cleanup_free_ char *mode = strdup_printf("mode=%s", net_mode_to_string(t->mode));
        _cleanup_free_ char *allow = strdup_printf("allow=%s", t->allow ?: "");
        _cleanup_free_ char *deny = strdup_printf("deny=%s", t->deny ?: "");
        char *const env[] = { mode, allow, deny, NULL };

        if (!mode || !allow || !deny)
                return -ENOMEM;
        return envfile_write_at(runtime_fd, NETWORK_OVERRIDE, env);
}

int network_judge(const char *profile, const struct bd_config *c, const struct network_texts *t,
                  struct net_policy *ret) {
        _cleanup_(net_policy_done) struct net_policy p = {};
        _cleanup_free_ char *problem = NULL;
        int r;

        r = net_policy_parse(t->mode, t->allow, t->deny, &p, &problem);
        if (r == -ENOMEM)
                return log_oom(), EXIT_FAILED;
        if (r < 0) {
                log_error("Desktop %s's network policy: %s.", profile, problem);
                return EXIT_USAGE;
        }
        if (!net_policy_restricts(&p))
                goto fine;
        if (c->remote || placement_elsewhere(c)) {
                log_error("Desktop %s is not on this host (%s): its network is its host's or container's to limit "
                          "(podman run --network=none, a network policy of the pod); botdesk enforces [network] only "
                          "for desktops it runs here.", profile, c->remote ? "remote =" : placement_kind_name(c));
                return EXIT_REFUSED;
        }
fine:
        if (net_policy_wants_proxy(&p)) {
                p.proxy = true;
                net_proxy_address((unsigned) getuid(), profile, p.proxy_address);
        }
        if (ret) {
                *ret = p;
                p = (struct net_policy) {};
        }
        return EXIT_OK;
}

int network_standalone_check(const char *profile, const struct net_policy *p) {
        if (!net_policy_restricts(p))
                return EXIT_OK;
        log_error("Desktop %s would start standalone (no systemd user manager answers), where nothing "
                  "enforces [network] mode = %s%s: botdesk enforces a network policy through systemd's IP "
                  "firewall on the desktop's unit. Standalone, only mode = open without deny runs.",
                  profile, net_mode_to_string(p->mode), p->deny.n_cidrs ? " with deny" : "");
        return EXIT_REFUSED;
}

static void words_json(struct json *j, const char *key, const char *text) {
        json_key(j, key);
        json_array_begin(j);
        for (const char *w = text ?: ""; *(w += strspn(w, " \t,"));) {
                size_t n = strcspn(w, " \t,");
                _cleanup_free_ char *word = strndup(w, n);

                if (word)
                        json_string(j, word);
                w += n;
        }
        json_array_end(j);
}

void network_json(struct json *j, const struct network_texts *t) {
        json_key(j, "network");
        json_object_begin(j);
        json_kv_string(j, "mode", net_mode_to_string(t->mode));
        words_json(j, "allow", t->allow);
        words_json(j, "deny", t->deny);
        if (t->proxy) {
                char a[32];

                snprintf(a, sizeof a, "%u.%u.%u.%u:%d", t->proxy_address[0], t->proxy_address[1],
                         t->proxy_address[2], t->proxy_address[3], NET_PROXY_PORT);
                json_key(j, "proxy");
                json_object_begin(j);
                json_kv_string(j, "address", a);
                json_kv_bool(j, "running", t->proxy_running);
                json_kv_int(j, "refused", t->refused);
                json_kv_string(j, "last_refused", t->last_refused);
                json_object_end(j);
        }
        json_object_end(j);
}
