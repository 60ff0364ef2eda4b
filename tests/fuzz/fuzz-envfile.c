/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The env file is read by the CLI from a directory other processes of the
 * user can write to: parse arbitrary bytes, and whatever parses must survive
 * format → parse unchanged, or `botdesk env` would publish something other
 * than what it read.
 */
#undef NDEBUG
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "envfile.h"
#include "util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        _cleanup_strv_free_ char **env = NULL, **again = NULL;
        _cleanup_free_ char *text = NULL;
        unsigned line;
        int r;

        r = envfile_parse((const char *) data, size, &env, &line);
        if (r == -ENOMEM)
                return 0;
        if (r < 0) {
                /* A refusal always names a line inside the text. */
                if (r != -EBADMSG || line == 0 || line > size + 1)
                        abort();
                return 0;
        }

        r = envfile_format(env, &text);
        if (r == -ENOMEM)
                return 0;
        if (r < 0)
                abort(); /* the parser accepted what the writer cannot write */

        r = envfile_parse(text, strlen(text), &again, &line);
        if (r == -ENOMEM)
                return 0;
        if (r < 0)
                abort();

        if (strv_length(env) != strv_length(again))
                abort();
        for (size_t i = 0; env[i]; i++)
                if (!streq(env[i], again[i]))
                        abort();
        return 0;
}
