/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <string.h>
#include <strings.h>
#include <xkbcommon/xkbcommon.h>

#include "keymap.h"
#include "utf8.h"
#include "util.h"

/* Names people and agent tool schemas use for keys whose keysym name differs. */
static const struct {
        const char *alias;
        uint32_t keysym;
} key_aliases[] = {
        { "ctrl", XKB_KEY_Control_L },   { "control", XKB_KEY_Control_L }, { "shift", XKB_KEY_Shift_L },
        { "alt", XKB_KEY_Alt_L },        { "super", XKB_KEY_Super_L },     { "win", XKB_KEY_Super_L },
        { "cmd", XKB_KEY_Super_L },      { "meta", XKB_KEY_Meta_L },       { "altgr", XKB_KEY_ISO_Level3_Shift },
        { "enter", XKB_KEY_Return },     { "return", XKB_KEY_Return },     { "esc", XKB_KEY_Escape },
        { "escape", XKB_KEY_Escape },    { "del", XKB_KEY_Delete },        { "delete", XKB_KEY_Delete },
        { "backspace", XKB_KEY_BackSpace }, { "bs", XKB_KEY_BackSpace },   { "tab", XKB_KEY_Tab },
        { "space", XKB_KEY_space },      { "pgup", XKB_KEY_Page_Up },      { "pageup", XKB_KEY_Page_Up },
        { "pgdn", XKB_KEY_Page_Down },   { "pagedown", XKB_KEY_Page_Down }, { "ins", XKB_KEY_Insert },
        { "up", XKB_KEY_Up },            { "down", XKB_KEY_Down },         { "left", XKB_KEY_Left },
        { "right", XKB_KEY_Right },      { "home", XKB_KEY_Home },         { "end", XKB_KEY_End },
        { "menu", XKB_KEY_Menu },        { "plus", XKB_KEY_plus },         { "minus", XKB_KEY_minus },
};

int utf8_next(const char *s, uint32_t *ret_cp) {
        size_t n;

        if (s[0] == 0)
                return 0;
        n = utf8_decode((const uint8_t *) s, (const uint8_t *) s + strnlen(s, 4), ret_cp);
        return n > 0 ? (int) n : -EILSEQ;
}

