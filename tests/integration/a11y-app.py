#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
# The GTK application of tests/integration/a11y.sh: a menu, a text entry,
# a password entry, a check box and a button that writes the entry's text
# to OUT when pressed; its pid goes to OUT.pid. With N, N more buttons in
# a scrolled grid (tests/bench/a11y.sh: a tree of some 2,000 nodes).
# Usage: a11y-app.py TITLE OUT [N]
import os
import sys

import gi

gi.require_version("Gtk", "3.0")
from gi.repository import Gtk  # noqa: E402

title, out = sys.argv[1], sys.argv[2]
# Its pid, for the test to stop it (an application that hangs).
with open(out + ".pid", "w", encoding="ascii") as f:
    f.write("%d\n" % os.getpid())
win = Gtk.Window(title=title)
win.set_default_size(420, 260)
win.connect("destroy", Gtk.main_quit)
box = Gtk.Box(orientation=Gtk.Orientation.VERTICAL, spacing=6)
win.add(box)

menubar = Gtk.MenuBar()
file_item = Gtk.MenuItem(label="File")
menu = Gtk.Menu()
menu.append(Gtk.MenuItem(label="Open"))
menu.append(Gtk.MenuItem(label="Quit"))
file_item.set_submenu(menu)
menubar.append(file_item)
box.pack_start(menubar, False, False, 0)

entry = Gtk.Entry()
entry.get_accessible().set_name("Name")
box.pack_start(entry, False, False, 0)
password = Gtk.Entry()
password.set_visibility(False)
password.get_accessible().set_name("Password")
box.pack_start(password, False, False, 0)
check = Gtk.CheckButton(label="Remember me")
box.pack_start(check, False, False, 0)
button = Gtk.Button(label="Save")


def save(_button):
    with open(out, "a", encoding="utf-8") as f:
        f.write("saved:%s:%s\n" % (entry.get_text(), "checked" if check.get_active() else "unchecked"))


button.connect("clicked", save)
box.pack_start(button, False, False, 0)
extra = int(sys.argv[3]) if len(sys.argv) > 3 else 0
if extra:
    grid = Gtk.Grid()
    for i in range(extra):
        grid.attach(Gtk.Button(label="Item %d" % i), i % 10, i // 10, 1, 1)
    scrolled = Gtk.ScrolledWindow()
    scrolled.set_min_content_height(120)
    scrolled.add(grid)
    box.pack_start(scrolled, True, True, 0)
win.show_all()
Gtk.main()
