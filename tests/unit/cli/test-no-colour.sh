#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# botdesk prints no colour, on a terminal or not, so NO_COLOR has nothing
# to turn off: no source of the CLI, the helper, the PAM module, the
# scripts or the completions writes an escape sequence (ESC [ in any
# spelling), and on a terminal (script(1)'s pty) the usage, every verb's
# usage, --version and a usage error carry no ESC byte. Text from a
# desktop is escaped on a terminal (shared/term-escape.h), not coloured.
# Prints TAP.
#   test-no-colour.sh SOURCE_DIR BOTDESK
set -u
src=${1:?usage: test-no-colour.sh SOURCE_DIR BOTDESK}
bd=${2:?usage: test-no-colour.sh SOURCE_DIR BOTDESK}
n=0 failed=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() { n=$((n + 1)) failed=$((failed + 1)); echo "not ok $n - $1"; shift; for d in "$@"; do echo "# $d"; done; }
check() { # NAME PROBLEM...: ok when no problem was given
        local name=$1
        shift
        if [ $# -eq 0 ]; then ok "$name"; else not_ok "$name" "$@"; fi
}

# ESC [ as C, shell or printf write it: \033[ \x1b[ \e[ \u001b[ \E[, and tput's colours.
mapfile -t hits < <(cd "$src" && grep -rnE '\\(033|x1[bB]|e|E|u001[bB])\[|tput (setaf|setab|bold)' \
        helper pam scripts conf/completion --include='*.c' --include='*.h' --include='*.sh' \
        --include='*.bash' --include='*.fish' --include='_botdesk' 2>/dev/null)
check "no source writes ESC [ (colour or cursor control)" "${hits[@]}"

# On a pty: what the CLI prints there has no ESC byte.
if ! command -v script >/dev/null; then
        not_ok "script(1) runs the CLI on a pty (util-linux's bsdutils, essential)"
else
        problems=()
        verbs=$(timeout 20 "$bd" __verbs </dev/null | awk -F'\t' '$1 == "verb" && $3 != "internal" { print $2 }')
        for words in --help --version stauts "status P --jsn" $(for v in $verbs; do printf '%s:--help ' "$v"; done); do
                cmd=${words//:/ }
                out=$(TERM=xterm-256color timeout 20 script -qec "$(printf '%q' "$bd") $cmd" /dev/null </dev/null 2>&1)
                [[ $out == *$'\e'* ]] && problems+=("botdesk $cmd on a terminal: $(printf '%q' "${out:0:120}")")
                [ -n "$out" ] || problems+=("botdesk $cmd printed nothing on the pty")
        done
        check "on a terminal, the usages, --version and usage errors carry no ESC byte" "${problems[@]}"
fi

echo "1..$n"
[ "$failed" = 0 ]
