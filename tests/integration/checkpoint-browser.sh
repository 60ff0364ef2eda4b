#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# A browser in a checkpointable desktop: Chromium on a page whose script
# counts the clicks it gets in a variable (the title and the text say the
# count) is hibernated and resumed with the same screen, and the next
# click counts on from the count in its restored memory; then it is
# snapshotted and forked: the fork shows the snapshot's page to the pixel,
# and each counts on its own (the fork's browser has its own copy of the
# profile, taken as it was dumped). Chromium runs through botdesk-browser,
# as the dock starts it, and a DevTools client attached to its cdp.sock
# across the hibernation is let go (it sees its end) and a new one is
# answered after the resume. Run as root, where Chromium runs
# without its sandbox (whose nested PID namespace CRIU cannot restore:
# doc/snapshots.md). Needs CRIU 4.1 or later (scripts/install-deps.sh
# --tests).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-web.sh"
bd_init ckb 835 once
bd_need_xserver
bd_need_browser
bd_need xfwm4 cmp
bd_need_criu
P=$(bd_profile a)
Q=$(bd_profile b)

shot() { "$BOTDESK" thumbnail "$1" --output "$2" >/dev/null 2>"$BD_T/shot.err"; }
title_of() { "$BOTDESK" windows "$1" 2>/dev/null | awk '/Chromium/ {print; exit}'; }
titled() { title_of "$1" | grep -q -- "\"$2 - Chromium\""; }
# A click in the page: its script counts it.
click() { "$BOTDESK" input "$1" click 500 400 >/dev/null 2>&1; }
# What the screen holds when a count did not come (a dialog over the page, say).
said() { [ "$1" = 0 ] || "$BOTDESK" windows "$2" 2>&1 | sed 's/^/# /'; return "$1"; }

cat >"$BD_T/page.html" <<'PAGE'
<!doctype html><title>clicks-0</title>
<body style="margin:0; height:100vh; font: 48px sans-serif"
      onclick="window.n = (window.n || 0) + 1; document.title = 'clicks-' + window.n; document.body.textContent = 'clicks ' + window.n">
clicks 0
PAGE
RT=$(bd_rt "$P")
# Through botdesk-browser, as the dock starts it: DevTools on RUNTIME/cdp.sock.
printf '#!/bin/sh\nxfwm4 &\nexec %s --cdp-socket=%s -- %s --no-sandbox --disable-gpu --no-first-run --no-default-browser-check --disable-background-networking --disable-component-update --disable-sync --password-store=basic --user-data-dir=%s file://%s\n' \
        "$LAUNCHER" "$RT/cdp.sock" "$CHROMIUM" "$XDG_STATE_HOME/botdesk/$P/browser-profile" "$BD_T/page.html" \
        >"$BD_T/browser.sh"
chmod +x "$BD_T/browser.sh"
bd_config command="$BD_T/browser.sh" checkpointable=yes criu="$CRIU" timeout=60
bd_start "$P"
t_is "$?" 0 "a checkpointable desktop with Chromium starts" || { cat "$BD_T/out/$P.err"; t_done; }
wait_for 60 titled "$P" clicks-0
t_is "$?" 0 "Chromium shows its page (waited 60 s for its window)"
click "$P"
wait_for 30 titled "$P" clicks-1; said $? "$P"
t_is "$?" 0 "a click is counted by the page's script (waited 30 s)"
"$BOTDESK" settle "$P" >/dev/null 2>&1
bd_shot_stable "$P" "$BD_T/before.png"

# A DevTools client attached (as Playwright's connectOverCDP stays), which CRIU could not keep: the dump
# has botdesk-browser let it go; it sees its end, and after the resume a new one is answered.
cat >"$BD_T/cdp.py" <<'EOF'
import json, socket, sys
s = socket.socket(socket.AF_UNIX)
s.settimeout(120)
s.connect(sys.argv[1])
s.sendall(json.dumps({"id": 1, "method": "Browser.getVersion"}).encode() + b"\0")
buf = b""
while b"\0" not in buf:
    chunk = s.recv(65536)
    if not chunk:
        sys.exit("no answer")
    buf += chunk
m = json.loads(buf.split(b"\0")[0])
print("ANSWERED", m["result"]["product"] if "result" in m else m["error"]["message"], flush=True)
if sys.argv[2] == "hold":
    while s.recv(65536):
        pass
    print("ENDED", flush=True)
