# SPDX-License-Identifier: LGPL-2.1-or-later
# Shared by the integration tests (bash, sourced). Each test gets a private
# environment (temporary dir, XDG_RUNTIME_DIR 0700, state, config), TAP
# helpers, process inspection by cgroup / token / command line (never by
# name), and a cleanup trap that stops every profile it started and then kills
# what is left of *those* desktops only.
#
#   . "$(dirname "$0")/lib.sh"
#   bd_init TAG BAND_BASE [once] # TAG: short profile prefix, BAND_BASE: first of 5 numbers
#   bd_need_xserver              # 1..0 # SKIP when Xvnc is not installed
#   bd_config [key=value ...]    # desktop command settle timeout band min_free spares
#   P=$(bd_profile a); bd_start "$P"; ...; t_done

set -u

# ---- locations ---------------------------------------------------------------------------------

BD_LIB_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
BD_SOURCE_DIR=${BOTDESK_SOURCE_DIR:-$(cd "$BD_LIB_DIR/../.." && pwd)}
BD_BUILD_DIR=${BOTDESK_BUILD_DIR:-$BD_SOURCE_DIR/build}
BOTDESK=$BD_BUILD_DIR/helper/botdesk
BD_HELPER=$BD_BUILD_DIR/helper/botdesk-helper
BD_VARIANT=${BOTDESK_TEST_VARIANT:-main}
BD_UID=$(id -u)

# The parts of this library, one concern each.
. "$BD_LIB_DIR/lib-procs.sh"
. "$BD_LIB_DIR/lib-web.sh"
. "$BD_LIB_DIR/lib-engine.sh"

# ---- TAP ---------------------------------------------------------------------------------------

T_N=0
T_FAILED=0
T_PLANNED=0

t_diag() {
        local line
        while IFS= read -r line; do printf '# %s\n' "$line"; done <<<"$*"
}

t_pass() {
        T_N=$((T_N + 1))
        printf 'ok %d - %s\n' "$T_N" "$1"
}

# t_fail DESCRIPTION [DIAGNOSTIC...]: returns 1, as every check that
# fails does, so `t_is ... || { more diagnostics; t_done; }` runs them.
t_fail() {
        T_N=$((T_N + 1))
        T_FAILED=$((T_FAILED + 1))
        printf 'not ok %d - %s\n' "$T_N" "$1"
        shift
        local d
        for d in "$@"; do t_diag "$d"; done
        return 1
}

# t_ok DESCRIPTION CMD... : ok when CMD succeeds. CMD's output goes to
# stderr: stdout is the TAP stream.
t_ok() {
        local desc=$1
        shift
        if "$@" >&2; then t_pass "$desc"; else t_fail "$desc" "failed: $*"; fi
}

# t_is GOT WANT DESCRIPTION
t_is() {
        if [ "$1" = "$2" ]; then t_pass "$3"; else t_fail "$3" "got:  '$1'" "want: '$2'"; fi
}

# t_isnt GOT NOTWANT DESCRIPTION
t_isnt() {
        if [ "$1" != "$2" ]; then t_pass "$3"; else t_fail "$3" "got '$1', which it must not be"; fi
}

# t_match TEXT EXTENDED-REGEX DESCRIPTION
t_match() {
        if printf '%s' "$1" | grep -Eq -- "$2"; then t_pass "$3"; else t_fail "$3" "'$1'" "does not match /$2/"; fi
}

# CI installs everything a test needs (scripts/install-deps.sh --tests): under
# CI=true a test that cannot run for want of something fails instead of
# skipping. t_skip_all_host is for what no machine of this kind can provide;
# each caller says why.
t_under_ci() { [ "${CI:-}" = true ]; }

t_skip_all() {
        T_PLANNED=1
        if t_under_ci; then
                t_fail "the test runs" "skipped ($1), which CI=true does not allow: scripts/install-deps.sh --tests must provide it"
                printf '1..%d\n' "$T_N"
                exit 1
        fi
        printf '1..0 # SKIP %s\n' "$1"
        exit 0
}

t_skip_all_host() {
        printf '1..0 # SKIP %s\n' "$1"
        T_PLANNED=1
        exit 0
}

