#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# build-module.sh MAKEFILE WORKDIR OUTPUT SOURCE... - compile the policy
# module with the reference policy's development Makefile. That Makefile
# works in the current directory (it writes tmp/ and NAME.pp beside the
# sources), so the sources are copied into a private directory first.
set -eu
makefile=$1 work=$2 out=$3
shift 3
rm -rf -- "${work:?}"
mkdir -p "$work"
cp "$@" "$work/"
make -s -C "$work" -f "$makefile" botdesk.pp >"$work/make.log" 2>&1 || { cat "$work/make.log" >&2; exit 1; }
# m4 reports some errors (an unbalanced quote in a comment) without failing.
if grep -q 'ERROR' "$work/make.log"; then cat "$work/make.log" >&2; exit 1; fi
cp "$work/botdesk.pp" "$out"
