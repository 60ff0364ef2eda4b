/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * botdesk's verbs, one row each (verb-table.h), and what is generated from
 * them: botdesk --help, botdesk VERB --help, and botdesk __verbs, the
 * table as lines for the bash completion and the tests.
 */
#include <errno.h>

#include "cli.h"
#include "log.h"
#include "nearest.h"
#include "util.h"
#include "verb-table.h"

/* The agent actions and the verbs of botdesk-x11.so: --help, and the --epoch N main.c takes first. */
#define OPTS_ACTION (OPT(OPT_HELP) | OPT(OPT_EPOCH))

const struct cli_option cli_options[_OPT_MAX] = {
        [OPT_JSON] = { "--json" },
        [OPT_QUIET] = { "--quiet", "-q" },
        [OPT_FORCE] = { "--force", "-f" },
        [OPT_YES] = { "--yes", "-y" },
        [OPT_TIMEOUT] = { "--timeout", NULL, VALUE_ANY },
        [OPT_PROFILE] = { "--profile", NULL, VALUE_PROFILE },
        [OPT_VIEWER] = { "--viewer", NULL, VALUE_ANY },
        [OPT_REASON] = { "--reason", NULL, VALUE_ANY },
        [OPT_UNTIL] = { "--until", NULL, VALUE_WORDS, "ready stopped agent" },
        [OPT_START] = { "--start" },
        [OPT_PASSWORD_STDIN] = { "--password-stdin" },
        /* Also --env=NAME. */
        [OPT_ENV] = { "--env", NULL, VALUE_ANY },
        [OPT_EPOCH] = { "--epoch", NULL, VALUE_ANY },
        [OPT_HELP] = { "--help", "-h" },
        [OPT_LISTEN] = { "--listen", NULL, VALUE_ANY },
        [OPT_NOVNC] = { "--novnc", NULL, VALUE_DIR },
        [OPT_PING] = { "--ping", NULL, VALUE_ANY },
        [OPT_TTL] = { "--ttl", NULL, VALUE_ANY },
        /* "-": standard output. */
        [OPT_OUTPUT] = { "--output", NULL, VALUE_FILE, .here = true },
        /* A name of its own: the completion offers --output, and takes -o (and -o=FILE). */
        [OPT_OUTPUT_SHORT] = { "-o", NULL, VALUE_FILE, .hidden = true, .here = true },
        [OPT_SIZE] = { "--size", NULL, VALUE_ANY },
        [OPT_FORMAT] = { "--format", NULL, VALUE_WORDS, "png jpeg", .more_words = "jpg" },
        [OPT_QUALITY] = { "--quality", NULL, VALUE_ANY },
        [OPT_DATA_URL] = { "--data-url" },
        [OPT_TIMINGS] = { "--timings", .hidden = true },
        [OPT_SINCE_REVISION] = { "--since-revision", NULL, VALUE_ANY },
        [OPT_BUTTON] = { "--button", NULL, VALUE_ANY },
        [OPT_DOUBLE] = { "--double" },
        [OPT_WINDOW] = { "--window", NULL, VALUE_ANY },
        [OPT_STDIN] = { "--stdin" },
        /* Also --settle=MS: never the next word. */
        [OPT_SETTLE] = { "--settle", .inline_value = true },
        /* Milliseconds, named apart from -q/--quiet and every other verb's --timeout in seconds; the old
         * names still work, and are completed no more. */
        [OPT_QUIET_MS] = { "--quiet-ms", NULL, VALUE_ANY, .judges_missing = true },
        [OPT_TIMEOUT_MS] = { "--timeout-ms", NULL, VALUE_ANY, .judges_missing = true },
        [OPT_QUIET_MS_OLD] = { "--quiet", NULL, VALUE_ANY, .judges_missing = true, .hidden = true },
        [OPT_TIMEOUT_MS_OLD] = { "--timeout", NULL, VALUE_ANY, .judges_missing = true, .hidden = true },
        [OPT_SCREENSHOTS] = { "--screenshots", NULL, VALUE_ANY },
        [OPT_TYPE] = { "--type", NULL, VALUE_WORDS, "text/plain image/png" },
        [OPT_SINCE] = { "--since", NULL, VALUE_ANY },
        [OPT_FOLLOW] = { "--follow" },
        [OPT_VIDEO] = { "--video", NULL, VALUE_FILE },
        [OPT_FROM] = { "--from", NULL, VALUE_ANY },
        [OPT_TO] = { "--to", NULL, VALUE_ANY },
        [OPT_DRY_RUN] = { "--dry-run" },
        [OPT_SCALE] = { "--scale" },
        [OPT_TOLERANCE] = { "--tolerance", NULL, VALUE_ANY },
        [OPT_FIND] = { "--find", NULL, VALUE_ANY },
        [OPT_MAX_NODES] = { "--max-nodes", NULL, VALUE_ANY },
        [OPT_FOR] = { "--for", NULL, VALUE_ANY, .judges_missing = true },
        [OPT_VENDOR] = { "--vendor", NULL, VALUE_WORDS, "auto anthropic openai gemini" },
        [OPT_ORIGIN] = { "--origin" },
        [OPT_FULL] = { "--full" },
        [OPT_REMOVE] = { "--remove", .here = true },
        [OPT_AS] = { "--as", NULL, VALUE_PROFILE },
        [OPT_COUNT] = { "--count", NULL, VALUE_ANY },
};

/* botdesk help [VERB]: VERB's own usage, as botdesk VERB --help prints it; else the list of verbs. */
static int verb_help(const struct cli_args *a) {
        const struct verb *v = a->operand ? verb_find(a->operand) : NULL;
        const char *near;

        if (v && !v->internal)
                return cli_verb_usage(v->name);
        if (!a->operand)
                return cli_usage(stdout, EXIT_OK);
        near = verb_nearest(a->operand);
        log_error("Unknown command \"%s\"%s%s%s; see botdesk --help.", a->operand, near ? " (did you mean " : "",
                  strempty(near), near ? "?)" : "");
        return EXIT_USAGE;
}

