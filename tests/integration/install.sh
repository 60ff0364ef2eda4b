#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# botdesk install: the exact package manager command for what is missing,
# run with sudo and the package manager from the system PATH (here a
# fixture dir, named by the host-wide [install] system_path), never the
# caller's; the command shown first and its output streamed as it comes;
# one install at a time; a deadline that kills the package manager's group;
# and the sudo paths: none on the host, no password, a password on stdin fed
# once, a wrong one. Fake apt-get and sudo record what they were asked;
# nothing is really installed. (Root never uses sudo: the sudo paths run in
# the unprivileged variant.) A botdesk watch started before the installs
# gets each one's lines as install events, in order, then install_done
# with the package manager's exit status; one started midway gets the
# running install from its first line; a watch of one profile follows them too.
set -u
SRC=${BOTDESK_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
BOTDESK=${BOTDESK_BUILD_DIR:-$SRC/build}/helper/botdesk
T=$(mktemp -d)
BG= WATCH= WATCH_TEXT= WATCH_LATE= WATCH_ONE=
cleanup() {
        # Our own background install and watches, by pid (the fakes end by themselves).
        for pid in $BG $WATCH $WATCH_TEXT $WATCH_LATE $WATCH_ONE; do kill "$pid" 2>/dev/null; done
        rm -rf -- "${T:?}"
}
trap cleanup EXIT
n=0 failed=0
# ok STATUS DESCRIPTION: fails (so that `|| diag` shows why) when STATUS is not 0.
ok() { n=$((n + 1)); if [ "$1" = 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; failed=1; fi; [ "$1" = 0 ]; }
diag() { sed 's/^/# /' "$@"; }
# alive PID: running, not a zombie (one killed whose parent, maybe init, has not reaped it yet).
alive() { local st; st=$(sed -n 's/^State:[[:space:]]*\(.\).*/\1/p' "/proc/$1/status" 2>/dev/null); [ -n "$st" ] && [ "$st" != Z ]; }

chmod 700 "$T"
mkdir -m 700 "$T/run"
mkdir "$T/sys" "$T/none" "$T/evil"
# Where the fakes live, named by [install] system_path. It must come from a
# file owned by root: as root that is the test's own; unprivileged, the one
# as-user.sh wrote as root (BOTDESK_TEST_SYSTEM_CONFIG), naming a directory
# of ours. Without it the sudo paths cannot be played here (root's run of
# this script plays them as another user's would be).
SYS=$T/sys SYSCFG=
if [ "$(id -u)" != 0 ] && [ -n "${BOTDESK_TEST_SYSTEM_CONFIG:-}" ] &&
   [ "$(stat -c %u "$BOTDESK_TEST_SYSTEM_CONFIG" 2>/dev/null)" = 0 ]; then
        SYSCFG=$BOTDESK_TEST_SYSTEM_CONFIG
        SYS=$(sed -n 's/^system_path = //p' "$SYSCFG")
fi
export XDG_RUNTIME_DIR=$T/run BOTDESK_CONFIG=$T/botdesk.ini
unset XDG_CONFIG_HOME
export HOME=$T

# The package manager: records its arguments and pid; $T/mode makes it hang,
# wait for $T/go (bounded: 20 s), or fail.
cat >"$SYS/apt-get" <<EOF
#!/bin/sh
PATH=/usr/bin:/bin
echo "\$@" >"$T/apt-args"
echo \$\$ >"$T/apt-pid"
echo "\$LC_ALL" >"$T/apt-lc"
# What it was given on stdin (not a terminal's: that would wait for a key).
[ -t 0 ] || timeout 5 cat >"$T/apt-stdin"
echo "fake apt-get: first line"
case \$(cat "$T/mode" 2>/dev/null) in
hang) exec sleep 1000 ;;
stubborn) trap '' TERM; sleep 1000 & echo \$! >"$T/apt-child"; wait ;;
wait) i=0; while [ ! -e "$T/go" ] && [ \$i -lt 400 ]; do sleep 0.05; i=\$((i + 1)); done ;;
fail) echo "E: fake failure" >&2; exit 100 ;;
esac
echo "fake apt-get: last line"
EOF
# sudo: -n fails unless $T/nopasswd exists; -S reads one line, which must be "secret".
cat >"$T/sudo.fake" <<EOF
#!/bin/sh
PATH=/usr/bin:/bin
printf '%s\n' "\$*" >"$T/sudo-args"
nonint=0 stdin=0
while [ \$# -gt 0 ]; do
        case \$1 in
        -n) nonint=1; shift ;;
        -S) stdin=1; shift ;;
        -p) shift 2 ;;
        --) shift; break ;;
        *) break ;;
        esac
