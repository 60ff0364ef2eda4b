#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Isolation between users (DESIGN section 11), root only: a desktop of root
# and one of the unprivileged user botdesk-test run side by side. As
# botdesk-test, root's RFB socket cannot be connected to, its display cannot
# be used without the cookie, its cookie, env file and runtime dir cannot be
# read, its allocation lock cannot be replaced; a fallback runtime dir that
# botdesk-test squats at /tmp/botdesk-0 is refused. With root's dock browser
# running (started through botdesk-browser with botdesk exec), its DevTools
# socket is 0600 and out of botdesk-test's reach; no process of either
# desktop, the browser included, listens on TCP, none carries the caller's
# credentials, and a stop leaves nothing. Bands: root 95-99, botdesk-test 120-124.
. "$(dirname "$0")/lib.sh"
[ "$(id -u)" = 0 ] || t_skip_all "needs root (a second user is created and used)"
bd_init iso 95
bd_need_xserver
bd_need xdpyinfo runuser ps
[ -n "$PY" ] || t_skip_all "python3 not installed"

U=$BD_U
UH=$BD_UH
UBAND=120-124
SECRETS="AWS_SECRET_ACCESS_KEY GITHUB_TOKEN DB_PASSWORD MY_SECRET"
UPATH=$BD_UPATH

bd_second_user
UUID=$(id -u "$U")
# The other user runs the same binaries. Where the checkout is not theirs to
# read (a 0700 home or scratch dir, as CI's clone may be), give them a copy
# of just what a desktop needs: the binaries link only system libraries.
ISO_SKEL=$BD_SOURCE_DIR/conf/skel
if ! runuser -u "$U" -- test -x "$BOTDESK" -a -x "$BD_HELPER" -a -r "$ISO_SKEL"; then
        chmod 711 "$BD_T"   # traversable, not listable; its own subdirs stay 0700
        mkdir -m 755 "$BD_T/stage" "$BD_T/stage/conf"
        "$BD_LIB_DIR/stage-build.sh" "$BD_BUILD_DIR" "$BD_T/stage"
        cp -r "$BD_SOURCE_DIR/conf/skel" "$BD_SOURCE_DIR/conf/applications" "$BD_T/stage/conf/"
        chmod -R a+rX "$BD_T/stage"
        BOTDESK=$BD_T/stage/helper/botdesk BD_HELPER=$BD_T/stage/helper/botdesk-helper
        BD_BUILD_DIR=$BD_T/stage ISO_SKEL=$BD_T/stage/conf/skel
        export BOTDESK_HELPER=$BD_HELPER BOTDESK_SKEL_DIR=$ISO_SKEL
fi
runuser -u "$U" -- test -x "$BOTDESK" -a -x "$BD_HELPER" -a -r "$ISO_SKEL" ||
        t_skip_all "build dir not usable by $U, even from a copy in $BD_T/stage"

# As the other user, with nothing of ours: no XDG_*, no XAUTHORITY, no DISPLAY.
as_other() {
        runuser -u "$U" -- env -i PATH="$UPATH" HOME="$UH" USER="$U" LOGNAME="$U" LANG=C.UTF-8 LC_ALL=C TMPDIR=/tmp "$@"
}

# The second user's own desktop environment, in a 0700 dir it owns.
UT=$(mktemp -d /tmp/botdesk-iso-u.XXXXXX) || t_skip_all "mktemp failed"
chown "$U:" "$UT" && chmod 700 "$UT"
as_user() {
        runuser -u "$U" -- env -i PATH="$UPATH" HOME="$UH" USER="$U" LOGNAME="$U" LANG=C.UTF-8 LC_ALL=C TMPDIR=/tmp \
                XDG_RUNTIME_DIR="$UT/run" XDG_STATE_HOME="$UT/state" XDG_CONFIG_HOME="$UT/config" \
                BOTDESK_CONFIG="$UT/botdesk.ini" BOTDESK_HELPER="$BD_HELPER" BOTDESK_SKEL_DIR="$ISO_SKEL" \
                "$@"
}
as_user mkdir -m 700 "$UT/run" "$UT/state" "$UT/config"
BOTDESK_CONFIG=$UT/botdesk.ini bd_config band=$UBAND
chown "$U:" "$UT/botdesk.ini"

