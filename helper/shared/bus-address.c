/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/un.h>

#include "bus-address.h"
#include "util.h"

#define GUID_HEX_DIGITS 32
/* What a sockaddr_un holds: a path with its NUL, an abstract name after its leading NUL. */
#define SUN_PATH_SIZE sizeof(((struct sockaddr_un *) NULL)->sun_path)

enum key { KEY_PATH, KEY_ABSTRACT, KEY_GUID, _KEY_MAX };

static const char *const key_names[_KEY_MAX] = {
        [KEY_PATH] = "path",
        [KEY_ABSTRACT] = "abstract",
        [KEY_GUID] = "guid",
};

static int unhex(char c) {
        if (c >= '0' && c <= '9')
                return c - '0';
        if (c >= 'a' && c <= 'f')
                return c - 'a' + 10;
        if (c >= 'A' && c <= 'F')
                return c - 'A' + 10;
        return -EINVAL;
}

/* D-Bus's "optionally escaped" bytes: everything else is written %XX. */
static bool plain(unsigned char c) {
        return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || strchr("-_/.*", c);
}

/*
 * The value starting at *pos up to the next ',' or the end, unescaped into
 * buf (size bytes, NUL-terminated); *pos moves past it. -EINVAL for an
 * empty value, a bad or NUL escape, a raw byte that is not printable or is
 * one of , ; = %, or one longer than buf.
 */
static int value_read(const char **pos, char *buf, size_t size) {
        const char *p = *pos;
        size_t n = 0;

        while (*p && *p != ',') {
                unsigned char c = (unsigned char) *p;

                if (c == '%') {
                        int hi = unhex(p[1]), lo = hi < 0 ? -EINVAL : unhex(p[2]);

                        if (hi < 0 || lo < 0)
                                return -EINVAL;
                        c = (unsigned char) (hi << 4 | lo);
                        if (c == 0)
                                return -EINVAL;
                        p += 3;
                } else if (c <= ' ' || c >= 0x7f || c == ';' || c == '=') {
                        return -EINVAL;
                } else
                        p++;
                if (n + 1 >= size)
                        return -EINVAL;
                buf[n++] = (char) c;
        }
        if (n == 0)
                return -EINVAL;
        buf[n] = '\0';
        *pos = p;
        return 0;
}

static void escaped(FILE *f, const char *s) {
        for (; *s; s++)
                if (plain((unsigned char) *s))
                        fputc(*s, f);
                else
                        fprintf(f, "%%%02x", (unsigned char) *s);
}

struct parsed {
        char values[_KEY_MAX][SUN_PATH_SIZE];
        bool seen[_KEY_MAX];
};

/* address into its keys' unescaped values, or bus_address_sanitize()'s refusals. */
static int parse(const char *address, struct parsed *ret) {
        char (*values)[SUN_PATH_SIZE] = ret->values;
        bool *seen = ret->seen;
        const char *p, *colon;
        int r;

        *ret = (struct parsed) {};

        if (!address)
                return -EINVAL;
        /* One entry: sd-bus would try a list's entries in turn, the refused ones too. */
        if (strchr(address, ';'))
                return -EINVAL;
        colon = strchr(address, ':');
        if (!colon || colon == address)
                return -EINVAL;
        p = startswith(address, "unix:");
        if (!p)
                return -EPROTONOSUPPORT;
        for (;;) {
                const char *eq = strchr(p, '=');
                enum key k = _KEY_MAX;
                size_t n;

                if (!eq)
                        return -EINVAL;
                n = (size_t) (eq - p);
                for (enum key i = 0; i < _KEY_MAX; i++)
                        if (n == strlen(key_names[i]) && strncmp(p, key_names[i], n) == 0)
                                k = i;
                if (k == _KEY_MAX || seen[k])
                        return -EINVAL;
                seen[k] = true;
                p = eq + 1;
                /* A path with its NUL fills sun_path; so does an abstract name after its leading NUL. */
                r = value_read(&p, values[k], SUN_PATH_SIZE);
                if (r < 0)
                        return r;
                if (*p == '\0')
                        break;
                p++;    /* ',' and another key: a trailing ',' finds none */
        }
        if (seen[KEY_PATH] == seen[KEY_ABSTRACT])
                return -EINVAL;
        if (seen[KEY_PATH] && values[KEY_PATH][0] != '/')
                return -EINVAL;
        if (seen[KEY_GUID]) {
                if (strlen(values[KEY_GUID]) != GUID_HEX_DIGITS)
                        return -EINVAL;
                for (const char *g = values[KEY_GUID]; *g; g++)
                        if (unhex(*g) < 0)
                                return -EINVAL;
        }
        return 0;
}

int bus_address_sanitize(const char *address, char **ret) {
        _cleanup_free_ char *out = NULL;
        struct parsed a;
        size_t size;
        FILE *f;
        int r;

        r = parse(address, &a);
        if (r < 0 || !ret)
                return r;
        f = open_memstream(&out, &size);
        if (!f)
                return -ENOMEM;
        fputs(a.seen[KEY_PATH] ? "unix:path=" : "unix:abstract=", f);
        escaped(f, a.values[a.seen[KEY_PATH] ? KEY_PATH : KEY_ABSTRACT]);
        if (a.seen[KEY_GUID]) {
                fputs(",guid=", f);
                escaped(f, a.values[KEY_GUID]);
        }
        if (fclose(f) != 0)
                return -ENOMEM;
        *ret = TAKE_PTR(out);
        return 0;
}

int bus_address_socket(const char *address, char **ret) {
        struct parsed a;
        int r;

        r = parse(address, &a);
        if (r < 0)
                return r;
        *ret = a.seen[KEY_PATH] ? strdup(a.values[KEY_PATH]) : strdup_printf("@%s", a.values[KEY_ABSTRACT]);
        return *ret ? 0 : -ENOMEM;
}

char *bus_address_moved(const char *address, const char *old_socket, const char *new_socket) {
        const char *rest = startswith(address, "unix:path=");

        rest = rest ? startswith(rest, old_socket) : NULL;
        if (!rest || (*rest && *rest != ','))
                return strdup(address);
        return strdup_printf("unix:path=%s%s", new_socket, rest);
}
