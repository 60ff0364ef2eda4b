# SPDX-License-Identifier: LGPL-2.1-or-later
# bash completion for botdesk(1). Installed as "botdesk" in bash-completion's
# completions directory; works without bash-completion's helpers too.

# Profile names: the directories of running or once-started desktops
# (runtime dir) and of profiles with persistent state (state dir).
_botdesk_profiles() {
        local base d n
        local -a bases=()
        local -A names=()

        if [[ ${XDG_RUNTIME_DIR-} == /* ]]; then
                bases+=("$XDG_RUNTIME_DIR/botdesk")
        else
                bases+=("/tmp/botdesk-${UID}")
        fi
        if [[ ${XDG_STATE_HOME-} == /* ]]; then
                bases+=("$XDG_STATE_HOME/botdesk")
        elif [[ -n ${HOME-} ]]; then
                bases+=("$HOME/.local/state/botdesk")
        fi
        for base in "${bases[@]}"; do
                [[ -d $base ]] || continue
                # compgen -G: no error under failglob, nothing under nullglob.
                while IFS= read -r d; do
                        [[ -d $d ]] || continue
                        n=${d%/}
                        n=${n##*/}
                        [[ $n =~ ^[A-Za-z0-9][A-Za-z0-9_-]{0,31}$ ]] && names[$n]=1
                done < <(compgen -G "$base/*/")
        done
        echo "${!names[*]}"
}

# COMPREPLY from compgen's arguments, one reply per line.
_botdesk_reply() {
        mapfile -t COMPREPLY < <(compgen "$@")
}

# File names into COMPREPLY (one per line from compgen: spaces survive).
_botdesk_files() {
        compopt -o filenames 2>/dev/null
        mapfile -t COMPREPLY < <(compgen -f -- "$1")
}

# The table of verbs, from the botdesk being completed: botdesk __verbs
# prints it (helper/cli/verb-table.c), so that no list of verbs or options
# is kept here. Read once per program and shell.
_botdesk_table() {
        local out
        [[ ${_botdesk_table_of-} == "$1" && -n ${_botdesk_table_lines-} ]] && return 0
        out=$("$1" __verbs 2>/dev/null) || return 1
        _botdesk_table_lines=$out
        _botdesk_table_of=$1
}

_botdesk() {
        local cur=${COMP_WORDS[COMP_CWORD]} prev='' prog=${1:-botdesk}
        local verb='' i w vi=0 npos=0 exec_at=0 cmd_pos=-1 pfx='' verbs=''
        local kind name f1 f2 f3 f4
        local -a pos=() words=() opts=()
        local -A value_kind=() value_words=()

        ((COMP_CWORD > 0)) && prev=${COMP_WORDS[COMP_CWORD - 1]}
        COMPREPLY=()
        _botdesk_table "$prog" || return 0

        # "--opt=value" split at '=' by COMP_WORDBREAKS: the option is two words back.
        if [[ $cur == = ]]; then
                prev=${COMP_WORDS[COMP_CWORD - 1]}
                cur=
        elif [[ $prev == = ]] && ((COMP_CWORD >= 2)); then
                prev=${COMP_WORDS[COMP_CWORD - 2]}
        elif [[ $cur == --*=* ]]; then
                # '=' is not a word break here: the reply keeps "--opt=".
                prev=${cur%%=*}
                pfx=$prev=
                cur=${cur#*=}
        fi

        # The verb: the first word that is not an option.
        for ((i = 1; i < COMP_CWORD; i++)); do
                w=${COMP_WORDS[i]}
                if [[ $w != -* ]]; then
                        verb=$w
                        vi=$i
                        break
                fi
        done
        while IFS=$'\t' read -r kind name f1 f2 f3 f4; do
                if [[ $kind == verb ]]; then
                        [[ $f1 == internal ]] || verbs+=" $name"
                elif [[ $name != "$verb" ]]; then
                        continue
                elif [[ $kind == word ]]; then
                        words[f1]=$f2
                        [[ $f2 == COMMAND ]] && cmd_pos=$f1
                elif [[ $kind == option ]]; then
                        [[ $f4 == hidden ]] || opts+=("$f1")
                        [[ $f2 == flag ]] && continue
                        value_kind[$f1]=$f2
                        value_words[$f1]=${f3/#-/}
                fi
        done <<<"$_botdesk_table_lines"
        ((cmd_pos >= 0)) && opts+=(--)
        if [[ -z $verb ]]; then
                # --help and --version end the command line.
                for ((i = 1; i < COMP_CWORD; i++)); do
                        [[ ${COMP_WORDS[i]} == @(-h|--help|--version) ]] && return 0
                done
                if [[ $cur == -* ]]; then
                        _botdesk_reply -W "--help --version" -- "$cur"
                else
                        _botdesk_reply -W "$verbs" -- "$cur"
                fi
                return 0
        fi

        # The value of an option.
        if [[ -n $prev && -n ${value_kind[$prev]-} ]]; then
                case ${value_kind[$prev]} in
                words)
                        _botdesk_reply -P "$pfx" -W "${value_words[$prev]}" -- "$cur"
                        ;;
                file)
                        _botdesk_files "$cur"
                        [[ -n $pfx ]] && COMPREPLY=("${COMPREPLY[@]/#/$pfx}")
                        ;;
                dir)
                        compopt -o dirnames 2>/dev/null
                        mapfile -t COMPREPLY < <(compgen -d -- "$cur")
                        ;;
                profile)
                        _botdesk_reply -P "$pfx" -W "$(_botdesk_profiles)" -- "$cur"
                        ;;
                esac
                return 0
        fi
        # Not the value of an option after all: back to the word as typed.
        [[ -n $pfx ]] && cur=$pfx$cur

        # The operands before the current word, skipping options and their values.
        for ((i = vi + 1; i < COMP_CWORD; i++)); do
                w=${COMP_WORDS[i]}
                if [[ $w == -- ]]; then
                        if ((cmd_pos >= 0)); then
                                exec_at=$((i + 1))
                                break
                        fi
                        continue
                fi
                if [[ $w == = ]]; then
                        ((i++))
                        continue
                fi
                if [[ $w == -* ]]; then
                        [[ -n ${value_kind[$w]-} && ${COMP_WORDS[i + 1]-} != = ]] && ((i++))
                        continue
                fi
                pos+=("$w")
                if ((cmd_pos >= 0 && ${#pos[@]} == cmd_pos + 1)); then
                        exec_at=$i
                        break
                fi
        done
        npos=${#pos[@]}

        # exec: past the profile, complete the command line itself.
        if ((exec_at > 0)); then
                if declare -F _command_offset >/dev/null; then
                        _command_offset "$exec_at"
                elif ((COMP_CWORD == exec_at)); then
                        _botdesk_reply -c -- "$cur"
                else
                        _botdesk_files "$cur"
                fi
                return 0
        fi

        if [[ $cur == -* ]]; then
                _botdesk_reply -W "${opts[*]}" -- "$cur"
                return 0
        fi

        # The positional word: a profile, a command, a verb (help's), one of
        # a|b|c, or (CAPITALS) anything.
        w=${words[npos]-}
        case $w in
        PROFILE) _botdesk_reply -W "$(_botdesk_profiles)" -- "$cur" ;;
        COMMAND) _botdesk_reply -c -- "$cur" ;;
        VERB) _botdesk_reply -W "$verbs" -- "$cur" ;;
        *[a-z]*) _botdesk_reply -W "${w//|/ }" -- "$cur" ;;
        esac
        return 0
}

complete -F _botdesk botdesk
