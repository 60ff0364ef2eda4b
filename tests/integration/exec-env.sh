#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# `botdesk exec` gives its command the desktop's environment, not the
# caller's: credentials in the caller's environment (AWS_SECRET_ACCESS_KEY,
# GITHUB_TOKEN, FOO_PASSWORD, any variable not named) never reach the
# command; a variable named with --env NAME or in [session] exec_pass_env
# does; DISPLAY and XAUTHORITY are the desktop's even when the caller has
# its own and names them; a published env forged by the desktop's programs
# (LD_PRELOAD, a bus address that runs a program) is refused. The
# session of a caller without LANG gets LANG=C.UTF-8, and Qt's X11
# backend, and so does what botdesk exec runs. Bands: 110-114 (user run 210-214).
. "$(dirname "$0")/lib.sh"
bd_init xen 110
bd_need_xserver
bd_config
printf '[session]\nexec_pass_env = FROM_CONFIG\n' >>"$BOTDESK_CONFIG"

P=$(bd_profile a)
RT=$(bd_rt "$P")

# Started by a caller without LANG, as by a service manager (start-status-env-stop.sh keeps one's LANG).
unset LANG
bd_start "$P"
rc=$?
t_is "$rc" 0 "the desktop starts" || true
[ "$rc" = 0 ] || { t_diag "$(bd_err "$P")"; t_done; }
D=":$(rec_get "$P" DISPLAY)"

# The session's command (sleep infinity, bd_config's): its environment is the session's.
SP=$(for p in $(desktop_pids "$P"); do [ "$(cat "/proc/$p/comm" 2>/dev/null)" = sleep ] && echo "$p"; done | head -n1)
t_match "$SP" '^[0-9]+$' "the session's command is found (pid $SP)"
t_ok "a caller without LANG gives the session LANG=C.UTF-8" proc_has_env "$SP" LANG=C.UTF-8
t_ok "the session's Qt programs use X11 (QT_QPA_PLATFORM=xcb)" proc_has_env "$SP" QT_QPA_PLATFORM=xcb

# The command dumps its whole environment to a file.
DUMP=$BD_T/out/exec.env
AWS_SECRET_ACCESS_KEY=aws-secret GITHUB_TOKEN=ghp-secret FOO_PASSWORD=hunter2 UNNAMED_VAR=unnamed \
KEEP_ME=kept FROM_CONFIG=configured DISPLAY=:999 XAUTHORITY=/nonexistent/Xauthority \
        timeout 20 "$BOTDESK" exec "$P" --env KEEP_ME --env=DISPLAY -- sh -c 'env >"$1"' sh "$DUMP" 2>"$BD_T/out/exec.err"
t_is "$?" 0 "botdesk exec runs the command"
t_diag "$(sort "$DUMP" 2>/dev/null)"

has() { grep -q "^$1=" "$DUMP" 2>/dev/null; }
for n in AWS_SECRET_ACCESS_KEY GITHUB_TOKEN FOO_PASSWORD; do
        if has "$n"; then t_fail "the caller's $n does not reach the command" "$(grep "^$n=" "$DUMP")"; else t_pass "the caller's $n does not reach the command"; fi
done
if has UNNAMED_VAR; then t_fail "a variable the caller did not name does not reach the command"; else t_pass "a variable the caller did not name does not reach the command"; fi
t_is "$(sed -n 's/^KEEP_ME=//p' "$DUMP")" kept "a variable named with --env NAME reaches the command"
t_is "$(sed -n 's/^FROM_CONFIG=//p' "$DUMP")" configured "a variable named in [session] exec_pass_env reaches the command"
t_is "$(sed -n 's/^DISPLAY=//p' "$DUMP")" "$D" "DISPLAY is the desktop's, even when the caller names its own"
t_is "$(sed -n 's/^XAUTHORITY=//p' "$DUMP")" "$RT/Xauthority" "XAUTHORITY is the desktop's cookie file"
t_is "$(sed -n 's/^BOTDESK_PROFILE=//p' "$DUMP")" "$P" "BOTDESK_PROFILE names the profile"
t_isnt "$(sed -n 's/^PATH=//p' "$DUMP")" "" "PATH comes from the allow-list"
# What the session's own programs are told (a caller without LANG, as this one): X11, and C.UTF-8.
t_is "$(sed -n 's/^QT_QPA_PLATFORM=//p' "$DUMP")" xcb "Qt programs it starts use X11, not the caller's Wayland (QT_QPA_PLATFORM=xcb)"
t_is "$(sed -n 's/^GDK_BACKEND=//p;s/^XDG_SESSION_TYPE=//p' "$DUMP" | tr '\n' ' ')" "x11 x11 " \
        "... so do GTK's (GDK_BACKEND=x11), in an X11 session (XDG_SESSION_TYPE=x11)"
