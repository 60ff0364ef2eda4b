#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Install what is missing, build and install botdesk, start a demo desktop
# and print where to watch it.
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
profile=${1:-demo}

"$src/scripts/install-deps.sh" --demo
[ -d "$src/build" ] || meson setup "$src/build" --prefix=/usr/local --sysconfdir=/etc >/dev/null
ninja -C "$src/build"
meson install -C "$src/build" --quiet

# The desktop belongs to whoever asked for it, not to root.
user=${SUDO_USER:-$(id -un)}
uid=$(id -u "$user")
run=(env)
if [ "$uid" -ne "$(id -u)" ]; then
        run=(runuser -u "$user" -- env)
        [ -d "/run/user/$uid" ] && run+=("XDG_RUNTIME_DIR=/run/user/$uid")
fi
"${run[@]}" /usr/local/bin/botdesk start "$profile"
"${run[@]}" /usr/local/bin/botdesk status --json "$profile"
cat <<MSG

Watch it: socat TCP-LISTEN:5901,bind=127.0.0.1,reuseaddr,fork EXEC:"botdesk rfb $profile --viewer me"
          vncviewer 127.0.0.1::5901       (loopback only; tunnel it with ssh -L)
Take it:  botdesk lease $profile take --viewer me    (your input counts; release gives it back)
Use it:   eval "\$(botdesk env $profile)"; xdotool getmouselocation
Stop it:  botdesk stop $profile
MSG
