/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * From text and key names to the keycodes of an X server's core keyboard
 * map: what `botdesk input` presses. Pure: the map is the reply of
 * GetKeyboardMapping copied into struct keymap, so the unit tests feed
 * synthetic maps. Keysym names and the Unicode<->keysym tables are
 * xkbcommon's.
 *
 * A character the map lacks is typed through a spare keycode (one with no
 * symbol at all): the typer binds up to two characters to each spare (level
 * 1 plain, level 2 with Shift) for one "round", types them, and only then
 * rebinds the pool for the next round. Clients fetch a changed map lazily
 * (on the next key they look up, after MappingNotify), so a slot is never
 * reused within a round, and the executor waits for the previous round to
 * be delivered before it rebinds.
 */

#define KEYSYM_NONE 0u
#define KEYSYM_UNICODE_BASE 0x01000000u
#define KEYSYM_SHIFT_L 0xffe1u
#define KEYSYM_RETURN 0xff0du
#define KEYSYM_TAB 0xff09u

#define COMBO_MAX 8             /* keys in one COMBO such as ctrl+alt+shift+t */
#define KEYMAP_SPARES_MAX 248   /* keycodes 8-255 */
#define KEYMAP_LEVELS 2         /* plain and Shift: the levels the typer uses */

/* A server's core keyboard map. */
struct keymap {
        unsigned min_keycode, max_keycode;      /* 8..255 */
        unsigned per_keycode;                   /* keysyms per keycode, >= 1 */
        const uint32_t *syms;                   /* (max - min + 1) * per_keycode, row per keycode */
};

/* One key to press: keycode, with Shift held around it or not. */
struct stroke {
        uint8_t keycode;
        bool shift;
};

/*
 * The keysym a key name names, for `key COMBO` and `down`/`up`: an alias
 * (ctrl, control, shift, alt, super, win, meta, altgr, enter, esc, del,
 * backspace, space, ...), a keysym name (Return, F5, BackSpace, Page_Up;
 * exact first, then case-insensitive), or one character (l, é, д, 日, 😀).
 * Returns 0, or -EINVAL for an unknown or empty name.
 */
int keyname_to_keysym(const char *name, uint32_t *ret);

/* COMBO: key names joined by '+' (ctrl+shift+t, Return, super, ctrl++). */
struct combo {
        uint32_t keysyms[COMBO_MAX];
        size_t n;
};
int combo_parse(const char *s, struct combo *ret);

/*
 * The keysym that types code point cp: Return for '\n', Tab for '\t', the
 * Latin-1 keysym, a legacy keysym (Cyrillic_a) or U+ keysym 0x01000000|cp.
 * 0 for other control characters, surrogates and non-characters beyond
 * U+10FFFF: text that cannot be typed.
 */
uint32_t keysym_for_char(uint32_t cp);

/*
 * Decode the next UTF-8 sequence of s (strictly: no overlong forms,
 * surrogates or values beyond U+10FFFF). Returns the length (1-4), 0 at the
 * end, -EILSEQ for invalid input.
 */
int utf8_next(const char *s, uint32_t *ret_cp);

/*
 * The keysyms that type text (keysym_for_char of each character), in a new
 * array handed to the caller. -EILSEQ for invalid UTF-8, -EINVAL for a
 * character no key types (its code point in *ret_bad), -ENOMEM.
 */
int keysyms_from_text(const char *text, uint32_t **ret, size_t *ret_n, uint32_t *ret_bad);

/* A keycode whose level 1 or 2 is keysym (level 1 preferred). 0 or -ENOENT. */
int keymap_find(const struct keymap *m, uint32_t keysym, struct stroke *ret);

/* A keycode for modifier keysym itself (Shift_L etc.), at any level. 0 or -ENOENT. */
int keymap_find_any(const struct keymap *m, uint32_t keysym, uint8_t *ret);

/* The keycodes without any symbol, ascending, into ret (up to max); their number. */
size_t keymap_spares(const struct keymap *m, uint8_t *ret, size_t max);

/*
 * The typer's pool: the spares and what each is bound to in the current
 * round. Zero-initialise, then typer_init().
 */
struct typer {
        const struct keymap *map;
        uint8_t spares[KEYMAP_SPARES_MAX];
        size_t n_spares;
        uint32_t bound[KEYMAP_SPARES_MAX][KEYMAP_LEVELS]; /* KEYSYM_NONE: free this round */
        size_t used;            /* slots taken this round */
        unsigned rounds;        /* rounds begun so far */
};

void typer_init(struct typer *t, const struct keymap *m);

/*
 * Begin a round at keysyms[start] (n in all): unbind every slot, then bind
 * the keysyms the map lacks, in order of first use, until the pool is full.
 * *ret_end is the first index this round cannot type (n when it reaches the
 * end; always > start when start < n). Returns the number of slots bound
 * (0: this stretch needs no spare at all).
 */
size_t typer_round(struct typer *t, const uint32_t *keysyms, size_t n, size_t start, size_t *ret_end);

/* The stroke that types keysym in the current round: the map's own key, else its slot. 0 or -ENOENT. */
int typer_stroke(const struct typer *t, uint32_t keysym, struct stroke *ret);
