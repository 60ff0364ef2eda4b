#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# botdesk install: the exact package manager command for what is missing, and
# the two cases where it can only say what to do. A fake apt-get (and sudo)
# on PATH records what it was asked; nothing is really installed.
set -u
SRC=${BOTDESK_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
BOTDESK=${BOTDESK_BUILD_DIR:-$SRC/build}/helper/botdesk
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
n=0 failed=0
ok() { n=$((n + 1)); if [ "$1" = 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; failed=1; fi; }

mkdir "$T/apt" "$T/sudo" "$T/none"
printf '#!/bin/sh\necho "$@" > %s/apt-args\n' "$T" > "$T/apt/apt-get"
printf '#!/bin/sh\necho "$@" > %s/sudo-args\n' "$T" > "$T/sudo/sudo"
cp "$T/apt/apt-get" "$T/sudo/apt-get"
chmod +x "$T/apt/apt-get" "$T/sudo/sudo" "$T/sudo/apt-get"
want="install -y tigervnc-standalone-server xfwm4 xfce4-panel xfdesktop4 xfce4-settings dbus-daemon x11-xkb-utils"

PATH=$T/none "$BOTDESK" install --yes </dev/null >"$T/out" 2>&1
ok $(( $? == 1 ? 0 : 1 )) "without a package manager install exits 1"
grep -q "No supported package manager" "$T/out"
ok $? "... and says to use the distribution's tooling"

# A PATH where installing is possible: apt-get as root, sudo + apt-get otherwise.
can=$T/apt; [ "$(id -u)" = 0 ] || can=$T/sudo
PATH=$can "$BOTDESK" install </dev/null >"$T/out" 2>&1
ok $(( $? == 2 ? 0 : 1 )) "not on a terminal and without --yes, install exits 2"
grep -q -- "--yes" "$T/out"
ok $? "... and names --yes"
[ ! -e "$T/apt-args" ] && [ ! -e "$T/sudo-args" ]
ok $? "... and ran nothing"

if [ "$(id -u)" = 0 ]; then
        PATH=$T/apt "$BOTDESK" install --yes </dev/null >"$T/out" 2>&1
        ok $? "as root, install --yes runs the package manager"
        [ "$(cat "$T/apt-args" 2>/dev/null)" = "$want" ]
        ok $? "... with exactly the packages of what is missing: apt-get $want"
        PATH=$T/apt "$BOTDESK" doctor --json > "$T/doctor" 2>&1
        python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(d["install_command"] != "apt-get " + sys.argv[2])' "$T/doctor" "$want"
        ok $? "doctor --json shows the same command, without sudo as root"
else
        PATH=$T/apt "$BOTDESK" install --yes </dev/null >"$T/out" 2>&1
        ok $(( $? == 3 ? 0 : 1 )) "unprivileged without sudo, install is refused with exit 3"
        grep -q "must be installed in the image" "$T/out"
        ok $? "... saying the packages must be baked into the image"
        PATH=$T/sudo "$BOTDESK" install --yes </dev/null >"$T/out" 2>&1
        ok $? "unprivileged with sudo, install runs it"
        [ "$(cat "$T/sudo-args" 2>/dev/null)" = "apt-get $want" ]
        ok $? "... as sudo apt-get $want"
fi
echo "1..$n"
exit $failed
