/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * botdesk: the command line. The one parser of the words after the verb,
 * reading the table of verbs (verb-table.h: one row and one verb-NAME.c
 * each); each verb says what went wrong in one line on stderr and returns
 * the exit code:
 *   0 success, 1 failed, 2 usage or configuration, 3 refused by policy,
 *   4 not running.
 */
#include <getopt.h>

#include "botdesk-config.h"
#include "cli.h"
#include "cli-remote.h"
#include "config.h"
#include "json.h"
#include "log.h"
#include "nearest.h"
#include "option-apply.h"
#include "profile.h"
#include "util.h"
#include "verb-table.h"
#include "x11-verbs.h"

/*
 * A word the verb does not take, in the one style of every verb: one line,
 * the word, the nearest valid option when there is one, and where to look.
 * what: "option", "argument" or "value" (an option without its value).
 * EXIT_USAGE.
 */
static int usage_error(const struct verb *v, const char *what, const char *verb, const char *w) {
        _cleanup_free_ char *see = NULL;
        const char *near = streq(what, "option") ? verb_option_nearest(v, w) : NULL;

        /* A verb that is none: its words were judged first, and it has no page of its own. */
        see = v->name ? strdup_printf("see botdesk %s --help", verb) : strdup("see botdesk --help");
        if (streq(what, "option"))
                log_error("Unknown option %s for %s%s%s%s; %s.", w, verb, near ? " (did you mean " : "", strempty(near),
                          near ? "?)" : "", strempty(see));
        else if (streq(what, "value"))
                log_error("%s needs a value; %s.", w, strempty(see));
        else
                log_error("Unexpected argument \"%s\" for %s; %s.", w, verb, strempty(see));
        return EXIT_USAGE;
}

/* An option before the verb: --help and --version are the only ones there; a
 * misspelling of one of them gets it named, anything else where options go. */
static int usage_error_before_verb(const char *w) {
        _cleanup_free_ char *name = NULL;
        const char *eq = strchr(w, '='), *near;
        struct nearest n;

        if (eq) {
                name = strndup(w, (size_t) (eq - w));
                if (!name)
                        return log_oom(), EXIT_FAILED;
        }
        nearest_init(&n, name ?: w);
        nearest_add(&n, "--help");
        nearest_add(&n, "--version");
        near = nearest_result(&n);
        if (near)
                log_error("Unknown option %s (did you mean %s?); see botdesk --help.", w, near);
        else
                log_error("Unknown option %s before the verb; options follow it: botdesk VERB PROFILE [OPTIONS] "
                          "(botdesk --help lists them).", w);
        return EXIT_USAGE;
}

/*
 * The words after the verb, options anywhere among them: the operand (and
 * lease's action), exec's command after PROFILE or after "--" (for a verb
 * of its own options with a command, web, or with operands, "--" only ends
 * the options, as getopt or its loop did; for the others it is a word they
 * do not take). a->operands has room for every word. A verb
 * outside the table is parsed as one without options of its own, so that
 * its words are judged before its name. Returns an exit code, said.
 */
/*
 * BOTDESK_HOME, a gateway's home, scopes the profile it names (profile.h):
 * the word becomes PROFILE.SCOPE in argv itself (and in words, the copy
 * parse_args() read), so every path from here on, a placed profile's far
 * side too, sees the one name. A name scoped already, or none, is left.
 */
static int scope_profile(const struct verb *v, char **argv, char **words, struct cli_args *a) {
        static char scoped[PROFILE_NAME_MAX + 1];
        const char *home = getenv("BOTDESK_HOME"), **word;
        int r;

        if (!home || !*home)
                return EXIT_OK;
        if (home[0] != '/') {
                log_error("BOTDESK_HOME must be an absolute path (the gateway's home), not \"%s\".", home);
                return EXIT_USAGE;
        }
        word = v->words && startswith(v->words, "PROFILE") ? &a->operand
               : v->words && strstr(v->words, " PROFILE") ? &a->action : NULL;
        if (!word || !*word || !profile_name_valid(*word) || (*word)[profile_base_len(*word)] == '.')
                return EXIT_OK;
        r = profile_scope(*word, home, scoped);
        if (r < 0)
                return log_error_errno(r, "Cannot scope profile %s by BOTDESK_HOME: %m", *word), EXIT_USAGE;
        for (size_t i = 0; argv[i]; i++)
                if (argv[i] == *word)
                        argv[i] = scoped;
        for (size_t i = 0; words && words[i]; i++)
                if (words[i] == *word)
                        words[i] = scoped;
        for (size_t i = 0; a->far_words && a->far_words[i]; i++)
                if (a->far_words[i] == *word)
                        a->far_words[i] = scoped;
        if (a->operands && a->operands[0] == *word)
                a->operands[0] = scoped;
        *word = scoped;
        return EXIT_OK;
}

