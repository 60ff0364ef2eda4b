#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
# The task bench's three-level menu (tests/bench/tasks.sh): a GTK 3 window,
# "Task menu", whose menu bar has Report > Export > Format > Markdown (and
# siblings at every level, so that a wrong item is a wrong answer). The item
# chosen is printed as its path ("Report/Export/Format/Markdown") and the
# program exits 0; closed without a choice, it exits 1.
import sys

import gi

gi.require_version("Gtk", "3.0")
from gi.repository import Gtk  # noqa: E402

MENU = ("Report", [
    ("Open", None),
    ("Export", [
        ("PDF", None),
        ("Format", [("Plain text", None), ("Markdown", None), ("HTML", None)]),
        ("Spreadsheet", None),
    ]),
    ("Print", None),
])
chosen = []


def build(items, path):
    menu = Gtk.Menu()
    for label, sub in items:
        item = Gtk.MenuItem(label=label)
        if sub:
            item.set_submenu(build(sub, path + [label]))
        else:
            item.connect("activate", choose, "/".join(path + [label]))
        menu.append(item)
    return menu


def choose(_item, path):
    chosen.append(path)
    Gtk.main_quit()


win = Gtk.Window(title="Task menu")
win.set_default_size(420, 240)
box = Gtk.Box(orientation=Gtk.Orientation.VERTICAL)
bar = Gtk.MenuBar()
top = Gtk.MenuItem(label=MENU[0])
top.set_submenu(build(MENU[1], [MENU[0]]))
bar.append(top)
box.pack_start(bar, False, False, 0)
box.pack_start(Gtk.Label(label="Choose Report > Export > Format > Markdown"), True, True, 0)
win.add(box)
win.connect("destroy", Gtk.main_quit)
win.show_all()
Gtk.main()
if not chosen:
    sys.exit(1)
print(chosen[0])
