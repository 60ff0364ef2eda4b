/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * UTF-8 as RFC 3629 has it, judged in one place for everything that reads
 * or writes text: the JSON writer and parser, WebSocket text, typed keys.
 */

/* The sequence at p (which ends before end): its length, 1-4, with its code point in *ret_cp (may be NULL);
 * 0 when it is not one: a stray or missing continuation byte, cut short by end, an overlong form, a
 * surrogate, or above U+10FFFF. p < end. */
size_t utf8_decode(const uint8_t *p, const uint8_t *end, uint32_t *ret_cp);

/* Whether the n bytes at s are UTF-8 throughout. */
bool utf8_valid(const uint8_t *s, size_t n);
