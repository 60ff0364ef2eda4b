#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
# A real GTK 3 entry with a blinking caret, for mcp.sh's settle checks: one
# 400x60 window at 100,100 holding the entry. GTK repaints the whole window
# at each blink; the caret blinks every 1 s and keeps on (the blink timeout
# is an hour, where GTK's default stops it after 10 s). Takes the input
# focus and prints "ready" once shown, then "text" and the entry's text as
# JSON at each change (mcp-xfce.sh reads what was typed there).
import json
import sys

import gi

gi.require_version("Gdk", "3.0")
gi.require_version("Gtk", "3.0")
from gi.repository import Gdk, GLib, Gtk  # noqa: E402

settings = Gtk.Settings.get_default()
settings.set_property("gtk-cursor-blink", True)
settings.set_property("gtk-cursor-blink-time", 1000)
settings.set_property("gtk-cursor-blink-timeout", 3600)

window = Gtk.Window(title="caret-entry")
window.set_default_size(400, 60)
window.move(100, 100)
entry = Gtk.Entry()
entry.set_text("a caret blinks here")
window.add(entry)
entry.connect("changed", lambda e: print("text " + json.dumps(e.get_text()), flush=True))
window.connect("destroy", Gtk.main_quit)
window.show_all()
entry.grab_focus()


def ready():
    # No window manager on the tests' desktop: take the input focus (GDK sets
    # it itself then), so that the caret blinks and typed keys come here.
    window.get_window().focus(Gdk.CURRENT_TIME)
    # Focusing an entry selects its text, and a selection hides the caret.
    entry.set_position(-1)
    print("ready", flush=True)
    return False


GLib.idle_add(ready)
Gtk.main()
sys.exit(0)