done
if [ ! -e "$T/nopasswd" ]; then
        if [ \$nonint = 1 ]; then echo "sudo: a password is required" >&2; exit 1; fi
        [ \$stdin = 1 ] || { echo "sudo: a terminal is required" >&2; exit 1; }
        IFS= read -r pw || pw=
        echo "\$pw" >>"$T/sudo-pw"
        [ "\$pw" = secret ] || { echo "Sorry, try again." >&2; echo "sudo: no password was provided" >&2; exit 1; }
fi
exec "\$@"
EOF
# What the caller's PATH offers must never run.
printf '#!/bin/sh\ntouch %s/evil-ran\n' "$T" >"$T/evil/sudo"
cp "$T/evil/sudo" "$T/evil/apt-get"
chmod +x "$SYS/apt-get" "$T/sudo.fake" "$T/evil/sudo" "$T/evil/apt-get"
# What a desktop needs to start, then the everyday programs (terminal, file manager, editor, fonts, X's
# utilities); the fonts are a file of the host's, looked for as such (present on most hosts).
pkgs="tigervnc-standalone-server xfwm4 xfce4-panel xfdesktop4 xfce4-settings dbus-daemon x11-xkb-utils"
pkgs+=" xfce4-terminal thunar mousepad"
[ -e /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf ] || [ -e /usr/share/fonts/dejavu-sans-fonts/DejaVuSans.ttf ] ||
        [ -e /usr/share/fonts/TTF/DejaVuSans.ttf ] || pkgs+=" fonts-dejavu-core"
pkgs+=" x11-utils x11-xserver-utils"
want="install --no-install-recommends -y $pkgs"

config() { printf '[install]\nsystem_path = %s\n' "$1" >"$BOTDESK_CONFIG"; }
# install ARGS...: with the caller's PATH holding only the evil twins (so
# every required program is missing), bounded, output in $T/out.
install() { timeout 60 env PATH=$T/evil "$BOTDESK" install "$@" >"$T/out" 2>&1; }
# install_events FILE: a botdesk watch --json output's install events as
# "install:LINE" and "install_done:N", one a line (other events left out).
install_events() {
        python3 -c '
import json, sys
for l in open(sys.argv[1]):
    d = json.loads(l)
    if d["event"] == "install":
        print("install:" + d["line"])
    elif d["event"] == "install_done":
        print("install_done:%d" % d["exit"])' "$1"
}
# wait_text FILE TEXT: bounded (10 s), until the watch writing FILE has written TEXT (grep, not a
# parse: cheap enough to ask ten times a second; what arrived is then checked through install_events).
wait_text() {
        for ((i = 0; i < 100; i++)); do
                grep -qF -- "$2" "$1" 2>/dev/null && return 0
                sleep 0.1
        done
        echo "# waited 10 s for $2 in $1"
        return 1
}
# last_install FILE: the events of the last install that ended, joined by " | ".
last_install() {
        install_events "$1" | python3 -c '
import sys
runs, cur = [], []
for l in sys.stdin.read().splitlines():
    cur.append(l)
    if l.startswith("install_done:"):
        runs.append(cur)
        cur = []
print(" | ".join(runs[-1]) if runs else "")'
}
reset() { rm -f "$T/apt-stdin" "$T/apt-args" "$T/apt-lc" "$T/apt-pid" "$T/apt-child" "$T/sudo-args" "$T/sudo-pw" "$T/mode" "$T/go" "$T/nopasswd"; }

if [ "$(id -u)" = 0 ]; then
        config "$T/none"
        install --yes </dev/null
        ok $(($? == 1 ? 0 : 1)) "without a package manager on the system PATH install exits 1"
        grep -q "No supported package manager" "$T/out"
        ok $? "... and says to use the distribution's tooling"
        ok $([ ! -e "$T/evil-ran" ]; echo $?) "... and never runs the apt-get on the caller's PATH"

        printf '[install]\nsystem_path = relative/dir\n' >"$BOTDESK_CONFIG"
        install --yes </dev/null
        ok $(($? == 2 ? 0 : 1)) "a relative system_path is a configuration error (2)"
        grep -q "botdesk.ini:2: .*system_path.*not an absolute directory" "$T/out"
        ok $? "... naming the file and line"
        mkdir -p "$T/cfg/botdesk"
        printf '[install]\nsystem_path = %s\n' "$T/evil" >"$T/cfg/botdesk/botdesk.ini"
        config "$SYS"
        timeout 60 env PATH=$T/evil XDG_CONFIG_HOME=$T/cfg "$BOTDESK" install --yes </dev/null >"$T/out" 2>&1
        ok $(($? == 2 ? 0 : 1)) "system_path in the user's own file is refused: it is host-wide"
        rm -rf -- "${T:?}/cfg"
