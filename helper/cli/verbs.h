/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "vendor.h"
#include "watch.h"

struct bd_config;

/* thumbnail's --format, as given. */
enum cli_format {
        CLI_FORMAT_NONE,
        CLI_FORMAT_PNG,
        CLI_FORMAT_JPEG,
};

/*
 * Every verb of `botdesk`, one verb-NAME.c each. verb-table.c holds the
 * table that names them, with their options and their lines of `botdesk
 * --help`; main.c the one parser of the words after the verb.
 *
 * Each verb returns the CLI exit code (cli.h: 0 ok, 1 failed, 2 usage or
 * configuration, 3 refused, 4 not running) and has already said why on
 * stderr, in one line.
 */

struct bd_paths;
struct helper_record;

/* What main.c's parser found after the verb. Pointers are into argv. */
struct cli_args {
        const char *verb;       /* the verb itself */
        char **words;           /* every word after it, NULL-terminated, an agent action's --epoch N taken out */
        const char *operand;    /* the first word: PROFILE (config: check or show), or NULL */
        const char *action;     /* lease: the second word (show, take, ...), or NULL */
        char **command;         /* exec: CMD [ARG...], NULL-terminated, or NULL */
        bool json;
        bool quiet;
        bool force;
        bool yes;
        bool start;             /* env, exec: --start */
        bool password_stdin;    /* install */
        bool help;              /* --help, -h: the verb's usage instead */
        unsigned timeout;       /* seconds; 0 = not given */
        const char *profile_opt;        /* config: --profile */
        bool origin;                    /* config show: --origin */
        bool full;                      /* watch: --full */
        bool remove;                    /* stop: --remove, the container too */
        const char *viewer;
        const char *reason;
        enum watch_until until;         /* watch: --until, WATCH_UNTIL_NONE when not given */
        const char *listen, *novnc, *ping, *ttl;        /* web */
        const char *screenshots;                        /* act */
        enum mcp_vendor vendor;                         /* act, toolset: --vendor, with vendor_given */
        bool vendor_given;
        bool clipboard_png;                             /* clipboard: --type image/png */
        unsigned quiet_ms, timeout_ms;                  /* settle; 0 = not given */
        const char *window, *find;                      /* a11y, input (window) */
        unsigned max_nodes;                             /* a11y; 0 = not given */
        const char *wait_for;                           /* wait: --for COND, judged by the verb */
        const char *button;                             /* input, judged by the verb */
        bool double_click, from_stdin, settle;          /* input: --double, --stdin, --settle[=MS] */
        unsigned settle_ms;                             /* input: --settle=MS; 0 = the default */
        const char *output, *size, *quality;            /* thumbnail; output NULL for "-" */
        enum cli_format format;                         /* thumbnail: --format */
        bool data_url, timings;                         /* thumbnail */
        const char *since_revision;                     /* thumbnail, judged by the verb */
        const char *since, *video;                      /* journal */
        unsigned long long from, to;                    /* journal replay; 0 = not given */
        unsigned tolerance;                             /* journal replay, with tolerance_given */
        bool tolerance_given, follow, dry_run, scale;
        /* a11y, journal, thumbnail, input: their words (PROFILE do ID ACTION
         * TEXT, PROFILE export DIR, PROFILE ACTION ARGS...), operand the
         * first, NULL after the last; journal's beyond its row's count
         * counted too, not kept. Room for every word after the verb. */
        const char **operands;
        size_t n_operands;
        char *pass_env[65];     /* exec --env NAME, NULL-terminated */
        size_t n_pass_env;
        /* The profile's configuration as read to decide where the verb
         * runs (cli-remote.h), or NULL: what the verb need not read again. */
        const struct bd_config *config;
        /* The words a profile placed elsewhere is given there: every word after the verb but an option whose
         * meaning is on this host (cli_option.here: thumbnail's -o FILE, stop's --remove), an agent
         * action's --epoch N first. NULL-terminated. */
        char **far_words;
        const char *as;         /* fork: --as NEW */
        unsigned count;         /* fork: --count N; 0 = not given */
};

/* botdesk --help, generated from the table: to f, and returns status. */
int cli_usage(FILE *f, int status);

/* botdesk VERB --help: the verb's lines of that usage on stdout (the whole
 * usage for a verb without lines of its own); EXIT_OK. */
int cli_verb_usage(const char *verb);
/* The same to f (stderr after a message of a usage error). */
void cli_verb_usage_to(FILE *f, const char *verb);

/*
 * botdesk start PROFILE [--timeout S]: start or adopt, wait until ready,
 * print the status (--json: as JSON). Also stop, restart.
 */