SQUAT=/tmp/botdesk-0
SQUAT_MADE=
PU=$(bd_profile b)
URT=$UT/run/botdesk/$PU
U_PID= U_ST= U_TOK= U_CG=

# ---- helpers -----------------------------------------------------------------------------------

# Descendants of PID (not PID itself).
descendants() {
        ps -e -o pid=,ppid= | awk -v r="$1" '
                { pp[$1] = $2 }
                END {
                        in_[r] = 1
                        do { c = 0; for (p in pp) if (!(p in in_) && (pp[p] in in_)) { in_[p] = 1; c = 1 } } while (c)
                        delete in_[r]
                        for (p in in_) print p
                }'
}

# Every live process of the second user's desktop: helper and its tree, token, cgroup, X server, helper argv.
u_desktop_pids() {
        local p
        {
                if [ -n "$U_PID" ] && proc_alive "$U_PID" "$U_ST"; then
                        echo "$U_PID"
                        for p in $(descendants "$U_PID"); do proc_alive "$p" && echo "$p"; done
                fi
                token_pids "$U_TOK"
                cgroup_pids "$U_CG"
                cmdline_pids "-rfbunixpath $URT/rfb.sock "
                for p in $(cmdline_pids "$BD_HELPER $PU "); do
                        grep -qzxF -- "XDG_RUNTIME_DIR=$UT/run" "/proc/$p/environ" 2>/dev/null && echo "$p"
                done
        } | sort -un
}

# Root's desktop: lib.sh's view plus the helper's tree.
r_desktop_pids() {
        local h p
        {
                desktop_pids "$P"
                h=$(rec_get "$P" PID)
                [ -n "$h" ] && proc_alive "$h" && for p in $(descendants "$h"); do proc_alive "$p" && echo "$p"; done
        } | sort -un
}

u_snapshot() {
        local f=$URT/helper
        [ -f "$f" ] || return 0
        U_PID=$(sed -n 's/^PID=//p' "$f" | head -n1)
        U_ST=$(sed -n 's/^STARTTIME=//p' "$f" | head -n1)
        U_TOK=$(sed -n 's/^TOKEN=//p' "$f" | head -n1)
        U_CG=$(sed -n 's/^CGROUP=//p' "$f" | head -n1)
        # lib.sh's cleanup then also kills by this token / cgroup.
        [ -n "$U_PID" ] && echo "$PU|$U_PID|$U_ST|$U_CG|$U_TOK" >>"$BD_T/records"
}

# Listening TCP sockets (state 0A) held by PIDS, looked up in each process's own network namespace.
tcp_listeners_of() {
        local p ino listen
        for p in "$@"; do
                listen=$(cat "/proc/$p/net/tcp" "/proc/$p/net/tcp6" 2>/dev/null | awk '$4 == "0A" { print $10 }')
                [ -n "$listen" ] || continue
                for ino in $(socket_inodes_of "$p"); do
                        printf '%s\n' "$listen" | grep -qxF -- "$ino" && echo "$p($(cat "/proc/$p/comm" 2>/dev/null)):$ino"
                done
        done
}

# LEAKS: "PID(comm):NAME" for every secret name in the environment of PIDS; ENV_READ: environs read.
env_leaks() {
        local p n
        ENV_READ=0
        LEAKS=
        for p in "$@"; do
                [ -n "$(head -c1 "/proc/$p/environ" 2>/dev/null | tr '\0' x)" ] || continue
                ENV_READ=$((ENV_READ + 1))
                for n in $SECRETS; do
                        grep -qz "^$n=" "/proc/$p/environ" 2>/dev/null && LEAKS="$LEAKS $p($(cat "/proc/$p/comm" 2>/dev/null)):$n"
                done
        done
        return 0
}

