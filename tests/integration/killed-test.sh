#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# A test killed at its timeout leaves nothing running. A test of the
# tier's own kind (lib.sh, a desktop started) is run in a session of its
# own, as meson runs one, and ended as meson ends one that runs out of
# time: SIGTERM to its process group, SIGKILL half a second later. Then
# nothing of its desktop may be alive, whether it ran in a cgroup (root)
# or as a process group with a token (an unprivileged user), and its
# temporary dir is gone.
. "$(dirname "$0")/lib.sh"
bd_init ktt 255
bd_need_xserver
out=$BD_T/inner.out

cat >"$BD_T/inner.sh" <<'INNER'
. "$BD_LIB_DIR_FOR_INNER/lib.sh"
bd_init kti 255
bd_config
P=$(bd_profile a)
bd_start "$P" || { echo "start failed: $(bd_err "$P")" >"$INNER_OUT.err"; exit 1; }
bd_snapshot "$P"
echo "$(rec_get "$P" PID) $(rec_get "$P" TOKEN) $BD_T $(rec_get "$P" CGROUP)" >"$INNER_OUT.tmp"
mv "$INNER_OUT.tmp" "$INNER_OUT"
# Busy until killed, as a test that runs out of time.
sleep 600 &
wait $!
INNER

BD_LIB_DIR_FOR_INNER=$BD_LIB_DIR INNER_OUT=$out setsid bash "$BD_T/inner.sh" </dev/null >"$BD_T/inner.log" 2>&1 &
inner=$!
bd_own_pid "$inner"
if ! wait_for 60 test -s "$out"; then
        t_fail "the inner test started its desktop (waited 60 s)" "$(cat "$out.err" "$BD_T/inner.log" 2>/dev/null)"
        t_done
fi
read -r hpid token dir cg <"$out"
t_match "$hpid" '^[0-9]+$' "the inner test's desktop runs (helper pid $hpid)"
hst=$(proc_starttime "$hpid")
# What meson does to a test that ran out of its time.
kill -TERM -- "-$inner" 2>/dev/null
sleep 0.5
kill -KILL -- "-$inner" 2>/dev/null

# Everything of that desktop, by its token and (when it had one) its cgroup.
left() {
        {
                proc_alive "$hpid" "$hst" && echo "$hpid"
                token_pids "$token"
                [ -n "$cg" ] && cgroup_pids "$cg"
        } | sort -un
}
gone() { [ -z "$(left)" ] && [ ! -e "$dir" ]; }
# Bounded by the clock: one look walks every process's environment.
gone_within() {
        local end=$((SECONDS + $1))
        while [ "$SECONDS" -lt "$end" ]; do
                gone && return 0
                sleep 0.2
        done
        gone
}
if gone_within 60; then
        t_pass "60 s after the kill nothing of the killed test's desktop runs, and its dir is gone"
else
        t_fail "60 s after the kill nothing of the killed test's desktop runs, and its dir is gone" \
                "left: $(describe_pids $(left))" "dir: $(ls -d "$dir" 2>&1)"
        # Not left for others either.
        for p in $(left); do kill -KILL "$p" 2>/dev/null; done
        [ -n "$cg" ] && bd_kill_cgroup "$cg"
fi
t_done
