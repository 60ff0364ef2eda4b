/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * botdesk: the command line. The table of verbs (verbs.h: one verb-NAME.c
 * each), and the one parser of the words after the verb; each verb says
 * what went wrong in one line on stderr and returns the exit code:
 *   0 success, 1 failed, 2 usage or configuration, 3 refused by policy,
 *   4 not running.
 */
#include <getopt.h>

#include "botdesk-config.h"
#include "cli.h"
#include "cli-remote.h"
#include "envfile.h"
#include "log.h"
#include "util.h"
#include "verbs.h"
#include "x11-verbs.h"

/* The options after the verb. */
enum {
        OPT_JSON,
        OPT_QUIET,
        OPT_FORCE,
        OPT_YES,
        OPT_TIMEOUT,
        OPT_PROFILE,
        OPT_VIEWER,
        OPT_REASON,
        OPT_UNTIL,
        OPT_START,
        OPT_PASSWORD_STDIN,
        OPT_ENV,
        OPT_EPOCH,
        OPT_HELP,
        _OPT_MAX,
};

#define OPT(id) (1u << (id))

/* Every verb takes these, as it always has: scripts pass --json, --quiet or
 * --timeout to verbs that ignore them, and must keep working. --help: the
 * verb's own lines of the usage. */
#define OPTS_COMMON                                                                                            \
        (OPT(OPT_JSON) | OPT(OPT_QUIET) | OPT(OPT_FORCE) | OPT(OPT_YES) | OPT(OPT_TIMEOUT) | OPT(OPT_PROFILE) | \
         OPT(OPT_VIEWER) | OPT(OPT_REASON) | OPT(OPT_UNTIL) | OPT(OPT_HELP))

static const struct cli_option {
        const char *name;
        const char *short_name;
        bool takes_value;
} cli_options[_OPT_MAX] = {
        [OPT_JSON] = { "--json" },
        [OPT_QUIET] = { "--quiet", "-q" },
        [OPT_FORCE] = { "--force", "-f" },
        [OPT_YES] = { "--yes", "-y" },
        [OPT_TIMEOUT] = { "--timeout", NULL, true },
        [OPT_PROFILE] = { "--profile", NULL, true },
        [OPT_VIEWER] = { "--viewer", NULL, true },
        [OPT_REASON] = { "--reason", NULL, true },
        [OPT_UNTIL] = { "--until", NULL, true },
        [OPT_START] = { "--start" },
        [OPT_PASSWORD_STDIN] = { "--password-stdin" },
        /* Also --env=NAME. */
        [OPT_ENV] = { "--env", NULL, true },
        [OPT_EPOCH] = { "--epoch", NULL, true },
        [OPT_HELP] = { "--help", "-h" },
};

struct verb {
        const char *name;
        /* Its lines of botdesk --help, in the table's order; NULL: not listed. */
        const char *synopsis;
        /* The options it takes beyond OPTS_COMMON. */
        unsigned options;
        /* lease: a second word (its action) */
        bool action;
        /* exec: the words after PROFILE are the command */
        bool command;
        /* An agent action of run_argv: main takes its --epoch N (parse_epoch()). */
        bool epoch;
        int (*run)(const struct cli_args *a);
        /* Instead of run: a verb that parses its own words (verbs.h). */
        int (*run_argv)(int argc, char **argv);
};

static int verb_help(const struct cli_args *a) {
        return cli_usage(stdout, EXIT_OK);
}

/* The verbs of botdesk-x11.so, loaded for them alone. */
static int verb_x11(int argc, char **argv) {
        int r = x11_verb_run(argv[0], argc, argv);

        if (r == -ENOENT) {
                /* Only a module of another build lacks one: the version check refuses those first. */
                log_error("Unknown command \"%s\"; see botdesk --help.", argv[0]);
                return EXIT_USAGE;
        }
        return r;
}