static int verb_list_verbs(const struct cli_args *a);

static const struct verb verbs[] = {
        { "start", "  start PROFILE [--timeout S]   start or adopt, wait until ready, print status\n",
          .options = OPT(OPT_TIMEOUT) | OPT(OPT_JSON) | OPT(OPT_QUIET) | OPT(OPT_HELP), .words = "PROFILE", .min_operands = 1, .placed = true, .remote_timeout = REMOTE_TIMEOUT_START,
          .section = "Desktop commands:", .run = verb_start },
        { "stop",
          "  stop PROFILE [--force]        stop; returns when nothing of it runs\n"
          "                                (--force: even while a human holds the lease)\n"
          "  stop PROFILE --remove         and remove its podman|docker container\n",
          .options = OPT(OPT_FORCE) | OPT(OPT_QUIET) | OPT(OPT_REMOVE) | OPT(OPT_TIMEOUT) | OPT(OPT_HELP), .words = "PROFILE", .min_operands = 1, .placed = true, .remote_timeout = REMOTE_TIMEOUT_STOP,
          .run = verb_stop },
        { "hibernate",
          "  hibernate PROFILE [--json]    a checkpointable desktop dumped, memory and\n"
          "                                windows, then stopped; start resumes it\n",
          .options = OPT(OPT_TIMEOUT) | OPT(OPT_JSON) | OPT(OPT_QUIET) | OPT(OPT_HELP), .words = "PROFILE", .min_operands = 1,
          .run = verb_hibernate },
        { "snapshot",
          "  snapshot PROFILE NAME         a checkpointable desktop dumped into a\n"
          "                                snapshot it keeps, running on\n",
          .options = OPT(OPT_TIMEOUT) | OPT(OPT_JSON) | OPT(OPT_QUIET) | OPT(OPT_HELP), .words = "PROFILE NAME", .min_operands = 2,
          .own_options = true, .operands = 2, .run = verb_snapshot },
        { "fork",
          "  fork PROFILE NAME --as NEW [--count N]\n"
          "                                new profiles restored from a snapshot, each\n"
          "                                on its own display (NEW, or NEW-1..NEW-N)\n",
          .options = OPT(OPT_AS) | OPT(OPT_COUNT) | OPT(OPT_TIMEOUT) | OPT(OPT_JSON) | OPT(OPT_QUIET) | OPT(OPT_HELP),
          .words = "PROFILE NAME", .min_operands = 2, .own_options = true, .operands = 2, .run = verb_fork },
        { "restart", "  restart PROFILE\n", .options = OPT(OPT_FORCE) | OPT(OPT_TIMEOUT) | OPT(OPT_JSON) | OPT(OPT_QUIET) | OPT(OPT_HELP), .words = "PROFILE", .min_operands = 1, .placed = true,
          .remote_timeout = REMOTE_TIMEOUT_RESTART, .run = verb_restart },
        { "status",
          "  status [PROFILE] [--json]     one profile, or all known profiles\n"
          "  status PROFILE --quiet        nothing printed: exit 0 when ready, 4 when not\n",
          .options = OPT(OPT_JSON) | OPT(OPT_QUIET) | OPT(OPT_TIMEOUT) | OPT(OPT_HELP),
          .words = "PROFILE", .placed = true, .serves_remote = true, .run = verb_status },
        { "list", "  list [--json]\n", .options = OPT(OPT_JSON) | OPT(OPT_HELP), .run = verb_list },
        { "env",
          "  env PROFILE [--start] [--json] export lines for eval \"$(botdesk env P)\"\n"
          "                                (--start: start it first when it is not running)\n",
          .options = OPT(OPT_JSON) | OPT(OPT_START) | OPT(OPT_TIMEOUT) | OPT(OPT_HELP), .words = "PROFILE", .min_operands = 1,
          .placed = true, .run = verb_env },
        { "exec",
          "  exec PROFILE [--start] [--env NAME]... -- CMD [ARG...]\n"
          "                                run CMD on that screen, inside the desktop, with\n"
          "                                the desktop's environment (--env NAME: also the\n"
          "                                caller's NAME)\n",
          .options = OPT(OPT_ENV) | OPT(OPT_START) | OPT(OPT_EPOCH) | OPT(OPT_HELP), .words = "PROFILE COMMAND", .min_operands = 1,
          .command = true, .placed = true, .remote_timeout = REMOTE_TIMEOUT_NONE, .run = verb_exec },
        { "lease",
          "  lease PROFILE [show|take|release|request] [--viewer ID] [--reason TEXT]\n"
          "                                who controls the screen: the agent or a human\n"
          "                                viewer (--json)\n"
          "  lease PROFILE wait [--timeout S]\n"
          "                                until the agent holds control (3 on timeout;\n"
          "                                default 600 s, at most 1800 s)\n",
          .options = OPT(OPT_VIEWER) | OPT(OPT_REASON) | OPT(OPT_TIMEOUT) | OPT(OPT_JSON) | OPT(OPT_HELP), .words = "PROFILE show|take|release|request|wait", .min_operands = 1, .action = true, .placed = true, .serves_remote = true,
          .remote_timeout = REMOTE_TIMEOUT_LEASE, .section = "Watching and control:", .run = verb_lease },
        { "rfb", "  rfb PROFILE [--viewer ID]     RFB on stdin/stdout, input only while ID holds\n"
          "                                the lease\n",
          .options = OPT(OPT_VIEWER) | OPT(OPT_HELP), .words = "PROFILE", .min_operands = 1, .placed = true, .serves_remote = true,
          .remote_timeout = REMOTE_TIMEOUT_NONE, .run = verb_rfb },
        { "cdp", "  cdp PROFILE                   the desktop browser's DevTools (NUL-framed CDP)\n"
          "                                on stdin/stdout\n",
          .options = OPT(OPT_HELP), .words = "PROFILE", .min_operands = 1, .placed = true, .remote_timeout = REMOTE_TIMEOUT_NONE,
          .run = verb_cdp },
        { "web",
          "  web [--listen SPEC]           noVNC and RFB over WebSocket for a browser\n"
          "                                (web ticket PROFILE --viewer ID: a viewer's URL)\n",
          .usage = "Usage: botdesk web [--listen unix:PATH|127.0.0.1:PORT] [--novnc DIR] [--ping S]\n"
                   "       botdesk web ticket PROFILE --viewer ID [--ttl S]\n"
                   "       botdesk web token PROFILE [--for mcp] [--ttl S]\n"
                   "       botdesk web revoke PROFILE < TOKEN\n"
                   "\n"
                   "Serve noVNC and each desktop's RFB stream over WebSocket, on a 0600 Unix\n"
                   "socket ($XDG_RUNTIME_DIR/botdesk/web.sock) unless told otherwise; a TCP\n"
                   "listener must be on a loopback address and demands a ticket for every request.\n"
                   "A stream silent for S seconds (30) is pinged, and closed after as many more:\n"
                   "set S below the idle timeout of a proxy in front.\n"
                   "`ticket` prints the URL of a single-use ticket for one viewer (valid 30 s by\n"
                   "default). `token` prints a bearer token for an MCP client of POST /PROFILE/mcp\n"
                   "(\"Authorization: Bearer TOKEN\"), good until --ttl S (3600) or `revoke`, which\n"
                   "reads it on stdin.\n",
          .options = OPT(OPT_HELP) | OPT(OPT_LISTEN) | OPT(OPT_NOVNC) | OPT(OPT_PING) | OPT(OPT_VIEWER) | OPT(OPT_TTL) |
                     OPT(OPT_FOR),
          .words = "ticket|token|revoke PROFILE", .action = true, .command = true, .own_options = true,
          .run = verb_web },
        { "browser",
          "  browser PROFILE endpoint|http-endpoint [--ttl S]\n"
          "                                a DevTools URL of the desktop's browser for\n"
          "                                Playwright's connectOverCDP (one connection)\n",
          .usage = "Usage: botdesk browser PROFILE endpoint|http-endpoint [--ttl S] [--json]\n"
                   "\n"
                   "Print ws://127.0.0.1:PORT/PROFILE/devtools/browser?ticket=T: the DevTools\n"
                   "WebSocket of the desktop's browser, served by botdesk web (on a loopback\n"
                   "port; behind a gateway's proxy, the path alone), for Playwright's\n"
                   "chromium.connectOverCDP(url) or Puppeteer's connect({browserWSEndpoint}).\n"
                   "http-endpoint prints http://127.0.0.1:PORT/PROFILE/devtools/T/ instead, for a\n"
                   "client that asks it /json/version (connectOverCDP too, Puppeteer's\n"
                   "browserURL). The ticket opens one connection within S seconds (60). Refused\n"
                   "(3) while a human holds control; 4 when the desktop is not running; 1\n"
                   "without a browser. A placed desktop's browser is reached through botdesk cdp\n"
                   "there: whether it has one is said when the URL is used (close 1013).\n",
          .options = OPT(OPT_TTL) | OPT(OPT_JSON) | OPT(OPT_HELP), .words = "PROFILE endpoint|http-endpoint", .min_operands = 1,
          .action = true,
          .run = verb_browser },
        { "watch",
          "  watch [PROFILE] [--json [--full]] [--until ready|stopped|agent]\n"
          "                                a line per change of status or lease, the first\n"
          "                                the current state (--full: all of status --json)\n",
          .options = OPT(OPT_JSON) | OPT(OPT_FULL) | OPT(OPT_UNTIL) | OPT(OPT_HELP), .words = "PROFILE", .placed = true, .remote_timeout = REMOTE_TIMEOUT_NONE,
          .run = verb_watch },
        { "thumbnail",
          "  thumbnail PROFILE [-o FILE] [--size WxH] [--format png|jpeg] [--start]\n"
          "                                the screen, scaled to fit, as PNG or JPEG\n",
          .options = OPTS_ACTION | OPT(OPT_OUTPUT) | OPT(OPT_OUTPUT_SHORT) | OPT(OPT_SIZE) | OPT(OPT_FORMAT) |
                     OPT(OPT_QUALITY) | OPT(OPT_DATA_URL) | OPT(OPT_START) | OPT(OPT_TIMINGS) | OPT(OPT_JSON) |
                     OPT(OPT_SINCE_REVISION),
          .usage = "Usage: botdesk thumbnail PROFILE [-o FILE] [--size WxH] [--format png|jpeg]\n"
                   "                         [--data-url] [--quality N] [--start]\n"
                   "                         [--json [--since-revision REVISION]]\n"
                   "\n"
                   "The desktop's screen, scaled to fit WxH (default 960x600, never enlarged).\n"
                   "  -o, --output FILE   write FILE (replaced atomically, mode 0600), not stdout\n"
                   "  --size WxH          the box to fit, 1-8192 each way\n"
                   "  --format png|jpeg   default png\n"
                   "  --quality N         JPEG quality 1-100 (default 72)\n"
                   "  --data-url          print data:image/...;base64,... instead of the raw image\n"
                   "  --start             start the desktop first when it is not running\n"
                   "  --json              one line of JSON: the screen's revision, the size,\n"
                   "                      and the image as a data URL (or the file of -o)\n"
                   "  --since-revision R  with --json: \"unchanged\": true and no image when\n"
                   "                      the screen is as at revision R (RUN.HASH)\n"
                   "A profile with remote = (a VNC server botdesk did not start): its\n"
                   "framebuffer, read over RFB within 10 s.\n",
          .words = "PROFILE", .min_operands = 1, .epoch = true, .placed = true, .serves_remote = true, .own_options = true, .operands = 1,
          .section = "Agent actions:", .module = VERB_MODULE_THUMBNAIL },
        { "input",
          "  input PROFILE ACTION ... [--start] [--json]\n"
          "                                move X Y | click [X Y] [--button N] [--double]\n"
          "                                | drag X1 Y1 X2 Y2 | scroll DX DY | key COMBO...\n"
          "                                | type TEXT | down KEY|buttonN | up KEY|buttonN\n"
          "                                (--settle[=MS]: then until the screen is quiet)\n",
          .usage = "Usage: botdesk input PROFILE ACTION [ARGS] [--start] [--json]\n"
                   "\n"
                   "  move X Y                 move the pointer (0 <= X < width, 0 <= Y < height)\n"
                   "  click [X Y] [--button N] [--double]\n"
                   "                           click (at X Y), button 1-32 (default 1: left,\n"
                   "                           2 middle, 3 right)\n"
                   "  drag X1 Y1 X2 Y2 [--button N]\n"
                   "  scroll DX DY             wheel steps: DY > 0 down, DY < 0 up, DX > 0 right,\n"
                   "                           DX < 0 left\n"
                   "  key COMBO...             e.g. ctrl+l, Return, super, ctrl+shift+t, alt+F4\n"
                   "                           (keysym names or ctrl shift alt super meta altgr\n"
                   "                           enter esc tab space ...)\n"
                   "  type TEXT | type --stdin\n"
                   "                           any Unicode text; newline is Return, tab is Tab\n"
                   "  down KEY|buttonN, up KEY|buttonN\n"
                   "                           press or release and leave it so\n"
                   "  --window ID              move, click, drag: X Y inside that window (an id of\n"
                   "                           botdesk windows)\n"
                   "  --settle[=MS]            then wait until the screen was quiet MS ms (default\n"
                   "                           150; at most 2000 ms), and say settled,\n"
                   "                           still_changing or no_change\n"
                   "  --start                  start the desktop first when it is not running\n"
                   "A profile with remote = (a VNC server botdesk did not start): the same\n"
                   "actions as RFB key and pointer events, buttons 1-8, no --window; --settle\n"
                   "waits for the server's updates to stop.\n",
          .options = OPTS_ACTION | OPT(OPT_JSON) | OPT(OPT_BUTTON) | OPT(OPT_DOUBLE) | OPT(OPT_WINDOW) |
                     OPT(OPT_STDIN) | OPT(OPT_SETTLE) | OPT(OPT_START),
          .words = "PROFILE move|click|drag|scroll|key|type|down|up", .min_operands = 1, .epoch = true, .placed = true,
          .serves_remote = true, .own_options = true, .operands = OPERANDS_ANY, .negative_operands = true,
          .module = VERB_MODULE_INPUT },
        { "windows",
          "  windows PROFILE [--json] [--start]\n"
          "                                the window manager's windows: id, title, class,\n"
          "                                geometry, active\n",
          .options = OPTS_ACTION | OPT(OPT_JSON) | OPT(OPT_START), .words = "PROFILE", .min_operands = 1, .placed = true,
          .own_options = true, .use = "botdesk windows PROFILE [--json] [--start]", .module = VERB_MODULE_INPUT },
        { "cursor", "  cursor PROFILE [--json] [--start] the pointer position\n",
          .options = OPTS_ACTION | OPT(OPT_JSON) | OPT(OPT_START), .words = "PROFILE", .min_operands = 1, .placed = true,
          .own_options = true, .use = "botdesk cursor PROFILE [--json] [--start]", .module = VERB_MODULE_INPUT },
        { "settle",
          "  settle PROFILE [--quiet-ms MS] [--timeout-ms MS] [--json]\n"
          "                                wait until the screen was quiet MS ms: settled,\n"
          "                                still_changing, no_change\n",
          .usage = "Usage: botdesk settle PROFILE [--quiet-ms MS] [--timeout-ms MS] [--json]\n"
                   "\n"
                   "Wait until the screen has been quiet MS ms (default 150), at most the timeout\n"
                   "(default 2000 ms); prints settled, still_changing or no_change and the ms it\n"
                   "took. A caret's blink or the clock (changes under 40x40 pixels) do not count.\n"
                   "(--quiet MS and --timeout MS, the names before, still work.)\n",
          .options = OPTS_ACTION | OPT(OPT_JSON) | OPT(OPT_QUIET_MS) | OPT(OPT_TIMEOUT_MS) | OPT(OPT_QUIET_MS_OLD) |
                     OPT(OPT_TIMEOUT_MS_OLD), .words = "PROFILE", .min_operands = 1,
          .placed = true, .own_options = true, .module = VERB_MODULE_INPUT },
        { "wait",
          "  wait PROFILE --for COND [--timeout S] [--json]\n"
          "                                until COND holds: window=TITLE, gone=TITLE,\n"
          "                                a11y=ROLE:NAME, text=STRING, quiet[=MS], changed\n",
          .usage = "Usage: botdesk wait PROFILE --for COND [--timeout S] [--json]\n"
                   "COND: window=TITLE|gone=TITLE|a11y=ROLE:NAME|text=STRING|quiet[=MS]|changed\n"
                   "\n"
                   "Wait until the condition holds, at most S seconds (default 30, at most 600):\n"
                   "  window=TITLE    a window of the window manager's list has a title that\n"
                   "                  contains TITLE (gone=TITLE: until none has)\n"
                   "  a11y=ROLE:NAME  an accessible element of that role (empty: any) whose name\n"
                   "                  contains NAME (empty: any), e.g. a11y=push button:Save\n"
                   "  text=STRING     an accessible element whose name or text contains STRING\n"
                   "  quiet[=MS]      the screen has been quiet MS ms (default 150)\n"
                   "  changed         the screen changed (a caret's blink does not count)\n"
                   "Woken by the X server's events, never by polling. 0 with what matched; 1 on\n"
                   "timeout; 3 while a human holds control, or when one takes it.\n",
          .options = OPTS_ACTION | OPT(OPT_JSON) | OPT(OPT_FOR) | OPT(OPT_TIMEOUT), .words = "PROFILE", .min_operands = 1,
          .own_options = true,
          .module = VERB_MODULE_INPUT },
        { "clipboard",
          "  clipboard PROFILE get|set [--type text/plain|image/png]\n"
          "                                the agent's clipboard: print it, or set it from\n"
          "                                stdin\n",
          .usage = "Usage: botdesk clipboard PROFILE get|set [--type text/plain|image/png]\n"
                   "\n"
                   "  get   print the desktop's clipboard (CLIPBOARD) on standard output\n"
                   "  set   make standard input the desktop's clipboard (the helper serves it)\n",
          .options = OPTS_ACTION | OPT(OPT_TYPE), .words = "PROFILE get|set", .min_operands = 1, .action = true, .placed = true,
          .remote_stdin = true, .own_options = true, .module = VERB_MODULE_INPUT },
        { "files",
          "  files PROFILE put LOCAL [DEST] | get SRC [LOCAL] | ls [DIR] | rm PATH\n"
          "                                files in and out of the desktop's home\n"
          "  files PROFILE downloads [--since CURSOR] [--timeout S]\n"
          "                                what the desktop's browser finished downloading\n",
          .usage = "Usage: botdesk files PROFILE put LOCAL [DEST] [--force] [--json]\n"
                   "       botdesk files PROFILE get SRC [LOCAL|-] [--force] [--json]\n"
                   "       botdesk files PROFILE ls [DIR] [--json]\n"
                   "       botdesk files PROFILE rm PATH\n"
                   "       botdesk files PROFILE downloads [--since CURSOR] [--timeout S]\n"
                   "\n"
                   "Files between here and the desktop's home (its state dir, where its browser\n"
                   "profile and Downloads live). Paths there are relative to the home, and the\n"
                   "kernel keeps them in it: no .., absolute path or symlink leads out; FIFOs,\n"
                   "devices and sockets are refused. Written whole or not at all, mode 0600; at\n"
                   "most [files] max_bytes. Gated by the lease like every agent action (3 while a\n"
                   "human holds control) and journaled: path, size and SHA-256, never the content.\n"
                   "  put LOCAL [DEST]  copy LOCAL (- : standard input, DEST then needed) to DEST,\n"
                   "                    or into DEST when it is a directory (default: the home)\n"
                   "  get SRC [LOCAL]   copy SRC here to LOCAL (default: its name; - : standard\n"
                   "                    output)\n"
                   "  --force           replace a file that exists (never a directory, FIFO or\n"
                   "                    device)\n"
                   "  downloads         the files that finished in Downloads after --since CURSOR\n"
                   "                    (the \"cursor\" of the last answer; default: all), as JSON;\n"
                   "                    with --timeout S, waits up to S seconds for one when there\n"
                   "                    is none yet (1 if none came)\n",
          .options = OPTS_ACTION | OPT(OPT_JSON) | OPT(OPT_FORCE) | OPT(OPT_SINCE) | OPT(OPT_TIMEOUT),
          .words = "PROFILE put|get|ls|rm|downloads", .min_operands = 1, .epoch = true, .own_options = true, .operands = 4,
          .run = verb_files },
        { "network",
          "  network PROFILE [show] | set KEY=VALUE...\n"
          "                                what the desktop may reach over IP (--json)\n",
          .usage = "Usage: botdesk network PROFILE [show] [--json]\n"
                   "       botdesk network PROFILE set [mode=open|allowlist|offline] [allow=LIST]\n"
                   "                                   [deny=LIST] [--json]\n"
                   "\n"
                   "The desktop's network policy ([network] in botdesk.ini(5)), enforced by the\n"
                   "kernel through systemd's IP firewall on the desktop's unit: open reaches all\n"
                   "but deny, allowlist nothing but allow, offline nothing (its Unix sockets stay).\n"
                   "LIST: address ranges (192.0.2.0/24, 2001:db8::/32) separated by spaces or\n"
                   "commas; allow also takes names (example.org, *.example.org), reached through\n"
                   "the desktop's own filtering proxy (tinyproxy, http_proxy in its environment).\n"
                   "set changes a running desktop under the user manager until it stops;\n"
                   "keys not given keep their value. Not gated by the lease (the policy is the\n"
                   "operator's), journaled. A start refuses (3) a policy nothing enforces where\n"
                   "the desktop would run: standalone, placed or remote, or a manager that cannot\n"
                   "attach the firewall.\n",
          .options = OPT(OPT_JSON) | OPT(OPT_HELP), .words = "PROFILE show|set", .min_operands = 1, .own_options = true, .operands = 5,
          .run = verb_network },
        { "act",
          "  act PROFILE [--vendor V] [--screenshots base64|DIR] [--start]\n"
          "                                a model's computer-use output a line in, the\n"
          "                                answer in its shape out\n",
          .usage = "Usage: botdesk act PROFILE [--vendor auto|anthropic|openai|gemini]\n"
                   "                   [--screenshots base64|DIR] [--start]\n"
                   "\n"
                   "A line on standard input, as the model wrote it; the answer on a line of\n"
                   "standard output:\n"
                   "  Anthropic: a tool_use block of the computer toolset (or an array of one\n"
                   "    turn's), answered by tool_result blocks\n"
                   "  OpenAI: a computer_call item (action or actions), answered by a\n"
                   "    computer_call_output\n"
                   "  Gemini: a part with a functionCall (or the parts, or the content), answered\n"
                   "    by functionResponse parts\n"
                   "  a bare action: {\"action\": \"left_click\", \"coordinate\": [x, y]} (Anthropic's\n"
                   "    2025 tool) or {\"type\": \"click\", \"x\": x, \"y\": y} (OpenAI's), answered by\n"
                   "    botdesk's own result\n"
                   "Coordinates are pixels of the screenshots botdesk returns (Gemini's: its 0-999\n"
                   "grid).\n"
                   "  --vendor V             only that vendor's shape (default auto: told apart by\n"
                   "                         shape, the choice said once on standard error)\n"
                   "  --screenshots base64   a screenshot after every action (base64 in \"image\";\n"
                   "                         an image block in Anthropic's results)\n"
                   "  --screenshots DIR      a bare action's screenshot written to DIR/N.jpg\n"
                   "                         (\"image_file\")\n"
                   "  --start                start the desktop first when it is not running\n"
                   "An OpenAI item that cannot be answered prints nothing: act says why and exits\n"
                   "non-zero.\n",
          .options = OPTS_ACTION | OPT(OPT_VENDOR) | OPT(OPT_SCREENSHOTS) | OPT(OPT_START), .words = "PROFILE", .min_operands = 1, .placed = true,
          .serves_remote = true, .remote_timeout = REMOTE_TIMEOUT_NONE, .own_options = true, .module = VERB_MODULE_INPUT },
        { "toolset",
          "  toolset PROFILE --vendor V    the tool entry to declare to a model\n"
          "                                (anthropic, openai, gemini)\n",
          .usage = "Usage: botdesk toolset PROFILE --vendor anthropic|openai|gemini\n"
                   "\n"
                   "The tools[] entry a gateway sends the model for this desktop, in that vendor's\n"
                   "shape, as botdesk act serves it: Anthropic's computer toolset, OpenAI's\n"
                   "computer tool, Gemini's computerUse with the functions botdesk does not serve\n"
                   "excluded. Needs no running desktop.\n",
          .options = OPT(OPT_VENDOR) | OPT(OPT_HELP), .words = "PROFILE", .min_operands = 1, .run = verb_toolset },
        { "mcp",
          "  mcp PROFILE [--start] [--listen unix:PATH]\n"
          "                                an MCP server for an agent's client, on\n"
          "                                stdin/stdout (or HTTP on a socket)\n",
          .usage = "Usage: botdesk mcp PROFILE [--start] [--listen unix:PATH]\n"
                   "\n"
                   "An MCP server (JSON-RPC 2.0, one message per line) on standard input and\n"
                   "output, for an agent's client: tools computer, batch, windows, status,\n"
                   "ask_human, clipboard_read, clipboard_write, a11y_tree, a11y_find, a11y_do,\n"
                   "wait_until, file_upload, file_download, file_list, downloads and view, and one\n"
                   "tool per member of Anthropic's computer toolset (left_click, type, key, ...:\n"
                   "[agent] mcp_tools); view shows the desktop live in a host that renders MCP\n"
                   "Apps. In the client's configuration:\n"
                   "  {\"command\": \"botdesk\", \"args\": [\"mcp\", \"PROFILE\"]}\n"
                   "  --start   start the desktop first when it is not running\n"
                   "  --listen unix:PATH\n"
                   "            MCP's Streamable HTTP (POST /mcp, JSON answers) on a socket at\n"
                   "            PATH (mode 0600, in a directory only you can enter), instead of\n"
                   "            stdin/stdout; both protocol revisions, each request on its own\n",
          .options = OPTS_ACTION | OPT(OPT_START) | OPT(OPT_LISTEN), .words = "PROFILE", .min_operands = 1, .placed = true,
          .serves_remote = true, .remote_timeout = REMOTE_TIMEOUT_NONE, .own_options = true, .module = VERB_MODULE_INPUT },
        { "a11y",
          "  a11y PROFILE [--json] [--window ID] [--find EXPR] [--max-nodes N]\n"
          "                                the accessibility tree: role, name, states,\n"
          "                                actions, text, bounds (screen and screenshot\n"
          "                                pixels); --find role=push button,name=Save\n"
          "  a11y PROFILE do ID ACTION [TEXT]\n"
          "                                act on an element: click, press, activate,\n"
          "                                set-text TEXT\n",
          .usage = A11Y_USAGE,
          .options = OPTS_ACTION | OPT(OPT_JSON) | OPT(OPT_WINDOW) | OPT(OPT_FIND) | OPT(OPT_MAX_NODES),
          .words = "PROFILE do ID ACTION", .min_operands = 1, .epoch = true, .placed = true, .own_options = true, .operands = 5,
          .no_inline_values = true, .module = VERB_MODULE_INPUT },
        { "journal",
          "  journal PROFILE [--json] [--since SEQ|TIME] [--follow]\n"
          "                                every agent action, with the screen after it\n"
          "  journal PROFILE export DIR | export --video FILE.mp4\n"
          "                                the journal as an HTML page with its frames, or\n"
          "                                a video\n"
          "  journal PROFILE replay [--from N] [--to M] [--dry-run] [--scale]\n"
          "                                run the recorded actions again, each screen\n"
          "                                against its frame\n",
          .options = OPT(OPT_HELP) | OPT(OPT_JSON) | OPT(OPT_SINCE) | OPT(OPT_FOLLOW) | OPT(OPT_VIDEO) |
                     OPT(OPT_FROM) | OPT(OPT_TO) | OPT(OPT_DRY_RUN) | OPT(OPT_SCALE) | OPT(OPT_TOLERANCE),
          .usage = "Usage: botdesk journal PROFILE [--json] [--since SEQ|TIME] [--follow]\n"
                   "       botdesk journal PROFILE export DIR\n"
                   "       botdesk journal PROFILE export --video FILE.mp4\n"
                   "       botdesk journal PROFILE replay [--from N] [--to M] [--dry-run] [--scale]\n"
                   "                                      [--tolerance PCT]\n"
                   "\n"
                   "The agent's actions on the profile's desktop, oldest first: time, action,\n"
                   "arguments, the lease, the result, the settle outcome and the frame of the\n"
                   "screen after it.\n"
                   "  --json            one JSON object a line, as stored\n"
                   "  --since SEQ|TIME  from entry SEQ, or from TIME (2026-12-02T01:00:00Z, or a\n"
                   "                    prefix of it)\n"
                   "  --follow          then print entries as they are recorded, until interrupted\n"
                   "  export DIR        a self-contained HTML page of the journal with its frames,\n"
                   "                    in DIR\n"
                   "  export --video F  the frames as an MP4 with their real timing, through ffmpeg\n"
                   "  replay            run the recorded actions again, gated by the lease like any\n"
                   "                    agent action; stops at the first refusal; says for each\n"
                   "                    step whether the screen matches its frame (at most PCT %,\n"
                   "                    default 1, of pixels differ)\n"
                   "                    --scale: a journal of another screen size, coordinates\n"
                   "                    mapped\n",
          .words = "PROFILE export|replay", .min_operands = 1, .own_options = true, .operands = 3, .abbrev = true,
          .counts_operands = true, .section = "Journal:", .module = VERB_MODULE_INPUT },
        { "lookup", "  lookup PROFILE [--json]       the profile's logind session (logind tier)\n",
          .options = OPT(OPT_JSON) | OPT(OPT_HELP), .words = "PROFILE", .min_operands = 1, .section = "Host:", .run = verb_lookup },
        { "pool",
          "  pool [list|fill|drain] [--json]\n"
          "                                the warm spares of [pool] spares: list them,\n"
          "                                start the missing ones and wait until ready, or\n"
          "                                stop them all\n",
          .options = OPT(OPT_JSON) | OPT(OPT_QUIET) | OPT(OPT_HELP), .words = "list|fill|drain", .run = verb_pool },
        { "doctor", "  doctor [--json]               what this host has and lacks\n", .options = OPT(OPT_JSON) | OPT(OPT_HELP),
          .run = verb_doctor },
        { "install",
          "  install [-y] [--timeout S] [--password-stdin]\n"
          "                                install the missing programs with the\n"
          "                                distribution's tool (one at a time; sudo -S gets\n"
          "                                the password from stdin)\n",
          .options = OPT(OPT_YES) | OPT(OPT_TIMEOUT) | OPT(OPT_PASSWORD_STDIN) | OPT(OPT_QUIET) | OPT(OPT_HELP), .run = verb_install },
        { "config", "  config check|show [--profile P] [--origin]\n", .options = OPT(OPT_PROFILE) | OPT(OPT_ORIGIN) | OPT(OPT_QUIET) | OPT(OPT_HELP), .words = "check|show",
          .run = verb_config },
        { "help", .options = OPT(OPT_HELP), .words = "VERB", .unlisted = true, .run = verb_help },
        { "__verbs", .options = OPT(OPT_HELP), .internal = true, .run = verb_list_verbs },
};

