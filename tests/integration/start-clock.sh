#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# A start is timed from its own X server, not from the wait before it
# (helper/supervisor/start.c, start-extension.h): while the test holds the
# user's display allocation lock for most of start_timeout, and the X
# server then takes most of start_timeout again to come up, the desktop
# still starts, and `botdesk start` without --timeout waits past its own
# start_timeout + 5 s because the helper said so (EXTEND_TIMEOUT_USEC=,
# sent when its X server starts). An X server that alone outlasts
# start_timeout still fails the start, and a --timeout the caller gave is
# kept. As root in a private mount namespace (a tmpfs over /run), so that
# the lock the test holds is its own and not the host's. Band 775 (once:
# what varies is the clock, not the caller).
. "$(dirname "$0")/lib.sh"
bd_private_run "$@"
bd_init sclk 775 once
bd_need_xserver
bd_need flock
REAL=$(command -v Xtigervnc || command -v Xvnc)
P=$(bd_profile a)
S=14                    # start_timeout
LOCK_HOLD=12.5          # the lock held before the start: less than S
X_DELAY=11              # the X server's own wait before it serves: less than S, more than S + 5 - LOCK_HOLD

# A stand-in for TigerVNC that notes when it began, then waits the seconds
# in $slow/delay before it becomes the real server.
slow=$(mktemp -d "$BD_T/slow.XXXXXX")
cat >"$slow/Xtigervnc" <<EOF
#!/bin/bash
# The test's slow TigerVNC: botdesk takes a server whose file says -rfbunixpath.
date +%s%N >"$slow/began"
sleep "\$(cat "$slow/delay")"
exec "$REAL" "\$@"
EOF
chmod 755 "$slow/Xtigervnc"
export PATH="$slow:$PATH"

# The user's allocation lock (root's own too: /run/botdesk is not there in this namespace).
mkdir -p -m 700 "$XDG_RUNTIME_DIR/botdesk"
L=$XDG_RUNTIME_DIR/botdesk/alloc.lock
ms_since() { echo $((($(date +%s%N) - $1) / 1000000)); }

# ---- the lock held 12.5 s, the X server 11 s slow: ready, past start_timeout + 5 -------------
bd_config timeout=$S
echo "$X_DELAY" >"$slow/delay"
# The holder makes the file 0600 (a looser lock would be renewed under it) and becomes sleep.
sh -c 'umask 077; exec 7<>"$1"; flock -x 7 && exec sleep "$2"' sh "$L" "$LOCK_HOLD" </dev/null >/dev/null 2>&1 &
holder=$!
bd_own_pid "$holder"
t_ok "the test holds the allocation lock $L (waited at most 10 s)" wait_locked "$L"
t0=$(date +%s%N)
bd_start "$P"
rc=$?
ms=$(ms_since "$t0")
t_is "$rc" 0 "the desktop starts: ${LOCK_HOLD} s on the lock, then an X server ${X_DELAY} s slow, start_timeout=$S (took $ms ms)"
[ "$rc" = 0 ] || t_diag "$(bd_err "$P")"
if [ "$ms" -gt $(((S + 5) * 1000)) ]; then
        t_pass "... longer than the CLI's own deadline, start_timeout + 5 s = $((S + 5)) s: it followed the helper's extension"
else
        t_fail "... longer than start_timeout + 5 s, or the CLI's extension is not tested" "took $ms ms"
fi
began=$(cat "$slow/began" 2>/dev/null)
if [ -n "$began" ]; then
        wait_ms=$(((began - t0) / 1000000))
        t_ok "... its X server began only once the lock was free (after $wait_ms ms)" test "$wait_ms" -ge 11000
fi
t_ok "... and it is published: $(bd_rt "$P")/env" test -s "$(bd_rt "$P")/env"
bd_stop "$P"
t_is "$?" 0 "it stops"
wait "$holder" 2>/dev/null

# ---- an X server slower than start_timeout alone: the start still fails -------------------------
bd_config timeout=3
echo 6 >"$slow/delay"
rm -f -- "${slow:?}/began"
t0=$(date +%s%N)
bd_start "$P"
rc=$?
ms=$(ms_since "$t0")
t_is "$rc" 1 "an X server 6 s slow with start_timeout=3: the start fails (took $ms ms)"
t_match "$(bd_err "$P")" 'start_timeout' "... saying start_timeout"
if [ "$ms" -lt 15000 ]; then t_pass "... within start_timeout of its X server's start and the teardown"; else t_fail "... within 15 s" "took $ms ms"; fi
t_ok "... and nothing of it stays: no helper record, no env" test ! -e "$(bd_rt "$P")/helper" -a ! -e "$(bd_rt "$P")/env"

# ---- the caller's own --timeout is kept, whatever the helper asks -----------------------------
bd_config timeout=10
echo 6 >"$slow/delay"
t0=$(date +%s%N)
bd_start "$P" --timeout 2
rc=$?
ms=$(ms_since "$t0")
t_isnt "$rc" 0 "--timeout 2 with an X server 6 s slow: the start gives up (exit $rc)"
if [ "$ms" -lt 5000 ]; then t_pass "... after its 2 s, not the helper's 10 ($ms ms)"; else t_fail "... within 5 s" "took $ms ms"; fi
t_done
