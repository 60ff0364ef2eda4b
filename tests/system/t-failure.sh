#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# A profile with an invalid user setting: the start fails, leaves nothing
# running, and the journal names the file and line at error priority.
. /botdesk-tests/lib.sh

U=botdesk@bad.service
CONF=${XDG_CONFIG_HOME:-$HOME/.config}/botdesk/botdesk.ini
track $U
trap 'rm -f "$CONF"; t_cleanup' EXIT
mkdir -p "$(dirname "$CONF")"
printf '[profile.bad]\ngeometry = nonsense\n' > "$CONF"

t=$(now)
out=$(timeout 60 systemctl --user start $U 2>&1)
rc=$?
echo "# start returned $rc after $(ms_since "$t") ms: $out"
pass "$([ $rc != 0 ] && [ $rc != 124 ]; echo $?)" "systemctl --user start $U fails (status $rc), without hanging"
state=$(systemctl --user is-active $U)
pass "$([ "$state" != active ] && [ "$state" != activating ]; echo $?)" "unit is not active nor (re)starting ($state)"
pass "$(cg_empty "$(unit_cgroup $U)"; echo $?)" "unit cgroup is gone or empty" "$(cg_pids "$(unit_cgroup $U)")"
left=""
for p in /proc/[0-9]*; do
        [ "$(tr '\0' ' ' < "$p/cmdline" 2>/dev/null)" = "/usr/libexec/botdesk-helper bad " ] && left="$left ${p#/proc/}"
done
is "no botdesk-helper for profile bad runs" "$left" ""
check "no env file was published" test ! -e "$XDG_RUNTIME_DIR/botdesk/bad/env"

errors() {
        journalctl --user -u $U -o json --no-pager 2>/dev/null | python3 -c '
import json, sys
for line in sys.stdin:
    e = json.loads(line)
    if e.get("SYSLOG_IDENTIFIER") == "botdesk-helper":
        print(e.get("PRIORITY"), e.get("MESSAGE"))'
}
for _ in $(seq 50); do
        lines=$(errors)
        grep -q "^3 $CONF:2:" <<<"$lines" && break
        sleep 0.1
done
pass "$(grep -q "^3 $CONF:2: .*geometry" <<<"$lines"; echo $?)" \
        "journal: a PRIORITY=3 helper line names $CONF:2 and the key" "$lines"
starts=$(journalctl --user -u $U --no-pager -o cat 2>/dev/null | grep -c "^$CONF:2:")
is "the helper ran once, not in a restart loop" "$starts" 1
t_done
