#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# A lock another uid can hold stalls nothing (DESIGN sections 3 and 11), root
# only. In a private mount namespace (a tmpfs over /run: the host's /run is
# not touched) /run/botdesk is laid out as an older install made it, with
# alloc.lock 0644, which botdesk-test opens read-only and flocks for ever.
# Root's start (root's lock) and botdesk-test's start (its own lock) still
# complete within --timeout. Then a root process holds root's lock for ever
# (a stuck allocator): a start with --timeout 3 fails within its timeout
# and says why, and leaves nothing running. Bands: root 300-304, botdesk-test
# 125-129.
. "$(dirname "$0")/lib.sh"
[ "$(id -u)" = 0 ] || t_skip_all "needs root (a second user holds the lock; a mount namespace hides /run)"
bd_private_run "$@"
bd_init alh 300
bd_need_xserver
bd_need runuser flock timeout

bd_second_user
U=$BD_U UH=$BD_UH UPATH=$BD_UPATH

# The layout of an older install: everyone may read, and so flock, the lock.
mkdir -m 755 /run/botdesk /run/botdesk/reservations
: >/run/botdesk/alloc.lock
chmod 644 /run/botdesk/alloc.lock
L=/run/botdesk/alloc.lock

# ms since $1 (date +%s%N)
ms_since() { echo $((($(date +%s%N) - $1) / 1000000)); }

# ---- another uid holds the lock for ever -------------------------------------------------------

# The holder says its pid (runuser forks in between, so $! is not it), takes
# the lock and becomes sleep. stdio elsewhere: a stray holder must not keep
# the TAP pipe open.
: >"$BD_T/holder.pid"
chown "$U:" "$BD_T/holder.pid"
chmod 711 "$BD_T"
runuser -u "$U" -- sh -c 'echo $$ >"$2"; exec 7<"$1"; flock -x 7 && exec sleep 600' sh "$L" "$BD_T/holder.pid" \
        </dev/null >/dev/null 2>&1 &
RU=$!
bd_own_pid "$RU"
if wait_locked "$L"; then t_pass "$U holds $L through a read-only fd"; else t_fail "$U holds $L within 10 s"; fi
H=$(cat "$BD_T/holder.pid")
[ -n "$H" ] && bd_own_pid "$H"

bd_config
P=$(bd_profile a)
t0=$(date +%s%N)
bd_start "$P" --timeout 20
rc=$?
ms=$(ms_since "$t0")
t_is "$rc" 0 "root's start completes while $U holds $L (exit $rc, $ms ms)"
[ "$rc" = 0 ] || t_diag "$(bd_err "$P")"
if [ "$ms" -lt 20000 ]; then t_pass "within its --timeout of 20 s ($ms ms)"; else t_fail "within its --timeout of 20 s" "took $ms ms"; fi
t_is "$(stat -c '%u %a' "$L" 2>&1)" "0 600" "root's lock is now root's alone (0600)"
t_ok "$U's fd no longer names the lock file (it was renewed)" test -n "$H" -a "$(stat -L -c %i "/proc/$H/fd/7" 2>/dev/null)" != "$(stat -c %i "$L")"
bd_stop "$P"
t_is "$?" 0 "root's desktop stops"

# The other user's own start: its lock is in its own runtime dir. It runs
# the same binaries, from a copy where the checkout is not theirs to read.
UBOTDESK=$BOTDESK UHELPER=$BD_HELPER
if ! runuser -u "$U" -- test -x "$UBOTDESK" -a -x "$UHELPER"; then
        chmod 711 "$BD_T"   # traversable, not listable; its own subdirs stay 0700
        mkdir -m 755 "$BD_T/stage"
        "$BD_LIB_DIR/stage-build.sh" "$BD_BUILD_DIR" "$BD_T/stage"
        UBOTDESK=$BD_T/stage/helper/botdesk UHELPER=$BD_T/stage/helper/botdesk-helper
