/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "entries.h"
#include "profile.h"
#include "remote-target.h"

/*
 * What one profile's configuration is: the defaults, then the globals of
 * every file, then that profile's [profile.NAME] sections of every file,
 * all from the entries of the one pass over the files (load.c).
 */

/* Whether [profile.SECTION] is profile's: its own name's, the scope a gateway's home gives it left out. */
static bool section_is_for(const char *section, const char *profile) {
        size_t l = profile_base_len(profile);

        return strlen(section) == l && strncmp(section, profile, l) == 0;
}

bool config_entry_applies(const struct config_entry *e, bool globals, const char *profile) {
        if (globals)
                return !e->profile;
        return profile && e->profile && section_is_for(e->profile, profile);
}

/* A profile section of the system file still beats the user file's
 * globals, because it was written for this one profile. */
int config_set_build(const struct config_set *s, const char *profile, struct bd_config *c) {
        int r;

        r = config_defaults_apply(c);
        if (r < 0)
                return r;

        for (int pass = 0; pass < 2; pass++)
                for (size_t i = 0; i < s->n_files; i++)
                        for (size_t j = 0; j < s->files[i].n_entries; j++) {
                                const struct config_entry *e = &s->files[i].entries[j];

                                if (!config_entry_applies(e, pass == 0, profile))
                                        continue;
                                r = config_value_apply(&config_keys[e->key], e->v.a, e->v.b, e->v.s, c);
                                if (r < 0)
                                        return r;
                        }
        /* A profile whose sections say no placement = is placed by [placement] default. */
        {
                const char *file;
                unsigned line;

                if (config_set_origin(s, profile, KEY_PLACEMENT, &file, &line) == 0)
                        c->placement = c->placement_default;
        }
        return 0;
}

const char *config_set_file(const struct config_set *s, size_t i) {
        return i < s->n_files ? s->files[i].name : NULL;
}

/* The entry that config_set_build() applies last for key: the same passes. */
int config_set_origin(const struct config_set *s, const char *profile, unsigned key, const char **ret_file,
                      unsigned *ret_line) {
        const struct config_entry *last = NULL;

        for (int pass = 0; pass < 2; pass++)
                for (size_t i = 0; i < s->n_files; i++)
                        for (size_t j = 0; j < s->files[i].n_entries; j++) {
                                const struct config_entry *e = &s->files[i].entries[j];

                                if (e->key == key && config_entry_applies(e, pass == 0, profile))
                                        last = e;
                        }
        if (!last)
                return 0;
        *ret_file = last->file;
        *ret_line = last->line;
        return 1;
}

int config_set_profiles(const struct config_set *s, char ***ret) {
        _cleanup_strv_free_ char **names = NULL;

        for (size_t i = 0; i < s->n_files; i++)
                for (size_t j = 0; j < s->files[i].n_entries; j++) {
                        const char *name = s->files[i].entries[j].profile;
                        bool seen = false;
                        int r;

                        if (!name)
                                continue;
                        for (char **n = names; n && *n && !seen; n++)
                                seen = streq(*n, name);
                        if (seen)
                                continue;
                        r = strv_push(&names, strdup(name));
                        if (r < 0)
                                return r;
                }
        *ret = TAKE_PTR(names);
        return 0;
}

/*
 * "desktop = command" needs a command, but the two may come from different
 * files and sections. Check the effective pair for the globals and for every
 * profile that sets either key (any other profile inherits the globals'
 * pair), and report each offending desktop line once.
 */
static int check_desktop_command(const struct config_set *s, struct config_errors *errs) {
        _cleanup_free_ const struct config_entry **relevant = NULL, **reported = NULL;
        size_t n_relevant = 0, n_reported = 0, total = 0;
        int r;

        for (size_t i = 0; i < s->n_files; i++)
                total += s->files[i].n_entries;
        relevant = calloc(total + 1, sizeof(*relevant));
        reported = calloc(total + 1, sizeof(*reported));
        if (!relevant || !reported)
                return -ENOMEM;

        /* File order is kept: it is the order of application. */
        for (size_t i = 0; i < s->n_files; i++)
                for (size_t j = 0; j < s->files[i].n_entries; j++) {
                        const struct config_entry *e = &s->files[i].entries[j];

                        if (e->key == KEY_DESKTOP || e->key == KEY_COMMAND)
                                relevant[n_relevant++] = e;
                }

        for (size_t cand = 0; cand <= n_relevant; cand++) {
                const char *profile = cand == 0 ? NULL : relevant[cand - 1]->profile;
                const struct config_entry *desktop = NULL;
                bool have_command = false, done = false;

                if (cand > 0) {
                        if (!profile)
                                continue;
                        for (size_t i = 0; i + 1 < cand && !done; i++)
                                done = relevant[i]->profile && streq(relevant[i]->profile, profile);
                        if (done)
                                continue;
                }

                for (int pass = 0; pass < 2; pass++)
                        for (size_t i = 0; i < n_relevant; i++) {
                                const struct config_entry *e = relevant[i];

                                if (!config_entry_applies(e, pass == 0, profile))
                                        continue;
                                if (e->key == KEY_DESKTOP)
                                        desktop = e->v.a == DESKTOP_COMMAND ? e : NULL;
                                else
                                        have_command = e->v.s;
                        }

                if (!desktop || have_command)
                        continue;
                for (size_t i = 0; i < n_reported && !done; i++)
                        done = reported[i] == desktop;
                if (done)
                        continue;
                reported[n_reported++] = desktop;

                r = config_errors_add(errs, desktop->file, desktop->line,
                                      "desktop = command, but no command is set%s%s%s (set 'command' in [session]%s)",
                                      profile ? " for profile '" : "", profile ?: "", profile ? "'" : "",
                                      desktop->profile ? " or in the profile's section" : "");
                if (r < 0)
                        return r;
        }
        return 0;
}

