#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# botdesk --version says what this build has, as systemctl --version does:
# the version, then +NAME or -NAME for each optional part, and each word
# agrees with what the build made (its build.ninja) and with the feature
# options it was configured with (meson-info). Prints TAP.
#   test-version.sh BOTDESK BUILD_DIR
set -u
bd=${1:?usage: test-version.sh BOTDESK BUILD_DIR}
build=${2:?usage: test-version.sh BOTDESK BUILD_DIR}
n=0 failed=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() { n=$((n + 1)) failed=$((failed + 1)); echo "not ok $n - $1"; shift; for d in "$@"; do echo "# $d"; done; }
check() { # NAME PROBLEM...: ok when no problem was given
        local name=$1
        shift
        if [ $# -eq 0 ]; then ok "$name"; else not_ok "$name" "$@"; fi
}

out=$(timeout 20 "$bd" --version </dev/null 2>&1)
rc=$?
version=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["version"])' \
        "$build/meson-info/intro-projectinfo.json")
check "botdesk --version exits 0 with two lines" $([ "$rc" = 0 ] && [ "$(wc -l <<<"$out")" = 2 ] || echo "exit $rc: $out")
check "its first line is botdesk and the project's version ($version)" \
        $([ "$(sed -n 1p <<<"$out")" = "botdesk $version" ] || echo "$(sed -n 1p <<<"$out")")

line=$(sed -n 2p <<<"$out")
check "its second line is +NAME or -NAME words, each once" \
        $([[ $line =~ ^[+-][A-Z0-9]+(\ [+-][A-Z0-9]+)*$ ]] &&
          [ "$(tr ' ' '\n' <<<"$line" | cut -c2- | sort | uniq -d)" = "" ] || echo "$line")

# What the build made for each part: a line of build.ninja that exists
# only when the part is built (its source, not the fallback, or its target).
declare -A evidence=(
        [THUMBNAIL]='^build helper/botdesk-x11\.so:'
        [INPUT]='^build [^ :]*cli_verb-input\.c\.o:'
        [DAMAGE]='^build [^ :]*libbotdesk-x11\.a\.p/settle\.c\.o:'
        [RANDR]='^build [^ :]*botdesk-helper\.p/desktop_randr\.c\.o:'
        [XTEST]='^build [^ :]*botdesk-helper\.p/control_held-input\.c\.o:'
        [PAM]='^build pam/pam_botdesk\.so:'
        [SELINUX]='^build selinux/botdesk\.pp:'
)
problems=()
for name in "${!evidence[@]}"; do
        [[ " $line " == *[+-]"$name "* ]] || problems+=("--version does not say $name")
done
for word in $line; do
        name=${word:1}
        re=${evidence[$name]:-}
        if [ -z "$re" ]; then
                problems+=("$name: no evidence of it in the build known here (add it to evidence)")
        elif grep -qE "$re" "$build/build.ninja"; then
                [ "${word:0:1}" = + ] || problems+=("$word, but the build made it ($re)")
        else
                [ "${word:0:1}" = - ] || problems+=("$word, but the build did not make it ($re)")
        fi
done
check "every word agrees with what build.ninja builds" "${problems[@]}"

# A feature option set to enabled must show +, disabled -.
problems=()
while read -r opt value; do
        case $opt in
        pam) name=PAM ;;
        thumbnail) name=THUMBNAIL ;;
        input) name=INPUT ;;
        selinux) name=SELINUX ;;
        *) continue ;;
        esac
        case $value in
        enabled) [[ " $line " == *" +$name "* ]] || problems+=("-D$opt=enabled, but not +$name") ;;
        disabled) [[ " $line " == *" -$name "* ]] || problems+=("-D$opt=disabled, but not -$name") ;;
        esac
done < <(python3 -c '
import json, sys
for o in json.load(open(sys.argv[1])):
    if o["type"] == "combo" and o["section"] == "user":
        print(o["name"], o["value"])' "$build/meson-info/intro-buildoptions.json")
check "every feature option set to enabled or disabled shows as + or -" "${problems[@]}"

echo "1..$n"
[ "$failed" = 0 ]