const struct verb *verb_find(const char *name) {
        for (size_t i = 0; i < ELEMENTSOF(verbs); i++)
                if (streq(verbs[i].name, name))
                        return &verbs[i];
        return NULL;
}

const char *verb_nearest(const char *word) {
        struct nearest n;

        nearest_init(&n, word);
        /* help too: unlisted, but a verb people type. */
        for (size_t i = 0; i < ELEMENTSOF(verbs); i++)
                if (!verbs[i].internal)
                        nearest_add(&n, verbs[i].name);
        return nearest_result(&n);
}

const char *verb_option_nearest(const struct verb *v, const char *word) {
        uint64_t accepted = v ? v->options : 0;
        const char *eq = word ? strchr(word, '=') : NULL;
        _cleanup_free_ char *name = NULL;
        struct nearest n;

        /* --timout=5: the name is what is misspelt; --timeout=5 where only
         * --timeout 5 is taken: the name is right, the form is what is wrong. */
        if (eq) {
                name = strndup(word, (size_t) (eq - word));
                if (!name || verb_option_find(v, name) >= 0)
                        return NULL;
                word = name;
        }
        nearest_init(&n, word);
        for (int id = 0; word && id < _OPT_MAX; id++)
                /* Long names only: a one-letter name is near every other. */
                if ((accepted & OPT(id)) && !cli_options[id].hidden && strlen(cli_options[id].name) > 2)
                        nearest_add(&n, cli_options[id].name);
        /* One of cli_options' names, never name (freed on return). */
        return nearest_result(&n);
}

