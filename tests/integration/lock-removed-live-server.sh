#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# A live X server whose /tmp/.X<n>-lock was removed (a /tmp reaper) still owns
# its number: another profile gets a different one, and the first one keeps
# working.
. "$(dirname "$0")/lib.sh"
bd_init lrl 60
bd_need_xserver
bd_need xdpyinfo
N=$BD_BAND_MIN
M=$((N + 1))
bd_config band="$N-$M"

P1=$(bd_profile one)
P2=$(bd_profile two)
if ! display_unused "$N" || ! display_unused "$M"; then
        t_fail "displays :$N and :$M are free before the test" "$(ls -l /tmp/.X$N-lock /tmp/.X$M-lock 2>&1)"
        t_done
fi

bd_start "$P1"
t_is "$?" 0 "start of $P1 exits 0"
t_is "$(rec_get "$P1" DISPLAY)" "$N" "$P1 got the lowest number of the band, :$N"
X1=$(xservers_of "$P1")
t_is "$(lock_pid "$N")" "$X1" "/tmp/.X$N-lock names $P1's X server"
rm -f "/tmp/.X$N-lock"
t_ok "/tmp/.X$N-lock is removed by the test" test ! -e "/tmp/.X$N-lock"
t_ok "the X socket of :$N is still bound" x_socket_bound "$N"

bd_start "$P2"
rc=$?
t_is "$rc" 0 "start of $P2 exits 0"
[ "$rc" = 0 ] || t_diag "$(bd_err "$P2")"
D2=$(rec_get "$P2" DISPLAY)
t_isnt "$D2" "$N" "$P2 did not take :$N, which a live server still owns"
t_is "$D2" "$M" "$P2 got :$M"
t_ok "$P1's X server $X1 still runs" proc_alive "$X1"
out=$( (eval "$("$BOTDESK" env "$P1")" && timeout 20 xdpyinfo) 2>&1 | grep 'name of display')
t_match "$out" ":$N(\\.0)?\$" "xdpyinfo still reaches $P1 on :$N"
out=$( (eval "$("$BOTDESK" env "$P2")" && timeout 20 xdpyinfo) 2>&1 | grep 'name of display')
t_match "$out" ":$M(\\.0)?\$" "xdpyinfo reaches $P2 on :$M"
t_is "$(xservers_of "$P1" | wc -l) $(xservers_of "$P2" | wc -l)" "1 1" "one X server per profile"

bd_stop "$P2"
t_is "$?" 0 "stop of $P2 exits 0"
bd_stop "$P1"
t_is "$?" 0 "stop of $P1 exits 0"
t_is "$(desktop_pids "$P1")$(desktop_pids "$P2")" "" "nothing of either desktop remains"
# The lock is gone, so the helper cannot prove the socket file was its
# server's; it is ours (this test's), tidy it if nothing is bound there.
if [ -S "/tmp/.X11-unix/X$N" ] && [ -O "/tmp/.X11-unix/X$N" ] && ! x_socket_bound "$N"; then
        rm -f "/tmp/.X11-unix/X$N"
fi
t_done
