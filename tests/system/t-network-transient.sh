#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# as-user: root
# [network] on a transient unit (no botdesk@.service installed): the CLI
# creates botdesk@P.service with its IP firewall among the unit's first
# properties (StartTransientUnit), so the helper's proof holds from the
# start, and a name in allow is reached through the desktop's proxy.
# root-before: mv /usr/lib/systemd/user/botdesk@.service /root/botdesk@.service
# root-after: mv /root/botdesk@.service /usr/lib/systemd/user/botdesk@.service
. /botdesk-tests/lib.sh

P=nett
U=botdesk@$P.service
S=$(mktemp -d /tmp/t-network-transient.XXXX)
SERVER=
cleanup() {
        timeout 60 botdesk stop $P >/dev/null 2>&1
        [ -n "$SERVER" ] && kill "$SERVER" 2>/dev/null
        [ -n "$S" ] && [ -d "$S" ] && rm -rf -- "${S:?}"
        rm -f -- "$HOME/.config/botdesk/botdesk.ini"
        t_cleanup
}
trap cleanup EXIT
track $U

out=$(systemctl --user cat botdesk@.service 2>&1)
pass "$([ $? != 0 ]; echo $?)" "precondition: no botdesk@.service unit file is installed" "$out"
grep -q ' named.test' /etc/hosts || echo '127.0.0.6 named.test' >>/etc/hosts
mkdir -p "$S/www" && echo hello >"$S/www/hello.txt"
python3 -m http.server 8086 --bind 127.0.0.6 --directory "$S/www" >"$S/http.log" 2>&1 &
SERVER=$!
d=$(deadline_in 10)
until python3 -c 'import socket; socket.create_connection(("127.0.0.6", 8086), timeout=1)' 2>/dev/null || past "$d"; do
        sleep 0.1
done
check "the HTTP server on 127.0.0.6:8086 answers (waited at most 10 s)" \
        python3 -c 'import socket; socket.create_connection(("127.0.0.6", 8086), timeout=1)'

mkdir -p "$HOME/.config/botdesk"
printf '[profile.%s]\nmode = allowlist\nallow = named.test\n' $P >"$HOME/.config/botdesk/botdesk.ini"
out=$(timeout 60 botdesk start $P 2>&1)
pass $? "botdesk start $P (transient, allow = named.test) returns 0" "$out" || t_done
frag=$(prop $U FragmentPath)
pass "$(case "$frag" in ""|"$XDG_RUNTIME_DIR"/systemd/transient/*) echo 0;; *) echo 1;; esac)" \
        "$U is transient (FragmentPath '${frag}')"
is "the transient unit has IPAddressDeny=any" "$(prop $U IPAddressDeny | tr " " "\n" | sort | tr "\n" " ")" "0.0.0.0/0 ::/0 "
allow=$(prop $U IPAddressAllow)
pass "$(case "$allow" in 127.66.*/32) echo 0;; *) echo 1;; esac)" "... and allows its proxy's address alone ($allow)"
out=$(timeout 20 botdesk exec $P -- python3 -c '
import urllib.request
print(urllib.request.urlopen("http://named.test:8086/hello.txt", timeout=5).read().decode().strip())' 2>&1)
is "named.test answers through the proxy" "$out" hello
out=$(timeout 20 botdesk exec $P -- python3 -c '
import socket
try:
    socket.create_connection(("127.0.0.6", 8086), timeout=2)
    print("reached")
except OSError as e:
    print("unreachable")' 2>&1)
is "127.0.0.6 directly is unreachable" "$out" unreachable
out=$(timeout 60 botdesk stop $P 2>&1)
pass $? "botdesk stop $P" "$out"
is "the proxy stopped with the desktop" "$(systemctl --user is-active botdesk-proxy@$P.service)" inactive
t_done