int verb_option_find(const struct verb *v, const char *word) {
        uint64_t accepted = v->options;

        for (int id = 0; id < _OPT_MAX; id++) {
                const struct cli_option *o = &cli_options[id];

                if ((accepted & OPT(id)) && (streq(word, o->name) || streq_ptr(word, o->short_name)))
                        return id;
        }
        return -1;
}

const char *words_next(const char **p, size_t *ret_len) {
        const char *w = *p + strspn(*p, " ");

        if (!*w)
                return NULL;
        *ret_len = strcspn(w, " ");
        *p = w + *ret_len;
        return w;
}

bool word_is(const char *w, size_t n, const char *s) {
        return strlen(s) == n && strncmp(w, s, n) == 0;
}

const char *verb_module_name(enum verb_module m) {
        static const char *const names[_VERB_MODULE_MAX] = {
                [VERB_MODULE_NONE] = "-", [VERB_MODULE_THUMBNAIL] = "thumbnail", [VERB_MODULE_INPUT] = "input",
        };

        return m < _VERB_MODULE_MAX ? names[m] : NULL;
}

const char *remote_timeout_name(enum remote_timeout t) {
        static const char *const names[_REMOTE_TIMEOUT_MAX] = {
                [REMOTE_TIMEOUT_DEFAULT] = "default",
                [REMOTE_TIMEOUT_NONE] = "none",
                [REMOTE_TIMEOUT_START] = "start",
                [REMOTE_TIMEOUT_RESTART] = "restart",
                [REMOTE_TIMEOUT_STOP] = "stop",
                [REMOTE_TIMEOUT_LEASE] = "lease",
        };

        return t < _REMOTE_TIMEOUT_MAX ? names[t] : NULL;
}

