#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# [network] in the logind tier, where an unprivileged user's desktop gets a
# policy the kernel enforces: pam_botdesk's network step (after pam_systemd,
# as root) attaches systemd's IP firewall to the session's scope, so a
# program of the test user's desktop reaches 127.0.0.2 and nothing else.
# `botdesk exec`, whose command cannot join a scope only root may write, is
# refused (exec's own 125) rather than run outside the policy; `network set` (3) too.
# Without that PAM line, and with domain names (which need a proxy this tier
# does not run), the helper refuses to start (3, no restart) and says why.
#
# Three parts, as t-logind.sh: root starts three TCP services (net-serve.py) and the units
# (--root-before) and writes TAP lines to $ROOT_TAP; the test user reads what
# the desktop's own program found and checks the CLI; root stops, kills the
# services by their pids and restores (--root-after).
#
# root-before: bash /botdesk-tests/t-network-logind.sh --root-before
# root-after: bash /botdesk-tests/t-network-logind.sh --root-after

P=netl          # allowlist 127.0.0.2; its command probes three services from inside the scope
N=netn          # allow names a domain: refused in this tier
Q=netq          # offline, started with a PAM stack without the network step: refused
STATE=/run/botdesk-test-network-logind
ROOT_TAP=$STATE/root.tap
OUT=$STATE/out/reach.txt
unit() { echo "botdesk-session@$1.service"; }

# What the desktop's own program does: one line per service, "ADDR:PORT hi" or "ADDR:PORT unreachable ...", then "done".
REACH='
import socket, sys
with open(sys.argv[1], "w") as out:
    for a in sys.argv[2:]:
        host, port = a.rsplit(":", 1)
        try:
            s = socket.create_connection((host, int(port)), timeout=2)
            out.write("%s %s\n" % (a, s.recv(16).decode().strip()))
        except OSError as e:
            out.write("%s unreachable %s\n" % (a, e))
        out.flush()
    out.write("done\n")'

