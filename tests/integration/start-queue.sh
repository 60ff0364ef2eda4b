#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The start queue (helper/alloc/start-queue.h): with concurrent_starts = 1
# and a start ahead that holds its ticket (a stand-in the test holds, so
# that the timing is the test's), a start waits its turn and says so in its
# log, past its start_timeout and still ready, once the one ahead is gone
# (killed: its ticket is found dead and removed); two starts that wait go
# in the order they came; a queue that does not move for twice
# start_timeout fails the start with a reason and leaves nothing behind. As
# root in a private mount namespace (a tmpfs over /run), so that the
# queue the test blocks is its own and not the host's. Band 780 (once:
# what varies is the queue, not the caller).
. "$(dirname "$0")/lib.sh"
bd_private_run "$@"
bd_init squ 780 once
bd_need_xserver
bd_need flock
A=$(bd_profile a)
B=$(bd_profile b)
C=$(bd_profile c)
# The user's claim dir, where the tickets are (root's own too: /run/botdesk is not there in this namespace).
mkdir -p -m 700 "$XDG_RUNTIME_DIR/botdesk/display-claims"
Q=$XDG_RUNTIME_DIR/botdesk/display-claims
ms_since() { echo $((($(date +%s%N) - $1) / 1000000)); }
# A TigerVNC that notes when each server began (ns) and on which display, then is the real one.
REAL=$(command -v Xtigervnc || command -v Xvnc)
xs=$(mktemp -d "$BD_T/xs.XXXXXX")
cat >"$xs/Xtigervnc" <<EOF
#!/bin/bash
# The test's TigerVNC: botdesk takes a server whose file says -rfbunixpath.
for a; do case \$a in :[0-9]*) d=\$a ;; esac; done
echo "\$(date +%s%N) \$d" >>"$xs/began"
exec "$REAL" "\$@"
EOF
chmod 755 "$xs/Xtigervnc"
export PATH="$xs:$PATH"
began_on() { awk -v d=":$1" '$2 == d {print $1; exit}' "$xs/began"; }
tickets() { find "$Q" -maxdepth 1 -name 'start-*' -printf '%f\n' 2>/dev/null | sort; }
queue_config() {
        bd_config "timeout=$1"
        printf '[resources]\nconcurrent_starts = 1\n' >>"$BOTDESK_CONFIG"
}

# A start ahead of every other (arrival 1 us after boot), whose ticket the holder keeps locked.
HOLDER=
hold_ticket() {
        sh -c 'umask 077; exec 7>"$1"; flock -x 7 && exec sleep 600' sh "$Q/start-1-$$" </dev/null >/dev/null 2>&1 &
        HOLDER=$!
        bd_own_pid "$HOLDER"
        wait_locked "$Q/start-1-$$"
}

start_bg() {    # PROFILE: started in the background; its pid in BG
        bd_register "$1"
        timeout 120 "$BOTDESK" start "$1" >"$BD_T/out/$1.out" 2>"$BD_T/out/$1.err" &
        BG=$!
        bd_own_pid "$BG"
}

# ---- a start waits its turn past its start_timeout, and goes once the one ahead died ---------------
queue_config 3
t_ok "a start ahead holds its ticket" hold_ticket
t0=$(date +%s%N)
start_bg "$A"
apid=$BG
t_ok "$A waits its turn and says so in its log (waited at most 20 s)" \
        wait_for 20 grep -q 'Waiting for its turn: 1 start ahead, 1 at a time' "$(bd_rt "$A")/helper.log"
sleep 4         # more than start_timeout, less than twice it: the wait is not charged
t_ok "... still waiting after 4 s, more than its start_timeout of 3 s" kill -0 "$apid"
kill -KILL "$HOLDER"
wait "$HOLDER" 2>/dev/null
wait "$apid"
rc=$?
ms=$(ms_since "$t0")
bd_snapshot "$A"
t_is "$rc" 0 "the start ahead is killed: $A starts ($ms ms in all)"
[ "$rc" = 0 ] || t_diag "$(bd_err "$A")"
t_is "$(tickets)" "" "... the dead start's ticket was removed, and $A's went once it was ready"
bd_stop "$A"

# ---- two starts waiting go in the order they came ------------------------------------------------
queue_config 10
t_ok "a start ahead holds its ticket again" hold_ticket
start_bg "$B"
bpid=$BG
t_ok "$B waits (at most 20 s)" wait_for 20 grep -q 'Waiting for its turn: 1 start ahead' "$(bd_rt "$B")/helper.log"
start_bg "$C"
cpid=$BG
t_ok "$C waits behind both (at most 20 s)" wait_for 20 grep -q 'Waiting for its turn: 2 starts ahead' "$(bd_rt "$C")/helper.log"
kill -KILL "$HOLDER"
wait "$HOLDER" 2>/dev/null
wait "$bpid"
brc=$?
bdone=$(date +%s%N)
wait "$cpid"
crc=$?
bd_snapshot "$B"
bd_snapshot "$C"
t_is "$brc $crc" "0 0" "both start once the queue moves"
bx=$(rec_get "$B" DISPLAY)
cx=$(rec_get "$C" DISPLAY)
b_began=$(began_on "$bx")
c_began=$(began_on "$cx")
b_ready=$("$PY" -c 'import os, sys; print(os.stat(sys.argv[1]).st_mtime_ns)' "$(bd_rt "$B")/env" 2>/dev/null)
t_ok "$B, which came first, began its X server (:$bx) before $C (:$cx)" test -n "$b_began" -a -n "$c_began" -a "${b_began:-0}" -lt "${c_began:-0}"
t_ok "... and $C's began only once $B was ready (one at a time)" test -n "$b_ready" -a "${c_began:-0}" -ge "${b_ready:-1}"
bd_stop "$B"
bd_stop "$C"

# ---- a queue that never moves: the start fails after twice start_timeout, and says why --------------
queue_config 2
t_ok "a start ahead holds its ticket for good" hold_ticket
t0=$(date +%s%N)
bd_start "$A"
rc=$?
ms=$(ms_since "$t0")
t_is "$rc" 1 "$A fails when nothing ahead moves (exit $rc, $ms ms)"
t_match "$(bd_err "$A")" 'No start ahead of this one finished within twice start_timeout=2s' "... saying why"
if [ "$ms" -ge 3900 ] && [ "$ms" -lt 15000 ]; then t_pass "... after twice start_timeout (4 s), not before"; else
        t_fail "... after 4 s and within 15 s" "took $ms ms"; fi
t_is "$(tickets)" "start-1-$$" "... and only the holder's ticket remains"
t_ok "... nothing of $A stays: no helper record" test ! -e "$(bd_rt "$A")/helper"
kill -KILL "$HOLDER"
wait "$HOLDER" 2>/dev/null
t_done
