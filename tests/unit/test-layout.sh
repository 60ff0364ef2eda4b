#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The parts of helper/ include only what lies below them (helper/README.md):
#   shared      nothing above it
#   alloc, systemd, desktop, control   shared and themselves (desktop never
#               reaches systemd/: it starts no units)
#   x11         shared, control (acting on an X screen and reading it)
#   web         shared, control
#   mcp         shared (the agent's protocol, pure)
#   client      what every verb and the X module share: anything below,
#               never the agent, the verbs or the supervisor
#   agent       an agent's actions, the MCP backend: client and below
#   supervisor  anything but client, agent, cli, web, mcp, generator
#   cli         anything but supervisor, generator
#   generator   shared, systemd
#   pam/        shared, alloc and systemd (its network step sets unit properties)
# no source lies loose in helper/, and no C file under helper/, pam/ or
# tests/, and no shell or Python file under tests/, is over 700 lines (a file does one thing); the CLI's verbs read
# their words through the one table (helper/cli/verb-table.c): no verb-*.c
# parses its own options outside the allow-list below, and cli-remote.c
# keeps no list of verbs; an inotify watch on an open directory goes
# through inotify_add_watch_fd() (shared/fd-util.c) or sd_event_add_inotify_fd(),
# never a /proc/self/fd path built by hand. Prints TAP.
#   test-layout.sh SOURCE_DIR
set -u
src=${1:?usage: test-layout.sh SOURCE_DIR}
n=0 failed=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() { n=$((n + 1)) failed=$((failed + 1)); echo "not ok $n - $1"; shift; for d in "$@"; do echo "# $d"; done; }

declare -A allowed=(
        [shared]="shared"
        [alloc]="shared alloc"
        [systemd]="shared systemd"
        [desktop]="shared desktop"
        [control]="shared control"
        [x11]="shared control x11"
        [web]="shared control web"
        [mcp]="shared mcp"
        [client]="shared alloc systemd desktop control x11 web mcp client"
        [agent]="shared alloc systemd desktop control x11 web mcp client agent"
        [supervisor]="shared alloc systemd desktop control x11 supervisor"
        [cli]="shared alloc systemd desktop control x11 web mcp client agent cli"
        [generator]="shared systemd generator"
        [pam]="shared alloc systemd"
)
# Which part a header lives in (a folder inside a part, such as
# shared/config/, belongs to that part).
declare -A home
for h in "$src"/helper/*/*.h "$src"/helper/*/*/*.h; do
        [ -e "$h" ] || continue
        part=${h#"$src"/helper/}; part=${part%%/*}
        home[${h##*/}]=$part
done
[ "${#home[@]}" -gt 20 ] && ok "the parts' headers were found (${#home[@]})" ||
        not_ok "the parts' headers were found (only ${#home[@]})"