int verb_start(const struct cli_args *a);
struct bd_status;
/* start's work for one profile with the configuration c (read there): a CLI exit code, said; the status it
 * confirmed in *ret_st when that is not NULL (the caller then owns it). botdesk fork starts each fork so. */
int verb_start_desktop(const struct cli_args *a, const char *profile, struct bd_config *c, struct bd_status *ret_st);
int verb_snapshot(const struct cli_args *a);
int verb_fork(const struct cli_args *a);
int verb_stop(const struct cli_args *a);
int verb_hibernate(const struct cli_args *a);
int verb_restart(const struct cli_args *a);

/*
 * --start of env, exec and input, and [session] auto_start = yes: when the
 * desktop of profile is not running (or not yet published), start it as
 * `botdesk start` does, with its checks, memory gate and placement. flag
 * is --start; without it the profile's auto_start decides. EXIT_OK when the
 * desktop runs or nothing asked for a start (the verb then says it is not
 * running), else start's exit code (3 for a refusal), said on stderr.
 * a gives start's --timeout.
 */
int verb_start_on_demand(const struct cli_args *a, const char *profile, bool flag);

/* What env and exec act on: the desktop, started on demand as above (flag
 * a->start), then its live helper and published env as
 * running_desktop_published() finds them. Returns an exit code, said. */
int verb_start_published(const struct cli_args *a, const char *profile, struct bd_paths *p, int *ret_fd,
                         char ***ret_env, struct helper_record *ret_rec);

/* botdesk status [PROFILE] [--json], botdesk list [--json]: one profile, or all known profiles. */
int verb_status(const struct cli_args *a);
int verb_list(const struct cli_args *a);

/* botdesk env PROFILE [--start] [--json]: export lines for eval, or one JSON object. */
int verb_env(const struct cli_args *a);

/* botdesk exec PROFILE [--start] [--env NAME]... -- CMD [ARG...]: CMD on that
 * screen, inside the desktop; exits with CMD's status (126, 127 when it cannot run). */
int verb_exec(const struct cli_args *a);

/*
 * botdesk lease PROFILE [show|take|release|request|wait] [--viewer ID] [--reason TEXT] [--timeout S] [--json]
 * action NULL means show. take, release and request need viewer (else 2).
 * A take by the holder and a release by someone who does not hold the
 * lease change nothing and exit 0, saying so. request records a pending
 * request for control (reason optional). wait returns 0 once the agent
 * holds control, 3 after timeout seconds (0: 600; over 1800 is 2). take
 * of a desktop that is not running is 4. Prints the lease (JSON:
 * holder, viewer_hash, since, epoch, reason, pending; never a raw viewer id).
 */
int verb_lease(const struct cli_args *a);

/*
 * botdesk rfb PROFILE [--viewer ID]
 * Bridges stdin/stdout to the desktop's RFB socket until either side ends
 * (0); input reaches the screen only while this viewer holds the lease
 * (never without --viewer). While a human holds the lease only that
 * viewer's streams see the screen: 3 when a human other than viewer takes
 * control (the stream ends at once) or holds it at connect (refused before
 * a byte of the screen). 4 when the desktop is not running, 1 when the
 * client sends something the filter refuses.
 */
int verb_rfb(const struct cli_args *a);

/*
 * botdesk watch [PROFILE] [--json] [--until ready|stopped|agent]
 * One line (JSON object with --json) per change of status or lease of
 * PROFILE, or of every profile of the user (new ones included), the first
 * line of each its current state. Runs until killed, or with --until
 * (PROFILE only) until that state is reached (0). 2 for bad usage.
 */
int verb_watch(const struct cli_args *a);

/*
 * botdesk lookup PROFILE [--json]: the calling user's logind session of a
 * profile (the logind tier, botdesk-session@PROFILE.service). Prints its id,
 * display, state, scope, leader and the desktop's published environment.
 * 0 found, 1 failed, 2 usage, 4 no such session.
 */
int verb_lookup(const struct cli_args *a);

/*
 * botdesk pool [list|fill|drain] [--json]: the warm spares ([pool] spares,
 * pool.h). list: each live spare; fill: start the missing ones and wait
 * until each is ready; drain: stop them all. 0, 1 failed, 2 usage.
 */
int verb_pool(const struct cli_args *a);

/* botdesk doctor [--json]: what this host has and lacks. */
int verb_doctor(const struct cli_args *a);

