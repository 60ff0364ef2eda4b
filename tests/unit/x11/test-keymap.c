/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "tap.h"

#include <xkbcommon/xkbcommon-keysyms.h>

#include "keymap.h"
#include "util.h"

/*
 * A small core map, 4 keysyms per keycode like a real server's:
 *   8 spare   9 a A   10 Shift_L   11 spare   12 1 !   13 Return   14 spare   15 Control_L
 */
static const uint32_t syms[] = {
        0, 0, 0, 0,
        XKB_KEY_a, XKB_KEY_A, XKB_KEY_a, XKB_KEY_A,
        XKB_KEY_Shift_L, 0, XKB_KEY_Shift_L, 0,
        0, 0, 0, 0,
        XKB_KEY_1, XKB_KEY_exclam, XKB_KEY_1, XKB_KEY_exclam,
        XKB_KEY_Return, 0, XKB_KEY_Return, 0,
        0, 0, 0, 0,
        XKB_KEY_Control_L, 0, XKB_KEY_Control_L, 0,
};
static const struct keymap map = { .min_keycode = 8, .max_keycode = 15, .per_keycode = 4, .syms = syms };

/* The same without a Shift key: spares then have one level. */
static const uint32_t syms_noshift[] = {
        0, 0, 0, 0,
        XKB_KEY_a, XKB_KEY_A, XKB_KEY_a, XKB_KEY_A,
};
static const struct keymap map_noshift = { .min_keycode = 8, .max_keycode = 9, .per_keycode = 4, .syms = syms_noshift };

static uint32_t ks_of(const char *name) {
        uint32_t ks = 0;

        if (keyname_to_keysym(name, &ks) < 0)
                return 0;
        return ks;
}

static size_t keysyms_of(const char *text, uint32_t *ret, size_t max) {
        size_t n = 0;
        uint32_t cp;
        int k;

        while (n < max && (k = utf8_next(text, &cp)) > 0) {
                ret[n++] = keysym_for_char(cp);
                text += k;
        }
        return n;
}

static void test_chars(void) {
        TAP_EQ_INT(keysym_for_char('a'), XKB_KEY_a, "Latin: a is keysym a");
        TAP_EQ_INT(keysym_for_char(0xe9), XKB_KEY_eacute, "Latin-1: é is keysym eacute (0xe9)");
        TAP_EQ_INT(keysym_for_char(0x0434), XKB_KEY_Cyrillic_de, "Cyrillic: д is the legacy keysym Cyrillic_de");
        TAP_EQ_INT(keysym_for_char(0x65e5), 0x010065e5, "CJK: 日 is the Unicode keysym 0x010065e5");
        TAP_EQ_INT(keysym_for_char(0x1f600), 0x0101f600, "emoji: 😀 (beyond the BMP) is the Unicode keysym 0x0101f600");
        TAP_EQ_INT(keysym_for_char('\n'), XKB_KEY_Return, "a newline types Return");
        TAP_EQ_INT(keysym_for_char('\t'), XKB_KEY_Tab, "a tab types Tab");
        TAP_EQ_INT(keysym_for_char(0x07), 0, "BEL cannot be typed");
        TAP_EQ_INT(keysym_for_char(0x7f), 0, "DEL cannot be typed");
        TAP_EQ_INT(keysym_for_char(0x85), 0, "a C1 control cannot be typed");
}

static void test_utf8(void) {
        uint32_t cp = 0;

        TAP_EQ_INT(utf8_next("\xf0\x9f\x98\x80", &cp), 4, "a four-byte sequence decodes");
        TAP_EQ_INT(cp, 0x1f600, "... to U+1F600");
        TAP_EQ_INT(utf8_next("", &cp), 0, "the end of the text is 0");
        TAP_EQ_INT(utf8_next("\xc0\x80", &cp), -EILSEQ, "an overlong NUL is invalid");
        TAP_EQ_INT(utf8_next("\xed\xa0\x80", &cp), -EILSEQ, "an encoded surrogate is invalid");
        TAP_EQ_INT(utf8_next("\xf4\x90\x80\x80", &cp), -EILSEQ, "beyond U+10FFFF is invalid");
        TAP_EQ_INT(utf8_next("\xe6\x97", &cp), -EILSEQ, "a truncated sequence is invalid");
        TAP_EQ_INT(utf8_next("\x80", &cp), -EILSEQ, "a lone continuation byte is invalid");
}

