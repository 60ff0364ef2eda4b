/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <arpa/inet.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "bus-address.h"
#include "envfile.h"
#include "net-policy.h"
#include "published-env.h"
#include "util.h"

enum value_kind { VALUE_DISPLAY, VALUE_BUS, VALUE_PATH, VALUE_PROXY };

/* What start_write_published() and session_published_env() write, and nothing else. */
static const struct {
        const char *key;
        enum value_kind kind;
} published_keys[] = {
        { "DISPLAY", VALUE_DISPLAY },
        { "XAUTHORITY", VALUE_PATH },
        { "DBUS_SESSION_BUS_ADDRESS", VALUE_BUS },
        { "XDG_CONFIG_HOME", VALUE_PATH },
        { "XDG_CACHE_HOME", VALUE_PATH },
        { "XDG_DATA_HOME", VALUE_PATH },
        { "AGENT_BROWSER_EXECUTABLE_PATH", VALUE_PATH },
        { "AGENT_BROWSER_USER_DATA_DIR", VALUE_PATH },
        { "AGENT_BROWSER_PROFILE", VALUE_PATH },
        { "BOTDESK_CDP_SOCKET", VALUE_PATH },
        { "http_proxy", VALUE_PROXY },
        { "https_proxy", VALUE_PROXY },
        { "HTTP_PROXY", VALUE_PROXY },
        { "HTTPS_PROXY", VALUE_PROXY },
};

/* A desktop's own proxy and nothing else: http://127.66.A.B:PORT (net-policy.h), or a forged one would send
 * what botdesk exec runs through whatever it names. */
static bool proxy_valid(const char *v) {
        const char *host = startswith(v, "http://"), *colon = host ? strchr(host, ':') : NULL;
        char text[INET_ADDRSTRLEN], port[8];
        uint8_t a[4];

        if (!colon || (size_t) (colon - host) >= sizeof text)
                return false;
        memcpy(text, host, (size_t) (colon - host));
        text[colon - host] = '\0';
        snprintf(port, sizeof port, "%d", NET_PROXY_PORT);
        return inet_pton(AF_INET, text, a) == 1 && a[0] == 127 && a[1] == 66 && streq(colon + 1, port);
}

static bool display_valid(const char *v) {
        if (v[0] != ':' || !v[1] || strlen(v) > 11)
                return false;
        for (const char *p = v + 1; *p; p++)
                if (*p < '0' || *p > '9')
                        return false;
        return true;
}

static bool value_valid(enum value_kind kind, const char *v) {
        switch (kind) {
        case VALUE_DISPLAY:
                return display_valid(v);
        case VALUE_BUS:
                return bus_address_sanitize(v, NULL) == 0;
        case VALUE_PATH:
                return v[0] == '/';
        case VALUE_PROXY:
                return proxy_valid(v);
        }
        return false;
}

int published_env_check(char *const *env, const char **ret_key) {
        for (char *const *e = env; e && *e; e++) {
                const char *eq = strchr(*e, '=');
                bool ok = false;

                for (size_t i = 0; eq && i < ELEMENTSOF(published_keys); i++)
                        if (strlen(published_keys[i].key) == (size_t) (eq - *e) &&
                            strncmp(*e, published_keys[i].key, (size_t) (eq - *e)) == 0) {
                                ok = value_valid(published_keys[i].kind, eq + 1);
                                break;
                        }
                if (!ok) {
                        if (ret_key)
                                *ret_key = *e;
                        return -EBADMSG;
                }
        }
        return 0;
}

int published_env_read_at(int dirfd, char ***ret, char **ret_bad) {
        return published_env_read_file_at(dirfd, PUBLISHED_ENV_FILE, ret, ret_bad);
}

int published_env_read_file_at(int dirfd, const char *name, char ***ret, char **ret_bad) {
        _cleanup_strv_free_ char **env = NULL;
        const char *bad;
        int r;

        if (ret_bad)
                *ret_bad = NULL;
        r = envfile_read_at(dirfd, name, &env);
        if (r < 0)
                return r;
        r = published_env_check(env, &bad);
        if (r < 0) {
                if (ret_bad)
                        *ret_bad = strndup(bad, strcspn(bad, "="));
                return r;
        }
        *ret = TAKE_PTR(env);
        return 0;
}