else
        # BOTDESK_CONFIG names any file: one the caller (or whoever set the
        # variable) owns must not pick the sudo that gets the password.
        config "$T/evil"
        install --yes --password-stdin <<<secret
        ok $(($? == 2 ? 0 : 1)) "a BOTDESK_CONFIG of the user's own naming system_path is refused (2)"
        grep -q "botdesk.ini:2: 'system_path' may only be set in a file owned by root" "$T/out"
        ok $? "... saying it must be root's file, with the file and line" || diag "$T/out"
        ok $([ ! -e "$T/evil-ran" ]; echo $?) "... and the sudo it named never ran"
        if [ -z "$SYSCFG" ]; then
                echo "# the sudo paths need a system_path from a root-owned file (as-user.sh writes one when run as root)"
                echo "1..$n"
                exit $failed
        fi
        export BOTDESK_CONFIG=$SYSCFG
fi

if [ "$(id -u)" != 0 ]; then
        install --yes </dev/null
        ok $(($? == 3 ? 0 : 1)) "unprivileged without sudo on the system PATH, install is refused (3)"
        grep -q "No sudo on this host; run as root: $SYS/apt-get $want" "$T/out"
        ok $? "... saying to run it as root, with the command" || diag "$T/out"
        ok $([ ! -e "$T/evil-ran" ]; echo $?) "... and the caller's sudo did not run"
        cp "$T/sudo.fake" "$SYS/sudo"
fi

reset
install </dev/null
ok $(($? == 2 ? 0 : 1)) "not on a terminal and without --yes, install exits 2"
grep -q -- "--yes" "$T/out"
ok $? "... and names --yes"
ok $([ ! -e "$T/apt-args" ] && [ ! -e "$T/sudo-args" ]; echo $?) "... and ran nothing"

# ---- a run that works, streamed -----------------------------------------------------------------
# Watches of every profile (there are none here), started before the
# install: they follow it through the runtime base. Bounded by timeout;
# killed by pid once the failing install below has been seen.
timeout 300 "$BOTDESK" watch --json >"$T/watch" 2>"$T/watch.err" &
WATCH=$!
timeout 300 "$BOTDESK" watch >"$T/watch-text" 2>&1 &
WATCH_TEXT=$!
reset
[ "$(id -u)" = 0 ] || touch "$T/nopasswd"
echo wait >"$T/mode"
timeout 60 env PATH=$T/evil LC_ALL=POSIX "$BOTDESK" install --yes </dev/null >"$T/out" 2>&1 &
BG=$!
# Test-side wait, bounded (10 s): the first line arrives while apt-get still runs.
for ((i = 0; i < 200; i++)); do grep -q "first line" "$T/out" 2>/dev/null && break; sleep 0.05; done
grep -q "fake apt-get: first line" "$T/out" && ! grep -q "last line" "$T/out"
ok $? "the package manager's output is streamed: its first line shows while it still runs" || diag "$T/out"
wait_text "$T/watch" '"fake apt-get: first line"' && ! grep -q "last line" "$T/watch" &&
        install_events "$T/watch" | grep -qxF "install:fake apt-get: first line"
followed=$?
ok $followed "watch --json shows the install's first line as an install event while the package manager still runs" ||
        diag "$T/watch" "$T/watch.err"
# Started now, after that line: it shows the running install from its first line. (Not waited
# for when the first watch saw nothing: the fake apt-get waits for us 20 s at most.)
timeout 300 "$BOTDESK" watch --json >"$T/watch-late" 2>&1 &
WATCH_LATE=$!
[ "$followed" = 0 ] && wait_text "$T/watch-late" '"fake apt-get: first line"' &&
        install_events "$T/watch-late" | grep -qxF "install:fake apt-get: first line"
ok $? "a watch started midway shows the running install from its first line" || diag "$T/watch-late"