# t_skip DESCRIPTION REASON: one check that cannot run here (fails under CI, as t_skip_all).
t_skip() {
        if t_under_ci; then
                t_fail "$1" "skipped ($2), which CI=true does not allow: scripts/install-deps.sh --tests must provide it"
        else
                t_pass "$1 # SKIP $2"
        fi
}

t_done() {
        # The spare variant means nothing unless its starts adopt.
        if [ "$BD_VARIANT" = spare ] && [ -n "${BD_T:-}" ]; then
                if [ -s "$BD_T/adopted" ]; then
                        t_pass "starts adopted spares ($(wc -l <"$BD_T/adopted") profiles)"
                else
                        t_fail "starts adopted spares" "no start of this test adopted one: it does not belong in the spare variant"
                fi
        fi
        printf '1..%d\n' "$T_N"
        T_PLANNED=1
        [ "$T_FAILED" -eq 0 ] && exit 0
        exit 1
}

# ---- environment -------------------------------------------------------------------------------

# bd_private_run "$@": as root, the script again in a private mount
# namespace with an empty tmpfs over /run, so that what it does to root's
# /run/botdesk (its allocation lock, claims, start queue) is its own and no
# parallel test's; nothing for another user. Before bd_init.
bd_private_run() {
        [ "$(id -u)" = 0 ] || return 0
        if [ "${BOTDESK_PRIVATE_RUN:-}" != 1 ]; then
                command -v unshare >/dev/null 2>&1 || t_skip_all "unshare not installed"
                export BOTDESK_PRIVATE_RUN=1
                exec unshare --mount --propagation private -- bash "$0" "$@"
        fi
        mount -t tmpfs -o mode=0755,size=1m botdesk-test-run /run ||
                t_skip_all "cannot mount a tmpfs on /run in a private mount namespace"
}

# bd_init TAG BAND_BASE [once]
# "once": the script runs in the main variant only, so it holds BAND_BASE..+4
# alone (tests/unit/test-bands.sh counts no user or spare band for it).
bd_init() {
        local shift=0
        BD_TAG=$1
        if [ "${3:-}" = once ] && [ "$BD_VARIANT" != main ]; then
                t_fail "the test runs in the $BD_VARIANT variant" "bd_init ... once: its bands are counted for the main variant only"
                printf '1..%d\n' "$T_N"
                exit 1
        fi
        [ "$BD_VARIANT" = user ] && shift=100
        # Every start adopts a warm spare (tests/unit/test-bands.sh counts this band too).
        [ "$BD_VARIANT" = spare ] && shift=600
        BD_BAND_MIN=$(($2 + shift))
        BD_BAND_MAX=$((BD_BAND_MIN + 4))

        if [ ! -x "$BOTDESK" ] || [ ! -x "$BD_HELPER" ]; then
                t_skip_all "botdesk binaries not built in $BD_BUILD_DIR"
        fi
        BD_T=$(mktemp -d "${TMPDIR:-/tmp}/botdesk-it.XXXXXX") || t_skip_all "mktemp failed"
        chmod 700 "$BD_T"
        mkdir -m 700 "$BD_T/run" "$BD_T/state" "$BD_T/config" "$BD_T/out"
        : >"$BD_T/profiles"
        : >"$BD_T/records"
        : >"$BD_T/ownpids"
        : >"$BD_T/ownfiles"
        trap bd_cleanup EXIT
        trap 'exit 130' INT TERM HUP

        unset DISPLAY XAUTHORITY WAYLAND_DISPLAY DBUS_SESSION_BUS_ADDRESS SESSION_MANAGER NOTIFY_SOCKET \
              BOTDESK_TOKEN BOTDESK_PROFILE BOTDESK_DISPLAY LISTEN_FDS LISTEN_PID
        export XDG_RUNTIME_DIR=$BD_T/run
        export XDG_STATE_HOME=$BD_T/state
        export XDG_CONFIG_HOME=$BD_T/config
        export BOTDESK_CONFIG=$BD_T/botdesk.ini
        export BOTDESK_HELPER=$BD_HELPER
        export BOTDESK_NS_INIT=$BD_BUILD_DIR/helper/botdesk-ns-init
        export BOTDESK_SKEL_DIR=$BD_SOURCE_DIR/conf/skel
        export LC_ALL=C
        # The system python first: a per-user shim (pyenv) is slow and may not exist for another user.
        if [ -x /usr/bin/python3 ]; then PY=/usr/bin/python3; else PY=$(command -v python3 || true); fi

        bd_cg_parent

        # Meson ends a test that runs out of time with SIGTERM to its process
        # group and SIGKILL half a second later, too soon for the cleanup
        # below: a guard in a session of its own does it once the test is gone.
        setsid bash "$BD_LIB_DIR/guard.sh" "$$" "$BD_T" </dev/null >/dev/null 2>&1 &
        BD_GUARD_PID=$!
}

