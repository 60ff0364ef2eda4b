#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# No setuid or setgid bit anywhere (DESIGN section 11), root only: `meson
# install` of the build into a DESTDIR installs no setuid/setgid file and
# nothing world-writable, and does install the CLI, the helper, the user
# unit and (when built) the PAM module. Writes meson-logs/install-log.txt in
# the build dir, as every `meson install` does.
set -u
. "$(dirname "$0")/lib.sh"
[ "$(id -u)" = 0 ] || t_skip_all "needs root (installs the build into a DESTDIR as root would)"
command -v meson >/dev/null 2>&1 || t_skip_all "meson not installed"
[ -f "$BD_BUILD_DIR/meson-info/intro-installed.json" ] || t_skip_all "no configured build in $BD_BUILD_DIR"
umask 022

T=$(mktemp -d "${TMPDIR:-/tmp}/botdesk-install.XXXXXX") || t_skip_all "mktemp failed"
ns_cleanup() {
        local rc=$?
        [ "$T_PLANNED" = 1 ] || { t_fail "test script ended early (exit status $rc)"; printf '1..%d\n' "$T_N"; rc=1; }
        rm -rf -- "${T:?}"
        exit $rc
}
trap ns_cleanup EXIT
trap 'exit 130' INT TERM HUP
D=$T/dest

if meson install --help 2>/dev/null | grep -q -- --no-rebuild; then norebuild=--no-rebuild; else norebuild=; fi
DESTDIR=$D meson install -C "$BD_BUILD_DIR" $norebuild --quiet >"$T/install.log" 2>&1
rc=$?
t_is "$rc" 0 "DESTDIR=... meson install -C $BD_BUILD_DIR $norebuild exits 0"
[ "$rc" = 0 ] || t_diag "$(tail -n 20 "$T/install.log")"

list=$(cd "$D" 2>/dev/null && find . -mindepth 1 \( -type f -o -type l \) -printf '%M %u:%g /%P\n' | sort -k3)
t_diag "installed files:" "$list"
nfiles=$(printf '%s\n' "$list" | grep -c .)
if [ "$nfiles" -gt 0 ]; then t_pass "meson install put $nfiles files into the DESTDIR"; else
        t_fail "meson install put files into the DESTDIR"; fi

suid=$(find "$D" -perm /6000 -printf '%M /%P\n' 2>/dev/null)
t_is "$suid" "" "no setuid or setgid file or directory is installed"
ww=$(find "$D" ! -type l -perm -0002 -printf '%M /%P\n' 2>/dev/null)
t_is "$ww" "" "nothing installed is world-writable"
gw=$(find "$D" -type f -perm -0020 -printf '%M /%P\n' 2>/dev/null)
t_is "$gw" "" "no installed file is group-writable"
notroot=$(find "$D" ! -user 0 -printf '%u /%P\n' 2>/dev/null)
t_is "$notroot" "" "every installed file belongs to root (who installed it)"

# has DESCRIPTION PATH-REGEX [executable]
has() {
        local m
        m=$(printf '%s\n' "$list" | awk '{ print $1, $3 }' | grep -E -- "^[^ ]+ [^ ]*$2\$" | head -n1)
        if [ -z "$m" ]; then
                t_fail "$1 is installed" "no installed path matches /$2\$/"
        elif [ "${3:-}" = executable ] && ! [[ ${m%% *} =~ ^-..x..x..x$ ]]; then
                t_fail "$1 is installed, executable by everyone" "$m"
        else
                t_pass "$1 is installed (${m#* })"
        fi
}
has "the CLI bin/botdesk" '/bin/botdesk' executable
has "the helper libexec/botdesk-helper" '/libexec/botdesk-helper' executable
has "the user unit botdesk@.service" '/systemd/user/botdesk@\.service'
if grep -q 'pam_botdesk\.so' "$BD_BUILD_DIR/meson-info/intro-installed.json"; then
        has "the PAM module lib*/security/pam_botdesk.so" '/lib[^ ]*/security/pam_botdesk\.so'
else
        t_skip "the PAM module is installed" "PAM module not built (libpam0g-dev missing?)"
fi

t_done