check_part() { # PART DIR
        local part=$1 dir=$2 f h to bad=()
        for f in "$dir"/*.[ch] "$dir"/*/*.[ch]; do
                [ -e "$f" ] || continue
                while read -r h; do
                        to=${home[$h]:-}
                        [ -n "$to" ] || continue   # a system or generated header
                        case " ${allowed[$part]} " in *" $to "*) ;; *) bad+=("${f#"$src"/} includes $h ($to/)") ;; esac
                done < <(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f")
        done
        if [ ${#bad[@]} -eq 0 ]; then
                ok "$part/ includes only ${allowed[$part]// /, }"
        else
                not_ok "$part/ includes only ${allowed[$part]// /, }" "${bad[@]}"
        fi
}
for d in "$src"/helper/*/; do
        part=${d%/}; part=${part##*/}
        if [ -z "${allowed[$part]:-}" ]; then
                not_ok "helper/$part/ is a known part" "add it to tests/unit/test-layout.sh and helper/README.md"
                continue
        fi
        check_part "$part" "${d%/}"
done
check_part pam "$src/pam"
# The PAM module's include dirs are the ones helper/meson.build lets it see
# (pam_visible_inc), not paths of its own into helper/.
reach=$(grep -n "\.\./helper" "$src/pam/meson.build" || true)
[ -z "$reach" ] && ok "pam/meson.build does not reach into ../helper" ||
        not_ok "pam/meson.build does not reach into ../helper" "$reach"

loose=$(find "$src/helper" -maxdepth 1 -name '*.[ch]' -printf '%f ')
[ -z "$loose" ] && ok "no source lies loose in helper/" || not_ok "no source lies loose in helper/" "loose: $loose"

# Lines of every C file, and of the tests' shell and Python, in one awk per
# batch of files (a fork per file costs seconds on a loaded machine).
max_lines=700
long=()
while IFS= read -r line; do
        long+=("$line")
done < <({ find "$src/helper" "$src/pam" "$src/tests" -name '*.c' -type f -print0
           find "$src/tests" \( -name '*.sh' -o -name '*.py' \) -type f -print0; } | sort -z |
         xargs -0 -r awk -v max="$max_lines" -v src="$src/" '
                { n[FILENAME]++ }
                END { for (f in n) if (n[f] > max) { g = index(f, src) == 1 ? substr(f, length(src) + 1) : f; print g " has " n[f] " lines" } }')
if [ ${#long[@]} -eq 0 ]; then
        ok "no C file under helper/, pam/ or tests/, and no script under tests/, is over $max_lines lines"
else
        not_ok "no C file under helper/, pam/ or tests/, and no script under tests/, is over $max_lines lines" "${long[@]}" \
                "split it by concern"
fi

# The CLI's verbs: one table (helper/cli/verb-table.c) and main.c's parser
# read every verb's words. A verb-*.c that runs getopt, or compares its
# words with option names by hand, keeps a second list of options. The
# rule: getopt, a comparison of a word with a string that starts with a
# dash (streq(w, "--json"), startswith(a, "--type=")), or a test of a
# word's first character against '-'.
cli=$src/helper/cli
# Every verb's words are read so, input's too (negative numbers, "-", and
# options that belong to its actions): none is allowed a loop of its own.
parse_rule='getopt|streq\([^,()]+, *"-|startswith\([^,()]+, *"-|(\[0\]|^[^/]*\*[a-z_]+) *== *'"'"'-'"'"''
own=()
for f in "$cli"/verb-*.c; do
        [ -e "$f" ] || continue
        hits=$(grep -nE "$parse_rule" "$f" | head -3)
        [ -n "$hits" ] && own+=("${f#"$src"/} parses its own options: ${hits//$'\n'/; }")
done
if [ ${#own[@]} -eq 0 ]; then
        ok "no verb-*.c parses its own options outside the table"
else
        not_ok "no verb-*.c parses its own options outside the table" "${own[@]}" \
                "declare them in helper/cli/verb-table.c and read struct cli_args"
fi
# The rule still sees a hand loop (a check of the check).
probe='if (streq(argv[i], "--json"))'
grep -qE "$parse_rule" <<<"$probe" && ok "the rule finds a hand loop over options" ||
        not_ok "the rule finds a hand loop over options" "$probe"

# cli-remote.c decides by the table (placed, remote_timeout, the options of
# a verb that take a value): no array of verb names, and no chain of three
# or more comparisons of the verb with names.
verbs=$(sed -n 's/^        { "\([a-z0-9_]*\)",.*/\1/p' "$cli/verb-table.c" | tr '\n' ' ')
[ "$(wc -w <<<"$verbs")" -gt 20 ] && ok "the table's verbs were found ($(wc -w <<<"$verbs"))" ||
        not_ok "the table's verbs were found" "only: $verbs"
# awk: arrays holding two or more verb names, lines with three or more streq(verb, "NAME").
# An array named *_keys[] holds JSON keys, some of which are also verbs' names (browser, lease).
list_awk='
        BEGIN { n = split(verbs, v, " "); for (i = 1; i <= n; i++) is_verb["\"" v[i] "\""] = 1 }
        function verb_names(line,   c) {
                c = 0
                while (match(line, /"[a-z0-9_]+"/)) {
                        if (substr(line, RSTART, RLENGTH) in is_verb) c++
                        line = substr(line, RSTART + RLENGTH)
                }
                return c
        }
        /_keys\[\] *= *\{/ { in_keys = 1 }
        in_keys { if ($0 ~ /\};/) in_keys = 0; next }
        /\[\] *= *\{/ { in_list = 1; start = FNR; found = 0 }
        in_list {
                found += verb_names($0)
                if ($0 ~ /\};/) { if (found >= 2) print FILENAME ":" start ": an array of " found " verb names"; in_list = 0 }
                next
        }
        {
                c = 0; t = $0
                while (match(t, /streq\(verb, *"[a-z0-9_]+"\)/)) { c++; t = substr(t, RSTART + RLENGTH) }
                if (c >= 3) print FILENAME ":" FNR ": " c " comparisons of the verb with names"
        }'
mapfile -t lists < <(cd "$src" && awk -v verbs="$verbs" "$list_awk" helper/cli/cli-remote.c)
[ ${#lists[@]} -eq 0 ] && ok "cli-remote.c keeps no list of verbs" ||
        not_ok "cli-remote.c keeps no list of verbs" "${lists[@]}" "add a column to helper/cli/verb-table.c instead"
# The rule still sees the lists cli-remote.c once kept (a check of the check).
probe=$(printf '%s\n' 'static const char *const verbs[] = { "start", "stop",' '                               "rfb" };')
lists=$(awk -v verbs="$verbs" "$list_awk" <<<"$probe")
[ -n "$lists" ] && ok "the rule finds an array of verb names" || not_ok "the rule finds an array of verb names" "$probe"

# One way to name an open fd's inode: shared/fd-util.c's (inotify_add_watch_fd, fd_get_path) or sd_event_add_inotify_fd.
by_path=$(grep -rnE '"/proc/self/fd/%d"|sd_event_add_inotify\(' "$src/helper" --include='*.c' |
        grep -v '^'"$src"'/helper/shared/fd-util.c:')
[ -z "$by_path" ] && ok "no /proc/self/fd path is built outside shared/fd-util.c, no inotify source by path" ||
        not_ok "no /proc/self/fd path is built outside shared/fd-util.c, no inotify source by path" "$by_path"
probe='        r = sd_event_add_inotify(e, &s, path, IN_MOVED_TO, cb, u);'
probe2='        snprintf(self, sizeof self, "/proc/self/fd/%d", dirfd);'
grep -qE '"/proc/self/fd/%d"|sd_event_add_inotify\(' <<<"$probe" && grep -qE '"/proc/self/fd/%d"' <<<"$probe2" &&
        ok "the rule finds a watch by path and a /proc/self/fd path built by hand" ||
        not_ok "the rule finds a watch by path and a /proc/self/fd path built by hand" "$probe" "$probe2"

echo "1..$n"
[ "$failed" = 0 ]