/* The last entry of key for profile, in the order of application (profile keys live only in its sections). */
static const struct config_entry *profile_last(const struct config_set *s, const char *profile, enum config_key key) {
        const struct config_entry *last = NULL;

        for (size_t x = 0; x < s->n_files; x++)
                for (size_t y = 0; y < s->files[x].n_entries; y++) {
                        const struct config_entry *o = &s->files[x].entries[y];

                        if (o->key == key && o->profile && section_is_for(o->profile, profile))
                                last = o;
                }
        return last;
}

/*
 * "placement = exec" needs an exec prefix. Both keys live only in profile
 * sections, so a profile's effective pair is its last entries in the order
 * of application; the effective placement line is the one reported.
 */
static int check_placement_exec(const struct config_set *s, struct config_errors *errs) {
        for (size_t i = 0; i < s->n_files; i++)
                for (size_t j = 0; j < s->files[i].n_entries; j++) {
                        const struct config_entry *e = &s->files[i].entries[j];
                        int r;

                        if (e->key == KEY_PLACEMENT_DEFAULT && e->v.a == PLACEMENT_EXEC) {
                                r = config_errors_add(errs, e->file, e->line,
                                                      "default = exec: an exec prefix is one profile's, so set "
                                                      "placement = exec and exec in each profile's section");
                                if (r < 0)
                                        return r;
                                continue;
                        }
                        if (e->key != KEY_PLACEMENT || e->v.a != PLACEMENT_EXEC || !e->profile ||
                            profile_last(s, e->profile, KEY_PLACEMENT) != e || profile_last(s, e->profile, KEY_EXEC))
                                continue;
                        r = config_errors_add(errs, e->file, e->line,
                                              "placement = exec, but no exec prefix is set for profile '%s' (set 'exec', "
                                              "e.g. exec = podman exec -i NAME, in the profile's section)",
                                              e->profile);
                        if (r < 0)
                                return r;
                }
        return 0;
}

/*
 * A profile's effective "remote": a loopback address only with
 * remote_allow_loopback = yes (a desktop of this host is a profile of its
 * own), and never with placement = exec, which names another way to reach
 * a desktop. The effective remote line is the one reported.
 */
static int check_remote(const struct config_set *s, struct config_errors *errs) {
        for (size_t i = 0; i < s->n_files; i++)
                for (size_t j = 0; j < s->files[i].n_entries; j++) {
                        const struct config_entry *e = &s->files[i].entries[j], *allow, *placement;
                        struct remote_target t;
                        const char *why;
                        int r;

                        if (e->key != KEY_REMOTE || !e->profile || profile_last(s, e->profile, KEY_REMOTE) != e ||
                            remote_target_parse(e->v.s, &t, &why) < 0)
                                continue;
                        allow = profile_last(s, e->profile, KEY_REMOTE_ALLOW_LOOPBACK);
                        placement = profile_last(s, e->profile, KEY_PLACEMENT);
                        if (t.loopback && !(allow && allow->v.a)) {
                                r = config_errors_add(errs, e->file, e->line,
                                                      "remote names a loopback address, which is refused unless "
                                                      "remote_allow_loopback = yes is set for profile '%s'",
                                                      e->profile);
                                if (r < 0)
                                        return r;
                        }
                        if (placement && placement->v.a == PLACEMENT_EXEC) {
                                r = config_errors_add(errs, e->file, e->line,
                                                      "remote and placement = exec both say how to reach profile "
                                                      "'%s': keep one of them",
                                                      e->profile);
                                if (r < 0)
                                        return r;
                        }
                }
        return 0;
}

int config_set_check(const struct config_set *s, struct config_errors *errs) {
        int r;

        r = check_desktop_command(s, errs);
        if (r < 0)
                return r;
        r = check_placement_exec(s, errs);
        if (r < 0)
                return r;
        return check_remote(s, errs);
}