# One at a time: a second install meanwhile is refused.
timeout 60 env PATH=$T/evil "$BOTDESK" install --yes </dev/null >"$T/out2" 2>&1
ok $(($? == 3 ? 0 : 1)) "a second install while one runs is refused with 3"
grep -q "An install is already running" "$T/out2"
ok $? "... saying an install is already running" || diag "$T/out2"
touch "$T/go"
wait "$BG"
rc=$?
BG=
ok "$rc" "the first install exits 0 once the package manager is done" || diag "$T/out"
if [ "$(id -u)" = 0 ]; then cmd="$SYS/apt-get $want"; else cmd="$SYS/sudo -n -- $SYS/apt-get $want"; fi
[ "$(head -n1 "$T/out")" = "+ $cmd" ]
ok $? "the command is shown first: + $cmd" || diag "$T/out"
[ "$(cat "$T/apt-args" 2>/dev/null)" = "$want" ]
ok $? "apt-get got exactly: $want"
[ "$(cat "$T/apt-lc" 2>/dev/null)" = C.UTF-8 ]
ok $? "... with LC_ALL=C.UTF-8, whatever the caller's locale"
grep -q "fake apt-get: last line" "$T/out" && grep -q "^Installed: $pkgs$" "$T/out"
ok $? "... its output came through to the end, and install says what it installed"
ok $([ ! -e "$T/evil-ran" ]; echo $?) "nothing from the caller's PATH ran"
wait_text "$T/watch" '"install_done"'
got=$(last_install "$T/watch")
[ "$got" = "install:fake apt-get: first line | install:fake apt-get: last line | install_done:0" ]
ok $? "watch --json: the install's lines in order, then install_done with exit 0 (got: $got)" || diag "$T/watch"
wait_text "$T/watch-late" '"install_done"' && [ "$(last_install "$T/watch-late")" = "$got" ]
ok $? "... and the watch started midway shows the same" || diag "$T/watch-late"
kill "$WATCH_LATE" 2>/dev/null
wait "$WATCH_LATE" 2>/dev/null
WATCH_LATE=
# Text mode: one line each, "TIME install: LINE" and "TIME install done, exit N" (bounded: 10 s).
for ((i = 0; i < 100; i++)); do grep -q " install done, exit 0$" "$T/watch-text" && break; sleep 0.1; done
grep -q "Z install: fake apt-get: first line$" "$T/watch-text" && grep -q "Z install: fake apt-get: last line$" "$T/watch-text" &&
        grep -q "Z install done, exit 0$" "$T/watch-text"
ok $? "watch without --json prints the install's lines and its end, one line each" || diag "$T/watch-text"
kill "$WATCH_TEXT" 2>/dev/null
wait "$WATCH_TEXT" 2>/dev/null
WATCH_TEXT=
if [ "$(id -u)" = 0 ]; then
        PATH=$SYS "$BOTDESK" doctor --json >"$T/doctor" 2>&1
        python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(d["install_command"] != "apt-get " + sys.argv[2])' \
                "$T/doctor" "$want"
        ok $? "doctor --json shows the same command, without sudo as root"
fi

# ---- on a terminal: it asks first ----------------------------------------------------------------
# A pty of python's own answers the question (bounded: 30 s).
cat >"$T/answer-prompt.py" <<'PYEOF'
import os, pty, select, sys, time
answer, argv = sys.argv[1], sys.argv[2:]
pid, fd = pty.fork()
if pid == 0:
    os.execvp(argv[0], argv)
buf, answered, deadline = b"", False, time.time() + 30
while time.time() < deadline:
    if select.select([fd], [], [], 0.5)[0]:
        try:
            d = os.read(fd, 4096)
        except OSError:
            break
        if not d:
            break
        buf += d
        if not answered and b"[y/N]" in buf:
            os.write(fd, answer.encode() + b"\n")
            answered = True
    elif answered and os.waitpid(pid, os.WNOHANG)[0]:
        break
else:
    os.kill(pid, 9)
_, status = os.waitpid(pid, 0)
sys.stdout.write(buf.decode(errors="replace"))
print("exit %d" % os.waitstatus_to_exitcode(status))
PYEOF
for answer in n y; do
        reset
        [ "$(id -u)" = 0 ] || touch "$T/nopasswd"
        python3 "$T/answer-prompt.py" "$answer" env PATH="$T/evil" "$BOTDESK" install >"$T/out" 2>&1
        if [ "$answer" = n ]; then
                grep -q "Run .*$SYS/apt-get $want? \[y/N\]" "$T/out" && grep -q "Nothing installed" "$T/out" &&
                        grep -q "^exit 1" "$T/out" && [ ! -e "$T/apt-args" ]
                ok $? "on a terminal install asks, and a no installs nothing (exit 1)" || diag "$T/out"
        else
                grep -q "^exit 0" "$T/out" && [ "$(cat "$T/apt-args" 2>/dev/null)" = "$want" ]
                ok $? "... and a yes runs apt-get $want" || diag "$T/out"
        fi