/*
 * botdesk install [-y] [--timeout S] [--password-stdin] [--quiet]
 * Installs what is missing with the package manager (apt-get, dnf, pacman)
 * and sudo found on the system PATH ([install] system_path), never the
 * caller's; one install at a time. 0 done or nothing to do; 1 failed, timed
 * out (timeout seconds, 0 = 900; the process group is killed), cancelled
 * (no password), or no package manager; 2 usage (no --yes off a terminal);
 * 3 another install runs, or no sudo for a non-root caller.
 */
int verb_install(const struct cli_args *a);

/* botdesk config check|show [--profile P] [--origin]: 2 with every error, file:line, when the configuration is invalid. */
int verb_config(const struct cli_args *a);
int verb_files(const struct cli_args *a);
int verb_network(const struct cli_args *a);

/*
 * botdesk web [--listen unix:PATH|HOST:PORT] [--novnc DIR] [--ping S]
 * botdesk web ticket PROFILE --viewer ID [--ttl S]
 *         0 ok, 1 failed, 2 usage.
 */
int verb_web(const struct cli_args *a);

/*
 * botdesk cdp PROFILE: the desktop browser's DevTools socket on stdin and
 * stdout, bytes unchanged (verb-cdp.c). 0 when either side ends, 4 when the
 * desktop is not running, 1 when it has no browser serving DevTools.
 */
int verb_cdp(const struct cli_args *a);

/* botdesk browser PROFILE endpoint [--ttl S] [--json]: a DevTools URL of the desktop's browser (verb-browser.c). */
int verb_browser(const struct cli_args *a);

/*
 * The verbs that speak X, in botdesk-x11.so (x11-verbs.h), their words
 * read by main.c's parser like every verb's.
 *
 * botdesk thumbnail PROFILE [-o FILE] [--size WxH] [--format png|jpeg] [--data-url] [--quality N]
 *         0 written; 1 failed (X refused, grab or encode failed, FILE not
 *         writable); 2 usage; 3 refused by the control lease, or void
 *         because a human took it while the screen was read (--json:
 *         {"suppressed": ...} as below); 4 the desktop is not running.
 * botdesk input PROFILE ACTION ... [--json]
 * botdesk windows PROFILE [--json]
 * botdesk cursor PROFILE [--json]
 *         0 done; 1 failed; 2 usage (nothing sent to the screen); 3 refused
 *         because a human holds the lease, or void because a human took it
 *         while the action ran (--json: {"suppressed": "human_has_control",
 *         ...}), or pinned by --epoch N (main.c takes it) to an epoch the
 *         lease has left ({"suppressed": "epoch_moved", ...}); 4 not running.
 */
int verb_thumbnail(const struct cli_args *a);
int verb_input(const struct cli_args *a);
/*
 * botdesk mcp PROFILE [--start]: an MCP server on stdin/stdout (JSON-RPC, one
 * message per line) until stdin ends (0); 1 when the desktop's X connection
 * breaks; 2, 4 as above before it serves.
 */
int verb_mcp(const struct cli_args *a);
/* botdesk settle PROFILE [--quiet MS] [--timeout MS] [--json]: 0 with settled,
 * still_changing or no_change said; 1 without DAMAGE; 3, 4 as above. */
int verb_settle(const struct cli_args *a);
/* botdesk act PROFILE [--screenshots base64|DIR] [--start]: one action a line
 * in, one JSON result a line out, until stdin ends (0). */
int verb_act(const struct cli_args *a);
int verb_toolset(const struct cli_args *a);
/* botdesk clipboard PROFILE get|set [--type text/plain|image/png]: 0; 1 nothing there, too large, no
 * answer; 2 usage; 3 a human holds control; 4 not running. */
int verb_clipboard(const struct cli_args *a);
/* botdesk journal PROFILE [--json] [--since SEQ|TIME] [--follow], export DIR, export --video FILE:
 * the journal of agent actions (control/journal.h). 0; 1 none, unreadable, no ffmpeg; 2 usage. */
int verb_journal(const struct cli_args *a);

/* a11y PROFILE [--json] [--window ID] [--find EXPR] [--max-nodes N] | a11y PROFILE do ID ACTION [TEXT]:
 * the accessibility tree and actions on its elements (a11y-agent.h). */
int verb_a11y(const struct cli_args *a);
/* botdesk windows PROFILE [--json] [--start], botdesk cursor PROFILE [--json]
 * [--start]: their words from main.c's parser (verb-table.c). */
int verb_windows(const struct cli_args *a);
/* botdesk wait PROFILE --for window=TITLE|gone=TITLE [--timeout S] [--json]: 0 once it holds,
 * said; 1 on timeout; 2 usage (nothing waited); 3 refused or suppressed by the lease; 4 not running. */
int verb_wait(const struct cli_args *a);
int verb_cursor(const struct cli_args *a);