# proc_has_env PID NAME=VALUE: the process's environment holds exactly that entry.
proc_has_env() { grep -qzxF -- "$2" "/proc/$1/environ" 2>/dev/null; }


# bd_far_cleanup PROFILE FAR_RUNTIME: at exit, before bd_cleanup, stop a
# profile placed through a test's own prefix (a far side under the test's
# dir) through that prefix, then kill by pid what is left of it: the
# processes of the far helper's token (FAR_TOKEN, once the test knows it)
# and those whose command line names a path under FAR_RUNTIME.
bd_far_cleanup() {
        BD_FAR_PROFILE=$1 BD_FAR_RUN=$2 FAR_TOKEN=
        trap bd_far_cleanup_run EXIT
}
bd_far_cleanup_run() {
        local rc=$? pid
        trap - EXIT
        timeout 60 "$BOTDESK" stop --force "$BD_FAR_PROFILE" >/dev/null 2>&1
        for pid in $( { [ -n "$FAR_TOKEN" ] && token_pids "$FAR_TOKEN"; cmdline_pids "$BD_FAR_RUN/"; } | sort -un); do
                kill -KILL "$pid" 2>/dev/null
        done
        (exit $rc)
        bd_cleanup
}

# bd_leak_sweep: every process still carrying this test's XDG_RUNTIME_DIR
# once the cleanup has stopped and killed what it knows of (the test's shell,
# its guard and their children aside) outlived the test: a pid the test
# recorded was not the one that ran (a wrapper's, a subshell's). Each is
# named, then killed by its pid; it fails when there was any.
bd_leak_sweep() {
        local p ppid want="XDG_RUNTIME_DIR=$BD_T/run" key val _ found=0
        for p in /proc/[0-9]*; do
                p=${p#/proc/}
                case $p in "$$" | "$BASHPID" | "${BD_GUARD_PID:-none}") continue ;; esac
                # Killed a moment ago by the cleanup, maybe not yet reaped.
                grep -q "^$p " "$BD_T/ownpids" 2>/dev/null && continue
                proc_has_env "$p" "$want" || continue
                ppid=
                while read -r key val _; do
                        [ "$key" = PPid: ] && { ppid=$val; break; }
                done <"/proc/$p/status" 2>/dev/null
                case $ppid in "" | "$$" | "$BASHPID" | "${BD_GUARD_PID:-none}") continue ;; esac
                printf '# cleanup: process %s (%s) outlived the test; killed\n' "$p" \
                        "$({ tr '\0' ' ' <"/proc/$p/cmdline"; } 2>/dev/null)"
                kill -KILL "$p" 2>/dev/null
                found=$((found + 1))
        done
        [ "$found" -eq 0 ]
}

# Where the helper puts a standalone desktop's cgroup (when it can): BD_CG_PARENT.
bd_cg_parent() {
        local mnt self
        BD_CG_PARENT=
        mnt=$(awk '$0 ~ / - cgroup2 / { print $5; exit }' /proc/self/mountinfo)
        self=$(sed -n 's/^0:://p' /proc/self/cgroup)
        if [ -n "$mnt" ] && [ -n "$self" ]; then
                [ "$self" = / ] && self=
                BD_CG_PARENT=$mnt$self
        fi
}

bd_need_xserver() {
        command -v Xtigervnc >/dev/null 2>&1 || command -v Xvnc >/dev/null 2>&1 ||
                t_skip_all "TigerVNC X server (Xtigervnc/Xvnc) not installed"
        command -v dbus-daemon >/dev/null 2>&1 || t_skip_all "dbus-daemon not installed"
}

