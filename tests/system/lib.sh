# SPDX-License-Identifier: LGPL-2.1-or-later
# Shared by the t-*.sh scripts. They run inside the system tier's container
# as the test user, in a logind session with a user manager; each prints
# unnumbered TAP lines ("ok - ...", "not ok - ...", "# ...") that run.sh
# numbers, and exits non-zero when anything failed.

set -u
export LANG=C.UTF-8
export XDG_RUNTIME_DIR=${XDG_RUNTIME_DIR:-/run/user/$(id -u)}
T_FAILED=0
T_UNITS=()

diag() { sed 's/^/# /'; }
ok() { echo "ok - $*"; }
not_ok() { echo "not ok - $*"; T_FAILED=1; }
# pass COND_STATUS DESC [DIAG]: ok when COND_STATUS is 0.
pass() {
        local st=$1 desc=$2
        if [ "$st" = 0 ]; then ok "$desc"; else not_ok "$desc"; [ -n "${3:-}" ] && printf '%s\n' "$3" | diag; fi
        return "$st"
}
# check DESC CMD...: ok when CMD succeeds; its output becomes diagnostics on failure.
check() {
        local desc=$1 out st
        shift
        out=$("$@" 2>&1)
        st=$?
        pass "$st" "$desc" "$(printf '%s\n(exit status %s)' "$out" "$st")"
}
# is DESC GOT WANT
is() {
        if [ "$2" = "$3" ]; then ok "$1"; else not_ok "$1"; printf 'got:  %s\nwant: %s\n' "$2" "$3" | diag; return 1; fi
}
t_done() { exit "$T_FAILED"; }

now() { echo "${EPOCHREALTIME}"; }
# deadline_in SECONDS: the clock, in microseconds, SECONDS (whole) from now;
# past DEADLINE: that time has come. The one bound of every wait below.
usec_now() { echo "${EPOCHREALTIME//[!0-9]/}"; }
deadline_in() { echo $(($(usec_now) + $1 * 1000000)); }
past() { [ "$(usec_now)" -gt "$1" ]; }
ms_since() { awk -v a="$1" -v b="${EPOCHREALTIME}" 'BEGIN { printf "%d", (b - a) * 1000 }'; }

# The cgroup v2 mount point, from mountinfo (hybrid hosts: /sys/fs/cgroup/unified).
cg2_mount() {
        awk '{ for (i = 7; i <= NF; i++) if ($i == "-") { if ($(i + 1) == "cgroup2") { print $5; exit } break } }' \
                /proc/self/mountinfo
}
CG2=$(cg2_mount)

