/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <string.h>

#include "byte-buf.h"

size_t byte_buf_room(struct byte_buf *b) {
        if (b->start == b->end)
                b->start = b->end = 0;
        else if (b->start > 0 && b->end == b->size) {
                memmove(b->data, b->data + b->start, b->end - b->start);
                b->end -= b->start;
                b->start = 0;
        }
        return b->size - b->end;
}