bd_need() {
        local p
        for p in "$@"; do
                command -v "$p" >/dev/null 2>&1 || t_skip_all "$p not installed"
        done
}

# bd_input_recorder [KEY_DELAY_US]: a configuration whose desktop is the
# input recorder (REC), which writes what it receives to TEXT and logs every
# event to LOG (bd_recorder_files sets both once the desktop runs); with
# KEY_DELAY_US a slow reader. Skips without python3 or without the recorder
# (a build without input).
bd_input_recorder() {
        [ -n "$PY" ] || t_skip_all "python3 not installed"
        REC=${BOTDESK_INPUT_RECORDER:-$BD_BUILD_DIR/tests/integration/input-recorder}
        [ -x "$REC" ] || t_skip_all "input-recorder not built (botdesk built without input support)"
        # Each desktop its own files (the recorder names them after its
        # display): a warm spare runs the same command.
        bd_config "command=$REC $BD_T/text.DISPLAY $BD_T/log.DISPLAY${1:+ $1}" settle=300
        TEXT=/nonexistent LOG=/nonexistent
}

# bd_recorder_files PROFILE: TEXT and LOG of the recorder on PROFILE's display.
bd_recorder_files() {
        local d
        d=$(sed -n 's/^DISPLAY=//p' "$(bd_rt "$1")/env" 2>/dev/null)
        TEXT=$BD_T/text.$d
        LOG=$BD_T/log.$d
}

# bd_config [desktop=command] [command='sleep infinity'] [settle=200] [timeout=15] [band=MIN-MAX] [min_free=0] [idle=0]
#           [spares=0, 1 in the spare variant]
bd_config() {
        local desktop=command command='sleep infinity' settle=200 timeout=15 band="$BD_BAND_MIN-$BD_BAND_MAX"
        local min_free=0 idle=0 spares=0 checkpointable=no criu= idle_action= kv
        [ "$BD_VARIANT" = spare ] && spares=1
        for kv in "$@"; do
                case $kv in
                desktop=*) desktop=${kv#*=} ;;
                command=*) command=${kv#*=} ;;
                settle=*) settle=${kv#*=} ;;
                timeout=*) timeout=${kv#*=} ;;
                band=*) band=${kv#*=} ;;
                min_free=*) min_free=${kv#*=} ;;
                idle=*) idle=${kv#*=} ;;
                spares=*) spares=${kv#*=} ;;
                checkpointable=*) checkpointable=${kv#*=} ;;
                criu=*) criu=${kv#*=} ;;
                idle_action=*) idle_action=${kv#*=} ;;
                *) echo "bd_config: unknown $kv" >&2; return 1 ;;
                esac
        done
        {
                printf '[display]\nband = %s\ngeometry = 1024x768\n' "$band"
                printf '[session]\ndesktop = %s\n' "$desktop"
                [ "$desktop" = command ] && printf 'command = %s\ncommand_settle_ms = %s\n' "$command" "$settle"
                printf 'start_timeout = %s\nidle_stop_minutes = %s\n' "$timeout" "$idle"
                [ "$checkpointable" = no ] || printf 'checkpointable = %s\n' "$checkpointable"
                [ -z "$criu" ] || printf 'criu = %s\n' "$criu"
                [ -z "$idle_action" ] || printf 'idle_action = %s\n' "$idle_action"
                printf '[resources]\nmin_free_memory_mb = %s\n' "$min_free"
                printf '[pool]\nspares = %s\n' "$spares"
        } >"$BOTDESK_CONFIG"
        BD_SPARES=$spares
        # Ready before the test's first start, however it starts (env --start, several at once).
        if [ "$BD_VARIANT" = spare ] && [ "$spares" -gt 0 ]; then
                timeout 120 "$BOTDESK" pool fill --quiet >"$BD_T/out/pool-config" 2>&1 &
                wait $!
                bd_snapshot_spares
        fi
}
BD_SPARES=0

# A profile name unique to this test file and variant (root and user runs
# must never share a cgroup name).
bd_profile() {
        if [ "$BD_VARIANT" = user ]; then printf '%su-%s' "$BD_TAG" "$1"; else printf '%s-%s' "$BD_TAG" "$1"; fi
}

