#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The build tree runs uninstalled: `meson devenv -C BUILD` alone tells the
# CLI where this build's helper, browser launcher and skeleton are, and a
# desktop starts, serves its display and stops without an install. The test
# keeps only its own isolation (dirs, config, band); every variable that
# names a file of the build is unset, so it can come from the devenv only.
. "$(dirname "$0")/lib.sh"
bd_init dev 740 once
bd_need_xserver
bd_need meson xdpyinfo
bd_config
P=$(bd_profile a)
STATE=$XDG_STATE_HOME/botdesk/$P
unset BOTDESK_HELPER BOTDESK_SKEL_DIR BOTDESK_BROWSER_LAUNCHER BOTDESK_PLACEMENT BOTDESK_CLI

# dev CMD...: CMD in the build's devenv; stdout and stderr in $BD_T/out/dev.*.
dev() {
        timeout 120 meson devenv -C "$BD_BUILD_DIR" --workdir "$BD_T" "$@" \
                >"$BD_T/out/dev.out" 2>"$BD_T/out/dev.err" &
        wait $!
}

dev sh -c 'command -v botdesk'
t_is "$(cat "$BD_T/out/dev.out")" "$BOTDESK" "in the devenv, botdesk on PATH is the build's CLI"

bd_register "$P"
dev botdesk start "$P"
rc=$?
t_is "$rc" 0 "meson devenv ... botdesk start exits 0"
[ "$rc" = 0 ] || t_diag "$(cat "$BD_T/out/dev.err")" "$(tail -n 20 "$(bd_rt "$P")/helper.log" 2>/dev/null)"
bd_snapshot "$P"
H=$(rec_get "$P" PID)
t_is "$(readlink "/proc/${H:-0}/exe" 2>/dev/null)" "$BD_HELPER" "the desktop's helper is the build's botdesk-helper"

# Serves: the display the CLI publishes answers an X client.
dev sh -c 'eval "$(botdesk env "$1")" && xdpyinfo >/dev/null && echo "$DISPLAY"' sh "$P"
t_is "$?" 0 "the desktop's display answers xdpyinfo, through the devenv's botdesk env"
t_diag "display $(cat "$BD_T/out/dev.out")"

# The skeleton is the source tree's: its xfconf files were copied in.
t_ok "the desktop's config was seeded from conf/skel" test -d "$STATE/xdg/config/xfce4/xfconf"
# The dock's browser entry runs the build's browser launcher (with a browser to launch).
if command -v chromium >/dev/null 2>&1; then
        entry=$(grep -rlsF 'X-Botdesk-Launcher=browser' "$STATE/xdg/config/xfce4/panel" | head -n1)
        t_match "$(grep -s '^Exec=' "${entry:-/nonexistent}")" "^Exec=$BD_BUILD_DIR/helper/botdesk-browser " \
                "the dock's browser entry runs the build's botdesk-browser"
else
        t_skip "the dock's browser entry runs the build's botdesk-browser" "chromium not installed"
fi

# And serves it on the web: botdesk web of the devenv, noVNC's files, and a
# ticket's stream that carries the desktop's RFB greeting.
if [ -n "$PY" ] && [ -f /usr/share/novnc/core/rfb.js ]; then
        WEB_SOCK=$BD_T/web.sock
        # The shell writes its pid and becomes botdesk web, so the test stops
        # the server by its pid (meson devenv runs its command as a child).
        timeout 120 meson devenv -C "$BD_BUILD_DIR" --workdir "$BD_T" \
                sh -c 'echo $$ >"$1"; exec botdesk web --listen "unix:$2"' sh "$BD_T/web.pid" "$WEB_SOCK" \
                >"$BD_T/out/web.out" 2>"$BD_T/out/web.err" &
        bd_own_pid $!
        # Test-side wait: the server says where it listens.
        wait_for 20 grep -q '^Listening on' "$BD_T/out/web.out"
        t_is "$?" 0 "botdesk web of the devenv listens (waited up to 20 s)" || t_diag "$(cat "$BD_T/out/web.err")"
        WEB_PID=$(cat "$BD_T/web.pid" 2>/dev/null)
        [ -n "$WEB_PID" ] && bd_own_pid "$WEB_PID"
        t_is "$(timeout 60 "$PY" "$BD_LIB_DIR/web_client.py" http "unix:$WEB_SOCK" GET "/$P/novnc/core/rfb.js" 2>&1 |
                head -n1)" 200 "it serves noVNC's files"
        dev botdesk web ticket "$P" --viewer dev-viewer
        T=$(cat "$BD_T/out/dev.out")
        out=$(timeout 60 "$PY" "$BD_LIB_DIR/web_client.py" upgrade "unix:$WEB_SOCK" "/$P/websockify?${T#*\?}" --then greet 2>&1)
        t_match "$out" "greet 2 b'RFB 003\\.00[0-9]\\\\n'" "a ticket's stream carries the desktop's RFB greeting"
        [ -n "$WEB_PID" ] && kill "$WEB_PID"
else
        t_skip "botdesk web of the devenv serves the desktop" "python3 or noVNC (/usr/share/novnc) not installed"
fi

dev botdesk status "$P"
t_is "$?" 0 "botdesk status through the devenv: running"
dev botdesk stop "$P"
t_is "$?" 0 "meson devenv ... botdesk stop exits 0"
# Test-side wait: the stop returned, the helper's exit may still be reaped.
t_ok "the helper is gone after the stop (waited up to 10 s)" wait_for 10 eval '! proc_alive "$H"'
t_is "$(desktop_pids "$P")" "" "nothing of the desktop runs"
t_done
