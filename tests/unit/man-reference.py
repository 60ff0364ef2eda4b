#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The man pages are the reference, and they match the code.

    man-reference.py SOURCE_DIR PATH/TO/botdesk

Reads the verb table as the built botdesk prints it (`botdesk __verbs`) and
every key of botdesk.ini as `botdesk config show --profile P` prints them,
and checks against conf/man/botdesk.1.scd and conf/man/botdesk.ini.5.scd:
  - every verb has an entry in COMMANDS (a line starting *VERB*);
  - every option a verb shows in its usage is in that verb's entries, or in
    the OPTIONS entry of the option, which then names the verb;
  - every option an entry's synopsis line names is one that verb takes (the
    page promises nothing the parser refuses);
  - every key has a `*KEY =*` entry under its own `## [SECTION]` heading, and
    every such entry is a key of that section (profile-only keys under
    [profile.NAME]); every section has its heading.
Prints TAP; each failure names what is missing or wrong and where.
"""
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from taplib import done, tap  # noqa: E402

SRC, CLI = sys.argv[1], sys.argv[2]


def run(*args):
    # The built-in defaults alone: an empty system file, no user file.
    with tempfile.NamedTemporaryFile(suffix=".ini") as empty:
        env = dict(os.environ, BOTDESK_CONFIG=empty.name, XDG_CONFIG_HOME="/nonexistent")
        return subprocess.run([CLI, *args], check=True, capture_output=True, text=True, env=env).stdout


def sections(path):
    """{heading: [(line number, text)]} for the '# ' (and '## ') headings."""
    out, cur = {}, None
    for i, line in enumerate(open(path, encoding="utf-8"), 1):
        m = re.match(r"(#{1,2}) (.*)", line)
        if m:
            cur = m.group(2).strip()
            out.setdefault(cur, [])
            continue
        if cur is not None:
            out[cur].append((i, line.rstrip("\n")))
    return out


def entries(lines):
    """The entries of a section: a line at column 0 starting with '*' opens one,
    its indented lines and blank lines belong to it. [(line, head, body)]"""
    out = []
    for i, text in lines:
        if text.startswith("*"):
            out.append([i, text, text])
        elif out and (text.startswith("\t") or not text.strip()):
            out[-1][2] += "\n" + text
        else:
            out.append([i, "", text]) if out else None
    return [(i, h, b) for i, h, b in out if h]


def bold_words(text):
    return set(re.findall(r"\*([^*\s][^*]*?)\*", text))


# The verb table.
verbs, options, short = [], {}, {}
last = None
for row in run("__verbs").splitlines():
    f = row.split("\t")
    if f[0] == "verb" and f[2] != "internal":
        verbs.append(f[1])
        options[f[1]] = {}
    elif f[0] == "option" and f[1] in options:
        options[f[1]][f[2]] = f[5] != "hidden"
        # A short name follows its long one, on a row of its own.
        if not f[2].startswith("--") and last and last[1] == f[1]:
            short[last[2]] = f[2]
        last = f

man1 = os.path.join(SRC, "conf/man/botdesk.1.scd")
s1 = sections(man1)
commands = entries(s1.get("COMMANDS", []))
opt_entries = entries(s1.get("OPTIONS", []))
tap(commands and opt_entries, "botdesk.1 has COMMANDS and OPTIONS entries")

for verb in verbs:
    mine = [(i, h, b) for i, h, b in commands if h.split()[0].strip("*").split()[0] == verb
            or h.startswith("*%s " % verb) or h.startswith("*%s*" % verb)]
    tap(bool(mine), "botdesk.1 COMMANDS has an entry for %s" % verb)
    text = "\n".join(b for _, _, b in mine)
    said = bold_words(text)
    for opt, shown in sorted(options[verb].items()):
        if opt == "--help" or not shown:
            continue
        where = [b for _, h, b in opt_entries if opt in bold_words(h)]
        named_there = any(verb in bold_words(b) for b in where)
        # "*--json* [*--full*]": an option may share its bold span with its value (*--ttl* _S_ is two).
        names = {opt, short.get(opt)}
        in_entry = any(w.split()[0] in names for w in said if w.split())
        tap(in_entry or named_there, "botdesk.1 documents %s %s" % (verb, opt),
            *([] if in_entry or named_there else
              ["not in its entries (lines %s) nor in an OPTIONS entry naming *%s*" %
               (", ".join(str(i) for i, _, _ in mine) or "none", verb)]))
    # Every option the synopsis lines promise is one the verb takes.
    for i, head, _ in mine:
        for w in bold_words(head):
            word = w.split()[0] if w.split() else w
            if word.startswith("-") and word not in ("-", "--"):  # stdout, the end of options
                ok = word in options[verb]
                tap(ok, "botdesk.1:%d: %s takes the %s its entry names" % (i, verb, word),
                    *([] if ok else ["botdesk __verbs lists no %s for %s" % (word, verb)]))

# botdesk.ini keys, section by section.
ini = {}
sec = None
for line in run("config", "show", "--profile", "x").splitlines():
    m = re.match(r"\[(\w+)\]$", line)
    if m:
        sec = m.group(1)
        continue
    if line.startswith("; from [profile.NAME]"):
        sec = "profile.NAME"
        continue
    m = re.match(r";? ?([a-z_0-9]+) =", line)
    if m and sec:
        ini.setdefault(sec, set()).add(m.group(1))
ok = len(ini) > 5 and "profile.NAME" in ini
tap(ok, "config show lists its sections and the profile-only keys", *([] if ok else ["sections: %s" % sorted(ini)]))

man5 = os.path.join(SRC, "conf/man/botdesk.ini.5.scd")
s5 = sections(man5)
for sec, keys in sorted(ini.items()):
    heading = "[%s]" % sec
    tap(heading in s5, "botdesk.ini.5 has a heading %s" % heading)
    documented = {}
    for i, text in s5.get(heading, []):
        m = re.match(r"\*([a-z_0-9\\]+) =\*", text)
        if m:
            documented[m.group(1).replace("\\_", "_")] = i
    for key in sorted(keys):
        tap(key in documented, "botdesk.ini.5 documents %s %s" % (heading, key),
            *([] if key in documented else ["no line '*%s =*' under ## %s" % (key, heading)]))
    for key, i in sorted(documented.items()):
        tap(key in keys, "botdesk.ini.5:%d: %s is a key of %s" % (i, key, heading),
            *([] if key in keys else ["botdesk config show lists no %s in %s" % (key, heading)]))

done()
