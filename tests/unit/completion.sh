#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# TAP: the bash completion conf/completion/botdesk.bash, without bash-completion,
# reading the table of verbs from the botdesk given (botdesk __verbs), found on PATH.
# Usage: completion.sh PATH/TO/botdesk.bash PATH/TO/botdesk

export LC_ALL=C
src=${1:-${BOTDESK_SOURCE_DIR:-$(dirname "$0")/../..}/conf/completion/botdesk.bash}
cli=${2:?usage: completion.sh PATH/TO/botdesk.bash PATH/TO/botdesk}
tmp=$(mktemp -d) || exit 1
trap 'rm -rf -- "${tmp:?}"' EXIT
mkdir -p "$tmp/bin"
ln -s "$(realpath "$cli")" "$tmp/bin/botdesk"
export PATH=$tmp/bin:$PATH

mkdir -p "$tmp/run/botdesk/work" "$tmp/run/botdesk/web" "$tmp/run/botdesk/not valid" \
         "$tmp/run/botdesk/.hidden" "$tmp/state/botdesk/research" "$tmp/state/botdesk/work" \
         "$tmp/files/shot dir"
touch "$tmp/run/botdesk/alloc.lock" "$tmp/files/shot.png"
export XDG_RUNTIME_DIR=$tmp/run XDG_STATE_HOME=$tmp/state

n=0
failed=0
ok() {
        n=$((n + 1))
        if [[ $1 == 0 ]]; then
                echo "ok $n - $2"
        else
                echo "not ok $n - $2"
                failed=1
        fi
}

# check EXPECTED WORD... : complete the last WORD; EXPECTED is a space-separated set.
check() {
        local expected=$1 got want
        shift
        COMP_WORDS=("$@")
        COMP_CWORD=$(($# - 1))
        COMPREPLY=()
        _botdesk
        got=$(printf '%s\n' "${COMPREPLY[@]}" | sort -u | tr '\n' ' ')
        # shellcheck disable=SC2086 # expected is a word list
        want=$(printf '%s\n' $expected | sort -u | tr '\n' ' ')
        [[ $got == "$want" ]]
        ok $? "$* -> ${expected:-(nothing)}"
        [[ $got == "$want" ]] || echo "# got: $got"
}

# shellcheck source=/dev/null
source "$src"
ok $? "source $src"
complete -p botdesk 2>/dev/null | grep -q -- '-F _botdesk'
ok $? "complete -F _botdesk botdesk is registered"

# Every verb `botdesk --help` lists is offered, and no other (help too).
verbs="$("$cli" --help | sed -n 's/^  \([a-z0-9]*\) .*/\1/p; s/^  \([a-z0-9]*\)$/\1/p' | sort -u | tr '\n' ' ') help"
check "$verbs" botdesk ""
check "start stop status"                       botdesk st
check "lease list lookup"                       botdesk l
check "--help --version"                        botdesk -
check ""                                        botdesk --version ""
check "web work research"                       botdesk start ""
check "web work"                                botdesk stop w
check ""                                        botdesk start work ""
check "--timeout --json --quiet --help"         botdesk start work -
check "--force --quiet --remove --timeout --help" botdesk stop work -
check "web work research"                       botdesk status ""
check ""                                        botdesk list ""
check "show take release request wait"          botdesk lease work ""
check "ticket token revoke"                     botdesk web ""
check "web work"                                botdesk web ticket w
check "--listen"                                botdesk web --l
check "--ttl"                                   botdesk web ticket work --viewer a --t
check "take"                                    botdesk lease work --viewer alice t
check ""                                        botdesk lease work take --viewer ""
check "--viewer --reason --timeout --json --help" botdesk lease work take -
check "move click drag scroll key type down up" botdesk input work ""
check "drag down"                               botdesk input work d
check "work web research"                       botdesk windows ""
check "--json --button --double --window --stdin --settle --start --epoch --help" botdesk input work click -
check ""                                        botdesk input work click --button ""
check "ready"                                   botdesk watch work --until r
check "web work research"                       botdesk watch ""
check "png jpeg"                                botdesk thumbnail work --format ""
check "jpeg"                                    botdesk thumbnail work --size 960x600 --format j
check "jpeg"                                    botdesk thumbnail work --format = j
check "--format=png"                            botdesk thumbnail work --format=p
check "--data-url"                              botdesk thumbnail work --d

# File names with spaces stay one reply each.
COMP_WORDS=(botdesk thumbnail work -o "$tmp/files/sh")
COMP_CWORD=4
_botdesk
[[ ${#COMPREPLY[@]} == 2 && " ${COMPREPLY[*]} " == *" $tmp/files/shot dir "* ]]
ok $? "botdesk thumbnail work -o FILE -> file names"
check "check show"                              botdesk config ""
check "research"                                botdesk config check --profile r
check "--profile"                               botdesk config show --p
check "-- --env --start --epoch --help"         botdesk exec work -
check "--json --start --timeout --help" botdesk env work -
check "--password-stdin --quiet --timeout --yes --help" botdesk install -
check "basename"                                botdesk exec work -- basenam
check "--viewer --help"                         botdesk rfb work -
check "--json --help"                           botdesk doctor -
# What the table declares reaches the completion with no list kept here.
check "get set"                                 botdesk clipboard work ""
check "text/plain image/png"                    botdesk clipboard work get --type ""
check ""                                        botdesk settle work --quiet ""
check "web work research"                       botdesk settle --quiet 500 ""
check "--quiet-ms"                              botdesk settle work --quiet-
check "web work research"                       botdesk settle --timeout-ms 500 ""
check ""                                        botdesk _
check ""                                        botdesk status work --timeout ""
check "start status stop"                       botdesk help st
# Without a botdesk to ask, nothing is offered, and nothing is said.
COMP_WORDS=(botdesk st)
COMP_CWORD=1
COMPREPLY=()
_botdesk_table_of=
_botdesk "$tmp/no-such-botdesk" 2>"$tmp/err"
[[ ${#COMPREPLY[@]} == 0 && ! -s $tmp/err ]]
ok $? "a botdesk that cannot be run completes nothing, silently"
# Every verb takes --help (its lines of the usage).
for v in start stop restart status list env exec lease rfb web thumbnail input windows cursor watch lookup doctor install config help; do
        check "--help"                          botdesk $v --h
done

echo "1..$n"
exit $failed
