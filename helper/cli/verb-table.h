/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The one table of botdesk's verbs: per verb its name, its lines of
 * `botdesk --help`, the options it takes, its positional words, whether it
 * runs through a profile's exec prefix when the desktop is placed on
 * another host, and how long it may take there. main.c's parser,
 * cli-remote.c, `--help` and the bash completion (through `botdesk
 * __verbs`) all read it: a new verb is one row here and one verb-NAME.c.
 */

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "verbs.h"

/* Every option of every verb, each set by main.c's parser (option_apply()). */
enum cli_option_id {
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
        /* web */
        OPT_LISTEN,
        OPT_NOVNC,
        OPT_PING,
        OPT_TTL,
        /* thumbnail */
        OPT_OUTPUT,
        OPT_OUTPUT_SHORT,
        OPT_SIZE,
        OPT_FORMAT,
        OPT_QUALITY,
        OPT_DATA_URL,
        OPT_TIMINGS,
        OPT_SINCE_REVISION,
        /* input */
        OPT_BUTTON,
        OPT_DOUBLE,
        OPT_WINDOW,
        OPT_STDIN,
        OPT_SETTLE,
        /* settle: --quiet-ms MS and --timeout-ms MS; and their old names, --quiet MS and --timeout MS
         * (unlike everyone else's --quiet and --timeout S), kept as hidden aliases */
        OPT_QUIET_MS,
        OPT_TIMEOUT_MS,
        OPT_QUIET_MS_OLD,
        OPT_TIMEOUT_MS_OLD,
        /* act, clipboard */
        OPT_SCREENSHOTS,
        OPT_TYPE,
        /* journal */
        OPT_SINCE,
        OPT_FOLLOW,
        OPT_VIDEO,
        OPT_FROM,
        OPT_TO,
        OPT_DRY_RUN,
        OPT_SCALE,
        OPT_TOLERANCE,
        /* a11y */
        OPT_FIND,
        OPT_MAX_NODES,
        /* wait */
        OPT_FOR,
        OPT_VENDOR,
        /* config show */
        OPT_ORIGIN,
        /* watch */
        OPT_FULL,
        /* stop */
        OPT_REMOVE,
        /* fork */
        OPT_AS,
        OPT_COUNT,
        _OPT_MAX,
};

#define OPT(id) (UINT64_C(1) << (id))


/* What the completion offers as an option's value. */
enum cli_value {
        VALUE_NONE,     /* a flag: no value */
        VALUE_ANY,      /* the next word, anything */
        VALUE_WORDS,    /* the next word, one of .words */
        VALUE_FILE,
        VALUE_DIR,
        VALUE_PROFILE,
};

struct cli_option {
        const char *name;       /* "--json", or a short name on its own ("-o") */
        const char *short_name; /* "-q", also accepted by main.c's parser */
        enum cli_value value;
        const char *words;      /* VALUE_WORDS: "png jpeg" */
        const char *more_words; /* VALUE_WORDS: also accepted, never offered ("jpg") */
        bool hidden;            /* for tests and benchmarks: never completed */
        /* Its value missing is judged as an invalid one (option_apply()
         * says so), not as a word the verb does not take. */
        bool judges_missing;
        /* A flag that also takes a value as --NAME=VALUE, never as the next
         * word (input's --settle and --settle=MS). */
        bool inline_value;
        /* Its meaning is on this host: a placed profile's far side never
         * gets it (a file of ours, our container to remove). */
        bool here;
};

/* settle's --quiet MS and --timeout MS: at most this many ms. */
#define SETTLE_MS_MAX 600000u
/* input's --settle=MS: at most this many ms. */
#define INPUT_SETTLE_MS_MAX 1000u
/* journal replay's --tolerance PCT: at most this. */
#define JOURNAL_TOLERANCE_MAX 100u
/* journal's --from and --to N: at most this. */
#define JOURNAL_SEQ_MAX 999999999999ull
/* a11y's usage: its row's, and the end of its messages (verb-a11y.c). */
#define A11Y_USAGE                                                                                                     \
        "Usage: botdesk a11y PROFILE [--json] [--window ID] [--find EXPR] [--max-nodes N]\n"                         \
        "       botdesk a11y PROFILE do ID ACTION [TEXT] [--json]\n"                                                   \
        "EXPR: role=ROLE,name=TEXT (name==TEXT: exact),state=STATE\n"                                                \
        "      (state=!STATE: without it)\n"                                                                           \
        "ACTION: an action of the element (click, press, activate, ...) or set-text TEXT\n"

extern const struct cli_option cli_options[_OPT_MAX];

static inline bool cli_option_takes_value(int id) {
        return cli_options[id].value != VALUE_NONE;
}

/* How long a verb placed on another host may take there (cli-remote.c), T
 * being its --timeout. */
