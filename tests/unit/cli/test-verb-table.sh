#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The table of verbs (helper/cli/verb-table.c), walked through botdesk
# __verbs: every verb has lines in botdesk --help unless it is help or
# internal; every helper/cli/verb-NAME.c is a verb of the table; the verbs
# placed through an exec prefix, their remote timeouts and the options
# whose value is the next word are those cli-remote.c had in its own lists.
# Prints TAP.
#   test-verb-table.sh BOTDESK SOURCE_DIR
set -u
bd=${1:?usage: test-verb-table.sh BOTDESK SOURCE_DIR}
src=${2:?usage: test-verb-table.sh BOTDESK SOURCE_DIR}
n=0 failed=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() { n=$((n + 1)) failed=$((failed + 1)); echo "not ok $n - $1"; shift; for d in "$@"; do echo "# $d"; done; }
check() { # NAME PROBLEM...: ok when no problem was given
        local name=$1
        shift
        if [ $# -eq 0 ]; then ok "$name"; else not_ok "$name" "$@"; fi
}

table=$(timeout 20 "$bd" __verbs </dev/null)
rc=$?
check "botdesk __verbs prints the table" $([ "$rc" = 0 ] && [ -n "$table" ] || echo "exit $rc")
usage=$(timeout 20 "$bd" --help </dev/null)

declare -A kind placed timeout stdin value
verbs=()
while IFS=$'\t' read -r what name f1 f2 f3 f4 f5; do
        case $what in
        verb) verbs+=("$name"); kind[$name]=$f1 placed[$name]=$f2 timeout[$name]=$f3 stdin[$name]=$f4 ;;
        option) value[$name $f1]=$f2 ;;
        esac
done <<<"$table"
check "the table has the verbs ($(echo ${#verbs[@]}))" $([ ${#verbs[@]} -gt 20 ] || echo "only ${verbs[*]}")

# Every verb has its lines of the usage, or is deliberately without.
problems=()
for v in "${verbs[@]}"; do
        case ${kind[$v]} in
        listed) grep -qE "^  $v( |\$)" <<<"$usage" || problems+=("$v has no line in botdesk --help") ;;
        unlisted) [ "$v" = help ] || problems+=("$v is unlisted; only help (the usage itself) is") ;;
        internal) [[ $v == __* ]] || problems+=("$v is internal but not named __NAME") ;;
        *) problems+=("$v: unknown kind ${kind[$v]}") ;;
        esac
done
check "every verb has lines in botdesk --help, but help and the internal ones" "${problems[@]}"
problems=()
while read -r v; do
        [ -n "${kind[$v]:-}" ] || problems+=("botdesk --help lists $v, which the table lacks")
done < <(sed -n 's/^  \([a-z0-9][a-z0-9]*\)\( .*\)\{0,1\}$/\1/p' <<<"$usage" | sort -u)
check "every verb of botdesk --help is a verb of the table" "${problems[@]}"

# Every verb-NAME.c is one row (verb-NAME-fallback.c stands in for it).
problems=()
for f in "$src"/helper/cli/verb-*.c; do
        name=${f##*/verb-}
        name=${name%.c}
        name=${name%-fallback}
        [ "$name" = table ] && continue
        [ -n "${kind[$name]:-}" ] || problems+=("${f#"$src"/} has no row in helper/cli/verb-table.c")
done
check "every helper/cli/verb-NAME.c is a verb of the table" "${problems[@]}"

# What cli-remote.c decided by its own lists before the table (and cdp since): the verbs
# placed through an exec prefix, and how long each may take there.
want_placed="start stop restart status env exec thumbnail rfb cdp lease input windows cursor watch settle mcp act clipboard a11y"
problems=()
for v in "${verbs[@]}"; do
        case " $want_placed " in
        *" $v "*) [ "${placed[$v]}" = placed ] || problems+=("$v runs here, not through the exec prefix") ;;
        *) [ "${placed[$v]}" = here ] || problems+=("$v is placed; it is about this host") ;;
        esac
done
check "the placed verbs are cli-remote.c's: $want_placed" "${problems[@]}"

