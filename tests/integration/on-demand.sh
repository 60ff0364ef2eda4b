#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# A tool can simply act: env --start, exec --start and input --start start a
# stopped desktop first (with start's checks and memory gate: a refusal is
# exit 3 with the reason), and [session] auto_start = yes makes plain exec
# do it, but never env, which only reports a running desktop's environment
# (with WAYLAND_DISPLAY unset); without either, a stopped desktop stays
# stopped (exit 4).
. "$(dirname "$0")/lib.sh"
bd_init odm 245
bd_need_xserver

P=$(bd_profile a)
bd_register "$P"
bd_config

# Bounded by timeout(1); output to files so a failure can show it.
run() { timeout 60 "$BOTDESK" "$@" >"$BD_T/out/run.out" 2>"$BD_T/out/run.err"; }

run env "$P"
t_is "$?" 4 "plain env of a stopped desktop is 4 (not running)"
t_ok "... and starts nothing" test ! -e "$(bd_rt "$P")/helper"

run env "$P" --start
rc=$?
bd_snapshot "$P"
t_is "$rc" 0 "env --start of a stopped desktop exits 0" || t_diag "$(cat "$BD_T/out/run.err")"
t_match "$(cat "$BD_T/out/run.out")" "^export DISPLAY=':?[0-9]+'?$|^export DISPLAY=:[0-9]+$|export DISPLAY=" \
        "... and prints the env of the desktop it started"
D=$(sed -n "s/^export DISPLAY='\\?\\([^']*\\)'\\?$/\\1/p" "$BD_T/out/run.out")
st=$("$BOTDESK" status --json "$P")
t_match "$st" "\"running\": ?true" "the desktop runs afterwards"
t_match "$st" "\"display\": ?\"$D\"" "... on the display env printed ($D)"
run env "$P" --start
t_is "$?" 0 "env --start of a running desktop just prints its env"
t_match "$(cat "$BD_T/out/run.out")" "export DISPLAY='?$D'?" "... the same display"

bd_stop "$P"
t_is "$?" 0 "the desktop stops"
out=$(timeout 60 "$BOTDESK" exec "$P" --start -- sh -c 'echo "$DISPLAY"' 2>"$BD_T/out/exec.err")
rc=$?
bd_snapshot "$P"
t_is "$rc" 0 "exec --start of a stopped desktop runs the command" || t_diag "$(cat "$BD_T/out/exec.err")"
t_match "$out" '^:[0-9]+$' "... on the desktop's display ($out)"

bd_stop "$P"
if "$BOTDESK" input --help 2>&1 | grep -q -- --start; then
        run input "$P" --start move 5 6
        rc=$?
        bd_snapshot "$P"
        t_is "$rc" 0 "input --start of a stopped desktop starts it and acts" || t_diag "$(cat "$BD_T/out/run.err")"
        t_match "$("$BOTDESK" cursor "$P" --json 2>&1)" '"x": ?5, ?"y": ?6' "... the pointer is where input moved it"
        bd_stop "$P"
        run input "$P" --start move 99999 6
        t_is "$?" 2 "input --start with coordinates that do not parse is 2"
        t_ok "... and starts nothing" test ! -e "$(bd_rt "$P")/env"
else
        t_skip "input --start" "botdesk was built without input (xcb-xtest, xkbcommon)"
fi

# auto_start = yes: plain exec starts it; plain env never does.
printf '[session]\nauto_start = yes\n' >>"$BOTDESK_CONFIG"
run env "$P"
t_is "$?" 4 "with auto_start = yes plain env of a stopped desktop is still 4 (not running)"
t_ok "... and starts nothing" test ! -e "$(bd_rt "$P")/env"
out=$(timeout 60 "$BOTDESK" exec "$P" -- sh -c 'echo "$DISPLAY"' 2>"$BD_T/out/exec.err")
rc=$?
bd_snapshot "$P"
t_is "$rc" 0 "with auto_start = yes plain exec starts the stopped desktop" || t_diag "$(cat "$BD_T/out/exec.err")"
run env "$P"
t_is "$?" 0 "... and plain env prints the running desktop's env"
t_match "$(cat "$BD_T/out/run.out")" "export DISPLAY='?$out'?" "... with its display ($out)"
t_is "$(head -n1 "$BD_T/out/run.out")" "unset WAYLAND_DISPLAY" "... after a line unsetting WAYLAND_DISPLAY"
t_is "$(WAYLAND_DISPLAY=wayland-0 sh -c 'eval "$(cat "$1")"; echo "${WAYLAND_DISPLAY-unset}"' sh "$BD_T/out/run.out")" unset \
        "... so that eval \"\$(botdesk env P)\" leaves no Wayland display for the desktop's clients"
bd_stop "$P"

# The memory gate applies: a floor no machine meets refuses, exit 3 with the reason.
bd_config min_free=1048576
printf '[session]\nauto_start = yes\n' >>"$BOTDESK_CONFIG"
run env "$P" --start
t_is "$?" 3 "env --start below the memory floor is refused with 3"
t_match "$(cat "$BD_T/out/run.err")" "Not enough free memory for a desktop: .*min_free_memory_mb" "... saying why"
run exec "$P" -- true
t_is "$?" 125 "auto_start's exec below the floor is refused, with exec's own 125"
t_ok "nothing was started" test ! -e "$(bd_rt "$P")/env"

# A bad value is a configuration error naming the line.
printf '[display]\nband = %s-%s\n[session]\ndesktop = command\ncommand = sleep infinity\nauto_start = maybe\n' \
        "$BD_BAND_MIN" "$BD_BAND_MAX" >"$BOTDESK_CONFIG"
run config check
t_is "$?" 2 "auto_start = maybe fails config check with 2"
t_match "$(cat "$BD_T/out/run.err")" "botdesk.ini:6: .*auto_start.*not a boolean" "... naming the file and line"
t_done
