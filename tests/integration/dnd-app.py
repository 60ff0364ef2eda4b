#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
# The GTK application of tests/integration/drag-gtk.sh: a drag source
# ("Drag me") and a drop target ("Drop here") side by side, GTK's own
# drag-and-drop between them. Once mapped it writes the root coordinates of
# both centres to OUT as "ready SX SY TX TY"; each drop appends "dropped
# TEXT". Usage: dnd-app.py TITLE OUT
import sys

import gi

gi.require_version("Gtk", "3.0")
gi.require_version("Gdk", "3.0")
from gi.repository import Gdk, GLib, Gtk  # noqa: E402

title, out = sys.argv[1], sys.argv[2]


def say(line):
    with open(out, "a", encoding="utf-8") as f:
        f.write(line + "\n")


win = Gtk.Window(title=title)
win.set_default_size(480, 200)
win.connect("destroy", Gtk.main_quit)
box = Gtk.Box(orientation=Gtk.Orientation.HORIZONTAL, spacing=40)
win.add(box)

source = Gtk.EventBox()
source.add(Gtk.Label(label="Drag me"))
source.set_size_request(200, 160)
source.drag_source_set(Gdk.ModifierType.BUTTON1_MASK, [], Gdk.DragAction.COPY)
source.drag_source_add_text_targets()
source.connect("drag-data-get", lambda w, ctx, data, info, time: data.set_text("botdesk-dnd", -1))
box.pack_start(source, True, True, 0)

target = Gtk.Label(label="Drop here")
target.set_size_request(200, 160)
target.drag_dest_set(Gtk.DestDefaults.ALL, [], Gdk.DragAction.COPY)
target.drag_dest_add_text_targets()
target.connect("drag-data-received",
               lambda w, ctx, x, y, data, info, time: say("dropped " + (data.get_text() or "")))
box.pack_start(target, True, True, 0)


def centre(widget):
    a = widget.get_allocation()
    ox, oy = widget.get_window().get_origin()[1:]
    return ox + a.x + a.width // 2, oy + a.y + a.height // 2


def ready():
    sx, sy = centre(source)
    tx, ty = centre(target)
    say("ready %d %d %d %d" % (sx, sy, tx, ty))
    return False


# Once drawn: the first frame after the map has the final allocation.
win.connect("map-event", lambda *a: GLib.timeout_add(200, ready) and False)
win.show_all()
Gtk.main()
