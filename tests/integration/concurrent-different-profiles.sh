#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Three profiles started at the same time get three distinct display numbers,
# all run, and all stop without a trace.
. "$(dirname "$0")/lib.sh"
bd_init cdp 45
bd_need_xserver
bd_config

PROFILES="$(bd_profile a) $(bd_profile b) $(bd_profile c)"
for P in $PROFILES; do bd_register "$P"; done
pids=
for P in $PROFILES; do
        (bd_start "$P"; echo $? >"$BD_T/out/$P.rc") &
        pids="$pids $!"
done
wait $pids

displays=
for P in $PROFILES; do
        rc=$(cat "$BD_T/out/$P.rc" 2>/dev/null)
        t_is "$rc" 0 "concurrent start of $P exits 0"
        [ "$rc" = 0 ] || t_diag "$(bd_err "$P")"
        bd_snapshot "$P"
        d=$(rec_get "$P" DISPLAY)
        running=$("$BOTDESK" status --json "$P" | grep -o '"running": [a-z]*')
        t_is "$running" '"running": true' "$P is running"
        t_match "$(cat "$(bd_rt "$P")/env" 2>/dev/null)" "^DISPLAY=:$d\$" "$P published its env with DISPLAY=:$d"
        if [ -n "$d" ] && [ "$d" -ge "$BD_BAND_MIN" ] && [ "$d" -le "$BD_BAND_MAX" ]; then
                t_pass "$P got :$d, in the band $BD_BAND_MIN-$BD_BAND_MAX"
        else
                t_fail "$P got a display in the band $BD_BAND_MIN-$BD_BAND_MAX" "display '$d'"
        fi
        t_is "$(xservers_of "$P" | wc -l)" 1 "exactly one X server serves $P"
        displays="$displays $d"
done
t_is "$(echo $displays | tr ' ' '\n' | sort -u | wc -l)" 3 "three distinct display numbers ($(echo $displays))"

# Each display answers with its own cookie (the servers really are distinct).
if command -v xdpyinfo >/dev/null 2>&1; then
        for P in $PROFILES; do
                d=$(rec_get "$P" DISPLAY)
                info=$( (eval "$("$BOTDESK" env "$P")" && timeout 20 xdpyinfo) 2>&1)
                t_match "$(grep 'name of display' <<<"$info")" ":$d(\\.0)?\$" "xdpyinfo reaches $P on :$d"
        done
        # The software OpenGL renderer is never loaded (xserver.c): not by the server, not by a client.
        t_match "$info" "number of extensions:" "xdpyinfo lists the server's extensions"
        t_is "$(grep -cw GLX <<<"$info")" 0 "the X server offers no GLX"
        for pid in $(desktop_pids "$P"); do
                grep -q libLLVM "/proc/$pid/maps" 2>/dev/null && echo "$pid $(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null)"
        done >"$BD_T/out/llvm"
        t_is "$(cat "$BD_T/out/llvm")" "" "no process of the desktop has Mesa's software renderer (LLVM) mapped"
fi

ALL=
for P in $PROFILES; do ALL="$ALL $(desktop_pids "$P")"; done
pids=
for P in $PROFILES; do
        (bd_stop "$P"; echo $? >"$BD_T/out/$P.stoprc") &
        pids="$pids $!"
done
wait $pids
for P in $PROFILES; do
        t_is "$(cat "$BD_T/out/$P.stoprc")" 0 "concurrent stop of $P exits 0"
        left=$(desktop_pids "$P")
        t_is "$(echo $left)" "" "nothing of $P remains"
        t_ok "$P's env is gone" test ! -e "$(bd_rt "$P")/env"
done
alive=
for p in $ALL; do proc_alive "$p" && alive="$alive $p"; done
t_is "$alive" "" "every process the three desktops had is gone"
for d in $displays; do
        t_ok "/tmp/.X$d-lock is removed" test ! -e "/tmp/.X$d-lock"
done
t_done
