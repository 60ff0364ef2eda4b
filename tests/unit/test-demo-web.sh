#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# What scripts/demo.sh prints to open the desktop in a browser
# (scripts/demo-web.sh): the ticket URL, behind the ssh -L line that reaches
# it where one is needed. Never a bare TCP front of the RFB socket.
#   test-demo-web.sh SOURCE_DIR
set -u
src=${1:?usage: test-demo-web.sh SOURCE_DIR}
. "$src/scripts/demo-web.sh"
n=0 failed=0
check() { # DESCRIPTION GOT REGEX
        n=$((n + 1))
        if grep -Eq -- "$3" <<<"$2"; then echo "ok $n - $1"; else echo "not ok $n - $1"; printf '#   %s\n' "$2" "want /$3/"; failed=1; fi
}
T=$(printf '%064d' 1)
SSHC="203.0.113.9 50022 198.51.100.7 22"

out=$(demo_web_message demo "/demo/?ticket=$T" /run/user/1000/botdesk/web.sock "" alice "$(demo_ssh_host "")")
check "the socket unit, on this host: a tunnel to localhost's socket" "$out" \
        '^Tunnel:   ssh -N -L 6080:/run/user/1000/botdesk/web\.sock alice@localhost$'
check "and the URL through it" "$out" "^Open:     http://127\\.0\\.0\\.1:6080/demo/\\?ticket=$T\$"

out=$(demo_web_message demo "/demo/?ticket=$T" /run/user/1000/botdesk/web.sock "$SSHC" alice "$(demo_ssh_host "$SSHC")")
check "the socket unit over ssh: the tunnel names the address ssh came in on" "$out" \
        '^Tunnel:   ssh -N -L 6080:/run/user/1000/botdesk/web\.sock alice@198\.51\.100\.7$'

out=$(demo_web_message demo "http://127.0.0.1:43117/demo/?ticket=$T" "" "$SSHC" alice "$(demo_ssh_host "$SSHC")")
check "a loopback listener over ssh: a tunnel to its port" "$out" '^Tunnel:   ssh -N -L 6080:127\.0\.0\.1:43117 alice@198\.51\.100\.7$'
check "and the URL on the tunnel's end" "$out" "^Open:     http://127\\.0\\.0\\.1:6080/demo/\\?ticket=$T\$"

out=$(demo_web_message demo "http://127.0.0.1:43117/demo/?ticket=$T" "" "" alice "$(demo_ssh_host "")")
check "a loopback listener on this host: the URL as it is" "$out" "^Open:     http://127\\.0\\.0\\.1:43117/demo/\\?ticket=$T\$"
n=$((n + 1))
if grep -q Tunnel <<<"$out"; then echo "not ok $n - and no tunnel"; failed=1; else echo "ok $n - and no tunnel"; fi
check "it says how to mint another ticket" "$out" 'botdesk web ticket demo --viewer me --ttl 600'

n=$((n + 1))
if grep -Eq 'socat|TCP-LISTEN|vncviewer' "$src/scripts/demo.sh" "$src/scripts/demo-web.sh"; then
        echo "not ok $n - the demo no longer teaches the TCP socat front"; failed=1
else
        echo "ok $n - the demo no longer teaches the TCP socat front"
fi
echo "1..$n"
exit $failed