static void test_names(void) {
        uint32_t ks;

        TAP_EQ_INT(ks_of("ctrl"), XKB_KEY_Control_L, "ctrl is Control_L");
        TAP_EQ_INT(ks_of("Super"), XKB_KEY_Super_L, "aliases ignore case: Super is Super_L");
        TAP_EQ_INT(ks_of("Return"), XKB_KEY_Return, "a keysym name: Return");
        TAP_EQ_INT(ks_of("backspace"), XKB_KEY_BackSpace, "backspace is BackSpace");
        TAP_EQ_INT(ks_of("page_up"), XKB_KEY_Page_Up, "keysym names match case-insensitively when not exactly");
        TAP_EQ_INT(ks_of("F5"), XKB_KEY_F5, "F5");
        TAP_EQ_INT(ks_of("l"), XKB_KEY_l, "a letter is its keysym (l)");
        TAP_EQ_INT(ks_of("L"), XKB_KEY_L, "case matters for one letter (L)");
        TAP_EQ_INT(ks_of("é"), XKB_KEY_eacute, "a Latin-1 character names its key");
        TAP_EQ_INT(ks_of("д"), XKB_KEY_Cyrillic_de, "a Cyrillic character names its key");
        TAP_EQ_INT(ks_of("日"), 0x010065e5, "a CJK character names its Unicode keysym");
        TAP_EQ_INT(ks_of("😀"), 0x0101f600, "an emoji names its Unicode keysym");
        TAP_EQ_INT(keyname_to_keysym("notakey", &ks), -EINVAL, "an unknown name is refused");
        TAP_EQ_INT(keyname_to_keysym("", &ks), -EINVAL, "an empty name is refused");
        TAP_EQ_INT(keyname_to_keysym("日本", &ks), -EINVAL, "two characters are not a key");
        TAP_EQ_INT(keyname_to_keysym("\x07", &ks), -EINVAL, "a control character is not a key");
}

static void test_combos(void) {
        struct combo c;

        tap_ok(combo_parse("ctrl+shift+t", &c) == 0 && c.n == 3 && c.keysyms[0] == XKB_KEY_Control_L &&
               c.keysyms[1] == XKB_KEY_Shift_L && c.keysyms[2] == XKB_KEY_t,
               "ctrl+shift+t is Control_L, Shift_L, t in order");
        tap_ok(combo_parse("Return", &c) == 0 && c.n == 1 && c.keysyms[0] == XKB_KEY_Return, "one key is a combo");
        tap_ok(combo_parse("ctrl++", &c) == 0 && c.n == 2 && c.keysyms[1] == XKB_KEY_plus, "ctrl++ is ctrl and plus");
        tap_ok(combo_parse("+", &c) == 0 && c.n == 1 && c.keysyms[0] == XKB_KEY_plus, "+ alone is the plus key");
        tap_ok(combo_parse("alt+F4", &c) == 0 && c.n == 2 && c.keysyms[1] == XKB_KEY_F4, "alt+F4");
        TAP_EQ_INT(combo_parse("ctrl+", &c), -EINVAL, "a combo ending in a lone + is refused");
        TAP_EQ_INT(combo_parse("+ctrl", &c), -EINVAL, "a combo starting with + is refused");
        TAP_EQ_INT(combo_parse("ctrl++a", &c), -EINVAL, "an empty part in the middle is refused");
        TAP_EQ_INT(combo_parse("ctrl+nope", &c), -EINVAL, "a combo with an unknown key is refused");
        TAP_EQ_INT(combo_parse("", &c), -EINVAL, "an empty combo is refused");
        TAP_EQ_INT(combo_parse("a+b+c+d+e+f+g+h+i", &c), -EINVAL, "more than %d keys are refused", COMBO_MAX);
}

static void test_map(void) {
        struct stroke s;
        uint8_t spares[8];
        uint8_t k;

        tap_ok(keymap_find(&map, XKB_KEY_a, &s) == 0 && s.keycode == 9 && !s.shift, "a is keycode 9 without Shift");
        tap_ok(keymap_find(&map, XKB_KEY_A, &s) == 0 && s.keycode == 9 && s.shift, "A is keycode 9 with Shift");
        tap_ok(keymap_find(&map, XKB_KEY_exclam, &s) == 0 && s.keycode == 12 && s.shift, "! is keycode 12 with Shift");
        TAP_EQ_INT(keymap_find(&map, XKB_KEY_Cyrillic_de, &s), -ENOENT, "д is not on this map");
        TAP_EQ_INT(keymap_find(&map, 0, &s), -ENOENT, "NoSymbol is never found");
        tap_ok(keymap_find_any(&map, XKB_KEY_Control_L, &k) == 0 && k == 15, "Control_L is keycode 15");
        TAP_EQ_INT(keymap_spares(&map, spares, 8), 3, "the map has three spare keycodes");
        tap_ok(spares[0] == 8 && spares[1] == 11 && spares[2] == 14, "... 8, 11 and 14, ascending");
}