static const struct verb verbs[] = {
        { "start", "  start PROFILE [--timeout S]   start or adopt, wait until ready, print status\n",
          .run = verb_start },
        { "stop",
          "  stop PROFILE [--force]        stop; returns when nothing of it runs (--force: even\n"
          "                                while a human holds the lease)\n",
          .run = verb_stop },
        { "restart", "  restart PROFILE\n", .run = verb_restart },
        { "status", "  status [PROFILE] [--json]     one profile, or all known profiles\n", .run = verb_status },
        { "list", "  list [--json]\n", .run = verb_list },
        { "env",
          "  env PROFILE [--start] [--json] export lines for eval \"$(botdesk env P)\"\n"
          "                                (--start: start the desktop first when it is not running)\n",
          .options = OPT(OPT_START), .run = verb_env },
        { "exec",
          "  exec PROFILE [--start] [--env NAME]... -- CMD [ARG...]\n"
          "                                run CMD on that screen, inside the desktop, with the\n"
          "                                desktop's environment (--env NAME: also the caller's NAME)\n",
          .options = OPT(OPT_START) | OPT(OPT_ENV) | OPT(OPT_EPOCH), .command = true, .run = verb_exec },
        { "lease",
          "  lease PROFILE [show|take|release|request] [--viewer ID] [--reason TEXT] [--json]\n"
          "                                who controls the screen: the agent or a human viewer\n"
          "  lease PROFILE wait [--timeout S]  until the agent holds control (3 on timeout; default 600 s,\n"
          "                                at most 1800 s)\n",
          .action = true, .run = verb_lease },
        { "rfb", "  rfb PROFILE [--viewer ID]     RFB on stdin/stdout, input only while ID holds the lease\n",
          .run = verb_rfb },
        { "web",
          "  web [--listen SPEC]           noVNC and RFB over WebSocket for a browser (web ticket PROFILE --viewer ID)\n",
          .run_argv = verb_web },
        { "thumbnail",
          "  thumbnail PROFILE [-o FILE] [--size WxH] [--format png|jpeg] [--data-url] [--quality N] [--start]\n",
          .epoch = true, .run_argv = verb_x11 },
        { "input",
          "  input PROFILE ACTION ... [--start] [--json]\n"
          "                                move X Y | click [X Y] [--button N] [--double] | drag X1 Y1 X2 Y2\n"
          "                                | scroll DX DY | key COMBO... | type TEXT | down/up KEY|buttonN\n"
          "                                (--settle[=MS]: then wait until the screen is quiet)\n",
          .epoch = true, .run_argv = verb_x11 },
        { "windows",
          "  windows PROFILE [--json] [--start]\n"
          "                                the window manager's windows: id, title, class, geometry, active\n",
          .epoch = true, .run_argv = verb_x11 },
        { "cursor", "  cursor PROFILE [--json] [--start] the pointer position\n", .epoch = true, .run_argv = verb_x11 },
        { "settle",
          "  settle PROFILE [--quiet MS] [--timeout MS] [--json]\n"
          "                                wait until the screen was quiet MS ms: settled, still_changing, no_change\n",
          .epoch = true, .run_argv = verb_x11 },
        { "clipboard",
          "  clipboard PROFILE get|set [--type text/plain|image/png]\n"
          "                                the agent's clipboard: print it, or make stdin it\n",
          .epoch = true, .run_argv = verb_x11 },
        { "act",
          "  act PROFILE [--screenshots base64|DIR] [--start]\n"
          "                                one agent action a line in (either schema), one JSON result a line out\n",
          .epoch = true, .run_argv = verb_x11 },
        { "mcp",
          "  mcp PROFILE [--start]         an MCP server on stdin/stdout for an agent's client: the computer\n"
          "                                tool (Anthropic's and OpenAI's actions), batch, windows, status,\n"
          "                                ask_human\n",
          .epoch = true, .run_argv = verb_x11 },
        { "journal",
          "  journal PROFILE [--json] [--since SEQ|TIME] [--follow]\n"
          "                                the agent's actions, each with the screen after it\n"
          "  journal PROFILE export DIR | export --video FILE.mp4\n"
          "                                the journal as an HTML page with its frames, or a video\n"
          "  journal PROFILE replay [--from N] [--to M] [--dry-run] [--scale]\n"
          "                                run the recorded actions again, each screen against its frame\n",
          .run_argv = verb_x11 },
        { "a11y",
          "  a11y PROFILE [--json] [--window ID] [--find EXPR] [--max-nodes N]\n"
          "                                the accessibility tree: role, name, states, actions, text, bounds\n"
          "                                (screen and screenshot pixels); --find role=push button,name=Save\n"
          "  a11y PROFILE do ID ACTION [TEXT]  act on an element: click, press, activate, set-text TEXT\n",
          .epoch = true, .run_argv = verb_x11 },
        { "watch",
          "  watch [PROFILE] [--json] [--until ready|stopped|agent]\n"
          "                                a line per change of status or lease, the first the current state\n",
          .run = verb_watch },
        { "lookup", "  lookup PROFILE [--json]       the profile's logind session (logind tier)\n",
          .run = verb_lookup },
        { "pool",
          "  pool [list|fill|drain] [--json] the warm spares of [pool] spares: list them, start the\n"
          "                                missing ones and wait until ready, or stop them all\n",
          .run = verb_pool },
        { "doctor", "  doctor [--json]               what this host has and lacks\n", .run = verb_doctor },
        { "install",
          "  install [-y] [--timeout S] [--password-stdin]\n"
          "                                install the missing programs with the distribution's tool\n"
          "                                (one at a time; sudo -S gets the password from stdin)\n",
          .options = OPT(OPT_PASSWORD_STDIN), .run = verb_install },
        { "config", "  config check|show [--profile P]\n", .run = verb_config },
        { "help", .run = verb_help },
};

