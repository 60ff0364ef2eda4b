#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# SIGKILL: of the whole unit, then of the helper alone (with the unit's
# Restart=on-failure, then with a drop-in Restart=no): no process of the old
# generation survives, and the profile starts again. Each part uses its own
# profile, so that one part's failure does not hide the next part's result.
. /botdesk-tests/lib.sh

DROPIN_DIR=$HOME/.config/systemd/user
track botdesk@work.service botdesk@kill2.service botdesk@kill3.service
trap 'rm -rf -- "${DROPIN_DIR:?}"/botdesk@kill3.service.d; systemctl --user daemon-reload; t_cleanup' EXIT

start() { # start WHAT UNIT
        local out
        out=$(timeout 60 systemctl --user start "$2" 2>&1)
        pass $? "$1: systemctl --user start $2 returns 0" "$out"
}
# generation UNIT: the unit's cgroup, MainPID, X server pid and every pid.
# Fails unless the helper and the X server are among the pids: with an empty
# list every "gone" below would pass without anything having been killed.
generation() {
        local seen=1
        cg=$(unit_cgroup "$1")
        old_main=$(prop "$1" MainPID)
        old_x=$(x_pid "$cg/x11")
        pids=$(cg_pids "$cg")
        echo "# $1: helper $old_main, X ${old_x:-none}, all: $(echo $pids)"
        if [ "${old_main:-0}" != 0 ] && [ -n "$old_x" ] &&
                grep -qx "$old_main" <<<"$pids" && grep -qx "$old_x" <<<"$pids"; then
                seen=0
        fi
        pass "$seen" "$1: the generation to kill is seen (helper ${old_main:-none}, X server ${old_x:-none}, $(echo $pids | wc -w) pids)" \
                "cgroup ${cg:-none} holds: $(echo $pids)"
}

# ---- 1. systemctl kill -s KILL: every process of the unit ----------------------------------
kill_all() {
        local U=botdesk@work.service out new_main
        start kill-all $U || return
        generation $U || return
        check "kill-all: systemctl --user kill -s KILL $U" systemctl --user kill -s KILL $U
        out=$(wait_gone 10 $pids)
        pass $? "kill-all: every process of the desktop is gone (not even a zombie)" "$out"
        start "kill-all: start again" $U || return
        out=$(display_works work 2>&1)
        pass $? "kill-all: the new display works ($out)" "$out"
        new_main=$(prop $U MainPID)
        pass "$([ "$new_main" != "$old_main" ] && [ "$new_main" != 0 ]; echo $?)" \
                "kill-all: a new helper runs (MainPID $old_main -> $new_main)"
        check "kill-all: stop returns 0" timeout 60 systemctl --user stop $U
}

# ---- 2. SIGKILL of the helper only, Restart=on-failure -------------------------------------
kill_helper() {
        local U=botdesk@kill2.service out restarts stop_s restart_s
        start kill-helper $U || return
        generation $U || return
        restarts=$(prop $U NRestarts)
        # With the helper gone, systemd sends SIGTERM to the rest of the cgroup
        # and SIGKILL once TimeoutStopSec has passed: a process that ignores
        # SIGTERM (xfce4-panel under load did) lives that long, no longer.
        stop_s=$(prop_seconds $U TimeoutStopUSec) && restart_s=$(prop_seconds $U RestartUSec)
        pass $? "kill-helper: the unit's TimeoutStopSec (${stop_s:-?} s) and RestartSec (${restart_s:-?} s) are read" || return
        check "kill-helper: SIGKILL to MainPID $old_main only" systemctl --user kill -s KILL --kill-whom=main $U
        out=$(wait_gone $((stop_s + 10)) $pids)
        pass $? "kill-helper: X server $old_x and every other process of that generation are gone (within TimeoutStopSec + 10 s)" "$out"
        # Restart=on-failure: systemd starts it again by itself, RestartSec after the stop.
        out=$(wait_prop $((stop_s + restart_s + 10)) $U NRestarts $((restarts + 1)) $((restarts + 2)) $((restarts + 3)))
        pass $? "kill-helper: systemd restarts the unit on its own (NRestarts $restarts -> $(prop $U NRestarts))" "$out"
        # The restart job is systemd's; wait for it through a start job of ours.
        start "kill-helper: after the automatic restart" $U || return
        is "kill-helper: unit is active again" "$(systemctl --user is-active $U)" active
        out=$(display_works kill2 2>&1)
        pass $? "kill-helper: the restarted display works ($out)" "$out"
        check "kill-helper: stop returns 0" timeout 60 systemctl --user stop $U
}

# ---- 3. SIGKILL of the helper only, Restart=no ---------------------------------------------
kill_norestart() {
        local U=botdesk@kill3.service out stop_s
        mkdir -p "$DROPIN_DIR/$U.d"
        printf '[Service]\nRestart=no\n' > "$DROPIN_DIR/$U.d/50-test-norestart.conf"
        systemctl --user daemon-reload
        is "no-restart: drop-in applies" "$(prop $U Restart)" no
        start no-restart $U || return
        generation $U || return
        stop_s=$(prop_seconds $U TimeoutStopUSec)
        pass $? "no-restart: the unit's TimeoutStopSec (${stop_s:-?} s) is read" || return
        check "no-restart: SIGKILL to MainPID $old_main only" systemctl --user kill -s KILL --kill-whom=main $U
        # failed only once the cgroup is empty: SIGKILL comes TimeoutStopSec after SIGTERM.
        out=$(wait_prop $((stop_s + 10)) $U ActiveState failed)
        pass $? "no-restart: unit becomes failed" "$out"
        is "no-restart: Result is signal" "$(prop $U Result)" signal
        is "no-restart: the main process died of SIGKILL" "$(prop $U ExecMainStatus)" 9
        pass "$(cg_empty "$cg"; echo $?)" "no-restart: unit cgroup is gone or empty" "$(cg_pids "$cg")"
        out=$(wait_gone 10 $pids)
        pass $? "no-restart: X server $old_x and every other process are gone" "$out"
        is "no-restart: nothing restarted it" "$(systemctl --user is-active $U)" failed
}

kill_all
kill_helper
kill_norestart
t_done
