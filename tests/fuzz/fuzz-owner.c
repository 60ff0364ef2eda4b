/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The owner record sits in a runtime dir that code inside the desktop can
 * write: decode arbitrary bytes, and whatever decodes must encode and
 * decode back to the same record.
 */
#undef NDEBUG
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "owner.h"
#include "util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        _cleanup_(owner_done) struct owner o = {}, back = {};
        _cleanup_free_ char *text = NULL;
        size_t text_size;
        int r;

        r = owner_decode((const char *) data, size, &o);
        if (r == -ENOMEM)
                return 0;
        if (r < 0) {
                if (r != -EBADMSG)
                        abort();
                return 0;
        }
        if (!o.argv || !o.argv[0])
                abort();
        r = owner_encode(&o, &text, &text_size);
        if (r == -ENOMEM)
                return 0;
        if (r < 0)
                abort();
        r = owner_decode(text, text_size, &back);
        if (r == -ENOMEM)
                return 0;
        if (r < 0 || strv_length(o.argv) != strv_length(back.argv) || !streq_ptr(o.container_id, back.container_id))
                abort();
        for (size_t i = 0; o.argv[i]; i++)
                if (!streq(o.argv[i], back.argv[i]))
                        abort();
        return 0;
}