uint32_t keysym_for_char(uint32_t cp) {
        if (cp == '\n')
                return XKB_KEY_Return;
        if (cp == '\t')
                return XKB_KEY_Tab;
        /* C0, DEL and C1 controls have no key that types them. */
        if (cp < 0x20 || (cp >= 0x7f && cp < 0xa0) || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
                return KEYSYM_NONE;
        return xkb_utf32_to_keysym(cp);
}

int keyname_to_keysym(const char *name, uint32_t *ret) {
        xkb_keysym_t ks;
        uint32_t cp;
        int n;

        if (!name || !*name)
                return -EINVAL;
        for (size_t i = 0; i < ELEMENTSOF(key_aliases); i++)
                if (strcasecmp(name, key_aliases[i].alias) == 0) {
                        *ret = key_aliases[i].keysym;
                        return 0;
                }
        ks = xkb_keysym_from_name(name, XKB_KEYSYM_NO_FLAGS);
        if (ks == XKB_KEY_NoSymbol && strlen(name) > 1)
                ks = xkb_keysym_from_name(name, XKB_KEYSYM_CASE_INSENSITIVE);
        if (ks != XKB_KEY_NoSymbol) {
                *ret = ks;
                return 0;
        }
        /* One character that has no keysym name of its own: é, д, 日, 😀. */
        n = utf8_next(name, &cp);
        if (n > 0 && name[n] == 0 && (ks = keysym_for_char(cp)) != KEYSYM_NONE) {
                *ret = ks;
                return 0;
        }
        return -EINVAL;
}

int combo_parse(const char *s, struct combo *ret) {
        char part[64];
        const char *p = s;

        *ret = (struct combo) {};
        if (!s || !*s)
                return -EINVAL;
        for (;;) {
                size_t len = strcspn(p, "+");
                int r;

                /* "+" as the key itself: "+" alone, or a last part after "+" ("ctrl++"). */
                if (len == 0 && streq(p, "+"))
                        len = 1;
                else if (len == 0)
                        return -EINVAL;
                if (len >= sizeof part || ret->n >= COMBO_MAX)
                        return -EINVAL;
                memcpy(part, p, len);
                part[len] = 0;
                r = keyname_to_keysym(part, &ret->keysyms[ret->n]);
                if (r < 0)
                        return r;
                ret->n++;
                p += len;
                if (*p == 0)
                        return 0;
                p++; /* the '+' separator */
                if (*p == 0)
                        return -EINVAL;
        }
}

static const uint32_t *row(const struct keymap *m, unsigned keycode) {
        return m->syms + (size_t) (keycode - m->min_keycode) * m->per_keycode;
}

int keymap_find(const struct keymap *m, uint32_t keysym, struct stroke *ret) {
        unsigned levels = m->per_keycode < KEYMAP_LEVELS ? m->per_keycode : KEYMAP_LEVELS;

        if (keysym == KEYSYM_NONE)
                return -ENOENT;
        for (unsigned level = 0; level < levels; level++)
                for (unsigned k = m->min_keycode; k <= m->max_keycode; k++) {
                        if (row(m, k)[level] == keysym) {
                                *ret = (struct stroke) { .keycode = (uint8_t) k, .shift = level == 1 };
                                return 0;
                        }
                }
        return -ENOENT;
}

int keymap_find_any(const struct keymap *m, uint32_t keysym, uint8_t *ret) {
        for (unsigned k = m->min_keycode; k <= m->max_keycode; k++)
                for (unsigned i = 0; i < m->per_keycode; i++)
                        if (row(m, k)[i] == keysym) {
                                *ret = (uint8_t) k;
                                return 0;
                        }
        return -ENOENT;
}

size_t keymap_spares(const struct keymap *m, uint8_t *ret, size_t max) {
        size_t n = 0;

        for (unsigned k = m->min_keycode; k <= m->max_keycode && n < max; k++) {
                bool empty = true;

                for (unsigned i = 0; i < m->per_keycode && empty; i++)
                        empty = row(m, k)[i] == KEYSYM_NONE;
                if (empty)
                        ret[n++] = (uint8_t) k;
        }
        return n;
}

void typer_init(struct typer *t, const struct keymap *m) {
        *t = (struct typer) { .map = m };
        t->n_spares = keymap_spares(m, t->spares, KEYMAP_SPARES_MAX);
}

/* Level 2 needs a Shift key in the map. */
static size_t typer_levels(const struct typer *t) {
        uint8_t shift;

        return keymap_find_any(t->map, KEYSYM_SHIFT_L, &shift) >= 0 ? KEYMAP_LEVELS : 1;
}

static bool typer_bound(const struct typer *t, uint32_t keysym, struct stroke *ret) {
        for (size_t s = 0; s < t->n_spares; s++)
                for (size_t l = 0; l < KEYMAP_LEVELS; l++)
                        if (t->bound[s][l] == keysym) {
                                if (ret)
                                        *ret = (struct stroke) { .keycode = t->spares[s], .shift = l == 1 };
                                return true;
                        }
        return false;
}

size_t typer_round(struct typer *t, const uint32_t *keysyms, size_t n, size_t start, size_t *ret_end) {
        size_t capacity = t->n_spares * typer_levels(t), i;
        struct stroke st;

        memset(t->bound, 0, sizeof t->bound);
        t->used = 0;
        t->rounds++;
        for (i = start; i < n; i++) {
                if (keymap_find(t->map, keysyms[i], &st) >= 0 || typer_bound(t, keysyms[i], NULL))
                        continue;
                if (t->used >= capacity)
                        break;
                /* Level 1 of every spare first: fewer Shift presses. */
                t->bound[t->used % t->n_spares][t->used / t->n_spares] = keysyms[i];
                t->used++;
        }
        /* A map without spares still types what it has; the caller finds the rest missing. */
        if (i == start && i < n)
                i++;
        *ret_end = i;
        return t->used;
}

int typer_stroke(const struct typer *t, uint32_t keysym, struct stroke *ret) {
        if (keymap_find(t->map, keysym, ret) >= 0)
                return 0;
        return typer_bound(t, keysym, ret) ? 0 : -ENOENT;
}

int keysyms_from_text(const char *text, uint32_t **ret, size_t *ret_n, uint32_t *ret_bad) {
        _cleanup_free_ uint32_t *ks = malloc((strlen(text) ?: 1) * sizeof *ks);
        size_t n = 0;

        if (!ks)
                return -ENOMEM;
        for (const char *p = text; *p;) {
                uint32_t cp;
                int l = utf8_next(p, &cp);

                if (l < 0)
                        return -EILSEQ;
                ks[n] = keysym_for_char(cp);
                if (ks[n] == KEYSYM_NONE) {
                        *ret_bad = cp;
                        return -EINVAL;
                }
                n++;
                p += l;
        }
        *ret = TAKE_PTR(ks);
        *ret_n = n;
        return 0;
}
