#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# A hand-back restores the screen: a viewer holding the lease resizes the
# desktop with SetDesktopSize through `botdesk rfb`; once it releases, the
# configured 1440x900 is back within a bounded wait, created anew when the
# output had lost that mode, and the agent's coordinates mean what they
# meant (the bottom-right pixel of 1440x900 is reachable again).
. "$(dirname "$0")/lib.sh"
bd_init hbk 250
bd_need_xserver
bd_need xdpyinfo xdotool xrandr
[ -n "$PY" ] || t_skip_all "python3 not installed"
bd_config
sed -i 's/^geometry = .*/geometry = 1440x900/' "$BOTDESK_CONFIG"

P=$(bd_profile a)

# A viewer's SetDesktopSize WxH (one screen) through `botdesk rfb`
# (rfbclient.py), read until the server reports the new size.
resize() { timeout 60 "$PY" "$BD_LIB_DIR/rfbclient.py" "$BOTDESK" "$P" human "resize:$1" 2>"$BD_T/out/resize.err"; }

# The screen's size as the X server reports it.
screen_size() { (eval "$("$BOTDESK" env "$P")" && timeout 10 xdpyinfo) 2>/dev/null | awk '/dimensions:/ { print $2; exit }'; }
# wait_size WxH SECONDS: until the screen has that size (test-side, bounded).
wait_size() {
        local end=$((SECONDS + $2))
        while [ "$(screen_size)" != "$1" ] && [ $SECONDS -lt "$end" ]; do sleep 0.1; done
        [ "$(screen_size)" = "$1" ]
}

bd_start "$P"
rc=$?
t_is "$rc" 0 "the desktop starts at 1440x900" || true
[ "$rc" = 0 ] || { t_diag "$(bd_err "$P")"; t_done; }
t_is "$(screen_size)" 1440x900 "xdpyinfo sees the configured 1440x900"

"$BOTDESK" lease "$P" take --viewer human >/dev/null
t_is "$?" 0 "the human viewer takes the lease"
out=$(resize 800x600)
t_match "$out" "resized 800x600" "the viewer's SetDesktopSize through botdesk rfb is answered with 800x600" ||
        t_diag "$out" "$(cat "$BD_T/out/resize.err")"
t_ok "xdpyinfo sees 800x600 (bounded wait: 5 s)" wait_size 800x600 5

# The output loses the configured mode, so the hand-back has to create it.
envs=$("$BOTDESK" env "$P")
(eval "$envs" && xrandr --delmode VNC-0 1440x900) >/dev/null 2>&1
modes=$( (eval "$envs" && xrandr) 2>&1)
case $modes in
*" 1440x900 "*) t_diag "VNC-0 kept its 1440x900 mode; the restore finds it rather than creating it" ;;
*) t_pass "VNC-0 no longer has a 1440x900 mode" ;;
esac

t0=$(date +%s%N)
"$BOTDESK" lease "$P" release --viewer human >/dev/null
t_is "$?" 0 "the viewer hands control back"
t_ok "the screen is 1440x900 again (bounded wait: 5 s)" wait_size 1440x900 5
t_diag "restored $((($(date +%s%N) - t0) / 1000000)) ms after the release"
modes=$( (eval "$envs" && xrandr) 2>&1)
t_match "$modes" "VNC-0 connected( primary)? 1440x900\\+0\\+0" "VNC-0 shows 1440x900 at 0,0" || t_diag "$modes"

# The agent's coordinates: the bottom-right pixel of the configured size.
timeout 20 "$BOTDESK" input "$P" move 1439 899 2>"$BD_T/out/move.err"
t_is "$?" 0 "botdesk input accepts 1439 899 again" || t_diag "$(cat "$BD_T/out/move.err")"
loc=$( (eval "$envs" && timeout 10 xdotool getmouselocation) 2>&1)
t_match "$loc" "^x:1439 y:899 " "the pointer lands at 1439,899 ($loc)"
(eval "$envs" && timeout 10 xdotool mousemove 1439 899 && timeout 10 xdotool mousemove 0 0 &&
        timeout 10 xdotool mousemove 1439 899) >/dev/null 2>&1
loc=$( (eval "$envs" && timeout 10 xdotool getmouselocation) 2>&1)
t_match "$loc" "^x:1439 y:899 " "xdotool mousemove 1439 899 lands there too"

# A second round: the mode made last time is gone from the output as well.
"$BOTDESK" lease "$P" take --viewer human >/dev/null
out=$(resize 1024x768)
t_match "$out" "resized 1024x768" "a second SetDesktopSize gives 1024x768" || t_diag "$out" "$(cat "$BD_T/out/resize.err")"
t_ok "xdpyinfo sees 1024x768 (bounded wait: 5 s)" wait_size 1024x768 5
"$BOTDESK" lease "$P" release --viewer human >/dev/null
t_ok "the second hand-back restores 1440x900 too (bounded wait: 5 s)" wait_size 1440x900 5

# Without a resize a hand-back changes nothing.
"$BOTDESK" lease "$P" take --viewer human >/dev/null
"$BOTDESK" lease "$P" release --viewer human >/dev/null
t_is "$(screen_size)" 1440x900 "a take and release without a resize leaves 1440x900"

bd_stop "$P"
t_is "$?" 0 "the desktop stops"
t_done