prop() { systemctl --user show -p "$2" --value "$1"; }
# unit_cgroup UNIT: the unit's cgroup directory in the v2 hierarchy ("" when it has none).
unit_cgroup() {
        local cg
        cg=$(prop "$1" ControlGroup)
        [ -n "$cg" ] && echo "$CG2$cg"
}
# cg_pids DIR: every pid in DIR and below.
cg_pids() {
        [ -d "$1" ] || return 0
        find "$1" -name cgroup.procs -exec cat {} + 2>/dev/null | sort -n
}
# cg_empty DIR: DIR is absent, or holds no process anywhere below it.
cg_empty() { [ -z "$(cg_pids "$1")" ]; }
# alive PID: exists and is not a zombie.
alive() {
        local st
        st=$(awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null) && [ -n "$st" ] && [ "$st" != Z ]
}
# survivors PID...: the pids of the list still alive.
survivors() { local p; for p in "$@"; do alive "$p" && echo "$p"; done; }
# wait_gone SECONDS PID...: wait for every pid to die (not a readiness wait:
# the processes were killed; this only bounds how long the kernel takes).
# No pid at all fails: "every process is gone" would pass without a kill.
wait_gone() {
        local deadline p left
        deadline=$(deadline_in "$1")
        shift
        [ $# -gt 0 ] || { echo "no pid to wait for: the list of processes to see gone is empty"; return 1; }
        while :; do
                left=$(survivors "$@")
                [ -z "$left" ] && return 0
                past "$deadline" && break
                sleep 0.05
        done
        for p in $left; do echo "still alive: $p $(tr '\0' ' ' < "/proc/$p/cmdline" 2>/dev/null)"; done
        return 1
}
# wait_prop SECONDS UNIT PROP VALUE...: poll systemd's state of the unit until
# PROP has one of the values (used only for transitions systemd makes on its own).
wait_prop() {
        local secs=$1 unit=$2 p=$3 v deadline
        shift 3
        deadline=$(deadline_in "$secs")
        while :; do
                v=$(prop "$unit" "$p")
                for want in "$@"; do [ "$v" = "$want" ] && return 0; done
                past "$deadline" && break
                sleep 0.05
        done
        echo "$unit $p=$v after ${secs}s, wanted: $*"
        return 1
}
# prop_seconds UNIT PROP: a time span property of the unit (TimeoutStopUSec,
# RestartUSec) in whole seconds, rounded up; bounds derived from it follow the
# unit instead of a copy of its value.
prop_seconds() {
        local span
        span=$(prop "$1" "$2")
        systemd-analyze timespan "$span" |
                awk '$1 ~ /s:$/ && $1 != "Original:" { printf "%d\n", ($2 + 999999) / 1000000; ok = 1 }
                     END { exit !ok }'
}
# comm_pid DIR COMM: the pid in cgroup DIR (only that level) whose comm is COMM.
comm_pid() {
        local p
        for p in $(cat "$1/cgroup.procs" 2>/dev/null); do
                [ "$(cat "/proc/$p/comm" 2>/dev/null)" = "$2" ] && { echo "$p"; return 0; }
        done
        return 1
}
# x_pid DIR: the X server's pid in DIR.
x_pid() { comm_pid "$1" Xtigervnc || comm_pid "$1" Xvnc; }

# display_works PROFILE: the published env reaches a working X server.
display_works() {
        (
                set -e
                eval "$(botdesk env "$1")"
                [ -n "${DISPLAY:-}" ] || { echo "botdesk env $1 printed no DISPLAY"; exit 1; }
                xdpyinfo >/dev/null || { echo "xdpyinfo failed on DISPLAY=$DISPLAY"; exit 1; }
                echo "$DISPLAY"
        )
}
# json_get FIELD: read a JSON object on stdin, print FIELD (true/false for booleans).
json_get() {
        python3 -c '
import json, sys
v = json.load(sys.stdin).get(sys.argv[1])
print("true" if v is True else "false" if v is False else "" if v is None else v)' "$1"
}

# Units the script started: stopped (and forgotten) on exit, whatever happened.
track() { T_UNITS+=("$@"); }
t_cleanup() {
        local u
        for u in "${T_UNITS[@]}"; do
                timeout 60 systemctl --user stop "$u" >/dev/null 2>&1
                systemctl --user reset-failed "$u" >/dev/null 2>&1
        done
}
trap t_cleanup EXIT

# warm_user_bus: activate the socket-activated user bus and wait (bounded)
# until the user manager owns org.freedesktop.systemd1 on it.
warm_user_bus() {
        for _ in $(seq 100); do
                busctl --user call org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus \
                        NameHasOwner s org.freedesktop.systemd1 2>/dev/null | grep -q true && return 0
                sleep 0.05
        done
        echo "the user manager did not appear on the user bus within 5 s"
        return 1
}

# browser_round PROFILE: the browser the caller of `botdesk start` names
# (AGENT_BROWSER_EXECUTABLE_PATH, at a path with a space, a quote and a $)
# is the desktop's, and the next start without it does not keep it.
browser_round() {
        local P=$1 dir fake out
        dir=$(mktemp -d) || return
        fake="$dir/my \"\$browser"
        printf '#!/bin/sh\nexit 0\n' >"$fake" && chmod 0755 "$fake"
        track "botdesk@$P.service"
        out=$(AGENT_BROWSER_EXECUTABLE_PATH=$fake timeout 60 botdesk start "$P" 2>&1)
        if pass $? "botdesk start $P with AGENT_BROWSER_EXECUTABLE_PATH returns 0" "$out"; then
                is "status --json: the desktop's browser is the caller's" \
                        "$(botdesk status --json "$P" | json_get browser)" "$fake"
                out=$(timeout 60 botdesk stop "$P" 2>&1)
                pass $? "botdesk stop $P returns 0" "$out"
                out=$(env -u AGENT_BROWSER_EXECUTABLE_PATH timeout 60 botdesk start "$P" 2>&1)
                pass $? "botdesk start $P again, naming no browser, returns 0" "$out"
                out=$(botdesk status --json "$P" | json_get browser)
                pass "$([ "$out" != "$fake" ]; echo $?)" "... and the earlier caller's browser is not kept (browser: '$out')"
                timeout 60 botdesk stop "$P" >/dev/null 2>&1
        fi
        rm -rf -- "${dir:?}"
}

# net_serve LOG ADDRESS PORT: net-serve.py, a TCP service outside any desktop that answers "hi";
# its pid joins NET_SERVERS (the script kills them), "listening" goes to LOG.
NET_SERVERS=()
net_serve() {
        python3 /botdesk-tests/net-serve.py "$2" "$3" >"$1" 2>&1 &
        NET_SERVERS+=($!)
}
# net_wait_listening LOG: until net_serve's service says it listens, at most 10 s.
net_wait_listening() {
        local d
        d=$(deadline_in 10)
        until grep -q listening "$1" 2>/dev/null || past "$d"; do sleep 0.05; done
}
# net_reach PROFILE ADDRESS PORT: from inside the desktop, "hi" when the service answered, else
# why not. A packet the firewall drops is never answered: 2 s without an answer is "unreachable".
net_reach() {
        timeout 20 botdesk exec "$1" -- python3 -c '
import socket, sys
try:
    s = socket.create_connection((sys.argv[1], int(sys.argv[2])), timeout=2)
    print(s.recv(16).decode().strip())
except OSError as e:
    print("unreachable:", e)' "$2" "$3" 2>&1
}

# root_tap_relay FILE GATE: the TAP lines the script's root part wrote (root-tap.sh), as this run's own;
# ends the script (t_done) when there are none, or when none is "ok - GATE..." (what the rest needs).
root_tap_relay() {
        if [ ! -s "$1" ]; then
                not_ok "the root part of this script ran (no $1)"
                t_done
        fi
        cat "$1"
        grep -q '^not ok' "$1" && T_FAILED=1
        grep -q "^ok - $2" "$1" || t_done
}
