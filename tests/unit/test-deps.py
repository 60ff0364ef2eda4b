#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Every program the host-side test scripts call comes from scripts/install-deps.sh.

    test-deps.py SOURCE_DIR

Collects, from the scripts that run on the host (the integration tier, the
system and SELinux tiers' host sides, the bench, tests/run.sh and .ci/run):
  - the programs they require by name: `bd_need A B`, `command -v A`, and the
    `for c in prog:package` tables of the VM test;
  - the programs in command position of every shell line (after `|`, `;`,
    `&&`, `$(`, `timeout N`, `env A=B`, ...), outside here-documents.
Each one that resolves to a file on this host is mapped to its Debian package
with `dpkg -S`; the package must be essential or required (on every Debian
machine) or in install-deps' lists (`install-deps.sh --list --tests`). A
program required by name that does not resolve fails under CI=true (where
install-deps has run) and is reported as a skip elsewhere. Prints TAP.
"""
import os
import re
import shutil
import subprocess
import sys

SRC = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "..")

# Scripts that run on the host. tests/system/t-*.sh and lib.sh run inside the
# container, tests/selinux/vm-guest.sh inside the VM: their programs come from
# those root file systems, not from the host.
HOST_SCRIPTS = (
    [os.path.join("tests/integration", f) for f in sorted(os.listdir(os.path.join(SRC, "tests/integration")))
     if f.endswith(".sh")]
    + ["tests/system/run.sh", "tests/system/harness.sh", "tests/system/demo-clean.sh", "tests/selinux/link-test.sh",
       "tests/selinux/vm-test.sh", "tests/run.sh", ".ci/run"]
    + [os.path.join("tests/bench", f) for f in sorted(os.listdir(os.path.join(SRC, "tests/bench")))
       if f.endswith(".sh")]
)
# Programs the scripts reach through a variable ($PY, "$BOTDESK" ...).
VIA_VARIABLE = ["python3", "Xtigervnc", "dbus-daemon"]
# The project's own programs, built here, not installed from Debian.
OWN_PROGRAMS = {"botdesk", "botdesk-helper", "botdesk-session-generator"}
# Words that take a command after them.
WRAPPERS = {"timeout", "env", "exec", "nohup", "setsid", "time", "runuser", "sudo", "command", "!", "then",
            "do", "else", "elif", "if", "while", "until", "xargs", "nice", "stdbuf", "flock"}

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from taplib import done, skip, tap  # noqa: E402


def strip_heredocs(text):
    """The script without the bodies of its here-documents and without comment lines."""
    out, end = [], None
    for line in text.splitlines():
        if end is not None:
            if line.strip() == end:
                end = None
            continue
        m = re.search(r"<<-?\s*['\"]?([A-Za-z_]+)['\"]?", line)
        if m:
            end = m.group(1)
        if line.lstrip().startswith("#"):
            continue
        out.append(line)
    return "\n".join(out) + "\n"


def functions_in(text):
    return set(re.findall(r"^\s*([A-Za-z_][A-Za-z0-9_-]*)\s*\(\)", text, re.M))


def code_segments(text):
    """The shell code of a script as segments, each starting in command
    position: quoted strings (single, double, across lines) are left out,
    but the code of $( ... ) inside double quotes is kept. A small scanner,
    not a shell parser: good enough for this tree's scripts."""
    segs, cur = [], []
    stack = ["code"]        # code | sq | dq ; "code" entries pushed by $( inside dq
    i = 0
    while i < len(text):
        c = text[i]
        top = stack[-1]
        if top == "sq":
            if c == "'":
                stack.pop()
            i += 1
            continue
        if top == "dq":
            if c == "\\":
                i += 2
                continue
            if c == '"':
                stack.pop()
            elif text.startswith("$(", i) and not text.startswith("$((", i):
                stack.append("code")
                segs.append("".join(cur)); cur = []
                i += 2
                continue
            i += 1
            continue
        # code
        if c == "\\":
            i += 2
            continue
        if c == "'":
            stack.append("sq"); cur.append(" ''"); i += 1; continue
        if c == '"':
            stack.append("dq"); cur.append(' ""'); i += 1; continue
        if c == "#" and (i == 0 or text[i - 1] in " \t\n;"):
            j = text.find("\n", i)
            i = len(text) if j < 0 else j
            continue
        if text.startswith("$((", i):
            j = text.find("))", i)
            i = len(text) if j < 0 else j + 2
            continue
        if text.startswith("$(", i):
            stack.append("code")
            segs.append("".join(cur)); cur = []
            i += 2
            continue
        if c == ")" and len(stack) > 1:
            stack.pop()
            segs.append("".join(cur)); cur = []
            i += 1
            continue
        if c in "|;&(){}`\n":
            segs.append("".join(cur)); cur = []
            i += 1
            continue
        cur.append(c)
        i += 1
    segs.append("".join(cur))
    return segs


def words_in_command_position(text):
    for part in code_segments(text):
        toks = part.split()
        i = 0
        while i < len(toks):
            t = toks[i]
            if re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", t):        # VAR=value
                i += 1
                continue
            if t in WRAPPERS:
                i += 1
                # options and a duration of the wrapper (timeout 60, runuser -u U --)
                while i < len(toks) and (toks[i].startswith("-") or re.match(r"^[0-9.]+[smh]?$", toks[i])):
                    if toks[i] in ("-u", "-g") and i + 1 < len(toks):
                        i += 1
                    i += 1
                continue
            break
        if i < len(toks):
            t = toks[i]
            if re.match(r"^[A-Za-z][A-Za-z0-9._+-]*$", t):
                yield t


def required_by_name(text):
    names = set()
    for m in re.finditer(r"^\s*bd_need\s+([^#\n|;&]+)", text, re.M):
        names.update(w for w in m.group(1).split() if re.match(r"^[A-Za-z][A-Za-z0-9._+-]*$", w))
    for m in re.finditer(r"command -v\s+\"?([A-Za-z][A-Za-z0-9._+-]*)", text):
        names.add(m.group(1))
    for m in re.finditer(r"for c in ([^;]*?);\s*do", text, re.S):
        names.update(w.split(":")[0] for w in m.group(1).replace("\\", " ").split() if ":" in w)
    return names


OWNERS = None


def dpkg_owners():
    """Every installed path and its package, read once from dpkg's file lists:
    one dpkg-query -S per candidate path took most of two minutes on a busy
    machine (each call reads every list)."""
    global OWNERS
    if OWNERS is None:
        OWNERS = {}
        info = "/var/lib/dpkg/info"
        for f in sorted(os.listdir(info)) if os.path.isdir(info) else []:
            if not f.endswith(".list"):
                continue
            pkg = f[:-len(".list")].split(":")[0]
            with open(os.path.join(info, f), encoding="utf-8", errors="replace") as h:
                for line in h:
                    OWNERS.setdefault(line.rstrip("\n"), pkg)
    return OWNERS


def dpkg_owner(path):
    owners = dpkg_owners()
    for p in (path, os.path.realpath(path)):
        for cand in (p, re.sub(r"^/usr/", "/", p), p if p.startswith("/usr/") else "/usr" + p):
            if cand in owners:
                return owners[cand]
    return None


def with_dependencies(pkgs):
    """The packages and everything they depend on (as installed here)."""
    r = subprocess.run(["apt-cache", "depends", "--recurse", "--installed", "--no-recommends", "--no-suggests",
                        "--no-conflicts", "--no-breaks", "--no-replaces", "--no-enhances"] + list(pkgs),
                       capture_output=True, text=True)
    out = set(pkgs)
    for line in r.stdout.splitlines():
        if line and not line[0].isspace():
            out.add(line.strip().split(":")[0])
    return out


def alternatives(path):
    """The programs an alternatives link (/usr/bin/awk) may stand for."""
    r = subprocess.run(["update-alternatives", "--list", os.path.basename(path)], capture_output=True, text=True)
    return r.stdout.split() if r.returncode == 0 else []


def base_system(pkg):
    r = subprocess.run(["dpkg-query", "-W", "-f=${Essential} ${Priority}", pkg], capture_output=True, text=True)
    return r.returncode == 0 and (r.stdout.startswith("yes") or "required" in r.stdout)


def main():
    listed = subprocess.run([os.path.join(SRC, "scripts/install-deps.sh"), "--list", "--tests"],
                            capture_output=True, text=True, check=True).stdout.split()
    tap(len(listed) > 10, "install-deps.sh --list --tests prints its packages (%d)" % len(listed))
    if not shutil.which("dpkg-query"):
        skip("programs are mapped to packages", "dpkg-query is not installed")
        done()

    provided = with_dependencies(listed)
    named, positional, own = set(VIA_VARIABLE), {}, set()
    for rel in HOST_SCRIPTS:
        path = os.path.join(SRC, rel)
        if not os.path.exists(path):
            continue
        text = open(path, encoding="utf-8").read()
        own |= functions_in(text)
        named |= required_by_name(text)
        for w in words_in_command_position(strip_heredocs(text)):
            positional.setdefault(w, rel)

    for prog in sorted(named | set(positional)):
        if prog in own or prog in OWN_PROGRAMS:
            continue
        kind = subprocess.run(["bash", "-c", 'type -t -- "$1"', "bash", prog], capture_output=True,
                              text=True).stdout.strip()
        if kind in ("builtin", "keyword", "alias", "function"):
            continue
        where = shutil.which(prog)
        if not where:
            if prog in named:
                skip("%s, which a test requires by name, is installed" % prog, "not on this host")
            continue
        if where.startswith(os.path.realpath(SRC)) or where.startswith("/usr/local/") or "/.pyenv/" in where:
            # A copy outside Debian (pyenv's python3 on a developer's machine): the Debian one is asked for by name.
            where = "/usr/bin/" + prog
            if not os.path.exists(where):
                continue
        pkg = dpkg_owner(where)
        if pkg is None:
            tap(False, "%s (%s) belongs to a Debian package" % (prog, where),
                "no package owns it: install it from install-deps' lists, or call it another way")
            continue
        ok = pkg in provided or base_system(pkg)
        if not ok and os.path.islink(where):
            # An alternative (awk: gawk here, mawk on a fresh machine): any base or listed provider will do.
            for alt in alternatives(where):
                owner = dpkg_owner(alt)
                if owner and (owner in provided or base_system(owner)):
                    pkg, ok = owner + " (an alternative)", True
                    break
        tap(ok, "%s comes from %s, which %s" % (prog, pkg, "install-deps installs" if pkg in provided
                                                  else "every Debian system has" if ok
                                                  else "install-deps does NOT install"),
            *([] if ok else ["called in %s; add %s to scripts/install-deps.sh" % (positional.get(prog, "a test"), pkg)]))
    done()


main()