comms_of() {
        local p
        for p in "$@"; do cat "/proc/$p/comm" 2>/dev/null; done | sort -u | tr '\n' ' '
}

# probe OP PATH as the other user: prints "ok" or the errno name.
PROBE='import errno, os, socket, sys
op, path = sys.argv[1], sys.argv[2]
try:
    if op == "connect":
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM); s.settimeout(5); s.connect(path)
        b = s.recv(12); print("ok", b.decode("ascii", "replace").strip()); sys.exit(0)
    elif op == "read":
        open(path, "rb").read(1)
    elif op == "list":
        os.listdir(path)
    elif op == "write":
        os.close(os.open(path, os.O_WRONLY | os.O_NOFOLLOW | os.O_NONBLOCK))
    elif op == "unlink":
        os.unlink(path)
    elif op == "create":
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)); os.unlink(path)
    print("ok")
except OSError as e:
    print(errno.errorcode.get(e.errno, str(e.errno)))
'
probe_other() { as_other /usr/bin/python3 -c "$PROBE" "$@" 2>&1; }
probe_user() { as_user /usr/bin/python3 -c "$PROBE" "$@" 2>&1; }

iso_cleanup() {
        local rc=$? p left
        trap - EXIT
        set +e
        if [ -d "$UT" ]; then
                u_snapshot
                as_user timeout 60 "$BOTDESK" stop "$PU" >/dev/null 2>&1
                left=$(u_desktop_pids)
                if [ -n "$left" ]; then
                        printf '# cleanup: killed leftover processes of %s: %s\n' "$PU" "$(echo $left)"
                        for p in $(cmdline_pids "-rfbunixpath $URT/rfb.sock "); do
                                n=$({ tr '\0' '\n' <"/proc/$p/cmdline"; } 2>/dev/null | sed -n 's/^:\([0-9][0-9]*\)$/\1/p' | head -n1)
                                [ -n "$n" ] && echo "$n $p" >>"$BD_T/xkilled"
                        done
                        for p in $left; do kill -KILL "$p" 2>/dev/null; done
                fi
                rm -rf -- "${UT:?}"
        fi
        # The squat dir only when this test made it (and no desktop may be in it).
        if [ -n "$SQUAT_MADE" ]; then
                for p in $(cmdline_pids "-rfbunixpath $SQUAT/") $(cmdline_pids "$BD_HELPER $(bd_profile squat) "); do
                        kill -KILL "$p" 2>/dev/null
                done
                rm -rf -- "${SQUAT:?}"
        fi
        (exit $rc)
        bd_cleanup
}
trap iso_cleanup EXIT

# Root's XDG_RUNTIME_DIR is traversable by others here, so that only what
# botdesk itself makes private ($XDG_RUNTIME_DIR/botdesk, 0700) protects it.
chmod 711 "$BD_T"
chmod 755 "$BD_T/run"
bd_config
P=$(bd_profile a)
RT=$(bd_rt "$P")
RB=$XDG_RUNTIME_DIR/botdesk

# ---- a squatted fallback runtime dir is refused ------------------------------------------------

PSQ=$(bd_profile squat)
if [ -e "$SQUAT" ] || [ -L "$SQUAT" ]; then
        # Host state, not a missing package: someone else's dir at that path is not ours to remove.
        t_pass "a fallback dir $SQUAT squatted by $U is refused # SKIP $SQUAT exists ($(stat -c '%U %a' "$SQUAT"))"