declare -A want_timeout=([rfb]=none [cdp]=none [exec]=none [watch]=none [mcp]=none [act]=none [lease]=lease [start]=start
                         [restart]=restart [stop]=stop)
problems=()
for v in "${verbs[@]}"; do
        [ "${placed[$v]}" = placed ] || continue
        w=${want_timeout[$v]:-default}
        [ "${timeout[$v]}" = "$w" ] || problems+=("$v: remote timeout ${timeout[$v]}, was $w")
        w=-
        [ "$v" = clipboard ] && w=stdin
        [ "${stdin[$v]}" = "$w" ] || problems+=("$v: stdin ${stdin[$v]}, was $w")
done
check "the remote timeouts and stdin are cli-remote.c's" "${problems[@]}"

# cli-remote.c skipped the value of these options, of every verb, when it
# looked for the profile: each placed verb that takes one still does.
problems=()
for v in "${verbs[@]}"; do
        [ "${placed[$v]}" = placed ] || continue
        for o in --timeout --profile --viewer --reason --until --env -o --output --size --format --quality --button --epoch; do
                k=${value[$v $o]:-}
                [ -z "$k" ] || [ "$k" != flag ] || problems+=("$v $o takes no value now")
        done
done
check "the options whose value cli-remote.c skipped still take one" "${problems[@]}"

# The agent actions take --epoch N (botdesk --help says which).
problems=()
for v in input act windows cursor thumbnail settle clipboard exec mcp a11y; do
        [ "${value[$v --epoch]:-}" = any ] || problems+=("$v does not take --epoch N")
done
check "the agent actions take --epoch N" "${problems[@]}"

# input's options, as its own loop took them before main.c's parser read
# them: --settle a flag (its MS only as --settle=MS, never the next word,
# which may be an action's), --button and --window with the next word.
problems=()
got=$(awk -F'\t' '$1 == "option" && $2 == "input" { printf "%s:%s ", $3, $4 }' <<<"$table")
want="--json:flag --epoch:any --help:flag --button:any --double:flag --window:any --stdin:flag --settle:flag --start:flag -h:flag "
for o in $want; do
        [[ " $got" == *" $o "* ]] || problems+=("input lacks $o (has: $got)")
done
[ "$(wc -w <<<"$got")" = "$(wc -w <<<"$want")" ] || problems+=("input has other options: $got")
check "input takes the options its own loop took, --settle a flag" "${problems[@]}"

run() { timeout 20 "$bd" "$@" </dev/null >/dev/null 2>&1; }
run __verbs extra
check "botdesk __verbs takes no argument (2)" $([ $? = 2 ] || echo "exit $?")

# botdesk help VERB is botdesk VERB --help, for every verb but the internal ones (help's own too).
problems=()
for v in "${verbs[@]}"; do
        [ "${kind[$v]}" = internal ] && continue
        [ "$(timeout 20 "$bd" help "$v" </dev/null 2>&1)" = "$(timeout 20 "$bd" "$v" --help </dev/null 2>&1)" ] ||
                problems+=("help $v differs from $v --help")
done
check "botdesk help VERB prints what botdesk VERB --help prints" "${problems[@]}"

# Every line of the usage and of each verb's fits a terminal of 80 columns,
# tabs counted as the 8 columns they take there.
problems=()
for v in "" "${verbs[@]}"; do
        [ -n "$v" ] && [ "${kind[$v]}" = internal ] && continue
        while IFS= read -r line; do
                problems+=("botdesk $v${v:+ }--help: $line")
        done < <(timeout 20 "$bd" $v --help </dev/null 2>&1 | expand | awk 'length > 80 { print length ": " $0 }')
done
check "every line of botdesk --help and of botdesk VERB --help is within 80 columns" "${problems[@]}"

# botdesk --help is grouped like systemctl's: a heading, then its verbs'
# lines, and no verb's line before the first heading.
groups=$(grep -cE '^[A-Z][a-z ]+:$' <<<"$usage")
first_verb=$(grep -nE '^  [a-z]' <<<"$usage" | head -n1 | cut -d: -f1)
first_group=$(grep -nE '^[A-Z][a-z ]+:$' <<<"$usage" | head -n1 | cut -d: -f1)
check "botdesk --help groups its verbs under headings ($groups)" \
        $([ "$groups" -ge 4 ] && [ "${first_group:-0}" -gt 0 ] && [ "$first_group" -lt "${first_verb:-0}" ] ||
          echo "$groups headings, the first at line ${first_group:-none}, the first verb at line ${first_verb:-none}")

