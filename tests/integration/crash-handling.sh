#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# After the desktop is ready, a session component that dies comes back (with
# back-off) while the desktop stays up; the X server dying takes the whole
# desktop down: nothing published, nothing running, the reason recorded.
# A session bus or X server killed while it starts is named with its signal.
. "$(dirname "$0")/lib.sh"
bd_init crh 30
bd_need_xserver
P=$(bd_profile c)
RT=$(bd_rt "$P")

# The helper's children other than the X server and the bus: the session.
session_children() {
        local helper=$1 p
        for p in /proc/[0-9]*; do
                [ "$(awk '{print $4}' "$p/stat" 2>/dev/null)" = "$helper" ] || continue
                case $(cat "$p/comm" 2>/dev/null) in Xtigervnc | Xvnc | dbus-daemon) continue ;; esac
                proc_alive "${p#/proc/}" && echo "${p#/proc/}"
        done
}


bd_config command='sleep infinity'
bd_start "$P"
t_is "$?" 0 "the desktop starts"
H=$(rec_get "$P" PID)
N=$(rec_get "$P" DISPLAY)
S1=$(session_children "$H")
t_match "$S1" '^[0-9]+$' "the session command runs as the helper's child (pid $S1)"

kill -KILL "$S1"
restarted() { S2=$(session_children "$H"); [ -n "$S2" ] && [ "$S2" != "$S1" ]; }
wait_for 15 restarted
t_is "$?" 0 "a killed session command is started again"
t_isnt "$S2" "$S1" "... as a new process ($S2)"
t_ok "the helper still runs" proc_alive "$H"
t_ok "the env stays published" test -s "$RT/env"
t_is "$(rec_get "$P" DISPLAY)" "$N" "the display is unchanged (:$N)"
"$BOTDESK" status --json "$P" >"$BD_T/st.json" 2>/dev/null
t_ok "status still says running" python3 -c 'import json,sys; sys.exit(not json.load(open(sys.argv[1]))["running"])' "$BD_T/st.json"

X=$(xservers_of "$P")
t_match "$X" '^[0-9]+$' "the X server is known (pid $X)"
bd_snapshot "$P"
kill -KILL "$X"
helper_gone() { ! proc_alive "$H"; }
wait_for 20 helper_gone
t_is "$?" 0 "when the X server dies, the helper ends"
t_ok "the env is no longer published" test ! -e "$RT/env"
t_ok "the helper record is gone" test ! -e "$RT/helper"
t_is "$(desktop_pids "$P")" "" "nothing of the desktop runs any more"
le=$(cat "$RT/last-error" 2>/dev/null)
t_match "$le" 'X server' "last-error says the X server went away ($le)"
"$BOTDESK" env "$P" >/dev/null 2>&1
t_is "$?" 4 "env of the ended desktop exits 4 (not running)"
bd_start "$P"
t_is "$?" 0 "the next start works"
bd_stop "$P"
t_is "$?" 0 "and its stop too"
# killed_while_starting WHAT PROGRAM PATTERN WRONG: a start whose PROGRAM is
# a stand-in (its script on stdin) that breaks its pipe or our connection
# and is then SIGKILLed fails naming WHAT (PATTERN: WHAT and the signal),
# never WRONG (what broke first); the next start, with the real one, works.
killed_while_starting() {
        local what=$1 program=$2 pattern=$3 wrong=$4 dir
        dir=$(mktemp -d "$BD_T/fake.XXXXXX")
        cat >"$dir/$program"
        chmod 755 "$dir/$program"
        # What breaks here is a cold start: no spare may serve it (the
        # spare variant's fill then fails too, with the stand-in).
        [ "$BD_VARIANT" = spare ] && timeout 120 "$BOTDESK" pool drain --quiet >/dev/null 2>&1
        PATH="$dir:$PATH" bd_start "$P"
        t_is "$?" 1 "a start whose $what is killed as it starts fails"
        err=$(cat "$BD_T/out/$P.err")
        t_match "$err" "$pattern" "... and names the $what and its signal ($err)"
        t_ok "... not what broke first (\"$wrong\")" bash -c '! grep -q -- "$1" "$2"' _ "$wrong" "$BD_T/out/$P.err"
        bd_start "$P"
        t_is "$?" 0 "the next start, with the real $what, works"
        bd_stop "$P"
}

# A session bus killed as it starts closes its address pipe as it dies.
killed_while_starting "session bus" dbus-daemon 'session bus.*killed by signal KILL' "address pipe" <<'EOF'
#!/bin/bash
for a; do case $a in --print-address=*) fd=${a#--print-address=} ;; esac; done
eval "exec $fd>&-"
sleep 0.3
kill -KILL $$
EOF
# An X server killed just after it said it listens: our connection to it is refused first.
killed_while_starting "X server" Xtigervnc 'X server.*killed by signal KILL' "cookie" <<'EOF'
#!/bin/bash
# A stand-in for TigerVNC (which takes -rfbunixpath): it says it listens, then is killed.
kill -USR1 "$PPID"
sleep 0.3
kill -KILL $$
EOF
t_done
