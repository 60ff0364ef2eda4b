# SPDX-License-Identifier: LGPL-2.1-or-later
"""TAP for the unit tier's Python tests: tap(ok, description, *diagnostics), skip(), done()."""
import os
import sys

n = 0
failed = 0


def tap(ok, desc, *diag):
    global n, failed
    n += 1
    if not ok:
        failed += 1
    print("%s %d - %s" % ("ok" if ok else "not ok", n, desc))
    for d in diag:
        for line in str(d).splitlines():
            print("# " + line)
    return ok


def skip(desc, reason):
    """A check that cannot run here: under CI=true (where every package is installed) a failure."""
    global n, failed
    n += 1
    if os.environ.get("CI") == "true":
        failed += 1
        print("not ok %d - %s\n# skipped (%s), which CI=true does not allow" % (n, desc, reason))
    else:
        print("ok %d - %s # SKIP %s" % (n, desc, reason))


def done():
    """The plan, and the exit status: 1 when any check failed."""
    print("1..%d" % n)
    sys.exit(1 if failed else 0)