# A misspelt verb or option: one line, the nearest valid name, exit 2.
err=$(timeout 20 "$bd" statsu </dev/null 2>&1); rc=$?
check "a misspelt verb names the nearest one (status), exit 2" \
        $([ "$rc" = 2 ] && [ "$err" = 'botdesk: Unknown command "statsu" (did you mean status?); see botdesk --help.' ] ||
          echo "exit $rc: $err")
err=$(timeout 20 "$bd" help lsit </dev/null 2>&1); rc=$?
check "... and so does botdesk help with one (list)" $([ "$rc" = 2 ] && [[ "$err" == *"(did you mean list?)"* ]] || echo "exit $rc: $err")
err=$(timeout 20 "$bd" status --jsno </dev/null 2>&1); rc=$?
check "a misspelt option names the nearest option of that verb (--json), exit 2" \
        $([ "$rc" = 2 ] && [ "$(wc -l <<<"$err")" = 1 ] && [[ "$err" == *"--jsno for status (did you mean --json?)"* ]] || echo "exit $rc: $err")
err=$(timeout 20 "$bd" status --frobnicate </dev/null 2>&1); rc=$?
check "... and a word near no option gets no guess" $([ "$rc" = 2 ] && [[ "$err" != *"did you mean"* ]] || echo "exit $rc: $err")
err=$(timeout 20 "$bd" status --qu </dev/null 2>&1); rc=$?
check "the one option a word begins is named (--quiet), exit 2" \
        $([ "$rc" = 2 ] && [[ "$err" == *"--qu for status (did you mean --quiet?)"* ]] || echo "exit $rc: $err")
err=$(timeout 20 "$bd" --verison </dev/null 2>&1); rc=$?
check "a misspelt option before the verb names --version, exit 2" \
        $([ "$rc" = 2 ] && [ "$err" = 'botdesk: Unknown option --verison (did you mean --version?); see botdesk --help.' ] ||
          echo "exit $rc: $err")

# --version and the build's features: tests/unit/cli/test-version.sh.

# A verb takes only the options its row names: for every verb, an option of
# some other verb's (a flag that takes no value) is refused before anything
# runs, exit 2, naming the option. A throwaway runtime and state keep the
# probe from touching a real profile, though none gets that far.
declare -A takes
flags=()
while IFS=$'\t' read -r what name f1 f2 f3 f4; do
        [ "$what" = option ] || continue
        takes[$name $f1]=1
        [ "$f2" = flag ] && [ "$f4" != hidden ] && [[ " ${flags[*]} " != *" $f1 "* ]] && flags+=("$f1")
done <<<"$table"
probe_home=$(mktemp -d)
problems=()
for v in "${verbs[@]}"; do
        [ "${kind[$v]}" = listed ] || continue
        foreign=
        for o in "${flags[@]}"; do
                [ -z "${takes[$v $o]:-}" ] && { foreign=$o; break; }
        done
        [ -n "$foreign" ] || continue
        err=$(XDG_RUNTIME_DIR=$probe_home XDG_STATE_HOME=$probe_home BOTDESK_CONFIG=/dev/null \
                timeout 20 "$bd" "$v" probe-profile "$foreign" </dev/null 2>&1 >/dev/null)
        rc=$?
        want=2
        [ "$v" = exec ] && want=125   # exec's own failures: its command's statuses are its
        [ "$rc" = "$want" ] && [[ "$err" == *"$foreign"* ]] || problems+=("$v $foreign: exit $rc, $err")
done
[ -n "${probe_home:-}" ] && [[ $probe_home == /tmp/* ]] && rm -rf -- "${probe_home:?}"
check "every verb refuses an option its row does not name (exit 2, exec 125, naming it)" "${problems[@]}"

echo "1..$n"
[ "$failed" = 0 ]