int cli_usage(FILE *f, int status) {
        fputs("Usage: botdesk COMMAND [ARGS]\n"
              "\n"
              "A private headless desktop (TigerVNC + Xfce) per agent profile.\n"
              "\n",
              f);
        for (size_t i = 0; i < ELEMENTSOF(verbs); i++)
                if (verbs[i].synopsis)
                        fputs(verbs[i].synopsis, f);
        fputs("\n"
              "Agent actions (input, act, windows, cursor, thumbnail, settle, clipboard, exec, mcp) take\n"
              "--epoch N: refused (3, \"epoch_moved\") unless the lease is still at epoch N.\n"
              "Exit codes: 0 ok, 1 failed, 2 usage/configuration, 3 refused, 4 not running.\n",
              f);
        return status;
}

static const struct verb *verb_find(const char *name) {
        for (size_t i = 0; i < ELEMENTSOF(verbs); i++)
                if (streq(verbs[i].name, name))
                        return &verbs[i];
        return NULL;
}

int cli_verb_usage(const char *verb) {
        const struct verb *v = verb_find(verb);

        /* help, the one verb without lines of its own, is the whole usage. */
        if (!v || !v->synopsis)
                return cli_usage(stdout, EXIT_OK);
        fputs(v->synopsis, stdout);
        return EXIT_OK;
}

/* The option of verb that word names: its id, with "--env=NAME"'s value in *ret_inline; -1 for none. */
static int option_find(const struct verb *v, const char *word, const char **ret_inline) {
        unsigned accepted = OPTS_COMMON | v->options;

        *ret_inline = NULL;
        for (int id = 0; id < _OPT_MAX; id++) {
                const struct cli_option *o = &cli_options[id];

                if (!(accepted & OPT(id)))
                        continue;
                if (streq(word, o->name) || (o->short_name && streq(word, o->short_name)))
                        return id;
                if (id == OPT_ENV && startswith(word, "--env=")) {
                        *ret_inline = word + strlen("--env=");
                        return id;
                }
        }
        return -1;
}

