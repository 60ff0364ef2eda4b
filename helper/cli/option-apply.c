/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * An option of a verb found by the word that names it, and its value
 * converted once, here, into its typed field of struct cli_args (a number
 * in its range, one of a few words, a variable's name), or refused in one
 * line: the verbs keep only the rules that join options.
 */
#include <string.h>

#include "a11y.h"
#include "cli.h"
#include "envfile.h"
#include "log.h"
#include "option-apply.h"
#include "util.h"
#include "verb-table.h"

/* The option of verb that word names exactly, or for an abbrev verb the
 * one whose name it begins, as getopt_long (--js: --json; -1 for two). */
static int option_find_name(const struct verb *v, const char *word) {
        uint64_t accepted = v->options;
        int id = verb_option_find(v, word), found = -1;

        if (id >= 0 || !v->abbrev || !startswith(word, "--") || !word[2])
                return id;
        for (id = 0; id < _OPT_MAX; id++)
                if ((accepted & OPT(id)) && startswith(cli_options[id].name, word)) {
                        if (found >= 0)
                                return -1;
                        found = id;
                }
        return found;
}

/* The option of verb that word names: its id, with "--env=NAME"'s value in *ret_inline; -1 for none. */
int option_find(const struct verb *v, const char *word, const char **ret_inline) {
        const char *eq = strchr(word, '=');
        _cleanup_free_ char *name = NULL;
        int id;

        *ret_inline = NULL;
        /* getopt's -hX: the h answered before the X was read. */
        if (v->abbrev && word[1] == 'h' && (v->options & OPT(OPT_HELP)))
                return OPT_HELP;
        if ((v->options & OPT(OPT_ENV)) && startswith(word, "--env=")) {
                *ret_inline = word + strlen("--env=");
                return OPT_ENV;
        }
        /* A verb of its own options only takes --NAME=VALUE too, as getopt
         * did for it (and thumbnail's loop -o=FILE). */
        if (v->own_options && eq && (startswith(word, "--") || eq == word + 2)) {
                name = strndup(word, (size_t) (eq - word));
                if (!name)
                        return -ENOMEM;
                id = option_find_name(v, name);
                if (id < 0 || !(cli_option_takes_value(id) || cli_options[id].inline_value) || v->no_inline_values)
                        return -1;
                *ret_inline = eq + 1;
                return id;
        }
        return option_find_name(v, word);
}

/* Whether value is one of the words, or of more (accepted, never offered). */
static bool words_have(const char *words, const char *more, const char *value) {
        const char *p = strempty(words), *w;
        size_t n;

        while ((w = words_next(&p, &n)))
                if (word_is(w, n, value))
                        return true;
        return more && words_have(more, NULL, value);
}

/* An option of VALUE_WORDS given a value outside them: "give a, b or c" (the words offered). EXIT_USAGE. */
static int words_invalid(const struct cli_option *o, const char *value) {
        const char *p = o->words, *w;
        char choices[256] = "";
        size_t n, used = 0, left = 0;

        while (words_next(&p, &n))
                left++;
        for (p = o->words; (w = words_next(&p, &n)) && used < sizeof choices; left--)
                used += (size_t) snprintf(choices + used, sizeof choices - used, "%.*s%s", (int) n, w,
                                          left > 2 ? ", " : left == 2 ? " or " : "");
        log_error("Invalid %s \"%s\": give %s.", o->name, value, choices);
        return EXIT_USAGE;
}

/* Sets option id of a to value (NULL: none followed), word as typed. Returns an exit code, said. */
int option_apply(struct cli_args *a, int id, const char *word, const char *value) {
        unsigned long long v;

        switch (id) {
        case OPT_JSON:
                a->json = true;
                return EXIT_OK;
        case OPT_QUIET:
                a->quiet = true;
                return EXIT_OK;
        case OPT_FORCE:
                a->force = true;
                return EXIT_OK;
        case OPT_YES:
                a->yes = true;
                return EXIT_OK;
        case OPT_START:
                a->start = true;
                return EXIT_OK;
        case OPT_PASSWORD_STDIN:
                a->password_stdin = true;
                return EXIT_OK;
        case OPT_HELP:
                a->help = true;
                return EXIT_OK;
        case OPT_DATA_URL:
                a->data_url = true;
                return EXIT_OK;
        case OPT_TIMINGS:
                a->timings = true;
                return EXIT_OK;
        case OPT_FOLLOW:
                a->follow = true;
                return EXIT_OK;
        case OPT_DRY_RUN:
                a->dry_run = true;
                return EXIT_OK;
        case OPT_ORIGIN:
                a->origin = true;
                return EXIT_OK;
        case OPT_FULL:
                a->full = true;
                return EXIT_OK;
        case OPT_REMOVE:
                a->remove = true;
                return EXIT_OK;
        case OPT_SCALE:
                a->scale = true;
                return EXIT_OK;
        case OPT_DOUBLE:
                a->double_click = true;
                return EXIT_OK;
        case OPT_STDIN:
                a->from_stdin = true;
                return EXIT_OK;
        case OPT_SETTLE:
                /* --settle=MS, else (0) the verb's own quiet time; the last one counts. */
                if (value && (parse_uint(value, INPUT_SETTLE_MS_MAX, &v) < 0 || v == 0)) {
                        log_error("Invalid %s: give the quiet time in ms, 1-%u.", word, INPUT_SETTLE_MS_MAX);
                        return EXIT_USAGE;
                }
                a->settle = true;
                a->settle_ms = value ? (unsigned) v : 0;
                return EXIT_OK;
        case OPT_QUIET_MS:
        case OPT_TIMEOUT_MS:
        case OPT_QUIET_MS_OLD:
        case OPT_TIMEOUT_MS_OLD:
                if (!value || parse_uint(value, SETTLE_MS_MAX, &v) < 0 || v == 0) {
                        log_error("Invalid %s \"%s\": give milliseconds, 1-%u.", word, strnull(value), SETTLE_MS_MAX);
                        return EXIT_USAGE;
                }
                *(id == OPT_QUIET_MS || id == OPT_QUIET_MS_OLD ? &a->quiet_ms : &a->timeout_ms) = (unsigned) v;
                return EXIT_OK;
        case OPT_FOR:
                /* The verb judges the condition, a missing one too (naming the valid form); two never both count. */
                if (a->wait_for) {
                        log_error("Give one --for: a wait has one condition.");
                        return EXIT_USAGE;
                }
                a->wait_for = value ?: "";
                return EXIT_OK;
        case OPT_MAX_NODES:
                if (!value || parse_uint(value, A11Y_MAX_NODES_MAX, &v) < 0 || v == 0) {
                        log_error("--max-nodes must be a number from 1 to %u, got \"%s\".", A11Y_MAX_NODES_MAX,
                                  strnull(value));
                        return EXIT_USAGE;
                }
                a->max_nodes = (unsigned) v;
                return EXIT_OK;
        case OPT_ENV:
                if (!value || !env_key_valid(value)) {
                        log_error("--env needs a variable name ([A-Za-z_][A-Za-z0-9_]*), got \"%s\".", strnull(value));
                        return EXIT_USAGE;
                }
                if (a->n_pass_env >= ELEMENTSOF(a->pass_env) - 1) {
                        log_error("Too many --env options (at most %zu).", ELEMENTSOF(a->pass_env) - 1);
                        return EXIT_USAGE;
                }
                a->pass_env[a->n_pass_env++] = (char *) value;
                return EXIT_OK;
        }

        if (!value) {
                log_error("%s needs a value.", cli_options[id].name);
                return EXIT_USAGE;
        }
        /* A value of a few words is one of them, converted here once. */
        if (cli_options[id].value == VALUE_WORDS) {
                if (!words_have(cli_options[id].words, cli_options[id].more_words, value))
                        return words_invalid(&cli_options[id], value);
        }
        switch (id) {
        case OPT_PROFILE:
                if (cli_check_profile(value) < 0)
                        return EXIT_USAGE;
                a->profile_opt = value;
                break;
        case OPT_VIEWER:
                a->viewer = value;
                break;
        case OPT_AS:
                a->as = value;
                break;
        case OPT_COUNT:
                if (parse_uint(value, 1000, &v) < 0 || v == 0) {
                        log_error("Invalid --count \"%s\": give how many forks, 1-64.", value);
                        return EXIT_USAGE;
                }
                a->count = (unsigned) v;
                break;
        case OPT_REASON:
                a->reason = value;
                break;
        case OPT_UNTIL:
                a->until = (enum watch_until) watch_until_from_string(value);
                break;
        case OPT_LISTEN:
                a->listen = value;
                break;
        case OPT_NOVNC:
                a->novnc = value;
                break;
        case OPT_PING:
                a->ping = value;
                break;
        case OPT_TTL:
                a->ttl = value;
                break;
        case OPT_SCREENSHOTS:
                a->screenshots = value;
                break;
        case OPT_VENDOR:
                a->vendor = (enum mcp_vendor) mcp_vendor_from_name(value);
                a->vendor_given = true;
                break;
        case OPT_TYPE:
                a->clipboard_png = streq(value, "image/png");
                break;
        case OPT_WINDOW:
                a->window = value;
                break;
        case OPT_BUTTON:
                a->button = value;
                break;
        case OPT_OUTPUT:
        case OPT_OUTPUT_SHORT:
                /* "-": standard output, as not given (a later -o FILE still counts). */
                a->output = streq(value, "-") ? NULL : value;
                break;
        case OPT_SIZE:
                a->size = value;
                break;
        case OPT_FORMAT:
                a->format = streq(value, "png") ? CLI_FORMAT_PNG : CLI_FORMAT_JPEG;
                break;
        case OPT_QUALITY:
                a->quality = value;
                break;
        case OPT_SINCE:
                a->since = value;
                break;
        case OPT_SINCE_REVISION:
                a->since_revision = value;
                break;
        case OPT_VIDEO:
                a->video = value;
                break;
        case OPT_FROM:
        case OPT_TO:
                if (parse_uint(value, JOURNAL_SEQ_MAX, &v) < 0 || v == 0) {
                        log_error("Invalid %s \"%s\": an entry's number, from 1.", cli_options[id].name, value);
                        return EXIT_USAGE;
                }
                *(id == OPT_FROM ? &a->from : &a->to) = v;
                break;
        case OPT_TOLERANCE:
                if (parse_uint(value, JOURNAL_TOLERANCE_MAX, &v) < 0) {
                        log_error("Invalid --tolerance \"%s\": a whole per cent, 0-%u.", value, JOURNAL_TOLERANCE_MAX);
                        return EXIT_USAGE;
                }
                a->tolerance = (unsigned) v;
                a->tolerance_given = true;
                break;
        case OPT_FIND:
                a->find = value;
                break;
        case OPT_EPOCH:
                if (cli_epoch_parse(value, &v) < 0)
                        return EXIT_USAGE;
                cli_epoch_pin_set(v);
                break;
        case OPT_TIMEOUT:
                if (parse_uint(value, 86400, &v) < 0 || v == 0) {
                        log_error("Invalid --timeout \"%s\": give whole seconds, 1-86400.", value);
                        return EXIT_USAGE;
                }
                a->timeout = (unsigned) v;
                break;
        }
        return EXIT_OK;
}