enum remote_timeout {
        REMOTE_TIMEOUT_DEFAULT, /* T, else 30 s */
        REMOTE_TIMEOUT_NONE,    /* as long as the caller: no deadline, and our stdin */
        REMOTE_TIMEOUT_START,   /* T, else the start timeout, + 10 s */
        REMOTE_TIMEOUT_RESTART, /* T, else the start timeout, + 70 s (a stop, then a start) */
        REMOTE_TIMEOUT_STOP,    /* T, else 60 s */
        REMOTE_TIMEOUT_LEASE,   /* wait: T + 10 s, else none; the other actions as DEFAULT */
        _REMOTE_TIMEOUT_MAX,
};

const char *remote_timeout_name(enum remote_timeout t);

/* Where a verb's code is: the CLI itself (run), or botdesk-x11.so, which a
 * build has with the feature the verb needs (x11-verbs.h). */
enum verb_module {
        VERB_MODULE_NONE,
        VERB_MODULE_THUMBNAIL,  /* -Dthumbnail: libpng, libjpeg, xcb-shm */
        VERB_MODULE_INPUT,      /* -Dinput: xcb-xtest and xkbcommon, and thumbnails */
        _VERB_MODULE_MAX,
};

const char *verb_module_name(enum verb_module m);

struct verb {
        const char *name;
        /* Its lines of botdesk --help, in the table's order. */
        const char *synopsis;
        /* The heading of the group of --help it begins ("Host:"), as
         * systemctl --help groups its verbs; the rows after it are in it. */
        const char *section;
        /* The options it takes, and no other: those it uses (and the
         * completion offers). */
        uint64_t options;
        /* Its positional words, space-separated: PROFILE, COMMAND (the rest
         * is a command line), a word in capitals for any, or the choices
         * a|b|c. For the completion; main.c's parser reads action and
         * command. */
        const char *words;
        /* lease, clipboard, web: a second word (its action; web's PROFILE) */
        bool action;
        /* exec: the words after PROFILE are the command (web: the words too many) */
        bool command;
        /* An agent action: main takes its --epoch N out first (parse_epoch()). */
        bool epoch;
        /* No lines in --help: help is the usage itself. */
        bool unlisted;
        /* For botdesk's own scripts (__verbs): neither listed nor completed. */
        bool internal;
        /* Takes --NAME=VALUE too, as getopt or its own loop once did.
         * With command (web, once getopt's), "--" ends its options and the
         * words after it are operands; without, no word that starts with
         * a dash ("-", "--") is an operand. */
        bool own_options;
        /* The positional words it needs (main.c's parser says which is
         * missing, by its name in words); a PROFILE among them, given or
         * not, is judged there too, so no verb checks its profile. */
        unsigned min_operands;
        /* a11y: up to this many positional words, in operands (operand the
         * first), "-" one of them, and after "--" every word is one
         * (OPERANDS_ANY: input's PROFILE ACTION and the action's words). */
        unsigned operands;
        /* input: a word of a dash and a digit (scroll's -3) is an operand,
         * not an option. */
        bool negative_operands;
        /* a11y, as its loop took them: no --NAME=VALUE. */
        bool no_inline_values;
        /* journal, as getopt_long took them: an option is also named by a
         * unique prefix of its name (--js, --sin=5), and -h followed by
         * anything is --help (getopt answered it before the rest). */
        bool abbrev;
        /* journal: the words beyond operands are not refused where they
         * stand but counted in n_operands, for the verb to refuse once its
         * profile is judged, as after getopt. */
        bool counts_operands;

        /* Its usage of its own, which --help prints on stdout (a word it
         * does not take is said in one line, as for every verb: main.c). */
        const char *usage;
        /* Its one line of use ("botdesk windows PROFILE [--json]"): --help
         * prints "Usage: " and it. */
        const char *use;
        /* Runs through the profile's exec prefix when placed elsewhere; the
         * others are about this host. */
        bool placed;
        /* Also serves a profile that fronts a VNC server botdesk did not
         * start (remote =): every other placed verb refuses one (3). */
        bool serves_remote;
        enum remote_timeout remote_timeout;
        /* Placed elsewhere, it reads our stdin within its deadline (clipboard set). */
        bool remote_stdin;
        /* Its code: run, or a verb of botdesk-x11.so (run NULL), which the
         * module's rows name (tests/unit/cli/test-x11-verbs.c checks both
         * ways). */
        int (*run)(const struct cli_args *a);
        enum verb_module module;
};

/* A verb's operands: as many as it is given. */
#define OPERANDS_ANY UINT_MAX

/* The verb called name, or NULL. */
const struct verb *verb_find(const char *name);

/* The next word of one of the table's space-separated lists (a row's words, an option's words) at *p: its
 * start, its length in *ret_len, *p moved past it; NULL after the last. */
const char *words_next(const char **p, size_t *ret_len);

/* Whether the word w of n bytes (from words_next()) is s. */
bool word_is(const char *w, size_t n, const char *s);


/* The option of verb v that word names exactly (name or short name), or -1. */
int verb_option_find(const struct verb *v, const char *word);

/*
 * "Did you mean": the listed verb, or the option of v (by its long name),
 * nearest to word within two edits (a letter added, dropped, changed, or
 * two swapped), or NULL.
 */
const char *verb_nearest(const char *word);
const char *verb_option_nearest(const struct verb *v, const char *word);
