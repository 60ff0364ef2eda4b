#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# botdesk config with drop-ins, as a user sees it: `config check` names the
# files it read, in order, before its verdict (and --quiet says nothing);
# `config show --origin` puts FILE:LINE or (default) beside each value; a
# drop-in that another uid may write, or that is not a regular file, fails
# the check (2) naming it; an unknown key in a drop-in names its file and
# line. BOTDESK_CONFIG=F stands for the system files: F and F.d/. Prints TAP.
#   test-config-dropins.sh BOTDESK
set -u
BOTDESK=${1:?usage: test-config-dropins.sh BOTDESK}
T=$(mktemp -d) || exit 1
[ -n "$T" ] && [ -d "$T" ] || exit 1
trap 'rm -rf -- "${T:?}"' EXIT
umask 022
export XDG_CONFIG_HOME=$T/xdg BOTDESK_CONFIG=$T/etc/botdesk.ini
n=0 failed=0
ok() { n=$((n + 1)); if [ "$1" = 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; failed=1; fi; [ "$1" = 0 ]; }
run() { timeout 30 "$BOTDESK" config "$@" >"$T/out" 2>"$T/err"; }
show() { sed 's/^/# /' "$T/out" "$T/err"; }

mkdir -p "$T/etc/botdesk.ini.d" "$T/xdg/botdesk/botdesk.ini.d"
run check
[ $? = 0 ] && [ "$(cat "$T/out")" = "$(printf 'No configuration file found: the built-in defaults apply.\nConfiguration is valid.')" ]
ok $? "config check without any file says that the defaults apply" || show

printf '[display]\ndpi = 100\nframe_rate = 10\n' >"$T/etc/botdesk.ini"
printf '[display]\ndpi = 110\n' >"$T/etc/botdesk.ini.d/10-a.ini"
printf '; a comment\n[display]\ndpi = 120\n' >"$T/etc/botdesk.ini.d/20-b.ini"
printf 'not ini\n' >"$T/etc/botdesk.ini.d/README"
printf '[display]\ngeometry = 1100x700\n' >"$T/xdg/botdesk/botdesk.ini"
printf '[profile.work]\nframe_rate = 50\n' >"$T/xdg/botdesk/botdesk.ini.d/50-u.ini"

run check
want="Read $T/etc/botdesk.ini
Read $T/etc/botdesk.ini.d/10-a.ini
Read $T/etc/botdesk.ini.d/20-b.ini
Read $T/xdg/botdesk/botdesk.ini
Read $T/xdg/botdesk/botdesk.ini.d/50-u.ini
Configuration is valid."
[ $? = 0 ] && [ "$(cat "$T/out")" = "$want" ]
ok $? "config check lists the files it read, one a line in the order of application, then says it is valid" || show

run check --quiet
[ $? = 0 ] && [ ! -s "$T/out" ] && [ ! -s "$T/err" ]
ok $? "config check --quiet prints nothing" || show

run show --origin --profile work
rc=$?
[ $rc = 0 ] && grep -qxE "dpi = 120 +; $T/etc/botdesk.ini.d/20-b.ini:3" "$T/out"
ok $? "config show --origin names the drop-in and line that won" || show
grep -qxE "geometry = 1100x700 +; $T/xdg/botdesk/botdesk.ini:2" "$T/out"
ok $? "... the user file's line for a value it set" || show
grep -qxE "frame_rate = 50 +; $T/xdg/botdesk/botdesk.ini.d/50-u.ini:2" "$T/out"
ok $? "... the line in [profile.work] of a user drop-in for the profile's value" || show
grep -qxE "depth = 24 +; \(default\)" "$T/out"
ok $? "... and (default) for a value no file sets" || show
[ "$(grep -c '^[a-z_]* =' "$T/out")" = "$(grep -cE '^[a-z_]* =.* ; (/|\(default\))' "$T/out")" ]
ok $? "... every value has its origin" || show

run show --profile work
! grep -q '(default)' "$T/out" && grep -qx "frame_rate = 50" "$T/out"
ok $? "config show without --origin prints the values alone" || show

printf '[display]\ndpii = 1\ndpi = 130\n[display]\ndpi = 131\n' >"$T/etc/botdesk.ini.d/30-bad.ini"
run check
rc=$?
[ $rc = 2 ] && grep -qx "$T/etc/botdesk.ini.d/30-bad.ini:2: unknown key 'dpii' in \[display\]" "$T/err" &&
        grep -qx "$T/etc/botdesk.ini.d/30-bad.ini:5: duplicate key 'dpi' in \[display\] (first set on line 3)" "$T/err"
ok $? "an unknown and a duplicated key in a drop-in fail the check (2) with the drop-in's FILE:LINE" || show
rm -f "$T/etc/botdesk.ini.d/30-bad.ini"

printf '[display]\ndpi = 140\n' >"$T/etc/botdesk.ini.d/40-gw.ini"
chmod 664 "$T/etc/botdesk.ini.d/40-gw.ini"
run check
rc=$?
[ $rc = 2 ] && grep -q "^$T/etc/botdesk.ini.d/40-gw.ini: writable by group or others (mode 0664).*refusing to read it" "$T/err"
ok $? "a group-writable drop-in fails the check (2), named with the rule" || show
run show --origin
! grep -q "40-gw.ini" "$T/out"
ok $? "... and nothing of it is shown as applied" || show
rm -f "$T/etc/botdesk.ini.d/40-gw.ini"

mkfifo "$T/xdg/botdesk/botdesk.ini.d/60-fifo.ini"
mkdir "$T/etc/botdesk.ini.d/60-dir.ini"
run check
rc=$?
[ $rc = 2 ] && grep -q "^$T/xdg/botdesk/botdesk.ini.d/60-fifo.ini: a FIFO, not a regular file" "$T/err" &&
        grep -q "^$T/etc/botdesk.ini.d/60-dir.ini: a directory, not a regular file" "$T/err"
ok $? "a FIFO and a directory drop-in fail the check (2), each named" || show

echo "1..$n"
exit $failed
