#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
# A hostile application of tests/integration/a11y-hostile.sh: no toolkit,
# raw D-Bus through Gio. It joins the desktop's accessibility bus (its
# address from org.a11y.Bus.GetAddress on the session bus), Embeds itself
# in the AT-SPI registry like any application, and answers
# org.a11y.atspi.Application.GetApplicationBusAddress with ADDRESS, which
# any program of the desktop (a sandboxed one too) may say. Once embedded
# it writes its unique name on the accessibility bus to READY; every call it
# gets is logged on stderr.
# Usage: a11y-hostile-app.py ADDRESS READY
import os
import sys

from gi.repository import Gio, GLib

address, ready = sys.argv[1], sys.argv[2]
ROOT = "/org/a11y/atspi/accessible/root"
XML = """
<node>
  <interface name="org.a11y.atspi.Accessible">
    <method name="GetRoleName"><arg direction="out" type="s"/></method>
    <method name="GetState"><arg direction="out" type="au"/></method>
    <method name="GetInterfaces"><arg direction="out" type="as"/></method>
    <method name="GetChildren"><arg direction="out" type="a(so)"/></method>
    <property name="Name" type="s" access="read"/>
    <property name="Description" type="s" access="read"/>
    <property name="ChildCount" type="i" access="read"/>
  </interface>
  <interface name="org.a11y.atspi.Application">
    <method name="GetApplicationBusAddress"><arg direction="out" type="s"/></method>
  </interface>
</node>
"""
ANSWERS = {
    "GetRoleName": GLib.Variant("(s)", ("application",)),
    "GetState": GLib.Variant("(au)", ([0, 0],)),
    "GetInterfaces": GLib.Variant("(as)", (["org.a11y.atspi.Accessible", "org.a11y.atspi.Application"],)),
    "GetChildren": GLib.Variant("(a(so))", ([],)),
    "GetApplicationBusAddress": GLib.Variant("(s)", (address,)),
}
PROPS = {"Name": GLib.Variant("s", "hostile"), "Description": GLib.Variant("s", ""), "ChildCount": GLib.Variant("i", 0)}


def on_call(_conn, sender, path, iface, method, _params, invocation):
    print("call %s.%s on %s from %s" % (iface, method, path, sender), file=sys.stderr, flush=True)
    invocation.return_value(ANSWERS[method])


def on_get(_conn, _sender, _path, _iface, prop):
    return PROPS[prop]


session = Gio.bus_get_sync(Gio.BusType.SESSION, None)
a11y_address = session.call_sync("org.a11y.Bus", "/org/a11y/bus", "org.a11y.Bus", "GetAddress", None,
                                 GLib.VariantType("(s)"), Gio.DBusCallFlags.NONE, 20000, None).unpack()[0]
conn = Gio.DBusConnection.new_for_address_sync(
    a11y_address, Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT | Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION,
    None, None)
info = Gio.DBusNodeInfo.new_for_xml(XML)
for iface in info.interfaces:
    conn.register_object(ROOT, iface, on_call, on_get, None)
conn.call_sync("org.a11y.atspi.Registry", ROOT, "org.a11y.atspi.Socket", "Embed",
               GLib.Variant("((so))", ((conn.get_unique_name(), ROOT),)), GLib.VariantType("((so))"),
               Gio.DBusCallFlags.NONE, 20000, None)
with open(ready + ".tmp", "w", encoding="ascii") as f:
    f.write(conn.get_unique_name() + "\n")
os.rename(ready + ".tmp", ready)
GLib.MainLoop().run()