/* Its lines within this many columns, a terminal's default (tests/unit/cli/test-verb-table.sh checks every line). */
#define USAGE_COLUMNS 80

int cli_usage(FILE *f, int status) {
        size_t col;

        fputs("Usage: botdesk COMMAND [ARGS]\n"
              "\n"
              "A private headless desktop (TigerVNC + Xfce) per agent profile.\n",
              f);
        for (size_t i = 0; i < ELEMENTSOF(verbs); i++) {
                if (verbs[i].section)
                        fprintf(f, "\n%s\n", verbs[i].section);
                if (verbs[i].synopsis)
                        fputs(verbs[i].synopsis, f);
        }
        /* The verbs that take --epoch N, from their rows, filled to the width. */
        fputs("\nThese take --epoch N, refused (3, \"epoch_moved\") unless the lease is still at\n"
              "epoch N:",
              f);
        col = strlen("epoch N:");
        for (size_t i = 0, n = 0; i < ELEMENTSOF(verbs); i++)
                if (verbs[i].options & OPT(OPT_EPOCH)) {
                        if (n++ > 0)
                                col += (size_t) fprintf(f, ",");
                        /* " NAME" and the ',' or '.' after it. */
                        if (col + 1 + strlen(verbs[i].name) + 1 > USAGE_COLUMNS) {
                                fputc('\n', f);
                                col = 0;
                        }
                        col += (size_t) fprintf(f, "%s%s", col ? " " : "", verbs[i].name);
                }
        fputs(".\nExit codes: 0 ok, 1 failed, 2 usage/configuration, 3 refused, 4 not running;\n"
              "exec: its command's, or 125 its own failure, 126 not executable, 127 not found.\n", f);
        return status;
}

