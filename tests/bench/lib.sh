# SPDX-License-Identifier: LGPL-2.1-or-later
# Shared by the benchmark scripts (bash, sourced): where the tree and the
# build are, and their options.
#
#   . "$(dirname "$0")/lib.sh"
#   bench_parse_options "n:RUNS b:BUILD" "$@"

SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BUILD=$SRC/build

# bench_parse_options "X:VAR ..." ARGS...: each -X VALUE of ARGS into VAR;
# an unknown option (getopts says which) exits 2.
bench_parse_options() {
        local spec=$1 optstring="" pair o
        local -A var=()
        shift
        for pair in $spec; do
                optstring+="${pair%%:*}:"
                var[${pair%%:*}]=${pair#*:}
        done
        OPTIND=1
        while getopts "$optstring" o; do
                [ -n "${var[$o]:-}" ] || exit 2
                printf -v "${var[$o]}" %s "$OPTARG"
        done
}