else
        if as_other mkdir -m 755 "$SQUAT"; then
                SQUAT_MADE=1
                t0=$(stat -c '%u %a %i' "$SQUAT")
                env -u XDG_RUNTIME_DIR timeout 60 "$BOTDESK" start "$PSQ" >"$BD_T/out/squat.out" 2>"$BD_T/out/squat.err" &
                wait $!
                rc=$?
                err=$(cat "$BD_T/out/squat.err")
                t_isnt "$rc" 0 "start with XDG_RUNTIME_DIR unset refuses $SQUAT made by $U (exit $rc)"
                # Naming a path below it (which does not exist) would send the user to the wrong place.
                t_match "$err" "$SQUAT([^/0-9]|\$)" "the refusal names $SQUAT itself, the directory $U owns"
                t_diag "stderr: $err"
                t_is "$(stat -c '%u %a %i' "$SQUAT" 2>&1)" "$t0" "$SQUAT keeps its owner ($UUID) and mode: not adopted"
                t_is "$(ls -A "$SQUAT" 2>&1 | tr '\n' ' ')" "" "nothing was created inside $SQUAT"
                started="$(cmdline_pids "$BD_HELPER $PSQ ") $(cmdline_pids "-rfbunixpath $SQUAT/")"
                t_is "$(echo $started)" "" "no helper and no X server was started for it"
                rm -rf -- "${SQUAT:?}"
                SQUAT_MADE=
        else
                t_fail "$U can create $SQUAT for the squat case"
        fi
fi

# ---- both desktops, started with credentials in the caller's environment -----------------------

AWS_SECRET_ACCESS_KEY=x GITHUB_TOKEN=y DB_PASSWORD=z MY_SECRET=w bd_start "$P"
rc=$?
t_is "$rc" 0 "root's desktop $P starts"
[ "$rc" = 0 ] || t_diag "$(bd_err "$P")" "$(tail -n 20 "$RT/helper.log" 2>/dev/null)"

as_user env AWS_SECRET_ACCESS_KEY=x GITHUB_TOKEN=y DB_PASSWORD=z MY_SECRET=w \
        timeout 120 "$BOTDESK" start "$PU" >"$BD_T/out/$PU.out" 2>"$BD_T/out/$PU.err" &
wait $!
rc=$?
u_snapshot
t_is "$rc" 0 "$U's desktop $PU starts"
[ "$rc" = 0 ] || t_diag "$(cat "$BD_T/out/$PU.err")" "$(tail -n 20 "$URT/helper.log" 2>/dev/null)"

N=$(cat "$RT/display" 2>/dev/null)
UN=$(cat "$URT/display" 2>/dev/null)
t_match "$N" '^(9[5-9])$' "root's desktop holds a display in 95-99 (:$N)"
t_match "$UN" '^(12[0-4])$' "$U's desktop holds a display in $UBAND (:$UN)"

# ---- as the other user, root's desktop is out of reach -----------------------------------------

# Controls: the socket is live for its owner, and the probe works for the other user on its own desktop.
t_match "$(/usr/bin/python3 -c "$PROBE" connect "$RT/rfb.sock" 2>&1)" '^ok RFB 003\.00[0-9]' \
        "control: root connects to its rfb.sock and reads the RFB greeting"
t_match "$(probe_user connect "$URT/rfb.sock")" '^ok RFB 003\.00[0-9]' \
        "control: $U connects to its own rfb.sock and reads the RFB greeting"

t_is "$(probe_other connect "$RT/rfb.sock")" EACCES "$U cannot connect to root's rfb.sock (EACCES)"
t_is "$(probe_other read "$RT/Xauthority")" EACCES "$U cannot read root's Xauthority (EACCES)"
t_is "$(probe_other read "$RT/env")" EACCES "$U cannot read root's env file (EACCES)"
t_is "$(probe_other list "$RT")" EACCES "$U cannot list root's runtime dir $RT (EACCES)"
t_is "$(probe_other list "$RB")" EACCES "$U cannot list root's $RB (EACCES)"
t_is "$(probe_other read "$RB/$P/rfb.sock")" EACCES "$U cannot even reach names below $RB (EACCES)"

