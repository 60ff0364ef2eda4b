/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <limits.h>
#include <stdint.h>

#include "cdp-message.h"
#include "util.h"

#define BAD SIZE_MAX

static size_t skip_ws(const char *s, size_t i, size_t n) {
        while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r'))
                i++;
        return i;
}

/* s[i] is the opening quote: the index after the closing one. */
static size_t skip_string(const char *s, size_t i, size_t n, bool *ret_escaped) {
        bool escaped = false;

        for (i++; i < n; i++) {
                if (s[i] == '\\') {
                        escaped = true;
                        i++;
                } else if (s[i] == '"') {
                        if (ret_escaped)
                                *ret_escaped = escaped;
                        return i + 1;
                }
        }
        return BAD;
}

/* Any value, leniently: the browser validates; the relay only needs to know
 * where a value ends, which brackets and strings decide. */
static size_t skip_value(const char *s, size_t i, size_t n) {
        size_t depth = 0;

        if (i >= n)
                return BAD;
        if (s[i] == '"')
                return skip_string(s, i, n, NULL);
        if (s[i] == '{' || s[i] == '[') {
                for (; i < n; i++) {
                        if (s[i] == '"') {
                                i = skip_string(s, i, n, NULL);
                                if (i == BAD)
                                        return BAD;
                                i--;
                        } else if (s[i] == '{' || s[i] == '[')
                                depth++;
                        else if (s[i] == '}' || s[i] == ']') {
                                if (--depth == 0)
                                        return i + 1;
                        }
                }
                return BAD;
        }
        {
                size_t j = i;

                while (j < n && s[j] != ',' && s[j] != '}' && s[j] != ']' && s[j] != ' ' && s[j] != '\t' &&
                       s[j] != '\n' && s[j] != '\r')
                        j++;
                return j == i ? BAD : j;
        }
}

static bool integer_literal(const char *s, size_t size) {
        size_t i = 0;

        if (size > 0 && s[0] == '-')
                i++;
        if (i == size || size - i > 19)
                return false;
        for (; i < size; i++)
                if (s[i] < '0' || s[i] > '9')
                        return false;
        return true;
}

int cdp_message_scan(const char *s, size_t n, const char *name, struct cdp_member *ret, bool *ret_escaped) {
        size_t i = skip_ws(s, 0, n), name_len = strlen(name), prev_end = 0;
        struct cdp_member found = {};
        bool any_escaped = false, have_prev = false;
        int count = 0;

        if (ret_escaped)
                *ret_escaped = false;
        if (i >= n || s[i] != '{')
                return 0;
        i = skip_ws(s, i + 1, n);
        if (i < n && s[i] == '}')
                return skip_ws(s, i + 1, n) == n ? 0 : -EBADMSG;
        for (;;) {
                size_t key = i, key_end, v, v_end;
                bool escaped = false, match;

                if (i >= n || s[i] != '"')
                        return -EBADMSG;
                key_end = skip_string(s, i, n, &escaped);
                if (key_end == BAD)
                        return -EBADMSG;
                i = skip_ws(s, key_end, n);
                if (i >= n || s[i] != ':')
                        return -EBADMSG;
                v = skip_ws(s, i + 1, n);
                v_end = skip_value(s, v, n);
                if (v_end == BAD)
                        return -EBADMSG;
                /* An escaped spelling of the key is not recognised, only
                 * reported: the relay refuses such a client message, since
                 * the browser does decode it ("\u0069d" is its "id"). */
                any_escaped = any_escaped || escaped;
                match = !escaped && key_end - 1 - (key + 1) == name_len && memcmp(s + key + 1, name, name_len) == 0;
                if (match) {
                        if (count < INT_MAX)
                                count++;
                        found = (struct cdp_member) {
                                .value = v, .value_end = v_end,
                                .cut = have_prev ? prev_end : key, .cut_end = v_end,
                        };
                }
                i = skip_ws(s, v_end, n);
                if (i < n && s[i] == ',') {
                        if (match) {
                                found.cut = key;
                                found.cut_end = i + 1;
                        }
                        have_prev = true;
                        prev_end = v_end;
                        i = skip_ws(s, i + 1, n);
                        continue;
                }
                if (i < n && s[i] == '}')
                        break;
                return -EBADMSG;
        }
        if (skip_ws(s, i + 1, n) != n)
                return -EBADMSG;
        if (ret_escaped)
                *ret_escaped = any_escaped;
        if (count > 0 && ret)
                *ret = found;
        return count;
}

int cdp_message_member(const char *s, size_t n, const char *name, size_t *ret_start, size_t *ret_end) {
        struct cdp_member m;
        int k = cdp_message_scan(s, n, name, &m, NULL);

        if (k <= 0)
                return k;
        if (k != 1)
                return 0;
        *ret_start = m.value;
        *ret_end = m.value_end;
        return 1;
}

int cdp_message_id(const char *s, size_t n, size_t *ret_start, size_t *ret_end) {
        size_t start, end;
        int k = cdp_message_member(s, n, "id", &start, &end);

        if (k <= 0)
                return k;
        if (!integer_literal(s + start, end - start))
                return 0;
        *ret_start = start;
        *ret_end = end;
        return 1;
}

size_t cdp_message_body(const char *s, size_t n) {
        return skip_ws(s, 0, n) + 1;
}