bd_rt() { printf '%s/botdesk/%s' "$XDG_RUNTIME_DIR" "$1"; }

bd_register() {
        grep -qxF -- "$1" "$BD_T/profiles" 2>/dev/null || echo "$1" >>"$BD_T/profiles"
}

# rec_get PROFILE KEY: a field of the live helper record (empty when absent).
rec_get() {
        sed -n "s/^$2=//p" "$(bd_rt "$1")/helper" 2>/dev/null | head -n1
}

# Remember what the helper record names, for the cleanup and for assertions.
bd_snapshot() {
        local f pid st cg tok
        f=$(bd_rt "$1")/helper
        [ -f "$f" ] || return 0
        pid=$(rec_get "$1" PID)
        st=$(rec_get "$1" STARTTIME)
        cg=$(rec_get "$1" CGROUP)
        tok=$(rec_get "$1" TOKEN)
        [ -n "$pid" ] || return 0
        grep -qxF -- "$1|$pid|$st|$cg|$tok" "$BD_T/records" || echo "$1|$pid|$st|$cg|$tok" >>"$BD_T/records"
        f=$(bd_adopted_from "$1")
        if [ -n "$f" ] && ! grep -qxF -- "$1 $f" "$BD_T/adopted" 2>/dev/null; then
                echo "$1 $f" >>"$BD_T/adopted"
        fi
}

# bd_start PROFILE [ARGS...]: start, output in $BD_T/out/PROFILE.{out,err}; returns the exit code.
# In the spare variant a spare is made ready first, so that the start adopts it.
bd_start() {
        local p=$1 rc
        shift
        bd_register "$p"
        if [ "$BD_VARIANT" = spare ] && [ "$BD_SPARES" -gt 0 ]; then
                timeout 120 "$BOTDESK" pool fill --quiet >"$BD_T/out/$p.pool" 2>&1 &
                wait $!
                bd_snapshot_spares
        fi
        # In the background and waited for, so that a SIGTERM (meson's
        # timeout) runs the cleanup trap at once.
        timeout 120 "$BOTDESK" start "$p" "$@" >"$BD_T/out/$p.out" 2>"$BD_T/out/$p.err" &
        wait $!
        rc=$?
        bd_snapshot "$p"
        return $rc
}

# bd_stop PROFILE: stop, returns the exit code.
bd_stop() {
        local rc
        bd_snapshot "$1"
        timeout 60 "$BOTDESK" stop "$1" >"$BD_T/out/$1.stop.out" 2>"$BD_T/out/$1.stop.err" &
        wait $!
        rc=$?
        return $rc
}

bd_err() { cat "$BD_T/out/$1.err" 2>/dev/null; }

# The names of the spares whose dirs exist (an adopted one's name is a link).
bd_spares() {
        local d
        for d in "$XDG_RUNTIME_DIR"/botdesk/_spare-*; do
                [ -d "$d" ] && [ ! -L "$d" ] && echo "${d##*/}"
        done
        return 0
}

# The records of every live spare, for the cleanup and for assertions (a
# spare's processes keep its cgroup and token once a profile adopts it).
bd_snapshot_spares() {
        local n
        for n in $(bd_spares); do bd_snapshot "$n"; done
        return 0
}

# The X servers of the live spares (they take numbers of the band too).
bd_spare_xservers() {
        local n
        for n in $(bd_spares); do xservers_of "$n"; done
        return 0
}

# The display numbers the live spares hold.
bd_spare_displays() {
        local n
        for n in $(bd_spares); do rec_get "$n" DISPLAY; done
        return 0
}

# spare_field FIELD: FIELD of each ready spare (pool list --json), one a line.
spare_field() {
        "$BOTDESK" pool list --json 2>/dev/null |
                "$PY" -c 'import json, sys
for s in json.load(sys.stdin):
    if s["state"] == "ready": print(s[sys.argv[1]])' "$1"
}

# ready_spare_other_than PID: a ready spare whose helper is not PID.
ready_spare_other_than() { local n; n=$(spare_field pid | grep -vx -- "$1" | head -n1); [ -n "$n" ]; }