# The X display: usable with the cookie, refused without it (the server answers: no TCP needed).
out=$(XAUTHORITY=$RT/Xauthority timeout 20 xdpyinfo -display ":$N" 2>&1 | head -n 3)
t_match "$out" "name of display: +:$N" "control: xdpyinfo -display :$N works with root's cookie"
out=$(as_other timeout 20 xdpyinfo -display ":$N" 2>&1)
rc=$?
t_isnt "$rc" 0 "xdpyinfo -display :$N as $U without the cookie fails"
t_match "$out" 'No protocol specified|Authorization required|Invalid MIT-MAGIC-COOKIE' \
        "the X server itself refuses $U (authorization, not an unreachable display)"
[ "$rc" = 0 ] || t_diag "$(printf '%s' "$out" | head -n 3)"
out=$(as_other env XAUTHORITY="$RT/Xauthority" timeout 20 xdpyinfo -display ":$N" 2>&1)
t_isnt "$?" 0 "xdpyinfo as $U pointing XAUTHORITY at root's cookie fails too"

# The allocation lock.
if [ -d /run/botdesk ] && [ "$(stat -c %u /run/botdesk)" = 0 ]; then
        L=/run/botdesk/alloc.lock
        t_diag "/run/botdesk is root's: the allocation lock is shared, $L"
        t_is "$(stat -c %u "$L" 2>&1)" 0 "$L exists and belongs to root"
        t_is "$(probe_other write "$L")" EACCES "$U cannot open $L for writing"
        t_match "$(probe_other unlink "$L")" '^(EACCES|EPERM)$' "$U cannot remove $L"
        t_match "$(probe_other create "/run/botdesk/alloc.lock.iso$$")" '^(EACCES|EPERM)$' \
                "$U cannot create a file in /run/botdesk (so cannot replace the lock)"
        t_is "$(stat -c %u "$L" 2>&1)" 0 "$L still belongs to root"
else
        L=$RB/alloc.lock
        t_diag "no root-owned /run/botdesk: each user's allocation lock is in its own runtime dir"
        t_match "$(stat -c '%u %F' "$L" 2>&1)" '^0 regular (empty )?file$' "root's lock is $L, a file of root"
        t_is "$(stat -c %u "$UT/run/botdesk/alloc.lock" 2>&1)" "$UUID" \
                "$U's lock is its own, in its own runtime dir"
        t_is "$(probe_other write "$L")" EACCES "$U cannot open root's $L for writing"
        t_is "$(probe_other unlink "$L")" EACCES "$U cannot remove root's $L"
        t_is "$(probe_other create "$RB/alloc.lock.iso$$")" EACCES "$U cannot create a file next to it (no replacement)"
fi

# ---- the dock's browser, running: DevTools only on a 0600 socket ------------------------------

# Started the way the dock does (through botdesk-browser), inside root's
# desktop with botdesk exec, by a caller whose environment holds credentials:
# the checks below then cover a running browser's sockets and environment.
BROWSER_PID=
if command -v chromium >/dev/null 2>&1 && [ -x "$BD_BUILD_DIR/helper/botdesk-browser" ]; then
        AWS_SECRET_ACCESS_KEY=x GITHUB_TOKEN=y DB_PASSWORD=z MY_SECRET=w \
                "$BOTDESK" exec "$P" -- "$BD_BUILD_DIR/helper/botdesk-browser" --cdp-socket="$RT/cdp.sock" -- \
                "$(command -v chromium)" --headless --no-sandbox --disable-gpu --disable-background-networking \
                --disable-component-update --disable-sync --no-first-run --user-data-dir="$BD_T/browser-profile" \
                about:blank >"$BD_T/out/browser.out" 2>"$BD_T/out/browser.err" &
        BROWSER_PID=$!
        bd_own_pid "$BROWSER_PID"
        # Bounded: the launcher binds its socket within 30 s, and the browser
        # has its helper processes (zygote, renderer) within 10 s more.
        for _ in $(seq 300); do
                [ -S "$RT/cdp.sock" ] && break
                sleep 0.1
        done
        for _ in $(seq 100); do
                [ "$(descendants "$BROWSER_PID" | wc -l)" -ge 2 ] && break
                sleep 0.1
        done
        t_ok "root's dock browser runs, serving DevTools on $RT/cdp.sock" test -S "$RT/cdp.sock"
        t_is "$(stat -c %a "$RT/cdp.sock" 2>&1)" 600 "the DevTools socket is 0600"
        t_is "$(probe_other connect "$RT/cdp.sock")" EACCES "$U cannot connect to root's DevTools socket (EACCES)"
