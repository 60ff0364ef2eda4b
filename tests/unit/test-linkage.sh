#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# What every CLI process maps at its start, and so pays for (the bench's
# status row): the CLI's ELF NEEDED entries name none of the libraries it
# loads only when a verb asks (GnuTLS for a remote profile's TLS, libpng
# for a PNG) or that live in the X module (xcb, libjpeg, xkbcommon). A
# build that links one of them again fails here, not in a bench run.
#   test-linkage.sh BOTDESK
set -u
cli=${1:?usage: test-linkage.sh BOTDESK}
n=0 failed=0
if ! command -v readelf >/dev/null 2>&1; then
        if [ "${CI:-}" = true ]; then echo "1..1"; echo "not ok 1 - readelf is not installed (binutils)"; exit 1; fi
        echo "1..0 # SKIP readelf not installed"
        exit 0
fi
needed=$(readelf -d "$cli" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
check() {       # PATTERN WHAT
        n=$((n + 1))
        if grep -q -- "$1" <<<"$needed"; then
                failed=$((failed + 1))
                echo "not ok $n - the CLI does not link $2"
                echo "# NEEDED: $(echo $needed)"
        else
                echo "ok $n - the CLI does not link $2"
        fi
}
n=$((n + 1))
if grep -q '^libsystemd' <<<"$needed"; then echo "ok $n - the CLI's NEEDED entries are read (libsystemd among them)"; else
        failed=$((failed + 1)); echo "not ok $n - the CLI's NEEDED entries are read"; echo "# got: $(echo $needed)"; fi
check '^libgnutls' "GnuTLS (loaded for a remote profile's TLS: control/rfb-tls.c)"
check '^libpng' "libpng (loaded for a PNG: x11/thumbnail-png.c)"
check '^libxcb' "xcb (the X verbs' module: cli/x11-verbs.c)"
check '^libjpeg' "libjpeg (the X verbs' module)"
check '^libxkbcommon' "xkbcommon (the X verbs' module)"
echo "1..$n"
[ "$failed" = 0 ]