fi
if runuser -u "$U" -- test -x "$UBOTDESK" -a -x "$UHELPER"; then
        UT=$(mktemp -d /tmp/botdesk-alh-u.XXXXXX)
        chown "$U:" "$UT"
        chmod 700 "$UT"
        runuser -u "$U" -- mkdir -m 700 "$UT/run" "$UT/state" "$UT/config"
        BOTDESK_CONFIG=$UT/botdesk.ini bd_config band=125-129
        chown "$U:" "$UT/botdesk.ini"
        PU=$(bd_profile u)
        as_user() {
                runuser -u "$U" -- env -i PATH="$UPATH" HOME="$UH" USER="$U" LANG=C.UTF-8 LC_ALL=C TMPDIR=/tmp \
                        XDG_RUNTIME_DIR="$UT/run" XDG_STATE_HOME="$UT/state" XDG_CONFIG_HOME="$UT/config" \
                        BOTDESK_CONFIG="$UT/botdesk.ini" BOTDESK_HELPER="$UHELPER" "$@"
        }
        t0=$(date +%s%N)
        as_user timeout 60 "$UBOTDESK" start "$PU" --timeout 20 >"$BD_T/out/u.out" 2>"$BD_T/out/u.err" &
        wait $!
        rc=$?
        ms=$(ms_since "$t0")
        UPID=$(sed -n 's/^PID=//p' "$UT/run/botdesk/$PU/helper" 2>/dev/null)
        UST=$(sed -n 's/^STARTTIME=//p' "$UT/run/botdesk/$PU/helper" 2>/dev/null)
        UTOK=$(sed -n 's/^TOKEN=//p' "$UT/run/botdesk/$PU/helper" 2>/dev/null)
        t_is "$rc" 0 "$U's own start completes too (exit $rc, $ms ms)"
        [ "$rc" = 0 ] || t_diag "$(cat "$BD_T/out/u.err")"
        t_is "$(stat -c %U "$UT/run/botdesk/alloc.lock" 2>&1)" "$U" "$U allocates under a lock of its own"
        as_user timeout 60 "$UBOTDESK" stop "$PU" >/dev/null 2>&1 &
        wait $!
        t_is "$?" 0 "$U's desktop stops"
        left=$(token_pids "$UTOK")
        [ -n "$UPID" ] && proc_alive "$UPID" "$UST" && left="$left $UPID"
        t_is "$(echo $left)" "" "nothing of $U's desktop is left"
        for p in $left; do kill -KILL "$p" 2>/dev/null; done
        rm -rf -- "${UT:?}"
else
        t_skip "$U's own start completes too" "the binaries are not usable by $U, even from a copy in $BD_T/stage"
fi
kill -KILL "$RU" ${H:+"$H"} 2>/dev/null

# ---- a stuck holder of root's own lock: --timeout is honoured ----------------------------------

(exec 7<>"$L" && flock -x 7 && exec sleep 600) </dev/null >/dev/null 2>&1 &
RH=$!
bd_own_pid "$RH"
wait_locked "$L" || t_fail "a root process holds $L within 10 s"
P2=$(bd_profile b)
t0=$(date +%s%N)
bd_start "$P2" --timeout 3
rc=$?
ms=$(ms_since "$t0")
err=$(bd_err "$P2")
t_is "$rc" 1 "a start that cannot get the lock fails (exit $rc)"
if [ "$ms" -lt 7000 ]; then t_pass "within its --timeout of 3 s, plus the stop ($ms ms)"; else
        t_fail "within its --timeout of 3 s, plus the stop" "took $ms ms"; fi
t_match "$err" 'not ready within 3 s' "stderr says it was not ready within its timeout"
t_diag "stderr: $err" "last-error: $(cat "$(bd_rt "$P2")/last-error" 2>&1)"
t_is "$(echo $(helpers_of "$P2"))" "" "no helper of it is left running"
kill -KILL "$RH" 2>/dev/null

t_done