void cli_verb_usage_to(FILE *f, const char *verb) {
        const struct verb *v = verb_find(verb);

        if (v && v->usage)
                fputs(v->usage, f);
        else if (v && v->use)
                fprintf(f, "Usage: %s\n", v->use);
        else if (!v || !v->synopsis)
                /* help, the one verb without lines of its own, is the whole usage. */
                (void) cli_usage(f, EXIT_OK);
        else
                fputs(v->synopsis, f);
}

int cli_verb_usage(const char *verb) {
        cli_verb_usage_to(stdout, verb);
        return EXIT_OK;
}

/*
 * botdesk __verbs: the table as tab-separated lines, for the bash
 * completion (conf/completion/botdesk.bash) and the tests; not listed.
 *   verb NAME listed|unlisted|internal placed|here TIMEOUT-RULE stdin|-
 *   word NAME POSITION WORD required|optional
 *                                    (PROFILE, COMMAND, CAPITALS: anything; a|b|c: one of them)
 *   option NAME OPTION flag|any|words|file|dir|profile WORDS|- hidden|-
 *   module NAME thumbnail|input      (a verb of botdesk-x11.so, and the feature it needs)
 * (WORDS: the values of a words option, space-separated; hidden: accepted and
 * never offered: a short name, an old name, or one for tests and benchmarks)
 */
