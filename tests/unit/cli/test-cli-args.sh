#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# What botdesk answers to its words, before any desktop is involved: the
# usage lists every verb and goes to stdout for --help, to stderr (exit 2)
# without a verb; VERB --help prints that verb's usage; unknown verbs and options, missing or invalid profiles,
# extra arguments and bad option values each exit 2 with their one-line
# message; common options stay accepted by every verb. Prints TAP.
#   test-cli-args.sh BOTDESK
set -u
bd=${1:?usage: test-cli-args.sh BOTDESK}
. "$(dirname "$0")/cli-scratch.sh"

# run ARGS...: exit code in $rc, stdout in $out, stderr in $err (bounded: 20 s).
run() {
        timeout 20 "$bd" "$@" </dev/null >"$scratch/out" 2>"$scratch/err"
        rc=$?
        out=$(<"$scratch/out")
        err=$(<"$scratch/err")
}

# json_in ARGS...: --json (or a prefix of it getopt would take, --js) among ARGS before "--".
json_in() {
        local w
        for w in "$@"; do
                [ "$w" = -- ] && return 1
                [[ ${#w} -ge 4 && --json == "$w"* ]] && return 0
        done
        return 1
}
# stdout_for RC MESSAGE ARGS...: what a failure prints on stdout: nothing, or with --json the error object
# {"error": {"code", "message", "exit"}} whose code the exit status names (botdesk(1), JSON OUTPUT).
stdout_for() {
        local rc=$1 msg=$2
        shift 2
        json_in "$@" || return 0
        python3 -c 'import json, sys
codes = {"1": "failed", "2": "usage", "3": "refused", "4": "not_running"}
print(json.dumps({"error": {"code": codes[sys.argv[1]], "message": sys.argv[2], "exit": int(sys.argv[1])}}, ensure_ascii=False))' "$rc" "$msg"
}


# expect RC MESSAGE ARGS...: botdesk ARGS exits RC and says exactly MESSAGE, one line; on stdout nothing, or
# with --json the error object saying the same (exec has no --json: a --json among its words is its command's).
expect() {
        local want_rc=$1 want=$2
        shift 2
        run "$@"
        if [ "$rc" = "$want_rc" ] && [ "$err" = "botdesk: $want" ] && [ "$out" = "$(stdout_for "$want_rc" "$want" "$@")" ]; then
                ok "botdesk $* exits $want_rc: $want"
        else
                not_ok "botdesk $* exits $want_rc: $want" "exit $rc" "stderr: $err" "stdout: $out"
        fi
}

# ---- the usage -------------------------------------------------------------------------------
run --help
usage=$out
[ "$rc" = 0 ] && [ -z "$err" ] && [ "${usage%%$'\n'*}" = "Usage: botdesk COMMAND [ARGS]" ] &&
        ok "--help prints the usage on stdout and exits 0" || not_ok "--help prints the usage on stdout and exits 0" "exit $rc" "$err"
missing=()
for v in start stop restart status list env exec lease rfb web thumbnail input windows cursor watch lookup doctor \
         install config; do
        grep -qE "^  $v( |\$)" <<<"$usage" || missing+=("$v")
done
[ "${#missing[@]}" = 0 ] && ok "the usage has a line for every verb" || not_ok "the usage has a line for every verb" "missing: ${missing[*]}"
[ "$(tail -n 2 <<<"$usage")" = "Exit codes: 0 ok, 1 failed, 2 usage/configuration, 3 refused, 4 not running;
exec: its command's, or 125 its own failure, 126 not executable, 127 not found." ] &&
        ok "the usage ends with the exit codes" || not_ok "the usage ends with the exit codes" "$(tail -n 2 <<<"$usage")"
for how in -h help; do
        run $how
        [ "$rc" = 0 ] && [ "$out" = "$usage" ] && ok "botdesk $how prints the same usage" || not_ok "botdesk $how prints the same usage" "exit $rc"
done
run
[ "$rc" = 2 ] && [ "$err" = "$usage" ] && [ -z "$out" ] && ok "without a verb the usage goes to stderr, exit 2" ||
        not_ok "without a verb the usage goes to stderr, exit 2" "exit $rc"
run config bogus
[ "$rc" = 2 ] && [ "$err" = "$usage" ] && ok "config with neither check nor show prints the usage on stderr, exit 2" ||
        not_ok "config with neither check nor show prints the usage on stderr, exit 2" "exit $rc" "$err"
run --version
[ "$rc" = 0 ] && [[ $out == "botdesk "[0-9]* ]] && ok "--version prints the version" || not_ok "--version prints the version" "exit $rc" "$out"

# ---- unknown verbs and options ---------------------------------------------------------------
expect 2 'Unknown command "frobnicate"; see botdesk --help.' frobnicate
expect 2 'Unknown command "frobnicate"; see botdesk --help.' frobnicate p --json
expect 2 'Unknown option --bogus for frobnicate; see botdesk --help.' frobnicate p --bogus
run stauts p --json
[ "$rc" = 2 ] && [ "$(python3 -c 'import json,sys; e = json.loads(sys.stdin.read())["error"]; print(e["code"], e["exit"], "did you mean status" in e["message"])' <<<"$out")" = "usage 2 True" ] &&
        ok "with --json a misspelt verb also prints {\"error\": {\"code\": \"usage\", \"exit\": 2, ...}} naming the nearest" ||
        not_ok "with --json a misspelt verb also prints the error object" "exit $rc" "stdout: $out"
run thumbnail p --json
[ "$rc" = 4 ] && [ "$out" = "$(stdout_for 4 "Desktop p is not running; start it with: botdesk start p" --json)" ] &&
        ok "a verb of the X module (thumbnail) that fails with --json prints the error object with the module's message" ||
        not_ok "a verb of the X module (thumbnail) that fails with --json prints the error object" "exit $rc" "stdout: $out" "stderr: $err"
expect 2 'Unknown option --bogus before the verb; options follow it: botdesk VERB PROFILE [OPTIONS] (botdesk --help lists them).' --bogus
expect 2 'Unknown option -x before the verb; options follow it: botdesk VERB PROFILE [OPTIONS] (botdesk --help lists them).' -x start p
for v in start stop restart status list env exec lease rfb watch lookup doctor install config; do
        expect "$(usage_rc "$v")" "Unknown option --no-such-option for $v; see botdesk $v --help." "$v" p --no-such-option
done
# botdesk VERB --help (or -h): the verb's usage on stdout, exit 0. The
# table's verbs print their lines of botdesk --help; those with a usage of
# their own in their row (once their own loop's) print it.
lines_of() { # VERB: its lines in $usage, with their continuation lines
        awk -v v="$1" '/^  [a-z]/ { in_verb = ($1 == v) } /^  [a-z]/ || /^    / { if (in_verb) print; next } { in_verb = 0 }' <<<"$usage"
}
for v in start stop restart status list env exec lease rfb watch lookup doctor install config; do
        want=$(lines_of "$v")
        for how in --help -h; do
                run "$v" $how
                [ "$rc" = 0 ] && [ -z "$err" ] && [ -n "$want" ] && [ "$out" = "$want" ] &&
                        ok "botdesk $v $how prints its lines of the usage on stdout, exit 0" ||
                        not_ok "botdesk $v $how prints its lines of the usage on stdout, exit 0" "exit $rc" "stderr: $err" "stdout: $out"
        done
done
for v in web thumbnail input windows cursor; do
        for how in --help -h; do
                run "$v" $how
                [ "$rc" = 0 ] && [ -z "$err" ] && [[ $out == "Usage: botdesk $v "* ]] &&
                        ok "botdesk $v $how prints its own usage on stdout, exit 0" ||
                        not_ok "botdesk $v $how prints its own usage on stdout, exit 0" "exit $rc" "stderr: $err" "stdout: $out"
        done
done
run help --help
[ "$rc" = 0 ] && [ "$out" = "$usage" ] && ok "botdesk help --help prints the whole usage" ||
        not_ok "botdesk help --help prints the whole usage" "exit $rc" "$err"
run start p --help
[ "$rc" = 0 ] && [ "$out" = "$(lines_of start)" ] && ok "botdesk start p --help prints the usage and starts nothing" ||
        not_ok "botdesk start p --help prints the usage and starts nothing" "exit $rc" "$err"
expect 2 'Unknown option --bogus for start; see botdesk start --help.' start --bogus --help
# Options of one verb are unknown to the others.
expect 2 'Unknown option --start for stop; see botdesk stop --help.' stop p --start
expect 2 'Unknown option --env for env; see botdesk env --help.' env p --env X
expect 2 'Unknown option --password-stdin for status; see botdesk status --help.' status --password-stdin
expect 2 'status --quiet takes one PROFILE and no --json: it answers by its exit status alone.' status --quiet
expect 2 'status --quiet takes one PROFILE and no --json: it answers by its exit status alone.' status p --quiet --json
run status p --quiet
[ "$rc" = 4 ] && [ -z "$out$err" ] && ok "botdesk status p --quiet of a desktop that does not run: nothing said, exit 4" ||
        not_ok "botdesk status p --quiet of a desktop that does not run: nothing said, exit 4" "exit $rc" "$err$out"
expect 2 'Unknown option --timeout=5 for start; see botdesk start --help.' start p --timeout=5
expect 2 'Unknown option --bogus for install; see botdesk install --help.' install --password-stdin --bogus
# The verbs that once parsed their own words keep their loops' messages.
expect 2 'Unknown option --no-such-option for thumbnail; see botdesk thumbnail --help.' thumbnail p --no-such-option
expect 2 'Unknown option --no-such-option for windows; see botdesk windows --help.' windows p --no-such-option
expect 2 'Unexpected argument "q" for cursor; see botdesk cursor --help.' cursor p q
expect 2 'Unknown option --json=1 for windows; see botdesk windows --help.' windows p --json=1
# mcp, act, clipboard and settle: one line, as every verb (exit 2).
expect 2 'Unknown option --bogus for mcp; see botdesk mcp --help.' mcp p --bogus
expect 2 'Unexpected argument "q" for mcp; see botdesk mcp --help.' mcp p q
expect 2 '--screenshots needs a value; see botdesk act --help.' act p --screenshots
expect 2 'Unexpected argument "extra" for act; see botdesk act --help.' act p extra
expect 2 '--type needs a value; see botdesk clipboard --help.' clipboard p get --type
expect 2 'Unknown option - for clipboard; see botdesk clipboard --help.' clipboard p get -
expect 2 'Unknown option --bogus for settle; see botdesk settle --help.' settle p --bogus
expect 2 'Unexpected argument "q" for settle; see botdesk settle --help.' settle p q
for v in mcp act clipboard settle; do
        run $v --help
        [ "$rc" = 0 ] && [ -z "$err" ] && [[ $out == "Usage: botdesk $v PROFILE"* ]] &&
                ok "botdesk $v --help prints its own usage on stdout, exit 0" ||
                not_ok "botdesk $v --help prints its own usage on stdout, exit 0" "exit $rc" "stderr: $err" "stdout: $out"
done
run clipboard p bogus
[ "$rc" = 2 ] && [ "${err%%$'\n'*}" = "botdesk: clipboard needs get or set." ] && [[ ${err#*$'\n'} == "Usage: botdesk clipboard PROFILE get|set"* ]] &&
        ok "botdesk clipboard p bogus says it needs get or set, then the usage, exit 2" ||
        not_ok "botdesk clipboard p bogus says it needs get or set, then the usage, exit 2" "exit $rc" "stderr: $err"
expect 2 'Invalid --type "x": give text/plain or image/png.' clipboard p get --type=x
# lease: each action with what it takes (what request and release say, at the end: they make a profile's dir).
expect 2 '--reason applies to take and request, not release.' lease p release --viewer v --reason x
expect 2 '--timeout applies to wait, not show.' lease p show --timeout 5
expect 2 'botdesk lease p request needs --viewer ID.' lease p request
expect 2 'Unknown lease action "grab": use show, take, release, request or wait.' lease p grab
# files: each action with the words it takes, judged before any desktop is looked for.
expect 2 'files needs an action: put, get, ls, rm or downloads.' files p
expect 2 'Unknown files action "cp": give put, get, ls, rm or downloads.' files p cp a b
expect 2 'files put takes LOCAL [DEST].' files p put
expect 2 'files get takes SRC [LOCAL].' files p get
expect 2 'files ls takes at most DIR.' files p ls a b
expect 2 'files rm takes PATH.' files p rm
expect 2 'files downloads takes no words.' files p downloads x
expect 4 'Desktop p is not running; start it with: botdesk start p' files p ls
# settle's milliseconds: a missing value is an invalid one, as it always said.
expect 2 'Invalid --quiet "(null)": give milliseconds, 1-600000.' settle p --quiet
expect 2 'Invalid --quiet=x "x": give milliseconds, 1-600000.' settle p --quiet=x
expect 2 'Invalid --timeout "600001": give milliseconds, 1-600000.' settle p --timeout 600001
expect 4 'Desktop p is not running; start it with: botdesk start p' settle p --quiet 600000 --timeout=1
# ... now named apart from -q/--quiet and the other verbs' --timeout in seconds; the old names above are aliases.
expect 2 'Invalid --quiet-ms "(null)": give milliseconds, 1-600000.' settle p --quiet-ms
expect 2 'Invalid --timeout-ms=0 "0": give milliseconds, 1-600000.' settle p --timeout-ms=0
expect 4 'Desktop p is not running; start it with: botdesk start p' settle p --quiet-ms 600000 --timeout-ms 1
expect 2 'Unknown option --quiet-m for settle (did you mean --quiet-ms?); see botdesk settle --help.' settle p --quiet-m 5
# A verb of its own words answers --help where it stands, as its own loop did.
for args in "web --help --bogus" "settle p -h --bogus" "mcp --help q r"; do
        run $args
        [ "$rc" = 0 ] && [ -z "$err" ] && [[ $out == "Usage: botdesk ${args%% *} "* ]] &&
                ok "botdesk $args prints the usage, exit 0" || not_ok "botdesk $args prints the usage, exit 0" "exit $rc" "$err"
done
expect 2 'Cannot open --screenshots directory /nonexistent: No such file or directory' act p --screenshots=/nonexistent
# thumbnail's words through the table, its messages as its own loop said
# them: one line each, its usage for --help alone.
run thumbnail p -h --bogus
[ "$rc" = 0 ] && [ -z "$err" ] && [[ $out == "Usage: botdesk thumbnail PROFILE "*"--start             start"* ]] &&
        ok "botdesk thumbnail p -h --bogus prints its own usage, exit 0" ||
        not_ok "botdesk thumbnail p -h --bogus prints its own usage, exit 0" "exit $rc" "$err"
expect 2 'Unexpected argument "q" for thumbnail; see botdesk thumbnail --help.' thumbnail p q
expect 2 'Unexpected argument "-" for thumbnail; see botdesk thumbnail --help.' thumbnail p -
expect 2 'Unexpected argument "--help" for thumbnail; see botdesk thumbnail --help.' thumbnail p -- --help
expect 2 '--epoch needs a value; see botdesk thumbnail --help.' thumbnail p --epoch
expect 2 'Unknown option -of for thumbnail; see botdesk thumbnail --help.' thumbnail p -of
expect 2 'Unknown option --data-url=1 for thumbnail; see botdesk thumbnail --help.' thumbnail p --data-url=1
expect 2 '-o needs a value; see botdesk thumbnail --help.' thumbnail p -o
expect 2 '--quality needs a value; see botdesk thumbnail --help.' thumbnail p --quality
expect 2 '-o needs a file name.' thumbnail p -o=
expect 2 '-o needs a file name.' thumbnail p -o - -o ''
# --size before --format before --quality, whatever their order; then the profile.
# A value of a few words is judged by the parser as it reads it, before the verb judges the rest.
expect 2 'Invalid --format "gif": give png or jpeg.' thumbnail p --quality x --format gif --size x
expect 2 'Invalid --vendor "acme": give auto, anthropic, openai or gemini.' act p --vendor acme
expect 2 'Invalid --vendor "acme": give auto, anthropic, openai or gemini.' toolset p --vendor acme
# ... and a word it takes but never offers (jpg) is taken.
expect 4 'Desktop p is not running; start it with: botdesk start p' thumbnail p --format jpg
expect 2 'Invalid --format "gif": give png or jpeg.' thumbnail p --quality x --format gif
expect 2 '--quality applies to JPEG only; add --format jpeg.' thumbnail p --quality 5
expect 2 'Missing PROFILE for thumbnail; see botdesk thumbnail --help.' thumbnail --size=5x5
expect 2 'Invalid --size "5": give WIDTHxHEIGHT, each 1-8192, like 960x600.' thumbnail p --size --epoch 3 5
expect 4 'Desktop p is not running; start it with: botdesk start p' thumbnail -o x -o - --size 5x5 --format=jpeg --quality 9 -- p
# journal's words through the table, as getopt_long took them: a unique
# prefix names an option, -h answers before the rest of its cluster; a word
# it does not take is said in one line, as for every verb (exit 2).
journal_usage=$("$bd" journal --help)
[[ $journal_usage == "Usage: botdesk journal PROFILE "* ]] && ok "botdesk journal --help prints its own usage" ||
        not_ok "botdesk journal --help prints its own usage" "$journal_usage"
expect 2 'Unknown option --bogus for journal; see botdesk journal --help.' journal p --bogus
expect 2 'Unknown option --json=1 for journal; see botdesk journal --help.' journal p --json=1
expect 2 'Unknown option --f for journal (did you mean --to?); see botdesk journal --help.' journal p --f
expect 2 '--since needs a value; see botdesk journal --help.' journal p --since
expect 2 'Unknown option --epoch for journal; see botdesk journal --help.' journal p --epoch 3
expect 2 'Unknown option --quiet for journal; see botdesk journal --help.' journal p --quiet
expect 2 'Unknown option -xh for journal; see botdesk journal --help.' journal p -xh
expect 2 'Unknown option --bogus for journal; see botdesk journal --help.' journal p a b c d --bogus
for args in "journal p -hx" "journal p --he --bogus" "journal p --since --help --help"; do
        run $args
        [ "$rc" = 0 ] && [ -z "$err" ] && [ "$out" = "$journal_usage" ] && ok "botdesk $args prints the usage, exit 0" ||
                not_ok "botdesk $args prints the usage, exit 0" "exit $rc" "stderr: $err"
done
expect 2 'Invalid --from "0": an entry'"'"'s number, from 1.' journal p --fro=0 replay
expect 2 'Invalid --to "x": an entry'"'"'s number, from 1.' journal p replay --to x
expect 2 'Invalid --tolerance "101": a whole per cent, 0-100.' journal p --tol 101
expect 2 'Too many arguments; see botdesk journal --help.' journal p a b c d e f
expect 2 'Unknown journal command "-h"; see botdesk journal --help.' journal p -- -h
expect 2 'export takes a DIR, or --video FILE.mp4; see botdesk journal --help.' journal p export d --vid=f.mp4
expect 1 "Profile p has no journal ($XDG_STATE_HOME/botdesk/p/journal): no agent action was recorded." \
        journal p --js --fol --sin=3
# a11y's words through the table: a word it does not take in one line (exit 2).
a11y_usage=$("$bd" a11y --help)
expect 2 'Unknown option --bogus for a11y; see botdesk a11y --help.' a11y p --bogus
expect 2 'Unknown option --window=1 for a11y; see botdesk a11y --help.' a11y p --window=1
expect 2 '--epoch needs a value; see botdesk a11y --help.' a11y p --epoch
expect 2 '--find needs a value; see botdesk a11y --help.' a11y p --find
expect 2 'Unexpected argument "u" for a11y; see botdesk a11y --help.' a11y p q r s t u
expect 2 'Unexpected argument "-x" for a11y; see botdesk a11y --help.' a11y p -- do 1 set-text t -x
expect 2 '--find needs a value; see botdesk a11y --help.' a11y p --find --epoch 3
# What the verb itself judges: its message, then its usage (exit 2).
for c in "Use botdesk a11y PROFILE do ID ACTION [TEXT].|a11y p q" "Only set-text takes a TEXT.|a11y p do 1 click t"; do
        run ${c#*|}
        [ "$rc" = 2 ] && [ -z "$out" ] && [ "$err" = "botdesk: ${c%%|*}"$'\n'"$a11y_usage" ] &&
                ok "botdesk ${c#*|} says ${c%%|*} and the usage, exit 2" ||
                not_ok "botdesk ${c#*|} says ${c%%|*} and the usage, exit 2" "exit $rc" "stderr: $err" "stdout: $out"
done
[[ $a11y_usage == "Usage: botdesk a11y PROFILE "* ]] && ok "botdesk a11y --help prints its own usage" ||
        not_ok "botdesk a11y --help prints its own usage" "$a11y_usage"
expect 2 '--max-nodes must be a number from 1 to 100000, got "0".' a11y p --max-nodes 0
expect 2 'do takes an element id; --window and --find are for reading the tree.' a11y p do 1 click --window 2
# --epoch N is taken out before a11y's words are judged, as it always was
# (a11y p --find --epoch 3 above: --find without its value).
run a11y p --help --epoch x
[ "$rc" = 2 ] && [[ $err == 'botdesk: Invalid --epoch "x"'* ]] && ok "botdesk a11y p --help --epoch x judges the epoch first" ||
        not_ok "botdesk a11y p --help --epoch x judges the epoch first" "exit $rc" "$err"
# A word after -- is a word, "-" is one anywhere: here a profile name it refuses.
run a11y -- --help
[ "$rc" = 2 ] && [ -z "$out" ] && [[ $err == 'botdesk: '*'--help'* ]] && ok "botdesk a11y -- --help takes --help as the profile" ||
        not_ok "botdesk a11y -- --help takes --help as the profile" "exit $rc" "$err"
expect 4 'Desktop p is not running; start it with: botdesk start p' a11y p --max-nodes 7 --json --epoch=3 -- do 1 set-text -t
# web's words go through the table too: --NAME=VALUE as getopt took it.
expect 2 'Unknown option --no-such-option for web; see botdesk web --help.' web --no-such-option
expect 2 '--listen needs a value; see botdesk web --help.' web --listen
expect 2 'Unknown option --bogus for web; see botdesk web --help.' web ticket p --bogus
expect 2 'Invalid --ping 0: use 1-3600 seconds.' web --ping=0
expect 2 'Invalid --ping 0: use 1-3600 seconds.' web --ping 0
expect 2 '--novnc needs an absolute path.' web --novnc=rel
expect 2 '--viewer, --ttl and --for belong to botdesk web ticket and token.' web --viewer x
expect 2 'Unknown argument "foo" for botdesk web.' web foo
expect 2 'Usage: botdesk web ticket PROFILE --viewer ID [--ttl S]' web ticket p extra
expect 2 'Usage: botdesk web ticket PROFILE --viewer ID [--ttl S]' web ticket p --listen unix:/x
expect 2 'Missing PROFILE for web ticket; see botdesk web --help.' web -- ticket
expect 2 'A ticket needs --viewer ID: 1-128 bytes without control characters.' web ticket p
expect 2 'Invalid --for vnc: a token is for mcp (POST /PROFILE/mcp).' web token p --for vnc
expect 2 'Invalid --ttl 0: use 1-86400 seconds.' web token p --ttl 0
expect 2 '--for belongs to botdesk web token.' web ticket p --viewer a --for mcp
# No ticket for a desktop that is not running; a bad --ttl is still a usage error first.
expect 4 'Desktop p is not running; start it with: botdesk start p' web ticket p --viewer a
expect 2 'Invalid --ttl 0: use 1-86400 seconds.' web ticket p --viewer a --ttl 0
expect 2 'botdesk web revoke takes no option: the token comes on standard input.' web revoke p --ttl 5
# input's words through the table: a word it does not take in one line; what
# the verb judges itself, its message and its usage (exit 2). A negative number and "-" are words,
# "--" makes every later word one, --settle never takes the next word.
input_usage=$(timeout 20 "$bd" input --help)
[[ $input_usage == "Usage: botdesk input PROFILE ACTION [ARGS] [--start] [--json]"*"--start                  start"* ]] &&
        ok "botdesk input --help prints its own usage" || not_ok "botdesk input --help prints its own usage" "$input_usage"
expect_input_usage() { # MESSAGE ARGS...: input ARGS says MESSAGE, then its usage, exit 2
        local want=$1
        shift
        run input "$@"
        if [ -n "${verb_judges:-}" ] && [ "$rc" = 1 ] && [[ $err == "botdesk: This botdesk was built without agent input"* ]]; then
                ok "botdesk input $* says: $want, then the usage, exit 2 # skip a build without input"
                return
        fi
        [ "$rc" = 2 ] && [ "$out" = "$(stdout_for 2 "$want" "$@")" ] && [ "$err" = "botdesk: $want"$'\n'"$input_usage" ] &&
                ok "botdesk input $* says: $want, then the usage, exit 2" ||
                not_ok "botdesk input $* says: $want, then the usage, exit 2" "exit $rc" "stderr: $err" "stdout: $out"
}
expect 2 'Unknown option --no-such-option for input; see botdesk input --help.' input p --no-such-option
expect 2 'Unknown option -x for input; see botdesk input --help.' input p type -x
expect 2 'Unknown option --3 for input; see botdesk input --help.' input p scroll 0 --3
expect 2 'Unknown option --json=1 for input; see botdesk input --help.' input p move 1 2 --json=1
expect 2 'Unknown option --quiet for input; see botdesk input --help.' input p move 1 2 --quiet
expect 2 '--epoch needs a value; see botdesk input --help.' input p move 1 2 --epoch
expect 2 '--button needs a value; see botdesk input --help.' input p click --button
expect 2 '--window needs a value; see botdesk input --help.' input p move 1 2 --window
expect 2 'Invalid --settle=0: give the quiet time in ms, 1-1000.' input p move 1 2 --settle=0 --help
expect 2 'Invalid --settle=: give the quiet time in ms, 1-1000.' input p move 1 2 --settle=
# The words the verb judges (a build without input has its stand-in say so instead).
verb_judges=1
expect_input_usage 'move takes X Y.' p move 1 2 --settle 5
expect 2 'Missing PROFILE for input; see botdesk input --help.' input --json
expect_input_usage 'Missing ACTION for input.' p --settle=5
expect_input_usage 'Unknown input action "--help".' p -- --help
expect_input_usage 'Invalid coordinate "--button": give whole pixels from 0.' p click -- --button 2
expect_input_usage 'Invalid coordinate "-1": give whole pixels from 0.' p move -1 2
expect_input_usage 'Invalid scroll steps: give whole numbers from -1000 to 1000.' p scroll -1001 0
expect_input_usage 'Invalid scroll steps: give whole numbers from -1000 to 1000.' p scroll 0 -
expect_input_usage 'scroll 0 0 scrolls nothing.' p scroll -0 0
expect_input_usage 'Invalid --button "--help": give 1-32 (1 left, 2 middle, 3 right).' p click --button --help
expect_input_usage '--button applies to click and drag, not move.' --button 2 p move 1 2
expect_input_usage 'type --stdin takes no TEXT argument.' p type --stdin -
verb_judges=
for args in "p move 1 2 --help --settle=0" "-h p --bogus" "p type x --help -- y"; do
        run input $args
        [ "$rc" = 0 ] && [ -z "$err" ] && [ "$out" = "$input_usage" ] && ok "botdesk input $args prints the usage, exit 0" ||
                not_ok "botdesk input $args prints the usage, exit 0" "exit $rc" "$err"
done
expect 2 'Unknown option --bogus for input; see botdesk input --help.' input p --bogus --help
# Words it takes: the desktop is looked for (a build without input says so instead).
for args in "p scroll 0 -3" "p scroll -- -3 -4" "p type -" "p key -" "p type -- --json" \
            "--button 2 p click --double --settle=1000 --settle --epoch 3 --json" "p move 1 2 --window=0x1 --epoch=4" \
            "-- p move 1 2"; do
        run input $args
        { [ "$rc" = 4 ] && [ "$err" = "botdesk: Desktop p is not running; start it with: botdesk start p" ]; } ||
                { [ "$rc" = 1 ] && [[ $err == "botdesk: This botdesk was built without agent input"* ]]; } &&
                ok "botdesk input $args is taken, and looks for the desktop" ||
                not_ok "botdesk input $args is taken, and looks for the desktop" "exit $rc" "$err"
done

# ---- profiles --------------------------------------------------------------------------------
long=$(printf 'a%.0s' $(seq 33))
# Every row's PROFILE and options: test-cli-rows.sh. Here the names a profile may not have, on a few verbs.
for v in start env exec; do
        expect "$(usage_rc "$v")" "Missing PROFILE for $v; see botdesk $v --help." "$v"
        for name in .. "a b" "$long"; do
                expect "$(usage_rc "$v")" "Invalid profile name \"$name\": use 1-32 characters of A-Z a-z 0-9 _ -, starting with a letter or digit." "$v" "$name"
        done
done
expect 2 'Missing NAME for snapshot; see botdesk snapshot --help.' snapshot p
expect 2 'Missing NAME for fork; see botdesk fork --help.' fork p --as q
expect 2 'Invalid profile name "a b": use 1-32 characters of A-Z a-z 0-9 _ -, starting with a letter or digit.' web ticket "a b" --viewer v
expect 2 'Invalid profile name "-x": use 1-32 characters of A-Z a-z 0-9 _ -, starting with a letter or digit.' config show --profile -x
expect 2 'Missing PROFILE for start; see botdesk start --help.' start -- p
left=$(find "$XDG_RUNTIME_DIR" "$XDG_STATE_HOME" -mindepth 1 2>/dev/null)
[ -z "$left" ] && ok "no runtime or state file was created for a missing or invalid profile" ||
        not_ok "no runtime or state file was created for a missing or invalid profile" "$left"

# ---- extra arguments and bad values ----------------------------------------------------------
for v in start stop restart status env rfb lookup watch; do
        expect 2 "Unexpected argument \"extra\" for $v; see botdesk $v --help." "$v" p extra more
done
expect 2 'Unknown lease action "extra": use show, take, release, request or wait.' lease p extra
expect 2 'Unexpected argument "more" for lease; see botdesk lease --help.' lease p show more
expect 2 'list takes no profile.' list p
expect 2 'install takes no argument.' install x
expect 2 'Unexpected argument "extra" for config; see botdesk config --help.' config check extra
for vo in "lease --timeout" "config --profile" "lease --viewer" "lease --reason" "watch --until"; do
        expect 2 "${vo#* } needs a value; see botdesk ${vo% *} --help." ${vo% *} p "${vo#* }"
done
for t in 0 x 86401 -1; do
        expect 2 "Invalid --timeout \"$t\": give whole seconds, 1-86400." start p --timeout "$t"
done
expect 125 'Missing command: botdesk exec p -- CMD [ARG...]' exec p
expect 125 'Missing command: botdesk exec p -- CMD [ARG...]' exec p --
expect 125 '--env needs a value; see botdesk exec --help.' exec p --env
expect 125 '--env needs a variable name ([A-Za-z_][A-Za-z0-9_]*), got "1A".' exec p --env 1A -- true
expect 125 '--env needs a variable name ([A-Za-z_][A-Za-z0-9_]*), got "".' exec p --env=
envs=()
for i in $(seq 65); do envs+=(--env "V$i"); done
expect 125 'Too many --env options (at most 64).' exec p "${envs[@]}" -- true
expect 2 'Invalid --until "bogus": give ready, stopped or agent.' watch p --until bogus
expect 2 '--until needs a PROFILE: botdesk watch PROFILE --until ready' watch --until ready
expect 2 'botdesk lease p take needs --viewer ID.' lease p take
expect 2 '--reason applies to take and request, not show.' lease p show --reason why
expect 2 '--timeout applies to wait, not show.' lease p --timeout 5

# ---- what is accepted ------------------------------------------------------------------------
# Each verb takes the options its row names and no other (every row: test-cli-rows.sh).
run status p --quiet
[ "$rc" = 4 ] && [ -z "$out$err" ] && ok "status takes the options its row names (--quiet)" ||
        not_ok "status takes the options its row names (--quiet)" "exit $rc" "$out" "$err"
run status --json p
[ "$rc" = 0 ] && [[ $out == '{"profile": "p", '*'"running": false'* ]] && ok "status --json p: options before the profile" ||
        not_ok "status --json p: options before the profile" "exit $rc" "$out" "$err"
# exec's command keeps its own options, after PROFILE or after --.
expect 125 'Desktop p is not running; start it with: botdesk start p' exec p ls --json -q
expect 125 'Desktop p is not running; start it with: botdesk start p' exec p ls --help
expect 125 'Desktop p is not running; start it with: botdesk start p' exec p -- ls -h
expect 125 'Desktop p is not running; start it with: botdesk start p' exec p --env HOME -- ls --bogus
expect 4 'Desktop p is not running; start it with: botdesk start p' env p --json
run config check -q
[ "$rc" = 0 ] && [ -z "$out$err" ] && ok "config check -q says nothing of a valid configuration" ||
        not_ok "config check -q says nothing of a valid configuration" "exit $rc" "$out" "$err"
run stop p
[ "$rc" = 0 ] && [ "$out" = "p: not running" ] && ok "stop of a profile never started exits 0" ||
        not_ok "stop of a profile never started exits 0" "exit $rc" "$out" "$err"

# lease_said VERB-ARGS... PATTERN: the action's exit 0 and its one line matching PATTERN (an extended regex).
lease_said() {
        local pattern=${*: -1}
        run "${@:1:$#-1}"
        if [ "$rc" = 0 ] && [[ $out =~ $pattern ]]; then ok "botdesk ${*:1:$#-1} says what it did"
        else not_ok "botdesk ${*:1:$#-1} says what it did" "exit $rc" "stdout: $out" "stderr: $err"; fi
}
# lease request and release need no running desktop, and say what they did (a profile of their own: the
# checks above want no directory made).
lease_said lease lq request --viewer v --reason 'log in' '^lq: viewer [0-9a-f]+ asks for control; the request is pending \(epoch 0\)$'
lease_said lease lq release --viewer v '^lq: viewer [0-9a-f]+ does not hold control; nothing changed \(epoch 0\)$'
lease_said lease lq show '^lq: the agent holds control'

echo "1..$n"
[ "$failed" = 0 ]
