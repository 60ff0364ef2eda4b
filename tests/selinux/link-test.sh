#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The module links into the full reference policy, offline: a scratch copy
# of the host's policy store (selinux-policy-default), `semodule -p` on it,
# then the rules that make botdesk work are looked up in the result. SELinux
# need not be active on the host; the host's own store is never touched.
#
# usage: link-test.sh BOTDESK.PP     (prints TAP)
set -u
PP=${1:?usage: $0 BOTDESK.PP}
STORE=${BOTDESK_SELINUX_STORE:-default}
N=0 FAILED=0
ok() { N=$((N + 1)); echo "ok $N - $*"; }
not_ok() { N=$((N + 1)); FAILED=$((FAILED + 1)); echo "not ok $N - $*"; }
skip() { echo "1..0 # SKIP $*"; exit 0; }

[ "$(id -u)" = 0 ] || skip "needs root to read the policy store /var/lib/selinux/$STORE"
command -v semodule >/dev/null || skip "no semodule (apt-get install semodule-utils policycoreutils)"
[ -d "/var/lib/selinux/$STORE/active" ] && [ -d "/etc/selinux/$STORE" ] ||
        skip "no reference policy store $STORE (apt-get install selinux-policy-default)"

W=$(mktemp -d /tmp/botdesk-selinux-link.XXXXXX)
trap 'rm -rf -- "${W:?}"' EXIT
mkdir -p "$W/var/lib/selinux" "$W/etc/selinux"
cp -a "/var/lib/selinux/$STORE" "$W/var/lib/selinux/"
cp -a "/etc/selinux/$STORE" "$W/etc/selinux/"
cp -a /etc/selinux/semanage.conf "$W/etc/selinux/" 2>/dev/null

t=$EPOCHREALTIME
if semodule -p "$W" -s "$STORE" -n -i "$PP" > "$W/semodule.log" 2>&1; then
        ok "botdesk.pp links into the reference policy $STORE ($(awk -v a="$t" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }') s)"
else
        not_ok "botdesk.pp links into the reference policy $STORE"
        sed 's/^/# /' "$W/semodule.log"
        echo "1..$N"
        exit 1
fi

fc=$W/etc/selinux/$STORE/contexts/files
check_fc() { # check_fc PATH TYPE
        local got
        got=$(matchpathcon -f "$fc/file_contexts" "$1" 2>/dev/null | awk '{ print $2 }')
        if [[ $got == *:"$2":* ]]; then ok "$1 is $2"
        else
                # matchpathcon -f reads no .homedirs; look there by pattern.
                if grep -qE "^[^ ]*$3[^ ]*[[:space:]].*:$2:" "$fc/file_contexts.homedirs" 2>/dev/null; then ok "$1 is $2 (homedirs)"
                else not_ok "$1 is $2"; echo "# got ${got:-nothing}"; fi
        fi
}
check_fc /usr/libexec/botdesk-helper botdesk_exec_t x
check_fc /etc/botdesk.ini botdesk_conf_t x
check_fc /run/botdesk/alloc.lock botdesk_var_run_t x
check_fc /run/botdesk/display-claims/300 botdesk_claims_t x
check_fc /run/user/1000/botdesk/work/rfb.sock botdesk_runtime_t '/run/user/'
check_fc /home/tester/.local/state/botdesk/work botdesk_home_t 'state/botdesk'

pol=$(ls "$W/etc/selinux/$STORE/policy/"policy.* 2>/dev/null | sort -V | tail -1)
if ! command -v sesearch >/dev/null; then
        echo "# no sesearch (package setools): the transitions are not checked"
else
        # One load of the policy for every rule looked up below.
        sesearch "$pol" -T > "$W/tt" 2>/dev/null
        seinfo "$pol" -r -x > "$W/roles" 2>/dev/null
        check_tt() { # check_tt SOURCE TARGET CLASS RESULT [NAME]
                if grep -qE "^type_transition $1 $2:$3 $4( ${5:-}|;)" "$W/tt"; then
                        ok "$1 creating ${5:+$5 }($3) in $2 gets $4"
                else not_ok "$1 creating ${5:+$5 }($3) in $2 gets $4"; fi
        }
        check_tt init_t botdesk_exec_t process botdesk_t
        check_tt unconfined_t botdesk_exec_t process botdesk_t
        check_tt user_systemd_t botdesk_exec_t process botdesk_t
        check_tt user_t botdesk_exec_t process botdesk_t
        check_tt staff_systemd_t botdesk_exec_t process botdesk_t
        check_tt botdesk_t user_runtime_t dir botdesk_runtime_t botdesk
        check_tt unconfined_t user_runtime_t dir botdesk_runtime_t botdesk
        check_tt botdesk_t xdg_data_t dir botdesk_home_t botdesk
        check_tt botdesk_t user_home_dir_t dir xdg_data_t .local
        check_tt botdesk_t tmp_t file botdesk_tmp_t
        for r in unconfined_r user_r staff_r system_r; do
                if awk -v r="$r" '$1 == "role" { cur = $2 } cur == r && /botdesk_t/ { f = 1 } END { exit !f }' "$W/roles"; then ok "role $r may run botdesk_t"
                else not_ok "role $r may run botdesk_t"; fi
        done
fi
echo "1..$N"
[ "$FAILED" = 0 ]
