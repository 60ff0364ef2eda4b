#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# A user manager without CAP_NET_ADMIN/CAP_BPF (the test user's) cannot
# attach systemd's IP firewall and silently runs the unit without it:
# the helper's probe finds that the policy does not hold and refuses the
# start (3, the reason in the CLI's message), and nothing of the desktop is left.
. /botdesk-tests/lib.sh

P=netuser
U=botdesk@$P.service
trap 'timeout 60 botdesk stop $P >/dev/null 2>&1; rm -f -- "$HOME/.config/botdesk/botdesk.ini"; t_cleanup' EXIT
track $U
mkdir -p "$HOME/.config/botdesk"
printf '[profile.%s]\nmode = offline\n' $P >"$HOME/.config/botdesk/botdesk.ini"
out=$(timeout 60 botdesk start $P 2>&1)
is "start with mode = offline under the test user's manager exits 3" "$?" 3
pass "$(grep -q 'not enforced on this desktop' <<<"$out"; echo $?)" "... saying the policy is not enforced ($out)" "$out"
is "... and the unit is not active" "$(systemctl --user is-active $U)" failed
is "status says it is not running" "$(botdesk status --json $P | json_get running)" false
t_done