done

# ---- the deadline -------------------------------------------------------------------------------
reset
[ "$(id -u)" = 0 ] || touch "$T/nopasswd"
echo hang >"$T/mode"
t0=$SECONDS
install --yes --timeout 1 </dev/null
rc=$?
ok $((rc == 1 ? 0 : 1)) "a package manager that never ends is stopped at --timeout (exit 1)"
ok $([ $((SECONDS - t0)) -lt 15 ]; echo $?) "... within the timeout and its grace ($((SECONDS - t0)) s)"
grep -q "did not finish within 1 s" "$T/out" && grep -q "may still hold its lock" "$T/out"
ok $? "... saying so, and that the package manager may still hold its lock" || diag "$T/out"
pid=$(cat "$T/apt-pid" 2>/dev/null)
ok $([ -n "$pid" ] && ! alive "$pid"; echo $?) "... and its process group was killed (pid ${pid:-?} is gone)"
# Left behind only when that failed: our fake's sleep, checked by its command line before it is signalled.
[ -n "$pid" ] && [ "$(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null)" = "sleep 1000 " ] && kill "$pid"

# One that ignores SIGTERM, with a child of its own: SIGKILL follows, for the whole group.
reset
[ "$(id -u)" = 0 ] || touch "$T/nopasswd"
echo stubborn >"$T/mode"
t0=$SECONDS
install --yes --timeout 1 </dev/null
ok $(($? == 1 ? 0 : 1)) "a package manager that ignores SIGTERM is still stopped (exit 1)"
ok $([ $((SECONDS - t0)) -lt 15 ]; echo $?) "... within the timeout and the SIGKILL grace ($((SECONDS - t0)) s)"
pid=$(cat "$T/apt-pid" 2>/dev/null) child=$(cat "$T/apt-child" 2>/dev/null)
ok $([ -n "$pid" ] && [ -n "$child" ] && ! alive "$pid" && ! alive "$child"; echo $?) \
        "... it and its child are gone (pids ${pid:-?} ${child:-?}): the group was killed"
[ -n "$child" ] && [ "$(tr '\0' ' ' <"/proc/$child/cmdline" 2>/dev/null)" = "sleep 1000 " ] && kill -9 "$child"
[ -n "$pid" ] && grep -q "$SYS/apt-get" "/proc/$pid/cmdline" 2>/dev/null && kill -9 "$pid"

reset
[ "$(id -u)" = 0 ] || touch "$T/nopasswd"
echo fail >"$T/mode"
# A watch of one profile follows installs too; its first line (the profile's state) says it is up.
timeout 300 "$BOTDESK" watch demo --json >"$T/watch-one" 2>&1 &
WATCH_ONE=$!
wait_text "$T/watch-one" '"event": "state"'
install --yes </dev/null
ok $(($? == 1 ? 0 : 1)) "a failing package manager makes install exit 1"
grep -q "E: fake failure" "$T/out" && grep -q "apt-get failed (exit 100)" "$T/out"
ok $? "... its error shown, and its exit status named" || diag "$T/out"
# The watch started before the first install is still following: this one replaced the file.
wait_text "$T/watch" '"exit": 100'
got=$(last_install "$T/watch")
[ "$got" = "install:fake apt-get: first line | install:E: fake failure | install_done:100" ]
ok $? "watch --json: a failing install's lines, its stderr among them, then install_done with exit 100 (got: $got)" ||
        diag "$T/watch" "$T/watch.err"
wait_text "$T/watch-one" '"exit": 100' && [ "$(last_install "$T/watch-one")" = "$got" ]
ok $? "... and so does a watch of one profile, started just before it" || diag "$T/watch-one"
kill "$WATCH_ONE" 2>/dev/null
wait "$WATCH_ONE" 2>/dev/null
WATCH_ONE=
# An install killed before it could write its end: its lock goes with it, and the watch ends it itself.
reset
[ "$(id -u)" = 0 ] || touch "$T/nopasswd"
echo wait >"$T/mode"
before=$(grep -c '"fake apt-get: first line"' "$T/watch")
env PATH=$T/evil "$BOTDESK" install --yes </dev/null >"$T/out" 2>&1 &
BG=$!
# Test-side wait, bounded (10 s): this install's first line in the watch.
for ((i = 0; i < 100; i++)); do
        [ "$(grep -c '"fake apt-get: first line"' "$T/watch")" -gt "$before" ] && break
        sleep 0.1