EOF
"$PY" "$BD_T/cdp.py" "$RT/cdp.sock" hold >"$BD_T/cdp.out" 2>&1 &
HOLD=$!
bd_own_pid "$HOLD"
answered() { grep -q '^ANSWERED' "$BD_T/cdp.out"; }
wait_for 30 answered
t_is "$?" 0 "a DevTools client on cdp.sock is answered (waited 30 s: $(head -c 100 "$BD_T/cdp.out"))"
timeout 200 "$BOTDESK" hibernate "$P" >/dev/null 2>"$BD_T/err"
t_is "$?" 0 "the desktop with its browser hibernates, the DevTools client attached" || cat "$BD_T/err"
held_gone() { ! kill -0 "$HOLD" 2>/dev/null; }
wait_for 10 held_gone
t_is "$?" 0 "... the client saw its connection end (waited 10 s)"
t_match "$(cat "$BD_T/cdp.out")" 'ENDED' "... an end, not an error"
bd_start "$P"
t_is "$?" 0 "... and resumes" || cat "$BD_T/out/$P.err"
timeout 60 "$PY" "$BD_T/cdp.py" "$RT/cdp.sock" once >"$BD_T/cdp2.out" 2>&1
t_is "$?" 0 "a new DevTools client is answered after the resume ($(head -c 100 "$BD_T/cdp2.out"))"
t_match "$(cat "$(bd_rt "$P")/helper.log")" 'Restored desktop' "... from its images"
shot "$P" "$BD_T/resumed.png"
t_ok "... the same screen to the pixel" cmp -s "$BD_T/before.png" "$BD_T/resumed.png"
click "$P"
wait_for 30 titled "$P" clicks-2; said $? "$P"
t_is "$?" 0 "... and the next click counts on from its memory: 2 (waited 30 s)"
"$BOTDESK" settle "$P" >/dev/null 2>&1
bd_shot_stable "$P" "$BD_T/snap.png"

timeout 200 "$BOTDESK" snapshot "$P" web >/dev/null 2>"$BD_T/err"
t_is "$?" 0 "it is snapshotted with its browser" || cat "$BD_T/err"
t_ok "... the browser's profile kept with it" test -d "$XDG_STATE_HOME/botdesk/$P/snapshots/web/files/browser-profile"
bd_register "$Q"
timeout 200 "$BOTDESK" fork "$P" web --as "$Q" >/dev/null 2>"$BD_T/err"
t_is "$?" 0 "... and forked" || { t_diag "$(cat "$BD_T/err")"; t_diag "$(grep -i 'restor\|criu\|cannot\|error' "$(bd_rt "$Q")/helper.log" | head -n 20)"; t_diag "$(grep -h 'Error' "$XDG_STATE_HOME/botdesk/$Q"/snapshot.failed/*.log 2>/dev/null | head -n 10)"; }
bd_snapshot "$Q"
shot "$Q" "$BD_T/fork.png"
t_ok "the fork shows the snapshot's page to the pixel" cmp -s "$BD_T/snap.png" "$BD_T/fork.png"
click "$Q"
wait_for 30 titled "$Q" clicks-3; said $? "$Q"
t_is "$?" 0 "the fork's page counts on: 3 (waited 30 s)"
t_ok "... and the parent's stays at 2" titled "$P" clicks-2
click "$P"
wait_for 30 titled "$P" clicks-3; said $? "$P"
click "$P"
wait_for 30 titled "$P" clicks-4; said $? "$P"
t_is "$?" 0 "the parent's page counts on its own: 3, 4 (waited 30 s each)"
t_ok "... and the fork's stays at 3" titled "$Q" clicks-3
# The fork's browser follows the fork's lease, not its parent's: a human taking the fork fences its DevTools.
RTQ=$(bd_rt "$Q")
"$BOTDESK" lease "$Q" take --viewer human-1 >/dev/null
fenced() { timeout 60 "$PY" "$BD_T/cdp.py" "$RTQ/cdp.sock" once 2>&1 | grep -q human_has_control; }
wait_for 10 fenced
t_is "$?" 0 "a human taking the fork fences the fork's DevTools (waited 10 s)"
timeout 60 "$PY" "$BD_T/cdp.py" "$RT/cdp.sock" once >"$BD_T/cdp3.out" 2>&1
t_match "$(cat "$BD_T/cdp3.out")" 'ANSWERED Chrome' "... and not the parent's"
"$BOTDESK" lease "$Q" release --viewer human-1 >/dev/null
# And it sees its own dump coming: a DevTools client held on the fork is let go when the fork hibernates.
"$PY" "$BD_T/cdp.py" "$RTQ/cdp.sock" hold >"$BD_T/cdpq.out" 2>&1 &
HOLD=$!
bd_own_pid "$HOLD"
answered() { grep -q '^ANSWERED Chrome' "$BD_T/cdpq.out"; }
wait_for 30 answered
t_is "$?" 0 "a DevTools client on the fork's cdp.sock is answered (waited 30 s)"
timeout 200 "$BOTDESK" hibernate "$Q" >/dev/null 2>"$BD_T/err"
t_is "$?" 0 "the fork hibernates with it attached" || t_diag "$(cat "$BD_T/err")"
wait_for 10 held_gone
t_is "$?" 0 "... the client saw its connection end (waited 10 s)"
bd_stop "$Q"
bd_stop "$P"
t_done