# The spare a profile's running desktop was adopted from (its name links
# to the profile's dir), or nothing after a cold start.
bd_adopted_from() {
        local d
        for d in "$XDG_RUNTIME_DIR"/botdesk/_spare-*; do
                [ -L "$d" ] && [ "$(readlink "$d")" = "$1" ] && { echo "${d##*/}"; return 0; }
        done
        return 0
}


# wait_for SECONDS CMD...: until CMD succeeds, polled every 20 ms; fails
# after SECONDS * 50 tries (so at least SECONDS, more when CMD is slow).
wait_for() {
        local i tries=$(($1 * 50))
        shift
        for ((i = 0; i < tries; i++)); do
                "$@" && return 0
                sleep 0.02
        done
        return 1
}

# wait_locked FILE: until someone holds FILE's flock (bounded: 10 s). Never
# creates FILE: its owner must be whoever holds it.
wait_locked() {
        local i
        for i in $(seq 100); do
                if [ -f "$1" ] && ! { flock -n -s 7; } 7<"$1" 2>/dev/null; then return 0; fi
                sleep 0.1
        done
        return 1
}

# bd_second_user: make sure the unprivileged test user exists (root only).
# Sets BD_U, BD_UH (its home) and BD_UPATH. Parallel tests agree through
# one lock (as-user.sh, which creates the same user).
BD_U=botdesk-test
BD_UH=/var/lib/botdesk-test
BD_UPATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
bd_second_user() {
        id -u "$BD_U" >/dev/null 2>&1 && return 0
        exec 9<"$BD_LIB_DIR/as-user.sh"
        flock 9
        if ! id -u "$BD_U" >/dev/null 2>&1; then
                useradd --system --create-home --home-dir "$BD_UH" --shell /bin/sh --user-group "$BD_U" >&2 ||
                        t_skip_all "cannot create the user $BD_U"
        fi
        flock -u 9
        exec 9<&-
}


# The pid named by display N's X lock file (empty when there is none).
lock_pid() { { tr -d ' \n' <"/tmp/.X$1-lock"; } 2>/dev/null; }

# Is display N's X socket bound (abstract or filesystem) per /proc/net/unix?
x_socket_bound() {
        awk -v a="@/tmp/.X11-unix/X$1" -v b="/tmp/.X11-unix/X$1" '$8 == a || $8 == b { f = 1 } END { exit !f }' /proc/net/unix
}

# Is display N free of everything: no lock file, no bound socket?
display_unused() {
        [ ! -e "/tmp/.X$1-lock" ] && ! x_socket_bound "$1"
}

# Register a process this test started itself (killed at cleanup by pid).
bd_own_pid() { echo "$1 $(proc_starttime "$1")" >>"$BD_T/ownpids"; }

# Register a file this test created outside its temp dir (removed at cleanup when unchanged).
bd_own_file() { printf '%s\t%s\n' "$1" "$(cat "$1" 2>/dev/null | tr -d '\n')" >>"$BD_T/ownfiles"; }

# bd_shot_stable PROFILE FILE: a picture of the screen once two taken half a second apart agree (at most 10
# s): what settle cannot wait for, since it leaves out changes smaller than 40x40 pixels (a widget's state
# fading in). A picture meant to be compared to the pixel with a later one is taken so. 1 when it never
# agreed (FILE is then the last picture).
bd_shot_stable() {
        local i
        "$BOTDESK" thumbnail "$1" --output "$2" >/dev/null 2>&1 || return 1
        for ((i = 0; i < 20; i++)); do
                sleep 0.5
                "$BOTDESK" thumbnail "$1" --output "$2.next" >/dev/null 2>&1 || return 1
                cmp -s "$2" "$2.next" && { rm -f "$2.next"; return 0; }
                mv -f "$2.next" "$2"
        done
        echo "# the screen of $1 never stood still for half a second in 10 s"
        return 1
}

# bd_need_criu: root and a CRIU of 4.1 or later in $CRIU, or the whole test skipped, saying why.
bd_need_criu() {
        [ "$(id -u)" = 0 ] || t_skip_all "needs root: a checkpointable desktop's namespaces need CAP_SYS_ADMIN"
        CRIU=${BOTDESK_TEST_CRIU:-/usr/local/lib/botdesk-tests/criu/criu}
        [ -x "$CRIU" ] || t_skip_all "no CRIU 4.1 or later at $CRIU: scripts/install-deps.sh --tests makes one"
}

