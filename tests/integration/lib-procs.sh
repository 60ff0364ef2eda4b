# SPDX-License-Identifier: LGPL-2.1-or-later
# Part of lib.sh, which sources it: processes found by cgroup, token,
# command line and socket, never by name.

# proc_starttime_var PID: the start time of PID (field 22 of /proc/PID/stat)
# in PROC_STARTTIME, without a subshell (polls call it every tick); fails
# when PID is gone or a zombie.
proc_starttime_var() {
        local stat rest
        PROC_STARTTIME=
        [ -n "$1" ] || return 1
        { read -r stat <"/proc/$1/stat"; } 2>/dev/null || return 1
        rest=${stat##*) }
        set -- $rest
        case $1 in Z | X | x) return 1 ;; esac
        PROC_STARTTIME=${20}
}

# The start time of PID, empty when PID is gone or a zombie.
proc_starttime() {
        proc_starttime_var "$1" && echo "$PROC_STARTTIME"
}

# proc_alive PID [STARTTIME]: alive (not a zombie), and the same process when STARTTIME is given.
proc_alive() {
        proc_starttime_var "$1" || return 1
        [ -z "${2:-}" ] || [ "$PROC_STARTTIME" = "$2" ]
}

# token_pids TOKEN...: live pids carrying any of the tokens (one pass over /proc).
token_pids() {
        local f p t pats=()
        for t in "$@"; do [ -n "$t" ] && pats+=(-e "BOTDESK_TOKEN=$t"); done
        [ ${#pats[@]} -gt 0 ] || return 0
        grep -lzxF "${pats[@]}" /proc/[0-9]*/environ 2>/dev/null | while read -r f; do
                p=${f#/proc/}
                p=${p%/environ}
                [ "$p" = "$BASHPID" ] && continue
                proc_alive "$p" && echo "$p"
        done
}

# Live pids in the cgroup sub-tree CG.
cgroup_pids() {
        local p
        [ -n "$1" ] && [ -d "$1" ] || return 0
        find "$1" -name cgroup.procs -exec cat {} + 2>/dev/null | sort -un | while read -r p; do
                proc_alive "$p" && echo "$p"
        done
}

# cmdline_pids STRING: live pids whose command line (NULs read as spaces, plus a
# trailing space) contains STRING. One perl pass over /proc (perl-base is essential).
cmdline_pids() {
        local p
        for p in $(perl -e '
                for my $f (glob "/proc/[0-9]*/cmdline") {
                        next if $f eq "/proc/$$/cmdline";
                        open(my $h, "<", $f) or next;
                        local $/; my $c = <$h>; close $h;
                        next unless defined $c && length $c;
                        $c =~ tr/\0/ /;
                        $c .= " " unless $c =~ / $/;
                        print "$1\n" if index($c, $ARGV[0]) >= 0 && $f =~ m{^/proc/(\d+)/};
                }' -- "$1"); do
                proc_alive "$p" && echo "$p"
        done
}

# X servers serving PROFILE of this test (their -rfbunixpath is in our private dir).
xservers_of() {
        local p n
        for n in $(bd_names_of "$1"); do
                for p in $(cmdline_pids "-rfbunixpath $(bd_rt "$n")/rfb.sock "); do
                        case $(cat "/proc/$p/comm" 2>/dev/null) in X*) echo "$p" ;; esac
                done
        done
}

# Helpers of PROFILE of this test: argv exactly "HELPER PROFILE" and our XDG_RUNTIME_DIR.
helpers_of() {
        local p n
        for n in $(bd_names_of "$1"); do
                for p in $(cmdline_pids "$BD_HELPER $n "); do
                        [ "$({ tr '\0' ' ' <"/proc/$p/cmdline"; } 2>/dev/null)" = "$BD_HELPER $n " ] || continue
                        proc_has_env "$p" "XDG_RUNTIME_DIR=$XDG_RUNTIME_DIR" && echo "$p"
                done
        done
}

# The names PROFILE's desktops have run under: its own, and each spare it
# adopted (whose name stays in the X server's and the helper's argv).
bd_names_of() {
        {
                echo "$1"
                bd_adopted_from "$1"
                [ -f "$BD_T/adopted" ] && sed -n "s/^$1 //p" "$BD_T/adopted"
        } | awk '!seen[$0]++'
        return 0
}

# The helper command line of PROFILE's running desktop: "HELPER NAME ".
bd_helper_cmdline() { printf '%s %s ' "$BD_HELPER" "$(bd_desktop_name "$1")"; }

# The name PROFILE's running desktop started under: the spare it adopted, or its own.
bd_desktop_name() {
        local s
        s=$(bd_adopted_from "$1")
        echo "${s:-$1}"
}

# The desktop cgroup of PROFILE (where the helper would create it; maybe not).
# FNV-1a (32 bit) of an ASCII string, as the helper names its cgroup.
bd_fnv1a32() {
        local s=$1 h=2166136261 i c
        for ((i = 0; i < ${#s}; i++)); do
                printf -v c '%d' "'${s:i:1}"
                h=$(( ((h ^ c) * 16777619) & 0xffffffff ))
        done
        printf '%08x' "$h"
}

# The standalone helper's cgroup: botdesk-UID-PROFILE-<hash of its runtime dir>.
bd_cgroup_of() {
        local n
        n=$(bd_desktop_name "$1")
        [ -n "$BD_CG_PARENT" ] &&
                printf '%s/botdesk-%s-%s-%s' "$BD_CG_PARENT" "$BD_UID" "$n" "$(bd_fnv1a32 "$XDG_RUNTIME_DIR/botdesk/$n")"
}

# Every live process that belongs to PROFILE by any record ever seen, by its
# cgroup, its token, its X server path or its helper command line.
# Records pile up one per start (a test may start hundreds): each cgroup is
# walked once and all tokens are looked for in one pass.
desktop_pids() {
        local prof pid st cg tok cgs=() toks=()
        {
                while IFS='|' read -r prof pid st cg tok; do
                        [ "$prof" = "$1" ] || continue
                        proc_alive "$pid" "$st" && echo "$pid"
                        cgs+=("$cg") toks+=("$tok")
                done <"$BD_T/records"
                [ ${#cgs[@]} -eq 0 ] || printf '%s\n' "${cgs[@]}" | sort -u | while IFS= read -r cg; do
                        cgroup_pids "$cg"
                done
                token_pids "${toks[@]}"
                cgroup_pids "$(bd_cgroup_of "$1")"
                xservers_of "$1"
                helpers_of "$1"
        } | sort -un
}

# "PID (comm) state" lines, for diagnostics.
describe_pids() {
        local p
        for p in "$@"; do
                printf '%s %s\n' "$p" "$(cut -d' ' -f2,3 "/proc/$p/stat" 2>/dev/null)"
        done
}

# Inodes of LISTEN TCP sockets (state 0A) on this host's network namespace.
tcp_listen_inodes() {
        cat /proc/net/tcp /proc/net/tcp6 2>/dev/null | awk 'NR > 0 && $4 == "0A" { print $10 }' | sort -u
}

# Socket inodes held open by PIDS.
socket_inodes_of() {
        local p l
        for p in "$@"; do
                for l in /proc/"$p"/fd/*; do
                        l=$(readlink "$l" 2>/dev/null) || continue
                        case $l in socket:\[*\]) l=${l#socket:[}; echo "${l%]}" ;; esac
                done
        done | sort -u
}

# tcp_listening PID PORT: PID holds a socket listening on TCP PORT (IPv4).
tcp_listening() {
        local inode
        for inode in $(awk -v h=":$(printf '%04X' "$2")" \
                        '$4 == "0A" && substr($2, length($2) - 4) == h { print $10 }' /proc/net/tcp); do
                socket_inodes_of "$1" | grep -qx "$inode" && return 0
        done
        return 1
}
