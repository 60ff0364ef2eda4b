# SPDX-License-Identifier: LGPL-2.1-or-later
# fish completion for botdesk(1). Installed as botdesk.fish in fish's
# vendor_completions.d, which fish reads when botdesk is first completed.
# As the bash completion (botdesk.bash) does, it reads the table of verbs
# from botdesk itself, botdesk __verbs (helper/cli/verb-table.c), and
# keeps no list of verbs or options of its own: the completions below are
# declared from the table as the file is read.

# Profile names: the directories of running or once-started desktops
# (runtime dir) and of profiles with persistent state (state dir).
function __botdesk_profiles
    set -l bases
    if string match -q -- '/*' "$XDG_RUNTIME_DIR"
        set -a bases $XDG_RUNTIME_DIR/botdesk
    else
        set -a bases /tmp/botdesk-(id -u)
    end
    if string match -q -- '/*' "$XDG_STATE_HOME"
        set -a bases $XDG_STATE_HOME/botdesk
    else if set -q HOME
        set -a bases $HOME/.local/state/botdesk
    end
    for base in $bases
        test -d $base; or continue
        for d in $base/*/
            string match -q -r -- '^[A-Za-z0-9][A-Za-z0-9_-]{0,31}$' (basename -- $d); and basename -- $d
        end
    end | sort -u
end

# Where the cursor is on the command line, one line: "verb" (no verb yet),
# "done" (after --help or --version), "value KIND" (an option's value: KIND
# file, dir, ... for a hidden option such as -o, "-" for the others, which
# have completions of their own), "exec N" (exec's command, from token N
# on), "option", or "word WORD" (the verb's positional WORD, from the
# table: PROFILE, a|b|c, VERB, CAPITALS).
function __botdesk_state_of_line
    set -l tokens (commandline -opc)
    set -l verb
    set -l vi 0
    for i in (seq 2 (count $tokens))
        if not string match -q -- '-*' $tokens[$i]
            set verb $tokens[$i]
            set vi $i
            break
        end
    end
    if test -z "$verb"
        # --help and --version end the command line.
        if contains -- -h $tokens; or contains -- --help $tokens; or contains -- --version $tokens
            echo done
        else
            echo verb
        end
        return
    end
    set -l words
    set -l valued
    set -l hidden_kinds
    set -l cmd_pos -1
    for line in $__botdesk_table
        set -l f (string split \t -- $line)
        test "$f[2]" = "$verb"; or continue
        if test "$f[1]" = word
            set -a words $f[4]
            test "$f[4]" = COMMAND; and set cmd_pos $f[3]
        else if test "$f[1]" = option; and test "$f[4]" != flag
            set -a valued $f[3]
            # A hidden one (-o) has no completion of its own: its kind says what to offer.
            test "$f[6]" = hidden; and set hidden_kinds[(count $valued)] $f[4]; or set hidden_kinds[(count $valued)] -
        end
    end
    set -l at (contains -i -- "$tokens[-1]" $valued)
    if test -n "$at"
        echo value $hidden_kinds[$at]
        return
    end
    set -l npos 0
    set -l i (math $vi + 1)
    while test $i -le (count $tokens)
        set -l w $tokens[$i]
        if test "$w" = --
            if test $cmd_pos -ge 0
                echo exec (math $i + 1)
                return
            end
        else if string match -q -- '-*' $w
            contains -- $w $valued; and set i (math $i + 1)
        else
            set npos (math $npos + 1)
            if test $cmd_pos -ge 0; and test $npos -eq (math $cmd_pos + 1)
                echo exec $i
                return
            end
        end
        set i (math $i + 1)
    end
    if string match -q -- '-*' (commandline -ct)
        echo option
    else if test $npos -lt (count $words)
        echo word $words[(math $npos + 1)]
    end
end

# Each condition below asks for the state: it is worked out once per command line.
function __botdesk_state
    set -l line (commandline -pc | string collect)
    if not set -q __botdesk_state_line; or test "$__botdesk_state_line" != "$line"
        set -g __botdesk_state_value (__botdesk_state_of_line)
        set -g __botdesk_state_line $line
    end
    echo $__botdesk_state_value
end

function __botdesk_is
    set -l state (__botdesk_state)
    test "$state" = "$argv"
end

function __botdesk_verb_is
    set -l tokens (commandline -opc)
    for t in $tokens[2..-1]
        string match -q -- '-*' $t; and continue
        test "$t" = "$argv[1]"
        return
    end
    return 1
end

# The choices of a positional a|b|c word.
function __botdesk_choices
    set -l state (string split ' ' -- (__botdesk_state))
    test "$state[1]" = word; and string match -q -r -- '[a-z]' $state[2]; and string split '|' -- $state[2]
end

function __botdesk_in_command
    string match -q -- 'exec *' (__botdesk_state)
end

# exec's command line, completed as if typed on its own.
function __botdesk_complete_command
    set -l from (string split ' ' -- (__botdesk_state))[2]
    set -l tokens (commandline -opc) (commandline -ct)
    complete -C (string join ' ' -- (string escape -- $tokens[$from..-1]))
end

# Without a botdesk to ask, nothing is offered, and nothing is said.
set -g __botdesk_table
command -q botdesk; and set __botdesk_table (command botdesk __verbs 2>/dev/null)

complete -c botdesk -f
complete -c botdesk -n '__botdesk_is verb' -l help -d 'the usage'
complete -c botdesk -n '__botdesk_is verb' -l version -d 'the version and the build\'s features'
for line in $__botdesk_table
    set -l f (string split \t -- $line)
    switch $f[1]
        case verb
            test "$f[3]" = internal; or complete -c botdesk -n '__botdesk_is verb' -a $f[2]
        case option
            # Short names and options a verb ignores are taken, never offered.
            test "$f[6]" = hidden; and continue
            set -l opt -n "__botdesk_verb_is $f[2]; and not __botdesk_in_command" -l (string sub -s 3 -- $f[3])
            switch $f[4]
                case flag
                    complete -c botdesk $opt
                case words
                    complete -c botdesk $opt -x -a (string join ' ' -- (string split ' ' -- $f[5]))
                case file
                    complete -c botdesk $opt -r -F
                case dir
                    complete -c botdesk $opt -x -a '(__fish_complete_directories (commandline -ct))'
                case profile
                    complete -c botdesk $opt -x -a '(__botdesk_profiles)'
                case '*'
                    complete -c botdesk $opt -x
            end
        case word
            # exec's "--" before its command.
            test "$f[4]" = COMMAND; and complete -c botdesk -n "__botdesk_verb_is $f[2]; and __botdesk_is option" -a --
    end
end
complete -c botdesk -n '__botdesk_is word PROFILE' -a '(__botdesk_profiles)'
complete -c botdesk -n '__botdesk_is word VERB' -a '(string match -r -g "^verb\t([^\t]+)\t(?:listed|unlisted)\t" -- $__botdesk_table)'
complete -c botdesk -n '__botdesk_is value file' -F
complete -c botdesk -n '__botdesk_is value dir' -x -a '(__fish_complete_directories (commandline -ct))'
complete -c botdesk -n '__botdesk_is value profile' -x -a '(__botdesk_profiles)'
complete -c botdesk -n __botdesk_in_command -a '(__botdesk_complete_command)'
complete -c botdesk -n 'string match -q -- "word *" (__botdesk_state)' -a '(__botdesk_choices)'