/* words[from..to] (to SIZE_MAX: to the end) onto a->far_words, which has room for every word. */
static void far_push(struct cli_args *a, char **words, size_t from, size_t to) {
        size_t n = strv_length(a->far_words);

        for (size_t i = from; i <= to && words[i]; i++)
                a->far_words[n++] = words[i];
        a->far_words[n] = NULL;
}

static int parse_args(const struct verb *v, const char *verb, char **words, struct cli_args *a) {
        bool options_done = false;

        a->verb = verb;
        a->words = words;
        for (size_t i = 0; words[i]; i++) {
                const char *w = words[i], *value;
                size_t first = i;
                int id, r;

                if (streq(w, "--") && !options_done && v->own_options && (v->command || v->operands)) {
                        /* As getopt: the words after it are operands, whatever they look like. */
                        options_done = true;
                        far_push(a, words, i, i);
                        continue;
                }
                if (streq(w, "--") && !options_done && !v->own_options) {
                        a->command = words + i + 1;
                        far_push(a, words, i, SIZE_MAX);
                        break;
                }
                /* A verb of its own options and operands only takes no word
                 * that starts with a dash, "-" and "--" included; one of
                 * operands (a11y, journal, thumbnail, input) takes "-" as a
                 * word, and input a negative number. */
                if (w[0] == '-' && (w[1] || (v->own_options && !v->command && !v->operands)) && !options_done &&
                    !(v->negative_operands && w[1] >= '0' && w[1] <= '9')) {
                        id = option_find(v, w, &value);
                        if (id == -ENOMEM)
                                return log_oom(), EXIT_FAILED;
                        if (id < 0)
                                return usage_error(v, "option", verb, w);
                        if (cli_option_takes_value(id) && !value && words[i + 1])
                                value = words[++i];
                        if (cli_option_takes_value(id) && !value && !cli_options[id].judges_missing)
                                return usage_error(v, "value", verb, w);
                        r = option_apply(a, id, w, value);
                        if (r != EXIT_OK)
                                return r;
                        /* Its own loop (or getopt) answered --help where it stood. */
                        if (a->help && v->own_options)
                                return EXIT_OK;
                        if (!cli_options[id].here)
                                far_push(a, words, first, i);
                        continue;
                }
                if (v->operands) {
                        if (a->n_operands >= v->operands && !v->counts_operands)
                                return usage_error(v, "argument", verb, w);
                        if (a->n_operands < v->operands)
                                a->operands[a->n_operands] = w;
                        a->n_operands++;
                        a->operand = a->operands[0];
                } else if (!a->operand)
                        a->operand = w;
                else if (!a->action && v->action)
                        a->action = w;
                else if (v->command) {
                        a->command = words + i;
                        far_push(a, words, i, SIZE_MAX);
                        break;
                } else
                        return usage_error(v, "argument", verb, w);
                far_push(a, words, i, i);
        }
        return EXIT_OK;
}

/* The i-th positional word a holds for v (PROFILE the first; the action, or the command's first word, the
 * second), or NULL. */
static const char *positional(const struct verb *v, const struct cli_args *a, unsigned i) {
        if (v->operands)
                return i < a->n_operands && i < v->operands ? a->operands[i] : NULL;
        if (i == 0)
                return a->operand;
        if (i == 1)
                return a->action ?: a->command ? a->command[0] : NULL;
        return NULL;
}

/* The words v needs, there, and its PROFILE (wherever its row puts it) a valid name: judged once, here, for
 * every verb. Returns an exit code, said. */
