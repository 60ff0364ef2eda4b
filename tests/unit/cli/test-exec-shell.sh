#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# [profile.P] exec_shell decides whether the verb's words are quoted for a
# shell on the far side of the exec prefix, not the prefix's name: a renamed
# ssh (a fake that, like ssh, joins its command's words for `sh -c`) with
# exec_shell = yes gets text that arrives as one word and runs nothing;
# auto quotes for ssh's kin (autossh) but not for mosh, which quotes for its
# ssh itself, and no passes the words as they are
# even to a program named ssh. The far side's botdesk is a stub that
# records its arguments. Prints TAP.
#   test-exec-shell.sh BOTDESK
set -u
BOTDESK=${1:?usage: test-exec-shell.sh BOTDESK}
T=$(mktemp -d) || exit 1
[ -n "$T" ] && [ -d "$T" ] || exit 1
trap 'rm -rf -- "${T:?}"' EXIT
mkdir -m 700 "$T/run"
mkdir "$T/bin" "$T/far" "$T/kin" "$T/named"
export XDG_RUNTIME_DIR=$T/run XDG_STATE_HOME=$T/state XDG_CONFIG_HOME=$T/config BOTDESK_CONFIG=$T/botdesk.ini
n=0 failed=0
ok() { n=$((n + 1)); if [ "$1" = 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; failed=1; fi; [ "$1" = 0 ]; }

# Like ssh: the host, then the command's words joined by blanks, for a shell there.
printf '#!/bin/sh\nshift\nPATH=%s/far:/usr/bin:/bin exec sh -c "$*"\n' "$T" >"$T/bin/corp-remote"
# A prefix that runs its words itself, no shell (as podman exec does).
printf '#!/bin/sh\nshift\nPATH=%s/far:/usr/bin:/bin exec "$@"\n' "$T" >"$T/bin/direct"
# The far side's botdesk: records what it was given.
printf '#!/bin/sh\nprintf "%%s\\n" "$@" >"%s/far-args"\n' "$T" >"$T/far/botdesk"
chmod 755 "$T/bin/corp-remote" "$T/bin/direct" "$T/far/botdesk"
ln -s ../bin/corp-remote "$T/kin/autossh"
ln -s ../bin/direct "$T/named/ssh"

TEXT="a  b \$(touch $T/pwned) 'c' \"d\" \\e"
want=$(printf 'input\nw\ntype\n%s' "$TEXT")
# typed PREFIX [exec_shell]: botdesk input w type TEXT through PREFIX; what the far side got in $T/far-args.
typed() {
        rm -f "$T/far-args" "$T/pwned"
        {
                printf '[profile.w]\nplacement = exec\nexec = %s host\n' "$1"
                [ -n "${2:-}" ] && printf 'exec_shell = %s\n' "$2"
        } >"$BOTDESK_CONFIG"
        timeout 30 "$BOTDESK" input w type "$TEXT" >"$T/out" 2>&1
}

typed "$T/bin/corp-remote" yes
ok $? "a renamed ssh with exec_shell = yes carries the verb" || sed 's/^/# /' "$T/out"
[ "$(cat "$T/far-args" 2>/dev/null)" = "$want" ]
ok $? "... and the typed text arrives as one word, exactly" || sed 's/^/# /' "$T/far-args"
[ ! -e "$T/pwned" ]
ok $? "... and nothing in it ran on the far side"

typed "$T/kin/autossh"
[ "$(cat "$T/far-args" 2>/dev/null)" = "$want" ] && [ ! -e "$T/pwned" ]
ok $? "exec_shell = auto (the default) quotes for autossh, ssh's kin" || sed 's/^/# /' "$T/far-args" "$T/out"

typed "$T/named/ssh" no
[ "$(cat "$T/far-args" 2>/dev/null)" = "$want" ]
ok $? "exec_shell = no passes the words as they are, even to a program named ssh" || sed 's/^/# /' "$T/far-args" "$T/out"

# Like mosh: its options, the host (and --), then each word of the command
# quoted for the shell of the ssh it runs; mosh-server execs the words.
mkdir "$T/mosh"
cat >"$T/mosh/mosh" <<'EOF'
#!/bin/sh
while [ $# -gt 0 ]; do case $1 in -*) shift ;; *) break ;; esac; done
shift
[ "${1:-}" = -- ] && shift
cmd=
for w; do cmd="$cmd '$(printf '%s' "$w" | sed "s/'/'\\\\''/g")'"; done
PATH=$FAR:/usr/bin:/bin exec sh -c "$cmd"
EOF
chmod 755 "$T/mosh/mosh"
export FAR=$T/far
typed "$T/mosh/mosh --ssh=/usr/bin/ssh"
[ "$(cat "$T/far-args" 2>/dev/null)" = "$want" ] && [ ! -e "$T/pwned" ]
ok $? "exec_shell = auto knows mosh quotes for its ssh itself: the words arrive as they were" ||
        sed 's/^/# /' "$T/far-args" "$T/out"

typed "$T/bin/corp-remote" maybe
[ $? = 2 ] && grep -q "exec_shell = maybe: not auto, yes or no" "$T/out"
ok $? "exec_shell = maybe is a configuration error (2) that names the choices" || sed 's/^/# /' "$T/out"

echo "1..$n"
exit $failed