else
        t_skip "a running dock browser" "chromium or botdesk-browser not available"
fi

# ---- no TCP listener, no credentials -----------------------------------------------------------

RPIDS=$(r_desktop_pids)
UPIDS=$(u_desktop_pids)
RH=$(rec_get "$P" PID)
t_diag "root's desktop: $(echo $RPIDS) [$(comms_of $RPIDS)]" "$U's desktop: $(echo $UPIDS) [$(comms_of $UPIDS)]"

for who in root "$U"; do
        if [ "$who" = root ]; then pids=$RPIDS helper=$RH; else pids=$UPIDS helper=$U_PID; fi
        children=$(for p in $pids; do [ "$p" = "$helper" ] || echo "$p"; done)
        comms=$(comms_of $children)
        ok=1
        want="X dbus-daemon sleep"
        [ "$who" = root ] && [ -n "$BROWSER_PID" ] && want="$want botdesk-browser chromium"
        for c in $want; do
                case " $comms" in *" $c"*) ;; *) ok= ;; esac
        done
        if [ -n "$ok" ]; then t_pass "$who's desktop: the helper's children are found ($comms)"; else
                t_fail "$who's desktop: the helper's children are found" "comms: $comms (want $want)"; fi
        inodes=$(socket_inodes_of $pids | wc -l)
        l=$(tcp_listeners_of $pids)
        if [ "$inodes" -gt 0 ] && [ -z "$l" ]; then
                t_pass "$who's desktop: no TCP socket in LISTEN state among its $inodes sockets"
        else
                t_fail "$who's desktop: no TCP socket in LISTEN state" "listening: $l" "sockets seen: $inodes"
        fi
        env_leaks $children
        if [ "$ENV_READ" -ge 3 ] && [ -z "$LEAKS" ]; then
                t_pass "$who's desktop: none of $SECRETS in the environment of its $ENV_READ processes"
        else
                t_fail "$who's desktop: no caller credential in the environment of its processes" \
                        "environs read: $ENV_READ" "leaks:$LEAKS"
        fi
        # The helper itself (the supervisor) is not one of the desktop's programs; say what it carries.
        if [ -n "$helper" ]; then
                env_leaks "$helper"
                t_diag "$who's helper $helper itself (supervisor, not checked) carries:${LEAKS:- none of them}"
        fi
done

# ---- stop both, nothing left -------------------------------------------------------------------

bd_stop "$P"
t_is "$?" 0 "root's desktop stops"
as_user timeout 60 "$BOTDESK" stop "$PU" >"$BD_T/out/$PU.stop.out" 2>"$BD_T/out/$PU.stop.err" &
wait $!
t_is "$?" 0 "$U's desktop stops"
alive=
for p in $RPIDS $UPIDS; do proc_alive "$p" && alive="$alive $p"; done
t_is "$alive" "" "every process either desktop had is gone"
[ -n "$alive" ] && t_diag "$(describe_pids $alive)"
left="$(r_desktop_pids) $(u_desktop_pids)"
t_is "$(echo $left)" "" "no process of either desktop remains (cgroup, token, X server, helper)"
for n in $N $UN; do
        t_ok "display :$n is free again" display_unused "$n"
done

t_done
