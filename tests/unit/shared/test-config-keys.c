/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * config/keys: the one table of sections and keys is sound (unique names,
 * defaults within their ranges), and the shipped conf/botdesk.ini, the
 * operator's documentation of every key, lists every key of it in its
 * section (keys of [profile.NAME] as ";key =" examples).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "keys.h"
#include "tap.h"
#include "util.h"

/* Whether text has a line "PREFIXname =" (any spaces before '=') below the
 * header [section] (NULL: anywhere). */
static bool documented(const char *text, const char *section, const char *prefix, const char *name) {
        _cleanup_free_ char *header = section ? strdup_printf("[%s]", section) : NULL;
        bool in_section = !section;

        for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
                size_t len = strcspn(l, "\n");
                const char *p;

                if (l[0] == '[') {
                        in_section = !section || (header && len == strlen(header) && strncmp(l, header, len) == 0);
                        continue;
                }
                if (!in_section || !(p = startswith(l, prefix)) || !(p = startswith(p, name)))
                        continue;
                p += strspn(p, " \t");
                if (*p == '=')
                        return true;
        }
        return false;
}

int main(void) {
        _cleanup_free_ char *path = NULL, *text = NULL;
        const char *src = getenv("BOTDESK_SOURCE_DIR");
        size_t size = 0;
        int r;

        for (size_t i = 0; i < ELEMENTSOF(config_keys); i++) {
                const struct config_key_def *k = &config_keys[i];
                bool unique = true;

                for (size_t j = 0; j < ELEMENTSOF(config_keys); j++)
                        if (j != i && streq(config_keys[j].name, k->name))
                                unique = false;
                tap_ok(k->name && unique, "key %zu (%s) has a name no other key has", i, strnull(k->name));
                if (k->kind == VALUE_UINT || k->kind == VALUE_DEPTH)
                        tap_ok(k->min <= k->default_a && k->default_a <= k->max,
                               "%s: the default %u is within %u..%u", k->name, k->default_a, k->min, k->max);
                tap_ok(config_key_lookup(k->name) == (int) i, "%s is found by its name", k->name);
                if (k->section)
                        tap_ok(config_section_known(k->section), "[%s] is a known section", k->section);
        }
        tap_ok(!config_section_known("profile.work") && !config_section_known("nosuch"),
               "a profile section or an unknown name is no global section");

        path = strdup_printf("%s/conf/botdesk.ini", src ?: "..");
        r = path ? read_full_file(path, &text, &size, 1024 * 1024) : -ENOMEM;
        if (!tap_ok(r >= 0, "the shipped %s is read (BOTDESK_SOURCE_DIR)", strnull(path)))
                return tap_done();
        for (size_t i = 0; i < ELEMENTSOF(config_keys); i++) {
                const struct config_key_def *k = &config_keys[i];

                if (k->section)
                        tap_ok(documented(text, k->section, "", k->name),
                               "conf/botdesk.ini documents %s in [%s]", k->name, k->section);
                else
                        tap_ok(documented(text, NULL, ";", k->name),
                               "conf/botdesk.ini shows %s as a [profile.NAME] example", k->name);
        }
        return tap_done();
}
