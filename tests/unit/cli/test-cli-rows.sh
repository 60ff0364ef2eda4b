#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Every row of the table of verbs, as botdesk __verbs prints it, against what
# the one parser does: a verb whose row needs a PROFILE says it is missing,
# and refuses an invalid one, before anything runs; and a verb refuses every
# option its row does not name (of the options every verb once took), naming
# it. Prints TAP.
#   test-cli-rows.sh BOTDESK
set -u
bd=${1:?usage: test-cli-rows.sh BOTDESK}
. "$(dirname "$0")/cli-scratch.sh"

# said ARGS...: botdesk's exit code in $rc and its stderr in $err (its stdout dropped; bounded: 20 s). One
# process per run: this test makes hundreds of them, each slow in a sanitizer build.
said() {
        err=$(timeout 20 "$bd" "$@" 2>&1 >/dev/null </dev/null)
        rc=$?
}

table=$("$bd" __verbs)
declare -A takes=()
verbs=() profile_verbs=()
while IFS=$'\t' read -r kind v f1 f2 f3; do
        case $kind in
        verb) [ "$f1" != internal ] && verbs+=("$v") ;;
        option) takes[$v $f1]=1 ;;
        word) [ "$f1" = 0 ] && [ "$f2" = PROFILE ] && [ "$f3" = required ] && profile_verbs+=("$v") ;;
        esac
done <<<"$table"
[ "${#verbs[@]}" -ge 30 ] && [ "${#profile_verbs[@]}" -ge 20 ] &&
        ok "__verbs names ${#verbs[@]} verbs, ${#profile_verbs[@]} of which need a PROFILE" ||
        not_ok "__verbs names the verbs and those that need a PROFILE" "${verbs[*]}" "${profile_verbs[*]}"

# ---- a PROFILE, judged by the parser for every row that needs one ------------------------------
for v in "${profile_verbs[@]}"; do
        want=$(usage_rc "$v")
        said "$v"
        m1="$rc $err"
        said "$v" "a b"
        m2="$rc $err"
        [ "$m1" = "$want botdesk: Missing PROFILE for $v; see botdesk $v --help." ] &&
        [ "$m2" = "$want botdesk: Invalid profile name \"a b\": use 1-32 characters of A-Z a-z 0-9 _ -, starting with a letter or digit." ] &&
                ok "$v: a missing and an invalid PROFILE are usage errors ($want), said by the parser" ||
                not_ok "$v: a missing and an invalid PROFILE are usage errors ($want), said by the parser" "$m1" "$m2"
done
# status and watch take none (every profile), and judge one given.
for v in status watch; do
        said "$v" "a b"
        [ "$rc" = 2 ] && [ "$err" = 'botdesk: Invalid profile name "a b": use 1-32 characters of A-Z a-z 0-9 _ -, starting with a letter or digit.' ] &&
                ok "$v judges a PROFILE given" || not_ok "$v judges a PROFILE given" "exit $rc" "$err"
done
left=$(find "$XDG_RUNTIME_DIR" "$XDG_STATE_HOME" -mindepth 1 2>/dev/null)
[ -z "$left" ] && ok "no runtime or state file was created for a missing or invalid profile" ||
        not_ok "no runtime or state file was created for a missing or invalid profile" "$left"

# ---- the options of a row, and no other ------------------------------------------------------
# The options every verb once took, meaning something to it or not: now each takes those its row names.
for v in "${verbs[@]}"; do
        bad=()
        for o in --json --quiet --force --yes --timeout --profile --viewer --reason --until; do
                [ -n "${takes[$v $o]:-}" ] && continue
                said "$v" "$o"
                [ "$rc" = "$(usage_rc "$v")" ] && [[ $err == "botdesk: Unknown option $o for $v"*"; see botdesk $v --help." ]] ||
                        bad+=("$o: exit $rc, $err")
        done
        [ "${#bad[@]}" = 0 ] && ok "$v refuses every option its row does not name" ||
                not_ok "$v refuses every option its row does not name" "${bad[@]}"
done

echo "1..$n"
[ "$failed" = 0 ]
