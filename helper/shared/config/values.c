/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "argv-split.h"
#include "envfile.h"
#include "net-policy.h"
#include "remote-target.h"
#include "util.h"
#include "values.h"

#define USER_NAME_MAX 32

#define GEOMETRY_WIDTH_MIN 320U
#define GEOMETRY_HEIGHT_MIN 200U
#define GEOMETRY_MAX 8192U

void config_value_done(struct config_value *v) {
        free(v->s);
        v->s = NULL;
}

/* The portable subset useradd accepts by default (NAME_REGEX in adduser.conf). */
static bool user_name_valid(const char *name) {
        size_t i;

        if (!((name[0] >= 'a' && name[0] <= 'z') || name[0] == '_'))
                return false;
        for (i = 1; name[i]; i++) {
                char ch = name[i];

                if (i >= USER_NAME_MAX)
                        return false;
                if (!((ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '_' || ch == '-'))
                        return false;
        }
        return true;
}

static int parse_number(const struct config_key_def *k, const char *value, unsigned *ret, char **ret_problem) {
        unsigned long long n;
        int r;

        r = parse_uint(value, k->max, &n);
        if (r == -ERANGE || (r >= 0 && n < k->min))
                return problemf(ret_problem, "out of range (allowed: %u..%u)", k->min, k->max);
        if (r < 0)
                return problemf(ret_problem, "not a decimal number (allowed: %u..%u)", k->min, k->max);
        *ret = (unsigned) n;
        return 0;
}

/* Splits "AsepB" into two decimal numbers. Returns -EINVAL when the shape is
 * wrong, -ERANGE (with *bad set to the offending half) when a number is above
 * its maximum or below its minimum. */
static int parse_pair(const char *value, char sep, unsigned min_a, unsigned min_b, unsigned max,
                      unsigned *a, unsigned *b, const char **bad) {
        _cleanup_free_ char *first = NULL;
        const char *s = strchr(value, sep);
        unsigned long long x, y;
        int r1, r2;

        if (!s)
                return -EINVAL;
        first = strndup(value, (size_t) (s - value));
        if (!first)
                return -ENOMEM;
        r1 = parse_uint(first, max, &x);
        r2 = parse_uint(s + 1, max, &y);
        if (r1 == -EINVAL || r2 == -EINVAL)
                return -EINVAL;
        if (r1 == -ERANGE || (r1 >= 0 && x < min_a)) {
                *bad = "first";
                return -ERANGE;
        }
        if (r2 == -ERANGE || (r2 >= 0 && y < min_b)) {
                *bad = "second";
                return -ERANGE;
        }
        *a = (unsigned) x;
        *b = (unsigned) y;
        return 0;
}

static int parse_band(const struct config_key_def *k, const char *value, struct config_value *ret,
                      char **ret_problem) {
        const char *bad = NULL;
        int r;

        r = parse_pair(value, '-', k->min, k->min, k->max, &ret->a, &ret->b, &bad);
        if (r == -ENOMEM)
                return r;
        if (r == -EINVAL)
                return problemf(ret_problem, "expected MIN-MAX, two display numbers %u..%u (e.g. 20-89)",
                                k->min, k->max);
        if (r == -ERANGE)
                return problemf(ret_problem, "the %s display number is out of range (allowed: %u..%u)",
                                streq(bad, "first") ? "minimum" : "maximum", k->min, k->max);
        if (ret->a > ret->b)
                return problemf(ret_problem, "the minimum %u is above the maximum %u", ret->a, ret->b);
        return 0;
}

static int parse_geometry(const char *value, struct config_value *ret, char **ret_problem) {
        const char *bad = NULL;
        int r;

        r = parse_pair(value, 'x', GEOMETRY_WIDTH_MIN, GEOMETRY_HEIGHT_MIN, GEOMETRY_MAX,
                       &ret->a, &ret->b, &bad);
        if (r == -ENOMEM)
                return r;
        if (r == -EINVAL)
                return problemf(ret_problem, "expected WIDTHxHEIGHT (e.g. 1440x900)");
        if (r == -ERANGE && streq(bad, "first"))
                return problemf(ret_problem, "the width is out of range (allowed: %u..%u)",
                                GEOMETRY_WIDTH_MIN, GEOMETRY_MAX);
        if (r == -ERANGE)
                return problemf(ret_problem, "the height is out of range (allowed: %u..%u)",
                                GEOMETRY_HEIGHT_MIN, GEOMETRY_MAX);
        return 0;
}

static int parse_word(const struct config_key_def *k, const char *value, unsigned *ret) {
        const char *const *words = config_kind_words(k->kind);

        for (unsigned i = 0; words && words[i]; i++)
                if (streq(words[i], value)) {
                        *ret = i;
                        return 0;
                }
        return -EINVAL;
}

/* Checks the text of the kinds stored as text; 0 or the problem. */
static int check_text(const struct config_key_def *k, const char *value, char **ret_problem) {
        switch (k->kind) {
        case VALUE_ARGV: {
                _cleanup_strv_free_ char **words = NULL;
                int r = argv_split(value, &words);

                if (r == -ENOMEM)
                        return r;
                if (r == -ENODATA)
                        return problemf(ret_problem, "empty (give a command prefix, e.g. podman exec -i NAME)");
                if (r == -EBADMSG)
                        return problemf(ret_problem,
                                        "unterminated quote (close every ' and \"; a ';' after a space starts a comment)");
                if (r < 0)
                        return problemf(ret_problem, "ends with a backslash (nothing left to escape)");
                return 0;
        }
        case VALUE_REMOTE: {
                struct remote_target t;
                const char *why = NULL;
                int r = remote_target_parse(value, &t, &why);

                if (r == -EINVAL)
                        return problemf(ret_problem, "%s", why);
                return r;
        }
        case VALUE_NET_ALLOW:
        case VALUE_NET_DENY: {
                _cleanup_(net_list_done) struct net_list l = {};

                return net_list_parse(value, k->kind == VALUE_NET_ALLOW, &l, ret_problem);
        }
        case VALUE_IMAGE:
                /* It becomes a word of the engine's command line: nothing an engine or a shell reads as syntax. */
                if (value[0] == '\0')
                        return problemf(ret_problem, "empty (give an image, e.g. localhost/botdesk:latest)");
                if (!isalnum((unsigned char) value[0]) || strlen(value) > 255 ||
                    value[strspn(value, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._/:@-")] != '\0')
                        return problemf(ret_problem, "not an image reference (allowed: up to 255 of A-Z a-z 0-9 . _ / : @ -, "
                                        "starting with a letter or digit)");
                return 0;
        case VALUE_PATH:
                if (value[0] != '\0' && value[0] != '/')
                        return problemf(ret_problem, "not an absolute path (allowed: empty or a path starting with /)");
                return 0;
        case VALUE_DIR:
                /* ~ is the user's own home only: another user's is no place for this user's data. */
                if (value[0] == '~' && value[1] != '\0' && value[1] != '/')
                        return problemf(ret_problem,
                                        "~NAME is not supported (allowed: empty, an absolute path, ~, ~/PATH or a path relative to the state dir)");
                return 0;
        case VALUE_EXECUTABLE:
                if (!streq(value, "auto") && !streq(value, "none") && value[0] != '/')
                        return problemf(ret_problem, "expected auto, none or an absolute path");
                return 0;
        case VALUE_ENV_NAMES:
                for (const char *n = value; *n;) {
                        size_t l = strcspn(n, " \t");
                        _cleanup_free_ char *name = strndup(n, l);

                        if (!name)
                                return -ENOMEM;
                        if (l > 0 && !env_key_valid(name))
                                return problemf(ret_problem,
                                                "\"%s\" is not a variable name (allowed: names of [A-Za-z_][A-Za-z0-9_]*, separated by spaces)",
                                                name);
                        n += l;
                        n += strspn(n, " \t");
                }
                return 0;
        case VALUE_SEARCH_PATH:
                for (const char *d = value; *d;) {
                        size_t l = strcspn(d, ":");

                        if (d[0] != '/')
                                return problemf(ret_problem,
                                                "\"%.*s\" is not an absolute directory (allowed: absolute directories separated by ':')",
                                                (int) l, d);
                        d += l;
                        if (*d == ':' && !*++d)
                                return problemf(ret_problem, "ends in ':' (allowed: absolute directories separated by ':')");
                }
                return 0;
        case VALUE_USER:
                if (!user_name_valid(value))
                        return problemf(ret_problem,
                                        "not a valid user name (allowed: [a-z_][a-z0-9_-]*, at most %u characters)",
                                        USER_NAME_MAX);
                return 0;
        default:
                return 0;
        }
}

int config_value_parse(const struct config_key_def *k, const char *value, struct config_value *ret,
                       char **ret_problem) {
        int r;

        *ret = (struct config_value) {};
        *ret_problem = NULL;

        switch (k->kind) {
        case VALUE_UINT:
                return parse_number(k, value, &ret->a, ret_problem);
        case VALUE_BAND:
                return parse_band(k, value, ret, ret_problem);
        case VALUE_GEOMETRY:
                return parse_geometry(value, ret, ret_problem);
        case VALUE_DEPTH: {
                unsigned long long n;

                if (parse_uint(value, 32, &n) < 0 || (n != 16 && n != 24 && n != 32))
                        return problemf(ret_problem, "not a supported depth (allowed: 16, 24 or 32)");
                ret->a = (unsigned) n;
                return 0;
        }
        case VALUE_DESKTOP:
                if (parse_word(k, value, &ret->a) < 0)
                        return problemf(ret_problem, "unknown desktop (allowed: xfce or command)");
                return 0;
        case VALUE_PLACEMENT:
                if (parse_word(k, value, &ret->a) < 0)
                        return problemf(ret_problem, "unknown placement (allowed: host, exec, podman, docker or refuse)");
                return 0;
        case VALUE_EXEC_SHELL:
                if (parse_word(k, value, &ret->a) < 0)
                        return problemf(ret_problem, "not auto, yes or no");
                return 0;
        case VALUE_MCP_TOOLS:
                if (parse_word(k, value, &ret->a) < 0)
                        return problemf(ret_problem, "not both, computer or members");
                return 0;
        case VALUE_VIEWERS:
                if (parse_word(k, value, &ret->a) < 0)
                        return problemf(ret_problem, "not many or one");
                return 0;
        case VALUE_IDLE_ACTION:
                if (parse_word(k, value, &ret->a) < 0)
                        return problemf(ret_problem, "not stop or hibernate");
                return 0;
        case VALUE_NET_MODE:
                if (parse_word(k, value, &ret->a) < 0)
                        return problemf(ret_problem, "not open, allowlist or offline");
                return 0;
        case VALUE_BOOL:
                if (streq(value, "yes") || streq(value, "true") || streq(value, "on") || streq(value, "1"))
                        ret->a = 1;
                else if (streq(value, "no") || streq(value, "false") || streq(value, "off") || streq(value, "0"))
                        ret->a = 0;
                else
                        return problemf(ret_problem, "not a boolean (allowed: yes or no)");
                return 0;
        default:
                r = check_text(k, value, ret_problem);
                if (r < 0)
                        return r;
                if (value[0] != '\0') {
                        ret->s = strdup(value);
                        if (!ret->s)
                                return -ENOMEM;
                }
                return 0;
        }
}

int config_value_apply(const struct config_key_def *k, unsigned a, unsigned b, const char *s, struct bd_config *c) {
        char *base = (char *) c;

        switch (k->kind) {
        case VALUE_UINT:
        case VALUE_DEPTH:
                *(unsigned *) (base + k->offset) = a;
                break;
        case VALUE_BAND:
        case VALUE_GEOMETRY:
                *(unsigned *) (base + k->offset) = a;
                *(unsigned *) (base + k->offset2) = b;
                break;
        case VALUE_DESKTOP:
                *(enum desktop_kind *) (base + k->offset) = (enum desktop_kind) a;
                break;
        case VALUE_PLACEMENT:
                *(enum placement_kind *) (base + k->offset) = (enum placement_kind) a;
                break;
        case VALUE_EXEC_SHELL:
                *(enum exec_shell_kind *) (base + k->offset) = (enum exec_shell_kind) a;
                break;
        case VALUE_MCP_TOOLS:
                *(enum mcp_tools_kind *) (base + k->offset) = (enum mcp_tools_kind) a;
                break;
        case VALUE_VIEWERS:
                *(enum web_viewers_kind *) (base + k->offset) = (enum web_viewers_kind) a;
                break;
        case VALUE_IDLE_ACTION:
                *(enum idle_action *) (base + k->offset) = (enum idle_action) a;
                break;
        case VALUE_NET_MODE:
                *(unsigned *) (base + k->offset) = a;
                break;
        case VALUE_BOOL:
                *(bool *) (base + k->offset) = a;
                break;
        default: {
                char **field = (char **) (base + k->offset), *copy = NULL;

                if (s) {
                        copy = strdup(s);
                        if (!copy)
                                return -ENOMEM;
                }
                free(*field);
                *field = copy;
                break;
        }
        }
        return 0;
}