static int judge_operands(const struct verb *v, const char *verb, const struct cli_args *a) {
        const char *p = strempty(v->words), *name;
        size_t len;

        /* In their order: "snapshot .." is an invalid PROFILE, not a missing NAME. */
        for (unsigned i = 0; (name = words_next(&p, &len)); i++) {
                const char *w = positional(v, a, i);

                if (!w && i < v->min_operands) {
                        log_error("Missing %.*s for %s; see botdesk %s --help.", (int) len, name, verb, verb);
                        return EXIT_USAGE;
                }
                if (w && word_is(name, len, "PROFILE") && cli_check_profile(w) < 0)
                        return EXIT_USAGE;
        }
        return EXIT_OK;
}

/*
 * The --epoch N of an agent action (a row with epoch):
 * taken out of words (up to "--", after which the words are the action's
 * own: text to type, say) and pinned for the gate (cli.h), so that every
 * verb reads it through this one parser. Returns the number of words
 * taken out, or -EINVAL (said).
 */
static int parse_epoch(char **words) {
        int taken = 0;

        for (size_t i = 0; words[i] && !streq(words[i], "--");) {
                const char *value = startswith(words[i], "--epoch=");
                unsigned long long v;
                size_t n = 1;

                if (!value && streq(words[i], "--epoch")) {
                        value = words[i + 1];
                        n = value ? 2 : 1;
                }
                if (!value) {
                        i++;
                        continue;
                }
                if (cli_epoch_parse(value, &v) < 0)
                        return -EINVAL;
                cli_epoch_pin_set(v);
                memmove(words + i, words + i + n, (strv_length(words + i + n) + 1) * sizeof *words);
                taken += (int) n;
        }
        return taken;
}

/* The words a --json error object's "code" says, by exit status (botdesk(1), EXIT STATUS). */
static const char *error_code(int status) {
        switch (status) {
        case EXIT_FAILED:
                return "failed";
        case EXIT_USAGE:
                return "usage";
        case EXIT_REFUSED:
                return "refused";
        case EXIT_NOT_RUNNING:
                return "not_running";
        default:
                return "failed";
        }
}

/* {"error": {"code", "message", "exit"}} on stdout: a failure a program reads with the same parser as
 * an answer. The message is the first error said on stderr. */
static void print_error_object(int status) {
        const char *message = log_first_error() ?: x11_verb_first_error();
        struct json j;

        json_init(&j, stdout);
        json_object_begin(&j);
        json_key(&j, "error");
        json_object_begin(&j);
        json_kv_string(&j, "code", error_code(status));
        json_kv_string(&j, "message", message ?: "See the message on standard error.");
        json_kv_int(&j, "exit", status);
        json_object_end(&j);
        json_object_end(&j);
        putchar('\n');
}

/* --json among the words before "--" (which an unparsed command line may still hold). */
static bool json_asked(int argc, char **argv) {
        for (int i = 1; i < argc && !streq(argv[i], "--"); i++)
                if (streq(argv[i], "--json"))
                        return true;
        return false;
}

static int run(int argc, char **argv, struct cli_args *ret_args, bool *ret_far);

int main(int argc, char **argv) {
        struct cli_args a = {};
        bool far = false;
        int r;

        log_setup("botdesk");
        log_keep_first_error();
        r = run(argc, argv, &a, &far);
        /* The far side's status is its own botdesk's, already mapped (and its --json error said). */
        if (far)
                return r;
        /* exec has no --json: one among its words is its command's. */
        if (a.verb && streq(a.verb, "exec"))
                return r >= EXIT_FAILED && r <= EXIT_NOT_RUNNING ? EXIT_EXEC_FAILED : r;
        if (r != EXIT_OK && (a.json || json_asked(argc, argv)) && !json_stdout_used() && !x11_verb_json_stdout_used())
                print_error_object(r);
        return r;
}

