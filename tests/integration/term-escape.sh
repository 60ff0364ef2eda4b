#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# A window title is an application's words, and a terminal obeys the
# control characters in what it shows (ESC ] 52 writes its clipboard).
# botdesk windows, printing to a terminal (a pty, through script), shows a
# title holding OSC 52 escaped, with no ESC or BEL of it left; to a pipe it
# prints the title as it is, and --json escapes it as JSON does.
# Band 480-484, main variant only.
. "$(dirname "$0")/lib.sh"
bd_init tesc 480 once
bd_need_xserver
bd_need xfwm4 zenity script
[ -n "$PY" ] || t_skip_all "python3 not installed"
bd_config desktop=xfce timeout=60
P=$(bd_profile a)
TITLE=$'\e]52;c;cHduZWQ=\a botdesk-osc52'

t_ok "the Xfce desktop starts" bd_start "$P" || { t_diag "$(bd_err "$P")"; t_done; }
"$BOTDESK" exec "$P" -- zenity --info --title "$TITLE" --text "title test" >"$BD_T/out/zenity.out" 2>&1 &
ZENITY=$!
bd_own_pid "$ZENITY"
listed() { "$BOTDESK" windows "$P" 2>/dev/null | grep -q "botdesk-osc52"; }
t_ok "xfwm4 lists the window whose title holds OSC 52 (waited up to 30 s)" wait_for 30 listed

tty_out=$(timeout 30 script -qec "$(printf '%q ' "$BOTDESK" windows "$P")" /dev/null | grep "botdesk-osc52")
t_match "$tty_out" '\\x1b\]52;c;cHduZWQ=\\x07 botdesk-osc52' "on a terminal, the title's ESC and BEL are printed escaped"
case $tty_out in
*$'\e'* | *$'\a'*) t_fail "no ESC or BEL of the title reaches the terminal" "$(printf '%q' "$tty_out")" ;;
*) t_pass "no ESC or BEL of the title reaches the terminal" ;;
esac
pipe_out=$("$BOTDESK" windows "$P" | grep "botdesk-osc52")
case $pipe_out in
*"$TITLE"*) t_pass "to a pipe, the title is printed as it is" ;;
*) t_fail "to a pipe, the title is printed as it is" "$(printf '%q' "$pipe_out")" ;;
esac
t_match "$("$BOTDESK" windows "$P" --json)" '"\\u001b\]52;c;cHduZWQ=\\u0007 botdesk-osc52"' \
        "--json escapes the title as JSON does"

kill -TERM "$ZENITY" 2>/dev/null
wait "$ZENITY" 2>/dev/null
t_ok "the desktop stops" bd_stop "$P"
t_done
