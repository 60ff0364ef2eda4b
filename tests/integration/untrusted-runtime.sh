#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Nothing is read from a runtime dir botdesk has not verified (DESIGN section
# 11), root only. The unprivileged user botdesk-test forges the fallback
# runtime dir of the user nobody (/tmp/botdesk-UID, used when XDG_RUNTIME_DIR
# is unset): a helper record naming one of its own live processes, the
# helper lock held by it, an env with LD_PRELOAD and a browser of its choice.
# As nobody, status, list and lookup read it as not running, say why, and
# print nothing of it. Then, in a dir that is ours, a FIFO named env (beside
# a live-looking record) must not hang status or env. No desktop is started.
. "$(dirname "$0")/lib.sh"
[ "$(id -u)" = 0 ] || t_skip_all "needs root (a second user forges the runtime dir of a third)"
bd_init untr 305
bd_need runuser flock timeout

A=$BD_U
V=nobody
UPATH=$BD_UPATH
id -u "$V" >/dev/null 2>&1 || t_skip_all "no user $V to be the victim"
VUID=$(id -u "$V")

# The attacker: the test user.
bd_second_user

# The CLI where both users can run it, and a config nobody can read.
S=$(mktemp -d /tmp/botdesk-untr.XXXXXX) || t_skip_all "mktemp failed"
FALLBACK=/tmp/botdesk-$VUID
FALLBACK_MADE=
HOLDER=
untr_cleanup() {
        local rc=$?
        trap - EXIT
        # Our own processes (the lock holders) are killed by pid in bd_cleanup.
        [ -n "$FALLBACK_MADE" ] && rm -rf -- "${FALLBACK:?}"
        [ -n "$S" ] && rm -rf -- "${S:?}"
        (exit $rc)
        bd_cleanup
}
trap untr_cleanup EXIT
chmod 755 "$S"
cp "$BOTDESK" "$S/botdesk"
chmod 755 "$S/botdesk"
bd_config
cp "$BOTDESK_CONFIG" "$S/botdesk.ini"
chmod 644 "$S/botdesk.ini"

as_victim() {
        runuser -u "$V" -- env -i PATH="$UPATH" HOME=/nonexistent USER="$V" LANG=C.UTF-8 LC_ALL=C \
                BOTDESK_CONFIG="$S/botdesk.ini" "$@"
}
as_attacker() {
        runuser -u "$A" -- env -i PATH="$UPATH" HOME=/var/lib/botdesk-test LC_ALL=C "$@"
}

# ---- a forged fallback dir of another uid ------------------------------------------------------

P=$(bd_profile f)
if [ -e "$FALLBACK" ] || [ -L "$FALLBACK" ]; then
        t_pass "a forged $FALLBACK is read as not running # SKIP $FALLBACK exists ($(stat -c '%U %a' "$FALLBACK"))"