static int run(int argc, char **argv, struct cli_args *ret_args, bool *ret_far) {
        enum { OPT_VERSION = 0x100 };
        /* Before the verb only these; every other option follows the verb
         * (each verb knows its own), and is parsed below. */
        static const struct option options[] = {
                { "help", no_argument, NULL, 'h' },
                { "version", no_argument, NULL, OPT_VERSION },
                {}
        };
        /* A word outside the table: its words judged first as those of a verb of the common options, so
         * that "botdesk frobnicate p --json" is named an unknown command, its error object on stdout. */
        static const struct verb unknown = {
                .options = OPT(OPT_JSON) | OPT(OPT_QUIET) | OPT(OPT_FORCE) | OPT(OPT_YES) | OPT(OPT_TIMEOUT) |
                           OPT(OPT_PROFILE) | OPT(OPT_VIEWER) | OPT(OPT_REASON) | OPT(OPT_UNTIL) | OPT(OPT_HELP),
        };
        struct cli_args *a = ret_args;
        _cleanup_(config_done) struct bd_config config = {};
        bool config_read = false;
        _cleanup_free_ char **words = NULL;
        _cleanup_free_ const char **operands = NULL;
        _cleanup_free_ char **far_words = NULL;
        static char epoch_word[sizeof "--epoch=" + 20];   /* and a 64-bit number */
        const struct verb *v;
        size_t n;
        const char *verb, *near;
        int c, r;

        /* "+": stop at the first non-option so that exec's command keeps its own options. */
        opterr = 0;
        while ((c = getopt_long(argc, argv, "+h", options, NULL)) >= 0) {
                switch (c) {
                case 'h':
                        return cli_usage(stdout, EXIT_OK);
                case OPT_VERSION:
                        puts("botdesk " BOTDESK_VERSION "\n" BOTDESK_FEATURES);
                        return EXIT_OK;
                default:
                        return usage_error_before_verb(argv[optind - 1]);
                }
        }
        if (optind >= argc)
                return cli_usage(stderr, EXIT_USAGE);
        verb = a->verb = argv[optind++];
        v = verb_find(verb);
        n = (size_t) (argc - optind) + 1;
        a->operands = operands = calloc(n, sizeof *operands);
        /* Room for every word, and an --epoch=N before them. */
        a->far_words = far_words = calloc(n + 1, sizeof *far_words);
        if (!operands || !far_words)
                return log_oom(), EXIT_FAILED;
        /* The words of the table's verbs are judged here, before a profile
         * placed elsewhere gets them: --help is answered on this host, and
         * never takes the profile's lock or writes its owner record. */
        if (v) {
                /* An agent action's --epoch N first: from a copy, for a
                 * profile placed elsewhere gets every word. */
                if (v->epoch) {
                        words = malloc(n * sizeof *words);
                        if (!words)
                                return log_oom(), EXIT_FAILED;
                        memcpy(words, argv + optind, n * sizeof *words);
                        r = parse_epoch(words);
                        if (r < 0)
                                return EXIT_USAGE;
                        /* The far side of a placed profile gates on it as well. */
                        if (r > 0) {
                                snprintf(epoch_word, sizeof epoch_word, "--epoch=%llu", cli_epoch_pin());
                                far_words[0] = epoch_word;
                        }
                }
                r = parse_args(v, verb, words ?: argv + optind, a);
                if (r != EXIT_OK)
                        return r;
                if (a->help)
                        return cli_verb_usage(verb);
                r = judge_operands(v, verb, a);
                if (r != EXIT_OK)
                        return r;
                r = scope_profile(v, argv + optind, words, a);
                if (r != EXIT_OK)
                        return r;
        }
        /* A profile placed elsewhere (placement = exec) runs the verb there. */
        c = v ? remote_dispatch(v, a, &config, &config_read, ret_far) : -1;
        if (c >= 0)
                return c;
        if (config_read)
                a->config = &config;
        if (!v) {
                r = parse_args(&unknown, verb, argv + optind, a);
                if (r != EXIT_OK)
                        return r;
                near = verb_nearest(verb);
                log_error("Unknown command \"%s\"%s%s%s; see botdesk --help.", verb, near ? " (did you mean " : "",
                          strempty(near), near ? "?)" : "");
                return EXIT_USAGE;
        }
        return v->module != VERB_MODULE_NONE ? x11_verb_run_args(v, a) : v->run(a);
}
