/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "argv-split.h"
#include "owner.h"
#include "placement-kind.h"
#include "util.h"

#define OWNER_MAGIC "botdesk-owner 1"
#define OWNER_MAX_WORDS 256U
#define OWNER_FILE_MAX (64U * 1024U)

void owner_done(struct owner *o) {
        if (!o)
                return;
        strv_free(o->argv);
        free(o->container_id);
        *o = (struct owner) {};
}

int owner_encode(const struct owner *o, char **ret, size_t *ret_size) {
        _cleanup_free_ char *buf = NULL;
        size_t size;
        FILE *f;

        if (strv_length(o->argv) == 0 || strv_length(o->argv) > OWNER_MAX_WORDS)
                return -EINVAL;
        f = open_memstream(&buf, &size);
        if (!f)
                return -ENOMEM;
        fprintf(f, "%s%c%zu%c", OWNER_MAGIC, 0, strv_length(o->argv), 0);
        for (char **a = o->argv; *a; a++)
                fprintf(f, "%s%c", *a, 0);
        fprintf(f, "%s%c", o->container_id ?: "", 0);
        if (fclose(f) != 0)
                return -ENOMEM;
        *ret = TAKE_PTR(buf);
        *ret_size = size;
        return 0;
}

/* The next NUL-terminated field of data, or NULL when the data ends first. */
static const char *next_field(const char **pos, const char *end) {
        const char *s = *pos, *nul;

        if (s >= end)
                return NULL;
        nul = memchr(s, '\0', (size_t) (end - s));
        if (!nul)
                return NULL;
        *pos = nul + 1;
        return s;
}

int owner_decode(const char *data, size_t size, struct owner *ret) {
        _cleanup_strv_free_ char **argv = NULL;
        const char *pos = data, *end = data + size, *field;
        unsigned long long n;
        int r;

        field = next_field(&pos, end);
        if (!field || !streq(field, OWNER_MAGIC))
                return -EBADMSG;
        field = next_field(&pos, end);
        if (!field || parse_uint(field, OWNER_MAX_WORDS, &n) < 0 || n == 0)
                return -EBADMSG;
        for (unsigned long long i = 0; i < n; i++) {
                field = next_field(&pos, end);
                if (!field)
                        return -EBADMSG;
                r = strv_push(&argv, strdup(field));
                if (r < 0)
                        return r;
        }
        field = next_field(&pos, end);
        if (!field || pos != end)
                return -EBADMSG;
        *ret = (struct owner) {};
        if (field[0]) {
                ret->container_id = strdup(field);
                if (!ret->container_id)
                        return -ENOMEM;
        }
        ret->argv = TAKE_PTR(argv);
        return 0;
}

int owner_read_at(int dirfd, struct owner *ret) {
        _cleanup_free_ char *data = NULL;
        size_t size;
        int r;

        r = read_full_file_at(dirfd, OWNER_FILE, &data, &size, OWNER_FILE_MAX);
        if (r < 0)
                return r;
        return owner_decode(data, size, ret);
}

int owner_write_at(int dirfd, const struct owner *o) {
        _cleanup_free_ char *data = NULL;
        size_t size;
        int r;

        r = owner_encode(o, &data, &size);
        if (r < 0)
                return r;
        return write_file_atomic_at(dirfd, OWNER_FILE, data, size, 0600);
}

int owner_remove_at(int dirfd) {
        if (unlinkat(dirfd, OWNER_FILE, 0) < 0 && errno != ENOENT)
                return negative_errno();
        return 0;
}

int owner_decide(const struct owner *record, const struct bd_config *c, const char *profile, char ***ret_argv) {
        _cleanup_strv_free_ char **setting = NULL;
        size_t i;
        int r;

        if (c->placement == PLACEMENT_EXEC && c->exec) {
                r = argv_split(c->exec, &setting);
                if (r < 0)
                        return r;
        } else if (placement_engine(c->placement)) {
                _cleanup_free_ char *name = placement_container_name(profile);

                if (!name || strv_push(&setting, strdup(placement_engine(c->placement))) < 0 ||
                    strv_push(&setting, strdup("exec")) < 0 || strv_push(&setting, strdup("-i")) < 0 ||
                    strv_push(&setting, TAKE_PTR(name)) < 0)
                        return -ENOMEM;
        }
        if (record && record->argv) {
                /* Code inside the desktop can write the record: what it says runs only when the user configured it. */
                if (!setting)
                        return -OWNER_MISMATCH;
                for (i = 0; record->argv[i] && setting[i]; i++)
                        if (!streq(record->argv[i], setting[i]))
                                return -OWNER_MISMATCH;
                if (record->argv[i] || setting[i])
                        return -OWNER_MISMATCH;
                *ret_argv = TAKE_PTR(setting);
                return OWNER_RECORD;
        }
        if (!setting)
                return OWNER_HOST;
        *ret_argv = TAKE_PTR(setting);
        return OWNER_SETTING;
}