t_is "$(sed -n 's/^LANG=//p' "$DUMP")" C.UTF-8 "a caller without LANG gives the command LANG=C.UTF-8"
LANG=de_DE.UTF-8 QT_QPA_PLATFORM=offscreen timeout 20 "$BOTDESK" exec "$P" --env QT_QPA_PLATFORM -- \
        sh -c 'env >"$1"' sh "$BD_T/out/exec-lang.env" 2>/dev/null
t_is "$(sed -n 's/^LANG=//p;s/^QT_QPA_PLATFORM=//p' "$BD_T/out/exec-lang.env" | sort | tr '\n' ' ')" "de_DE.UTF-8 offscreen " \
        "a caller's own LANG is kept, and a QT_QPA_PLATFORM it names on purpose wins"

# exec's status is its command's; its own failures are 125, 126 and 127, as env(1)'s.
for st in 1 2 3 4; do
        timeout 20 "$BOTDESK" exec "$P" -- sh -c "exit $st" 2>/dev/null
        t_is "$?" "$st" "exec exits with its command's status $st"
done
timeout 20 "$BOTDESK" exec "$P" -- "$BD_T/out/no-such-program" 2>"$BD_T/out/notfound.err"
t_is "$?" 127 "exec of a command that does not exist exits 127"
t_match "$(cat "$BD_T/out/notfound.err")" "Cannot execute .*no-such-program" "... saying what it could not run"
printf 'not a program\n' >"$BD_T/out/not-executable" && chmod 0644 "$BD_T/out/not-executable"
timeout 20 "$BOTDESK" exec "$P" -- "$BD_T/out/not-executable" 2>/dev/null
t_is "$?" 126 "exec of a file that is not executable exits 126"

timeout 20 "$BOTDESK" exec "$P" --env BAD-NAME -- true 2>"$BD_T/out/bad.err"
t_is "$?" 125 "--env with something that is not a variable name is a usage error (exec's own 125)"
t_match "$(cat "$BD_T/out/bad.err")" "variable name" "... saying what it wants"

# The published env is the helper's, but the desktop's programs can write the runtime dir: a
# forged one (a library to preload, a bus address that runs a program) is refused, never used.
cp "$RT/env" "$BD_T/out/env.good"
MARK=$BD_T/out/forged-bus-ran
for forged in "LD_PRELOAD=$BD_T/out/nothing.so" \
              "DBUS_SESSION_BUS_ADDRESS=unixexec:path=/bin/sh,argv1=-c,argv2=touch%20$MARK"; do
        { grep -v "^${forged%%=*}=" "$BD_T/out/env.good"; echo "$forged"; } >"$RT/env.new" && mv "$RT/env.new" "$RT/env"
        timeout 20 "$BOTDESK" exec "$P" -- sh -c 'env >"$1"' sh "$BD_T/out/forged.env" 2>"$BD_T/out/forged.err"
        t_is "$?" 125 "exec refuses a published env with ${forged%%=*} forged in it (its own 125)"
        t_match "$(cat "$BD_T/out/forged.err")" "${forged%%=*}.*does not publish" "... naming the variable"
        timeout 20 "$BOTDESK" env "$P" >"$BD_T/out/forged.sh" 2>/dev/null
        t_isnt "$?" 0 "env refuses to print it for a shell (${forged%%=*})"
done
t_ok "no forged bus address was run" test ! -e "$MARK"
cp "$BD_T/out/env.good" "$RT/env.new" && mv "$RT/env.new" "$RT/env"
timeout 20 "$BOTDESK" exec "$P" -- true
t_is "$?" 0 "the helper's own env is used again once it is back"

# A command that drops its environment (env -i: no token to find it by) still stops with the desktop:
# by its cgroup, or where there is none by the pid botdesk exec recorded.
"$BOTDESK" exec "$P" -- env -i sleep 300 >/dev/null 2>"$BD_T/out/drop.err" &
EP=$!
bd_own_pid $EP
comm_is() { [ "$(cat "/proc/$1/comm" 2>/dev/null)" = "$2" ]; }
gone_or_zombie() { ! kill -0 "$1" 2>/dev/null || grep -q '^State:[[:space:]]*Z' "/proc/$1/status" 2>/dev/null; }
t_ok "botdesk exec runs a command that drops its environment (waited 10 s for it to become sleep)" \
        wait_for 10 comm_is "$EP" sleep
t_is "$(tr '\0' '\n' <"/proc/$EP/environ" 2>/dev/null | grep -c BOTDESK_TOKEN)" 0 "... which carries no token"

bd_stop "$P"
t_is "$?" 0 "the desktop stops"
t_ok "... and its stop ended that command too (waited 10 s)" wait_for 10 gone_or_zombie "$EP"
t_done