static void test_typer(void) {
        uint32_t ks[32];
        struct typer t;
        struct stroke s;
        size_t n, end;

        n = keysyms_of("aдЖ日😀дz!", ks, 32);
        typer_init(&t, &map);
        TAP_EQ_INT(typer_round(&t, ks, n, 0, &end), 5, "a round binds the five characters the map lacks, once each");
        TAP_EQ_INT(end, n, "... and six slots (three spares, two levels) cover the whole text");
        tap_ok(typer_stroke(&t, XKB_KEY_a, &s) == 0 && s.keycode == 9 && !s.shift, "a keeps its own key");
        tap_ok(typer_stroke(&t, XKB_KEY_exclam, &s) == 0 && s.keycode == 12 && s.shift, "! keeps its own key, with Shift");
        tap_ok(typer_stroke(&t, XKB_KEY_Cyrillic_de, &s) == 0 && s.keycode == 8 && !s.shift,
               "д (first missing) goes to level 1 of the first spare");
        tap_ok(typer_stroke(&t, XKB_KEY_Cyrillic_ZHE, &s) == 0 && s.keycode == 11 && !s.shift,
               "Ж goes to level 1 of the second spare");
        tap_ok(typer_stroke(&t, 0x010065e5, &s) == 0 && s.keycode == 14 && !s.shift, "日 goes to level 1 of the third");
        tap_ok(typer_stroke(&t, 0x0101f600, &s) == 0 && s.keycode == 8 && s.shift,
               "😀 goes to level 2 (Shift) of the first spare once level 1 is full");
        tap_ok(typer_stroke(&t, XKB_KEY_z, &s) == 0 && s.keycode == 11 && s.shift, "z (missing here) to level 2 of the second");
        tap_ok(t.bound[0][0] == XKB_KEY_Cyrillic_de && t.bound[0][1] == 0x0101f600,
               "the first spare is bound to д and 😀 for this round");

        /* Eight distinct missing characters, six slots: two rounds. */
        n = keysyms_of("бвгдежзи", ks, 32);
        typer_init(&t, &map);
        TAP_EQ_INT(typer_round(&t, ks, n, 0, &end), 6, "the first round fills all six slots");
        TAP_EQ_INT(end, 6, "... and ends where the seventh missing character begins");
        TAP_EQ_INT(typer_stroke(&t, XKB_KEY_Cyrillic_ze, &s), -ENOENT, "з has no slot in the first round");
        TAP_EQ_INT(typer_round(&t, ks, n, end, &end), 2, "the second round binds the remaining two");
        TAP_EQ_INT(end, n, "... and ends at the end");
        tap_ok(typer_stroke(&t, XKB_KEY_Cyrillic_ze, &s) == 0 && s.keycode == 8 && !s.shift,
               "the second round starts again at the first spare");
        TAP_EQ_INT(typer_stroke(&t, XKB_KEY_Cyrillic_be, &s), -ENOENT, "б of the first round is unbound in the second");
        TAP_EQ_INT(t.rounds, 2, "two rounds were begun");

        /* A character used again later in the same round keeps its slot. */
        n = keysyms_of("жжжж", ks, 32);
        typer_init(&t, &map);
        TAP_EQ_INT(typer_round(&t, ks, n, 0, &end), 1, "a repeated character is bound once");

        n = keysyms_of("бвг", ks, 32);
        typer_init(&t, &map_noshift);
        TAP_EQ_INT(typer_round(&t, ks, n, 0, &end), 1, "without a Shift key a spare has one level");
        TAP_EQ_INT(end, 1, "... so one spare types one character a round");

        n = keysyms_of("aд", ks, 32);
        {
                const struct keymap full = { .min_keycode = 9, .max_keycode = 9, .per_keycode = 4, .syms = syms + 4 };
                typer_init(&t, &full);
                TAP_EQ_INT(t.n_spares, 0, "a map without spare keycodes has an empty pool");
                (void) typer_round(&t, ks, n, 0, &end);
                tap_ok(end == 1 && typer_stroke(&t, XKB_KEY_a, &s) == 0, "... types what the map has");
                (void) typer_round(&t, ks, n, end, &end);
                tap_ok(end == n && typer_stroke(&t, XKB_KEY_Cyrillic_de, &s) == -ENOENT,
                       "... and still moves on past a character it cannot bind, which has no stroke");
        }
}

int main(void) {
        test_chars();
        test_utf8();
        test_names();
        test_combos();
        test_map();
        test_typer();
        return tap_done();
}