static int verb_list_verbs(const struct cli_args *a) {
        static const char *const kinds[] = {
                [VALUE_NONE] = "flag", [VALUE_ANY] = "any",   [VALUE_WORDS] = "words",
                [VALUE_FILE] = "file", [VALUE_DIR] = "dir",   [VALUE_PROFILE] = "profile",
        };

        if (a->operand) {
                log_error("Unexpected argument \"%s\".", a->operand);
                return EXIT_USAGE;
        }
        for (size_t i = 0; i < ELEMENTSOF(verbs); i++) {
                const struct verb *v = &verbs[i];
                uint64_t accepted = v->options;
                const char *p = v->words ?: "", *w;
                size_t n;

                printf("verb\t%s\t%s\t%s\t%s\t%s\n", v->name,
                       v->internal ? "internal" : v->unlisted ? "unlisted" : "listed",
                       v->placed ? "placed" : "here", remote_timeout_name(v->remote_timeout),
                       v->remote_stdin ? "stdin" : "-");
                if (v->module != VERB_MODULE_NONE)
                        printf("module\t%s\t%s\n", v->name, verb_module_name(v->module));
                for (unsigned pos = 0; (w = words_next(&p, &n)); pos++)
                        printf("word\t%s\t%u\t%.*s\t%s\n", v->name, pos, (int) n, w,
                               pos < v->min_operands ? "required" : "optional");
                for (int id = 0; id < _OPT_MAX; id++) {
                        const struct cli_option *o = &cli_options[id];

                        if (!(accepted & OPT(id)))
                                continue;
                        /* "-" for an empty field: read splits at a run of tabs as at one. */
                        printf("option\t%s\t%s\t%s\t%s\t%s\n", v->name, o->name, kinds[o->value], o->words ?: "-",
                               o->hidden ? "hidden" : "-");
                        if (o->short_name)
                                printf("option\t%s\t%s\t%s\t-\thidden\n", v->name, o->short_name, kinds[o->value]);
                }
        }
        return EXIT_OK;
}