root_before() {
        local out st main scope addr port d
        mkdir -p "$STATE" && chmod 0755 "$STATE"
        . /botdesk-tests/root-tap.sh
        root_tap_open "$ROOT_TAP"
        sprop() { systemctl show -p "$2" --value "$1"; }
        # refused UNIT WHY: its start fails, the helper exited 3 (no restart), and it said WHY.
        refused() {
                local u=$1 why=$2
                timeout 60 systemctl start "$u" >/dev/null 2>&1
                r_is "$u does not start (helper exit 3)" "$(sprop "$u" ExecMainStatus)" 3
                r_is "$u is not restarted (RestartPreventExitStatus=3)" "$(sprop "$u" NRestarts)" 0
                # The helper's lines belong to the session's scope, not to the unit: found by what they say.
                if journalctl -b --no-pager -q -t botdesk-helper | grep -q "$why"; then r_ok "the helper of $u says \"$why\""
                else r_not_ok "the helper of $u says \"$why\""; journalctl -b --no-pager -q -n 30 | r_diag; fi
        }

        for addr in 127.0.0.2:8091 127.0.0.3:8092 ::1:8093; do
                port=${addr##*:}
                setsid python3 /botdesk-tests/net-serve.py "${addr%:*}" "$port" >"$STATE/serve-$port" 2>&1 </dev/null &
                echo $! >>"$STATE/servers"
                d=$((SECONDS + 10))
                until grep -q listening "$STATE/serve-$port" 2>/dev/null || [ $SECONDS -ge $d ]; do sleep 0.05; done
                if grep -q listening "$STATE/serve-$port"; then r_ok "the service on $addr listens (waited at most 10 s)"
                else r_not_ok "the service on $addr listens (waited at most 10 s)"; r_diag <"$STATE/serve-$port"; fi
        done
        mkdir -p "$STATE/out" && chown 1000 "$STATE/out"
        printf '%s\n' "$REACH" >"$STATE/reach.py" && chmod 0644 "$STATE/reach.py"

        root_config_save "$STATE"
        cp -a /etc/pam.d/botdesk "$STATE/pam.orig"
        { cat "$STATE/botdesk.ini.orig" 2>/dev/null
          printf '\n[profile.%s]\nuser = %s\nmode = allowlist\nallow = 127.0.0.2\n' "$P" "$(id -un 1000)"
          printf 'desktop = command\ncommand_settle_ms = 200\n'
          printf 'command = python3 %s %s 127.0.0.2:8091 127.0.0.3:8092 ::1:8093; exec sleep 600\n' "$STATE/reach.py" "$OUT"
          printf '\n[profile.%s]\nuser = %s\nmode = allowlist\nallow = allowed.test\n' "$N" "$(id -un 1000)"
          printf '\n[profile.%s]\nuser = %s\nmode = offline\n' "$Q" "$(id -un 1000)"; } >/etc/botdesk.ini
        chmod 0644 /etc/botdesk.ini
        systemctl daemon-reload

        if grep -q '^session.*pam_botdesk.so network' /etc/pam.d/botdesk; then r_ok "/etc/pam.d/botdesk has the network step"
        else r_not_ok "/etc/pam.d/botdesk has the network step"; r_diag </etc/pam.d/botdesk; fi

        out=$(timeout 60 systemctl start "$(unit $P)" 2>&1)
        st=$?
        if [ $st = 0 ]; then r_ok "systemctl start $(unit $P) (allowlist 127.0.0.2) returns 0: the helper's probe found the firewall"
        else r_not_ok "systemctl start $(unit $P) returns 0"
             { echo "$out"; journalctl -b --no-pager -q -n 30; } 2>&1 | r_diag; fi
        main=$(sprop "$(unit $P)" MainPID)
        scope=$(sed -n 's|^0::.*/\(session-[0-9a-zA-Z]*\.scope\)$|\1|p' "/proc/$main/cgroup" 2>/dev/null)
        echo "the helper $main runs in ${scope:-no session scope}" | r_diag
        r_is "the session's scope has IPAddressDeny=any" \
                "$(sprop "$scope" IPAddressDeny | tr ' ' '\n' | sort | tr '\n' ' ')" "0.0.0.0/0 ::/0 "
        r_is "the session's scope has IPAddressAllow=127.0.0.2/32" "$(sprop "$scope" IPAddressAllow)" "127.0.0.2/32"

        refused "$(unit $N)" "the logind tier runs none"
        # The stack without the network step: nothing attaches the firewall, and the helper knows.
        grep -v 'pam_botdesk.so network' "$STATE/pam.orig" >/etc/pam.d/botdesk
        refused "$(unit $Q)" "scope has no IP firewall"
        cp -a "$STATE/pam.orig" /etc/pam.d/botdesk
}

root_after() {
        local u pid
        for u in "$(unit $P)" "$(unit $N)" "$(unit $Q)"; do
                timeout 60 systemctl stop "$u" >/dev/null 2>&1
                systemctl reset-failed "$u" >/dev/null 2>&1
        done
        for pid in $(cat "$STATE/servers" 2>/dev/null); do kill "$pid" 2>/dev/null; done
        [ -e "$STATE/pam.orig" ] && cp -a "$STATE/pam.orig" /etc/pam.d/botdesk
        . /botdesk-tests/root-tap.sh
        root_config_restore "$STATE"
        rm -rf -- "${STATE:?}"
        exit 0
}

case "${1:-}" in
--root-before) root_before; exit 0;;
--root-after) root_after;;
esac

. /botdesk-tests/lib.sh

root_tap_relay "$ROOT_TAP" "systemctl start $(unit $P)"

d=$(deadline_in 30)
until grep -q '^done' "$OUT" 2>/dev/null || past "$d"; do sleep 0.1; done
check "the desktop's program probed the three services (waited at most 30 s for it)" grep -q '^done' "$OUT"
diag <"$OUT"
is "127.0.0.2 (allowed) answers the desktop" "$(awk '$1 == "127.0.0.2:8091" { print $2 }' "$OUT")" hi
is "127.0.0.3 (another loopback address of the host) is unreachable from it" \
        "$(awk '$1 == "127.0.0.3:8092" { print $2 }' "$OUT")" unreachable
is "::1 is unreachable from it" "$(awk '$1 == "::1:8093" { print $2 }' "$OUT")" unreachable

json=$(botdesk status --json $P 2>&1)
is "status --json: placement is session" "$(json_get placement <<<"$json")" session
is "status --json: network.mode is allowlist" \
        "$(python3 -c 'import json,sys; print(json.load(sys.stdin)["network"]["mode"])' <<<"$json")" allowlist
out=$(timeout 20 botdesk exec $P -- python3 -c 'print("ran")' 2>&1)
is "botdesk exec is refused (its own 125): its command could not join the scope the policy holds in" "$?" 125
diag <<<"$out"
pass "$(grep -q '^ran' <<<"$out" && echo 1 || echo 0)" "... and the command did not run" "$out"
out=$(botdesk network $P set mode=open 2>&1)
is "network set on a logind-tier desktop is refused (3: the scope is root's)" "$?" 3
diag <<<"$out"
t_done