# ---- cleanup -----------------------------------------------------------------------------------

bd_kill_cgroup() {
        local cg=$1 i p
        [ -d "$cg" ] || return 0
        if [ -w "$cg/cgroup.kill" ]; then
                echo 1 >"$cg/cgroup.kill" 2>/dev/null
        else
                for p in $(cgroup_pids "$cg"); do kill -KILL "$p" 2>/dev/null; done
        fi
        for i in $(seq 50); do
                [ -z "$(cgroup_pids "$cg")" ] && break
                sleep 0.1
        done
        # Remove the (empty) sub-tree, deepest first.
        find "$cg" -depth -type d -exec rmdir {} \; 2>/dev/null
}

bd_cleanup() {
        local rc=$? prof pid st cg tok leftovers f content x n
        trap - EXIT INT TERM HUP
        set +e
        if [ "$T_PLANNED" -eq 0 ]; then
                t_fail "test script ended early (exit status $rc)"
                printf '1..%d\n' "$T_N"
                rc=1
        fi
        [ -n "${BD_T:-}" ] && [ -d "$BD_T" ] || exit $rc

        while read -r prof; do
                [ -n "$prof" ] || continue
                bd_snapshot "$prof"
                timeout 60 "$BOTDESK" stop "$prof" >/dev/null 2>&1
        done <"$BD_T/profiles"
        # The spares, after the filler a last start may have left running.
        if [ -d "$XDG_RUNTIME_DIR/botdesk" ]; then
                bd_snapshot_spares
                timeout 120 "$BOTDESK" pool drain --quiet >/dev/null 2>&1
        fi

        # Whatever the product left behind, of our desktops only.
        leftovers=
        while read -r prof; do
                [ -n "$prof" ] || continue
                for x in $(xservers_of "$prof"); do
                        n=$({ tr '\0' '\n' <"/proc/$x/cmdline"; } 2>/dev/null | sed -n 's/^:\([0-9][0-9]*\)$/\1/p' | head -n1)
                        [ -n "$n" ] && echo "$n $x" >>"$BD_T/xkilled"
                done
                leftovers="$leftovers $(desktop_pids "$prof" | tr '\n' ' ')"
        done <"$BD_T/profiles"
        while IFS='|' read -r prof pid st cg tok; do
                [ -n "$cg" ] && bd_kill_cgroup "$cg"
                for pid in $(token_pids "$tok"); do kill -KILL "$pid" 2>/dev/null; done
        done <"$BD_T/records"
        while read -r prof; do
                [ -n "$prof" ] || continue
                bd_kill_cgroup "$(bd_cgroup_of "$prof")"
                for pid in $(xservers_of "$prof") $(helpers_of "$prof"); do kill -KILL "$pid" 2>/dev/null; done
        done <"$BD_T/profiles"
        leftovers=$(echo $leftovers)
        [ -n "$leftovers" ] && printf '# cleanup: killed leftover processes of this test: %s\n' "$leftovers"

        # X files of servers killed here, only when they name the server we killed.
        if [ -f "$BD_T/xkilled" ]; then
                while read -r n x; do
                        if [ "$(lock_pid "$n")" = "$x" ]; then
                                sleep 0.2
                                rm -f "/tmp/.X$n-lock" "/tmp/.X11-unix/X$n"
                        fi
                done <"$BD_T/xkilled"
        fi
        while read -r pid st; do
                [ -n "$pid" ] && proc_alive "$pid" "$st" && kill -KILL "$pid" 2>/dev/null
        done <"$BD_T/ownpids"
        # After the plan: TAP then also counts it as one test too many.
        if ! bd_leak_sweep; then
                t_fail "no process of this test outlived it (the lines above name those that did)"
                rc=1
        fi
        while IFS="$(printf '\t')" read -r f content; do
                [ -n "$f" ] && [ -f "$f" ] && [ "$(tr -d '\n' <"$f")" = "$content" ] && rm -f "$f"
        done <"$BD_T/ownfiles"
        rm -rf -- "${BD_T:?}"
        exit $rc
}