else
        as_attacker mkdir -m 755 "$FALLBACK" "$FALLBACK/$P" && FALLBACK_MADE=1
        t_ok "$A creates $FALLBACK/$P for the forgery" test -n "$FALLBACK_MADE"
        # The attacker's lock holder: a shell that says its pid, takes the
        # lock and becomes sleep (runuser forks in between, so $! is not it).
        # stdio elsewhere: a stray holder must not keep the TAP pipe open.
        : >"$S/holder.pid"
        chown "$A:" "$S/holder.pid"
        as_attacker sh -c 'echo $$ >"$2"; exec 8>>"$1"; flock 8 && exec sleep 600' sh "$FALLBACK/$P/helper.lock" \
                "$S/holder.pid" </dev/null >/dev/null 2>&1 &
        RU=$!
        bd_own_pid "$RU"
        wait_locked "$FALLBACK/$P/helper.lock" || t_fail "$A holds $FALLBACK/$P/helper.lock within 10 s"
        HOLDER=$(cat "$S/holder.pid")
        [ -n "$HOLDER" ] && bd_own_pid "$HOLDER"
        ST=$(proc_starttime "${HOLDER:-$RU}")
        as_attacker sh -c 'umask 022; printf "%s\n" "$@" >"$0/helper.tmp" && mv "$0/helper.tmp" "$0/helper"' \
                "$FALLBACK/$P" "PID=${HOLDER:-$RU}" "STARTTIME=$ST" CGROUP= TOKEN=forged PLACEMENT=standalone UNIT= \
                DISPLAY=42 STARTED_AT=1
        as_attacker sh -c 'umask 022; printf "%s\n" "$@" >"$0/env"' "$FALLBACK/$P" \
                DISPLAY=:42 XAUTHORITY=/tmp/forged-xauth LD_PRELOAD=/tmp/forged.so \
                AGENT_BROWSER_EXECUTABLE_PATH=/tmp/forged-browser
        t_diag "forged: $(ls -la "$FALLBACK/$P" | tail -n +2 | awk '{ print $1, $3, $NF }' | tr '\n' ';')"

        out=$(as_victim timeout 20 "$S/botdesk" status --json "$P" 2>"$BD_T/out/status.err")
        rc=$?
        err=$(cat "$BD_T/out/status.err")
        t_is "$rc" 0 "status --json of a profile in a forged dir answers (exit $rc)"
        t_match "$out" '"running": *false' "status --json reads the forged dir as not running"
        case $out in */tmp/forged*) t_fail "status --json prints nothing of the forged dir" "$out" ;;
        *) t_pass "status --json prints nothing of the forged dir (no forged browser, socket or pid)" ;; esac
        t_match "$err" "$FALLBACK.*not a private directory" "status says the fallback dir is not $V's"
        t_diag "status: $out" "stderr: $err"

        out=$(as_victim timeout 20 "$S/botdesk" status "$P" 2>&1)
        t_match "$out" "not running" "plain status reads it as not running"
        t_match "$out" "not a private directory" "plain status says why"

        out=$(as_victim timeout 20 "$S/botdesk" list --json 2>"$BD_T/out/list.err")
        rc=$?
        err=$(cat "$BD_T/out/list.err")
        t_is "$rc" 0 "list --json answers (exit $rc)"
        case $out in *"$P"*) t_fail "list shows no profile from the forged dir" "$out" ;;
        *) t_pass "list shows no profile from the forged dir" ;; esac
        t_match "$err" "$FALLBACK.*not a private directory" "list says the fallback dir is not $V's"

        out=$(as_victim timeout 20 "$S/botdesk" lookup --json "$P" 2>"$BD_T/out/lookup.err")
        rc=$?
        err=$(cat "$BD_T/out/lookup.err")
        t_isnt "$rc" 124 "lookup answers within 20 s (exit $rc)"
        case "$out$err" in *LD_PRELOAD* | */tmp/forged*) t_fail "lookup prints nothing of the forged env" "$out" "$err" ;;
        *) t_pass "lookup prints nothing of the forged env" ;; esac
        t_match "$err" "not a private directory" "lookup says the runtime dir is not $V's"

        out=$(as_victim timeout 20 "$S/botdesk" env "$P" 2>&1)
        rc=$?
        t_isnt "$rc" 0 "env of a profile in a forged dir fails (exit $rc)"
        case $out in *LD_PRELOAD*) t_fail "env prints nothing of the forged env" "$out" ;;
        *) t_pass "env prints nothing of the forged env" ;; esac
fi

# ---- a FIFO named env in our own dir -----------------------------------------------------------

P2=$(bd_profile fifo)
RT=$(bd_rt "$P2")
mkdir -p -m 700 "$XDG_RUNTIME_DIR/botdesk" "$RT"
mkfifo -m 600 "$RT/env"
(exec 8>>"$RT/helper.lock" && flock 8 && exec sleep 600) </dev/null >/dev/null 2>&1 &
H=$!
bd_own_pid "$H"
wait_locked "$RT/helper.lock" || t_fail "the stand-in helper holds $RT/helper.lock within 10 s"
printf '%s\n' "PID=$H" "STARTTIME=$(proc_starttime "$H")" CGROUP= TOKEN=fifo PLACEMENT=standalone UNIT= DISPLAY=43 \
        STARTED_AT=1 >"$RT/helper"
chmod 600 "$RT/helper"

timeout 10 "$BOTDESK" status --json "$P2" >"$BD_T/out/fifo.out" 2>"$BD_T/out/fifo.err"
rc=$?
t_isnt "$rc" 124 "status --json with a FIFO named env returns within 10 s (exit $rc)"
t_match "$(cat "$BD_T/out/fifo.out")" '"running": *false' "a FIFO in place of env is no published desktop"
timeout 10 "$BOTDESK" env "$P2" >"$BD_T/out/fifo-env.out" 2>"$BD_T/out/fifo-env.err"
rc=$?
t_isnt "$rc" 124 "env with a FIFO named env returns within 10 s (exit $rc)"
t_isnt "$rc" 0 "env with a FIFO named env fails"
t_diag "env: $(cat "$BD_T/out/fifo-env.err")"
kill -KILL "$H" ${HOLDER:+"$HOLDER"} 2>/dev/null

t_done
