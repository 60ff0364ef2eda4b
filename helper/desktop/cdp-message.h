/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>

/*
 * Finding the top-level members of a CDP message (one JSON object) without
 * decoding it: the relay edits messages in place, textually, and forwards
 * them otherwise as written. The one home for looking into a message.
 */

/*
 * Find the top-level "id" member of a JSON object whose value is an integer
 * literal: 1 and its value's span [*ret_start, *ret_end) within msg; 0 when
 * there is none (not an object, no such member, a non-integer value, or the
 * key twice); -EBADMSG when the text is not a well-formed object at the top
 * level. Strings are skipped with their escapes, nested values by depth.
 */
int cdp_message_id(const char *msg, size_t size, size_t *ret_start, size_t *ret_end);

/* The same for any top-level member key (given twice: none); its value may be of any type. */
int cdp_message_member(const char *msg, size_t size, const char *key, size_t *ret_start, size_t *ret_end);

struct cdp_member {
        size_t value, value_end;        /* the value's span */
        size_t cut, cut_end;            /* removing this span leaves a well-formed object */
};

/*
 * The scan under both: how many top-level members are named key (the last
 * one's spans in *ret, when there is one), 0 for a text that is no object,
 * -EBADMSG as above. *ret_escaped (may be NULL): whether some top-level key
 * is written with an escape, whose name the scan does not decode. The cut
 * of a member that has a successor runs from its key to its comma, else
 * from its predecessor's value's end (the comma before it) to its value's
 * end, so that text inserted as "KEY":VALUE, after the '{' is cut exactly.
 */
int cdp_message_scan(const char *msg, size_t size, const char *key, struct cdp_member *ret, bool *ret_escaped);

/* Where members may be inserted in a message the scan found to be an
 * object: just after its opening brace. */
size_t cdp_message_body(const char *msg, size_t size);
