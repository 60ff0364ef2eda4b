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

_botdesk() {
        local cur=${COMP_WORDS[COMP_CWORD]} prev=''
        local verbs="start stop restart status list env exec thumbnail input windows cursor settle act clipboard journal a11y mcp lease watch rfb web lookup pool doctor install config help"
        local verb='' i w vi=0 npos=0 exec_at=0 opts value_opts pfx=''
        local -a pos=()

        ((COMP_CWORD > 0)) && prev=${COMP_WORDS[COMP_CWORD - 1]}
        COMPREPLY=()

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

        case $verb in
        start)     opts="--timeout --json --quiet --help" ;;
        stop)      opts="--force --quiet --help" ;;
        restart)   opts="--force --timeout --json --quiet --help" ;;
        status | list | lookup | doctor) opts="--json --help" ;;
        windows | cursor) opts="--json --start --epoch --help" ;;
        env)       opts="--json --start --help" ;;
        mcp)       opts="--start --epoch --help" ;;
        act)       opts="--screenshots --start --epoch --help" ;;
        clipboard) opts="--type --epoch --help" ;;
        settle)    opts="--quiet --timeout --json --epoch --help" ;;
        input)     opts="--json --button --double --window --stdin --settle --start --epoch --help" ;;
        journal)   opts="--json --since --follow --video --from --to --dry-run --scale --tolerance --help" ;;
        a11y)      opts="--json --window --find --max-nodes --epoch --help" ;;
        watch)     opts="--json --until --help" ;;
        exec)      opts="-- --env --start --epoch --help" ;;
        thumbnail) opts="--output --size --format --quality --data-url --start --epoch --help" ;;
        lease)     opts="--viewer --reason --timeout --json --help" ;;
        rfb)       opts="--viewer --help" ;;
        web)       opts="--listen --novnc --ping --viewer --ttl --help" ;;
        config)    opts="--profile --help" ;;
        pool)      opts="--json --quiet --help" ;;
        install)   opts="--yes --timeout --password-stdin --quiet --help" ;;
        help)      opts="--help" ;;
        *)         opts= ;;
        esac
        if [[ $verb == thumbnail ]]; then
                value_opts="-o --output --size --format --quality"
        else
                value_opts="--timeout --viewer --profile --reason --button --window --until --env --listen --novnc --ttl --ping"
        fi

        # The value of an option.
        case $prev in
        --format)
                [[ $verb == thumbnail ]] && _botdesk_reply -P "$pfx" -W "png jpeg" -- "$cur"
                return 0
                ;;
        -o | --output)
                if [[ $verb == thumbnail ]]; then
                        _botdesk_files "$cur"
                        [[ -n $pfx ]] && COMPREPLY=("${COMPREPLY[@]/#/$pfx}")
                fi
                return 0
                ;;
        --profile)
                [[ $verb == config ]] && _botdesk_reply -P "$pfx" -W "$(_botdesk_profiles)" -- "$cur"
                return 0
                ;;
        --until)
                [[ $verb == watch ]] && _botdesk_reply -P "$pfx" -W "ready stopped agent" -- "$cur"
                return 0
                ;;
        --novnc)
                [[ $verb == web ]] && compopt -o dirnames 2>/dev/null && mapfile -t COMPREPLY < <(compgen -d -- "$cur")
                return 0
                ;;
        --timeout | --viewer | --size | --quality | --reason | --button | --window | --listen | --ttl | --ping)
                return 0
                ;;
        esac
        # Not the value of an option after all: back to the word as typed.
        [[ -n $pfx ]] && cur=$pfx$cur

        # The operands before the current word, skipping options and their values.
        for ((i = vi + 1; i < COMP_CWORD; i++)); do
                w=${COMP_WORDS[i]}
                if [[ $w == -- ]]; then
                        if [[ $verb == exec ]]; then
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
                        [[ " $value_opts " == *" $w "* && ${COMP_WORDS[i + 1]-} != = ]] && ((i++))
                        continue
                fi
                pos+=("$w")
                if [[ $verb == exec ]] && ((${#pos[@]} == 2)); then
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
                _botdesk_reply -W "$opts" -- "$cur"
                return 0
        fi

        case $verb in
        start | stop | restart | env | exec | thumbnail | rfb | lookup | status | windows | cursor | settle | act | clipboard | a11y | mcp | watch)
                ((npos == 0)) && _botdesk_reply -W "$(_botdesk_profiles)" -- "$cur"
                ((npos == 1)) && [[ $verb == exec ]] && _botdesk_reply -c -- "$cur"
                ;;
        lease)
                ((npos == 0)) && _botdesk_reply -W "$(_botdesk_profiles)" -- "$cur"
                ((npos == 1)) && _botdesk_reply -W "show take release request wait" -- "$cur"
                ;;
        journal)
                ((npos == 0)) && _botdesk_reply -W "$(_botdesk_profiles)" -- "$cur"
                ((npos == 1)) && _botdesk_reply -W "export replay" -- "$cur"
                ;;
        input)
                ((npos == 0)) && _botdesk_reply -W "$(_botdesk_profiles)" -- "$cur"
                ((npos == 1)) && _botdesk_reply -W "move click drag scroll key type down up" -- "$cur"
                ;;
        config)
                ((npos == 0)) && _botdesk_reply -W "check show" -- "$cur"
                ;;
        pool)
                ((npos == 0)) && _botdesk_reply -W "list fill drain" -- "$cur"
                ;;
        web)
                ((npos == 0)) && _botdesk_reply -W "ticket" -- "$cur"
                ((npos == 1)) && _botdesk_reply -W "$(_botdesk_profiles)" -- "$cur"
                ;;
        esac
        return 0
}

complete -F _botdesk botdesk
