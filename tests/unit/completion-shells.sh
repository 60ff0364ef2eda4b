#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# TAP: the zsh and fish completions (conf/completion/_botdesk and
# botdesk.fish) offer what the bash one does, from the same table (botdesk
# __verbs of the botdesk given, found on PATH). fish completes for real
# (complete -C); zsh's completion system needs a terminal, so its function
# runs with compadd, compset, _files, _normal and _command_names stood in
# for, each printing what it was asked to offer (compadd only the words
# the typed one begins, as compadd matches).
#   completion-shells.sh CONF_COMPLETION_DIR BOTDESK
export LC_ALL=C
dir=${1:?usage: completion-shells.sh CONF_COMPLETION_DIR BOTDESK}
cli=${2:?usage: completion-shells.sh CONF_COMPLETION_DIR BOTDESK}
tmp=$(mktemp -d) || exit 1
trap 'rm -rf -- "${tmp:?}"' EXIT
mkdir -p "$tmp/bin" "$tmp/nobin"
ln -s "$(realpath "$cli")" "$tmp/bin/botdesk"
mkdir -p "$tmp/run/botdesk/work" "$tmp/run/botdesk/web" "$tmp/run/botdesk/not valid" \
         "$tmp/run/botdesk/.hidden" "$tmp/state/botdesk/research" "$tmp/state/botdesk/work"
touch "$tmp/run/botdesk/alloc.lock" "$tmp/shot.png"
export XDG_RUNTIME_DIR=$tmp/run XDG_STATE_HOME=$tmp/state

n=0 failed=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() { n=$((n + 1)) failed=$((failed + 1)); echo "not ok $n - $1"; shift; for d in "$@"; do echo "# $d"; done; }

# The cases: what is offered (a set), then the command line, the cursor at its end.
verbs="$("$cli" --help | sed -n 's/^  \([a-z0-9]*\) .*/\1/p; s/^  \([a-z0-9]*\)$/\1/p' | sort -u | tr '\n' ' ')help"
cases=(
        "$verbs"                                        "botdesk "
        "start status stop"                             "botdesk st"
        "--help --version"                              "botdesk -"
        ""                                              "botdesk --version "
        "research web work"                             "botdesk start "
        "web work"                                      "botdesk stop w"
        "--help --json --quiet --timeout"               "botdesk start work -"
        "release request show take wait"                "botdesk lease work "
        "take"                                          "botdesk lease work --viewer alice t"
        "ticket token revoke"                           "botdesk web "
        "web work"                                      "botdesk web ticket w"
        "--ttl"                                         "botdesk web ticket work --viewer a --t"
        "png jpeg"                                      "botdesk thumbnail work --format "
        "jpeg"                                          "botdesk thumbnail work --size 960x600 --format j"
        "drag down"                                     "botdesk input work d"
        "--button --double --epoch --help --json --settle --start --stdin --window" "botdesk input work click -"
        ""                                              "botdesk input work click --button "
        "ready"                                         "botdesk watch work --until r"
        "research"                                      "botdesk config check --profile r"
        "-- --env --epoch --help --start"               "botdesk exec work -"
        "get set"                                       "botdesk clipboard work "
        "text/plain image/png"                          "botdesk clipboard work get --type "
        "research web work"                             "botdesk settle --quiet 500 "
        ""                                              "botdesk status work --timeout "
        "start status stop"                             "botdesk help st"
)
for v in $verbs; do
        cases+=("--help" "botdesk $v --h")
done

