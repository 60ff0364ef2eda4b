#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# stage-build.sh BUILD DEST: copy what the tests run of a build into DEST
# (made by the caller, inside its own scratch dir), readable by everyone:
# every program and module meson built in helper/ (the CLI opens
# botdesk-x11.so next to itself), botdesk-config.h, and the tests' own
# programs. For a second user who cannot read the checkout (a 0700 home or
# scratch dir, as a CI clone may be). The binaries link only system
# libraries, so they run from anywhere.
set -eu
build=${1:?usage: stage-build.sh BUILD DEST} dest=${2:?usage: stage-build.sh BUILD DEST}
[ -d "$dest" ] || { echo "stage-build.sh: $dest is not a directory" >&2; exit 1; }
mkdir -p "$dest/helper" "$dest/tests/integration"
for f in "$build"/helper/botdesk*; do
        [ -f "$f" ] && cp "$f" "$dest/helper/"
done
[ -f "$build/botdesk-config.h" ] && cp "$build/botdesk-config.h" "$dest/"
[ -x "$build/tests/integration/input-recorder" ] && cp "$build/tests/integration/input-recorder" "$dest/tests/integration/"
[ -x "$build/tests/integration/held-input-state" ] && cp "$build/tests/integration/held-input-state" "$dest/tests/integration/"
chmod -R a+rX "$dest"
