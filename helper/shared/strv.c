/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* NULL-terminated string vectors, and environments made of them. (util.h) */

#include "util.h"

size_t strv_length(char *const *l) {
        size_t n = 0;

        if (l)
                while (l[n])
                        n++;
        return n;
}

int strv_push(char ***l, char *value) {
        size_t n = strv_length(*l);
        char **p;

        if (!value)
                return -ENOMEM;
        p = realloc(*l, sizeof(char *) * (n + 2));
        if (!p) {
                free(value);
                return -ENOMEM;
        }
        p[n] = value;
        p[n + 1] = NULL;
        *l = p;
        return 0;
}

char *strv_env_get(char *const *env, const char *key) {
        size_t l = strlen(key);

        for (char *const *i = env; i && *i; i++)
                if (strncmp(*i, key, l) == 0 && (*i)[l] == '=')
                        return *i + l + 1;
        return NULL;
}

int strv_env_put(char ***env, char *entry) {
        size_t kl;

        if (!entry)
                return -ENOMEM;
        kl = strcspn(entry, "=");
        for (char **i = *env; i && *i; i++)
                if (strncmp(*i, entry, kl + 1) == 0) {
                        free(*i);
                        *i = entry;
                        return 0;
                }
        return strv_push(env, entry);
}

int env_set(char ***env, const char *key, const char *value) {
        return strv_env_put(env, strdup_printf("%s=%s", key, value));
}

int env_copy_set(char *const *env, const char *key, const char *value, char ***ret) {
        _cleanup_strv_free_ char **copy = NULL;
        int r;

        for (char *const *e = env; e && *e; e++)
                if ((r = strv_push(&copy, strdup(*e))) < 0)
                        return r;
        r = env_set(&copy, key, value);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(copy);
        return 0;
}
