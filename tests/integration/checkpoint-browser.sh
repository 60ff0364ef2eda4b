#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# A browser in a checkpointable desktop: Chromium on a page whose script
# counts the clicks it gets in a variable (the title and the text say the
# count) is hibernated and resumed with the same screen, and the next
# click counts on from the count in its restored memory; then it is
# snapshotted and forked: the fork shows the snapshot's page to the pixel,
# and each counts on its own (the fork's browser has its own copy of the
# profile, taken as it was dumped). Run as root, where Chromium runs
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
printf '#!/bin/sh\nxfwm4 &\nexec %s --no-sandbox --disable-gpu --no-first-run --no-default-browser-check --disable-background-networking --disable-component-update --disable-sync --password-store=basic --user-data-dir=%s file://%s\n' \
        "$CHROMIUM" "$XDG_STATE_HOME/botdesk/$P/browser-profile" "$BD_T/page.html" >"$BD_T/browser.sh"
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

timeout 200 "$BOTDESK" hibernate "$P" >/dev/null 2>"$BD_T/err"
t_is "$?" 0 "the desktop with its browser hibernates" || cat "$BD_T/err"
bd_start "$P"
t_is "$?" 0 "... and resumes" || cat "$BD_T/out/$P.err"
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
t_is "$?" 0 "... and forked" || cat "$BD_T/err"
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
bd_stop "$Q"
bd_stop "$P"
t_done