# compare SHELL GOT_FILE: one line of what was offered per case, in order.
compare() {
        local shell=$1 i=0 got want problems=()
        while IFS= read -r got; do
                want=$(printf '%s\n' ${cases[i]} | sort -u | tr '\n' ' ')
                got=${got% } want=${want% }
                [ "$got" = "$want" ] || problems+=("${cases[i + 1]}| offered \"$got\", not \"$want\"")
                i=$((i + 2))
        done <"$2"
        [ "$i" = "${#cases[@]}" ] || problems+=("$((i / 2)) answers for $((${#cases[@]} / 2)) cases")
        if [ ${#problems[@]} = 0 ]; then
                ok "$shell offers what the table says, in $((i / 2)) cases"
        else
                not_ok "$shell offers what the table says" "${problems[@]}"
        fi
}

# A shell that is missing: a failure in CI, which installs it (scripts/install-deps.sh --tests).
missing() {
        if [ "${CI:-}" = true ]; then
                not_ok "$1 is not installed (scripts/install-deps.sh --tests)"
        else
                ok "$1 completion # SKIP $1 not installed"
        fi
}

printf '%s\n' "${cases[@]}" >"$tmp/cases"

# ---- fish ----------------------------------------------------------------------------------
if command -v fish >/dev/null; then
        fish --no-execute "$dir/botdesk.fish" 2>"$tmp/err"
        [ $? = 0 ] && ok "botdesk.fish parses" || not_ok "botdesk.fish parses" "$(cat "$tmp/err")"
        PATH=$tmp/bin:$PATH fish --no-config -c '
                source $argv[1]
                set -l lines (cat $argv[2])
                for i in (seq 2 2 (count $lines))
                        complete -C $lines[$i] | cut -f1 | sort -u | string join " " | read -l got
                        echo "$got "
                end' "$dir/botdesk.fish" "$tmp/cases" >"$tmp/fish" 2>"$tmp/err"
        compare fish "$tmp/fish"
        [ -s "$tmp/err" ] && not_ok "fish said nothing on stderr" "$(cat "$tmp/err")" || ok "fish said nothing on stderr"
        got=$(PATH=$tmp/bin:$PATH fish --no-config -c 'source $argv[1]; complete -C $argv[2]' "$dir/botdesk.fish" \
                "botdesk thumbnail work -o $tmp/sh" | cut -f1)
        [ "$got" = "$tmp/shot.png" ] && ok "fish: -o FILE offers file names" || not_ok "fish: -o FILE offers file names" "$got"
        got=$(PATH=$tmp/bin:$PATH fish --no-config -c 'source $argv[1]; complete -C $argv[2]' "$dir/botdesk.fish" \
                "botdesk thumbnail work --format=p" | cut -f1)
        [ "$got" = "--format=png" ] && ok "fish: --format=VALUE offers the values" || not_ok "fish: --format=VALUE offers the values" "$got"
        got=$(PATH=$tmp/bin:$PATH fish --no-config -c 'source $argv[1]; complete -C $argv[2]' "$dir/botdesk.fish" \
                "botdesk exec work -- basenam" | cut -f1)
        [ "$got" = basename ] && ok "fish: exec's command is completed as a command" ||
                not_ok "fish: exec's command is completed as a command" "$got"
        got=$(PATH=$tmp/nobin:/usr/bin:/bin fish --no-config -c 'source $argv[1]; complete -C $argv[2]' "$dir/botdesk.fish" \
                "botdesk st" 2>&1)
        [ -z "$got" ] && ok "fish: without a botdesk to ask, nothing is offered or said" ||
                not_ok "fish: without a botdesk to ask, nothing is offered or said" "$got"
else
        missing fish
fi

# ---- zsh -----------------------------------------------------------------------------------
if command -v zsh >/dev/null; then
        zsh -n "$dir/_botdesk" 2>"$tmp/err"
        [ $? = 0 ] && ok "_botdesk parses" || not_ok "_botdesk parses" "$(cat "$tmp/err")"
        cat >"$tmp/harness.zsh" <<'ZSH'
compadd() {
        while [[ $1 != -- ]]; do shift; done
        shift
        print -rl -- ${(M)@:#${words[CURRENT]}*}
}
compset() { [[ $1 == -P ]] && words[CURRENT]=${words[CURRENT]#*=}; }
_files() { print -r -- "FILES $*"; }
_normal() { print -r -- "NORMAL ${words[*]} @$CURRENT"; }
_command_names() { print -r -- COMMANDS; }
source $1
offered() { # COMMANDLINE: one line, what _botdesk offers with the cursor at its end
        local cmd=$1
        words=(${(z)cmd})
        [[ $cmd == *' ' ]] && words+=('')
        CURRENT=$#words
        print -r -- "$(_botdesk | sort -u | tr '\n' ' ')"
}
if [[ $2 == cases ]]; then
        lines=("${(@f)$(<$3)}")
        for (( i = 2; i <= $#lines; i += 2 )); do offered "$lines[i]"; done
else
        offered "$2"
fi
ZSH
        PATH=$tmp/bin:$PATH zsh -f "$tmp/harness.zsh" "$dir/_botdesk" cases "$tmp/cases" >"$tmp/zsh" 2>"$tmp/err"
        compare zsh "$tmp/zsh"
        [ -s "$tmp/err" ] && not_ok "zsh said nothing on stderr" "$(cat "$tmp/err")" || ok "zsh said nothing on stderr"
        got=$(PATH=$tmp/bin:$PATH zsh -f "$tmp/harness.zsh" "$dir/_botdesk" "botdesk thumbnail work -o $tmp/sh")
        [ "$got" = "FILES  " ] && ok "zsh: -o FILE offers file names" || not_ok "zsh: -o FILE offers file names" "$got"
        got=$(PATH=$tmp/bin:$PATH zsh -f "$tmp/harness.zsh" "$dir/_botdesk" "botdesk thumbnail work --format=p")
        [ "$got" = "png " ] && ok "zsh: --format=VALUE offers the values after the =" ||
                not_ok "zsh: --format=VALUE offers the values after the =" "$got"
        got=$(PATH=$tmp/bin:$PATH zsh -f "$tmp/harness.zsh" "$dir/_botdesk" "botdesk exec work -- ls -l")
        [ "$got" = "NORMAL ls -l @2 " ] && ok "zsh: exec's command line is completed as one of its own" ||
                not_ok "zsh: exec's command line is completed as one of its own" "$got"
        got=$(PATH=$tmp/nobin:/usr/bin:/bin zsh -f "$tmp/harness.zsh" "$dir/_botdesk" "botdesk st" 2>&1)
        [ "$got" = "" ] && ok "zsh: without a botdesk to ask, nothing is offered or said" ||
                not_ok "zsh: without a botdesk to ask, nothing is offered or said" "$got"
        # Autoloaded from $fpath as compinit does, the file's first run defines and completes.
        got=$(PATH=$tmp/bin:$PATH zsh -f -c '
                fpath=($1 $fpath)
                compadd() { while [[ $1 != -- ]]; do shift; done; shift; print -rl -- ${(M)@:#${words[CURRENT]}*}; }
                autoload -Uz _botdesk
                words=(botdesk lease work r) CURRENT=4
                _botdesk | sort | tr "\n" " "' zsh "$dir")
        [ "$got" = "release request " ] && ok "zsh: autoloaded from fpath, _botdesk completes on its first run" ||
                not_ok "zsh: autoloaded from fpath, _botdesk completes on its first run" "$got"
else
        missing zsh
fi

# meson installs each where its shell looks (the build's install plan).
plan=${BOTDESK_BUILD_DIR:-}/meson-info/intro-installed.json
if [ -f "$plan" ]; then
        got=$(python3 -c '
import json, sys
plan = json.load(open(sys.argv[1]))
want = {"_botdesk": "/share/zsh/site-functions/_botdesk",
        "botdesk.fish": "/share/fish/vendor_completions.d/botdesk.fish",
        "botdesk.bash": "/completions/botdesk"}
for name, tail in want.items():
    dest = [d for s, d in plan.items() if s.endswith("/conf/completion/" + name)]
    if len(dest) != 1 or not dest[0].endswith(tail):
        print("%s is installed as %s, not as .../%s" % (name, dest, tail.lstrip("/")))' "$plan")
        [ -z "$got" ] && ok "meson installs the zsh, fish and bash completions where those shells look" ||
                not_ok "meson installs the zsh, fish and bash completions where those shells look" "$got"
fi

echo "1..$n"
[ "$failed" = 0 ]