/* Sets option id of a to value (NULL: none followed). Returns an exit code, said. */
static int option_apply(struct cli_args *a, int id, const char *value) {
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
        switch (id) {
        case OPT_PROFILE:
                a->profile_opt = value;
                break;
        case OPT_VIEWER:
                a->viewer = value;
                break;
        case OPT_REASON:
                a->reason = value;
                break;
        case OPT_UNTIL:
                a->until = value;
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

/*
 * The words after the verb, options anywhere among them: the operand (and
 * lease's action), exec's command after PROFILE or after "--". A verb
 * outside the table is parsed as one without options of its own, so that
 * its words are judged before its name. Returns an exit code, said.
 */
static int parse_args(const struct verb *v, const char *verb, char **words, struct cli_args *a) {
        for (size_t i = 0; words[i]; i++) {
                const char *w = words[i], *value;
                int id, r;

                if (streq(w, "--")) {
                        a->command = words + i + 1;
                        break;
                }
                if (w[0] == '-' && w[1]) {
                        id = option_find(v, w, &value);
                        if (id < 0) {
                                log_error("Unknown option %s for %s.", w, verb);
                                return EXIT_USAGE;
                        }
                        if (cli_options[id].takes_value && !value && words[i + 1])
                                value = words[++i];
                        r = option_apply(a, id, value);
                        if (r != EXIT_OK)
                                return r;
                } else if (!a->operand)
                        a->operand = w;
                else if (!a->action && v->action)
                        a->action = w;
                else if (v->command) {
                        a->command = words + i;
                        break;
                } else {
                        log_error("Unexpected argument \"%s\".", w);
                        return EXIT_USAGE;
                }
        }
        return EXIT_OK;
}

/*
 * The --epoch N of an agent action that parses its own words (run_argv):
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

int main(int argc, char **argv) {
        enum { OPT_VERSION = 0x100 };
        /* Before the verb only these; every other option follows the verb
         * (each verb knows its own), and is parsed below. */
        static const struct option options[] = {
                { "help", no_argument, NULL, 'h' },
                { "version", no_argument, NULL, OPT_VERSION },
                {}
        };
        static const struct verb unknown = {};
        struct cli_args a = {};
        const struct verb *v;
        const char *verb;
        int c, r;

        log_setup("botdesk");
        /* "+": stop at the first non-option so that exec's command keeps its own options. */
        opterr = 0;
        while ((c = getopt_long(argc, argv, "+h", options, NULL)) >= 0) {
                switch (c) {
                case 'h':
                        return cli_usage(stdout, EXIT_OK);
                case OPT_VERSION:
                        puts("botdesk " BOTDESK_VERSION);
                        return EXIT_OK;
                default:
                        log_error("Unknown option %s before the verb; options follow it: botdesk VERB PROFILE [OPTIONS] "
                                  "(botdesk --help lists them).", argv[optind - 1]);
                        return EXIT_USAGE;
                }
        }
        if (optind >= argc)
                return cli_usage(stderr, EXIT_USAGE);
        verb = argv[optind++];
        v = verb_find(verb);
        /* The words of the table's verbs are judged here, before a profile
         * placed elsewhere gets them: --help is answered on this host, and
         * never takes the profile's lock or writes its owner record. */
        if (v && v->run) {
                r = parse_args(v, verb, argv + optind, &a);
                if (r != EXIT_OK)
                        return r;
                if (a.help)
                        return cli_verb_usage(verb);
        }
        /* A profile placed elsewhere (placement = exec) runs the verb there. */
        c = remote_dispatch(verb, argv + optind);
        if (c >= 0)
                return c;
        if (v && v->run_argv) {
                if (v->epoch) {
                        r = parse_epoch(argv + optind);
                        if (r < 0)
                                return EXIT_USAGE;
                        argc -= r;
                }
                return v->run_argv(argc - optind + 1, argv + optind - 1);
        }
        if (!v) {
                r = parse_args(&unknown, verb, argv + optind, &a);
                if (r != EXIT_OK)
                        return r;
                log_error("Unknown command \"%s\"; see botdesk --help.", verb);
                return EXIT_USAGE;
        }
        return v->run(&a);
}
