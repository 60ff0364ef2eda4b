/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "envfile.h"
#include "exec-env.h"
#include "spawn.h"
#include "util.h"

int exec_env_build(char *const *caller, char *const *published, char *const *pass, char ***ret) {
        _cleanup_strv_free_ char **extra = NULL;
        int r;

        /* What the session's own programs are told (spawn.h): first, so that a variable the caller
         * names on purpose, and the desktop's published ones, come after and win. */
        for (const char *const *e = env_x11_session; *e; e++)
                if ((r = strv_push(&extra, strdup(*e))) < 0)
                        return r;
        if ((r = strv_push(&extra, strdup_printf("LANG=%s", env_lang(strv_env_get(caller, "LANG"))))) < 0)
                return r;
        for (char *const *n = pass; n && *n; n++) {
                const char *v;

                if (!env_key_valid(*n))
                        return -EINVAL;
                v = strv_env_get(caller, *n);
                if (v && (r = strv_push(&extra, strdup_printf("%s=%s", *n, v))) < 0)
                        return r;
        }
        /* Later entries win in env_build_clean: the desktop's own come last. */
        for (char *const *e = published; e && *e; e++)
                if ((r = strv_push(&extra, strdup(*e))) < 0)
                        return r;
        return env_build_clean(caller, extra, ret);
}

int exec_env_names_split(const char *list, char ***names) {
        for (const char *s = list; s && *s;) {
                size_t l;
                int r;

                s += strspn(s, " \t");
                l = strcspn(s, " \t");
                if (l == 0)
                        break;
                r = strv_push(names, strndup(s, l));
                if (r < 0)
                        return r;
                s += l;
        }
        return 0;
}