done
kill -KILL "$BG"
wait "$BG" 2>/dev/null
BG=
wait_text "$T/watch" '"exit": -1'
got=$(last_install "$T/watch")
[ "$got" = "install:fake apt-get: first line | install_done:-1" ]
ok $? "a killed install: the watch ends it with install_done, exit -1, once its lock is gone (got: $got)" ||
        diag "$T/watch"
touch "$T/go"   # the orphaned fake apt-get ends by itself now (it waits 20 s at most)
python3 -c 'import json,sys; [json.loads(l) for l in open(sys.argv[1])]' "$T/watch" && [ ! -s "$T/watch.err" ]
ok $? "... every line the watch wrote is one JSON object, and it said nothing on stderr" || diag "$T/watch" "$T/watch.err"
kill "$WATCH" 2>/dev/null
wait "$WATCH" 2>/dev/null
WATCH=

# ---- sudo and the password (unprivileged only) ----------------------------------------------------
if [ "$(id -u)" != 0 ]; then
        reset
        install --yes </dev/null
        ok $(($? == 1 ? 0 : 1)) "sudo needs a password, there is no terminal and no --password-stdin: exit 1"
        grep -q "Cancelled: no password" "$T/out"
        ok $? "... cancelled: no password" || diag "$T/out"
        ok $([ ! -e "$T/apt-args" ]; echo $?) "... and the package manager never ran"

        reset
        install --password-stdin </dev/null
        ok $(($? == 2 ? 0 : 1)) "--password-stdin without --yes is a usage error (2)"

        reset
        echo | install --yes --password-stdin
        ok $(($? == 1 ? 0 : 1)) "--password-stdin with an empty line: exit 1"
        grep -q "Cancelled: no password" "$T/out"
        ok $? "... cancelled: no password"
        ok $([ ! -e "$T/sudo-args" ]; echo $?) "... and sudo never ran"

        reset
        printf 'secret\nnot-for-sudo\n' | install --yes --password-stdin
        ok $? "the password on stdin gets the install done" || diag "$T/out"
        [ "$(cat "$T/sudo-args" 2>/dev/null)" = "-S -p  -- $SYS/apt-get $want" ]
        ok $? "... through sudo -S with an empty prompt, the password on no command line"
        [ "$(cat "$T/sudo-pw" 2>/dev/null)" = secret ]
        ok $? "... sudo read it exactly once"
        [ "$(cat "$T/apt-args" 2>/dev/null)" = "$want" ]
        ok $? "... and apt-get got $want"
        ! grep -q secret "$T/out"
        ok $? "... and the password is not in the output"

        # A sudo that needs no password never reads the line: it must not be left for the package manager.
        reset
        touch "$T/nopasswd"
        printf 'secret\n' | install --yes --password-stdin
        ok $? "with a sudo that needs no password, --password-stdin still gets the install done" || diag "$T/out"
        [ -e "$T/apt-stdin" ] && ! grep -q secret "$T/apt-stdin"
        ok $? "... and the package manager's stdin is its own: the password line is not in it" || diag "$T/apt-stdin"
        [ "$(cat "$T/sudo-args" 2>/dev/null)" = "-n -- $SYS/apt-get $want" ]
        ok $? "... sudo ran it with -n: nothing was fed to it" || diag "$T/sudo-args"

        reset
        head -c 2000 /dev/zero | tr '\0' x | install --yes --password-stdin
        ok $(($? == 1 ? 0 : 1)) "a password line longer than 1024 bytes: exit 1"
        ok $([ ! -e "$T/sudo-args" ] && [ ! -e "$T/apt-args" ]; echo $?) "... and neither sudo nor apt-get ran"

        reset
        echo wrong | install --yes --password-stdin
        ok $(($? == 1 ? 0 : 1)) "a wrong password: exit 1"
        grep -q "did not accept the password" "$T/out" && grep -q "Sorry, try again" "$T/out"
        ok $? "... sudo's own words shown, and install says the password may be why" || diag "$T/out"
        [ "$(wc -l <"$T/sudo-pw")" = 1 ]
        ok $? "... sudo was fed the password once, not asked again"
        ok $([ ! -e "$T/apt-args" ]; echo $?) "... and apt-get never ran"
fi
echo "1..$n"
exit $failed
