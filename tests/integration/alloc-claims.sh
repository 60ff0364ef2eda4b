#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# A start holds the display allocation lock for its pick and claim alone,
# never across its X server's start (helper/alloc/alloc.h): while one
# desktop's X server is slow to come up, a second desktop of the same user
# starts within its own short timeout, on a number of its own, and the
# first one's claim keeps that number off it until its server holds it.
# No claim outlives its start. Band 455 (555 for the user run).
. "$(dirname "$0")/lib.sh"
bd_init alc 455
bd_need_xserver
bd_need mkfifo
bd_config
A=$(bd_profile a)
B=$(bd_profile b)
REAL=$(command -v Xtigervnc || command -v Xvnc)

# Where the claims are: beside the allocation lock (root's in a root-owned /run/botdesk).
CLAIMS=$XDG_RUNTIME_DIR/botdesk/display-claims
if [ "$(id -u)" = 0 ] && [ -d /run/botdesk ] && [ ! -L /run/botdesk ] && [ "$(stat -c %u /run/botdesk)" = 0 ] &&
        [ $((8#$(stat -c %a /run/botdesk) & 8#022)) = 0 ]; then
        CLAIMS=/run/botdesk/display-claims
fi

# A stand-in for TigerVNC (which takes -rfbunixpath) that is slow to come
# up: it says its arguments, then waits for the test's word (at most 60 s)
# before it becomes the real server.
slow=$(mktemp -d "$BD_T/slow.XXXXXX")
mkfifo "$slow/go"
cat >"$slow/Xtigervnc" <<EOF
#!/bin/bash
# The test's slow TigerVNC: botdesk takes a server whose file says -rfbunixpath.
printf '%s\n' "\$@" >"$slow/args.tmp" && mv "$slow/args.tmp" "$slow/args"
exec 3<>"$slow/go"
read -r -t 60 -u 3 _
exec 3<&-
exec "$REAL" "\$@"
EOF
chmod 755 "$slow/Xtigervnc"

# Not bd_start: it runs in the background, and the cleanup must know the profile from here.
bd_register "$A"
PATH="$slow:$PATH" timeout 120 "$BOTDESK" start "$A" >"$BD_T/out/$A.out" 2>"$BD_T/out/$A.err" &
apid=$!
bd_own_pid "$apid"
t_ok "$A's X server is starting, held back by the test (waited at most 20 s for it)" wait_for 20 test -s "$slow/args"
[ -s "$slow/args" ] || t_diag "$(cat "$BD_T/out/$A.err")"
NA=$(sed -n 's/^:\([0-9][0-9]*\)$/\1/p' "$slow/args")
t_match "$NA" '^[0-9]+$' "... on display :$NA"
t_ok "... which $A's claim holds meanwhile ($CLAIMS/$NA)" test -f "$CLAIMS/$NA"

t0=$(date +%s%N)
bd_start "$B" --timeout 15
rc=$?
ms=$((($(date +%s%N) - t0) / 1000000))
t_is "$rc" 0 "$B starts (--timeout 15) while $A's X server has not come up (took $ms ms)"
[ "$rc" = 0 ] || t_diag "$(cat "$BD_T/out/$B.err")"
t_ok "... and $A's start still waits for its server" kill -0 "$apid"
NB=$(rec_get "$B" DISPLAY)
t_match "$NB" '^[0-9]+$' "$B runs on :$NB"
t_isnt "$NB" "$NA" "... not on the number $A claimed"
t_ok "$B's own claim is gone once its server holds :$NB" test ! -e "$CLAIMS/$NB"

# Opened read-write, so that the word never blocks the test when no stand-in reads it.
exec 4<>"$slow/go"
echo go >&4
exec 4>&-
wait "$apid"
rc=$?
t_is "$rc" 0 "$A starts once its server goes on"
[ "$rc" = 0 ] || t_diag "$(cat "$BD_T/out/$A.err")"
bd_snapshot "$A"
t_is "$(rec_get "$A" DISPLAY)" "$NA" "... on the number it claimed (:$NA)"
t_ok "... and its claim is gone" test ! -e "$CLAIMS/$NA"

bd_stop "$A"
t_is "$?" 0 "$A stops"
bd_stop "$B"
t_is "$?" 0 "$B stops"
t_done
