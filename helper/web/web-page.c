/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The botdesk page of `botdesk web`: noVNC's RFB module on the whole window,
 * a bar above it that says who holds control, and the two buttons. The
 * script is a file of its own (botdesk.js) so that the page's
 * Content-Security-Policy allows no inline script. The page never decides
 * input: it always sends it, and the server's RFB filter drops it unless the
 * ticket's viewer holds the lease.
 */
#include "util.h"
#include "web.h"

static const char page[] =
        "<!DOCTYPE html>\n"
        "<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
        "<title>botdesk: %s</title>\n"
        "<style>\n"
        "html,body{margin:0;height:100%%;background:#1e1e1e;color:#eee;font:14px system-ui,sans-serif}\n"
        "#bar{display:flex;gap:1em;align-items:center;padding:0 8px;height:32px;background:#333}\n"
        "#screen{position:absolute;top:32px;left:0;right:0;bottom:0}\n"
        "#bar .grow{flex:1} button{font:inherit}\n"
        "</style></head>\n"
        "<body>\n"
        "<div id=\"bar\"><b>botdesk: %s</b><span id=\"state\">connecting</span>"
        "<span id=\"control\">control: ?</span><span class=\"grow\"></span>"
        "<button id=\"take\" disabled>Take over</button>"
        "<button id=\"release\" disabled>Hand back</button></div>\n"
        "<div id=\"screen\"></div>\n"
        "<script type=\"module\" src=\"botdesk.js\"></script>\n"
        "</body></html>\n";

static const char missing[] =
        "<!DOCTYPE html>\n"
        "<html lang=\"en\"><head><meta charset=\"utf-8\"><title>botdesk: %s</title></head>\n"
        "<body style=\"font:15px system-ui,sans-serif;max-width:40em;margin:3em auto\">\n"
        "<h1>botdesk: %s</h1>\n"
        "<p>noVNC, the browser viewer this page is built on, is not installed on this host.</p>\n"
        "<p>Install it with <code>apt install novnc</code> (Debian, Ubuntu) or your distribution's package, "
        "then reload; or start <code>botdesk web --novnc DIR</code> with a directory that holds noVNC "
        "(<code>core/rfb.js</code>).</p>\n"
        "<p>Any RFB viewer works meanwhile: <code>botdesk rfb %s</code> carries the desktop on stdin and stdout.</p>\n"
        "</body></html>\n";

const char web_page_script[] =
        "import RFB from './novnc/core/rfb.js';\n"
        "const $ = (id) => document.getElementById(id);\n"
        "const url = (location.protocol === 'https:' ? 'wss://' : 'ws://') + location.host + location.pathname + 'websockify';\n"
        "const botdesk = window.botdesk = { connected: false, you: false, holder: null, rfb: null };\n"
        "let last = null, lastAt = null;\n"
        "/* The bar claims control only while the stream is up: once it is gone,\n"
        " * whoever holds control is unknown to this page, whatever it last read. */\n"
        "function render() {\n"
        "  const who = (l) => l.holder === 'agent' ? 'agent' : l.you ? 'you' : 'another viewer';\n"
        "  if (botdesk.connected && last)\n"
        "    $('control').textContent = 'control: ' + who(last);\n"
        "  else\n"
        "    $('control').textContent = 'control: unknown' + (last && lastAt ?\n"
        "      ' (last read ' + lastAt.toLocaleTimeString() + ': ' + (last.you ? 'this viewer' : who(last)) + ')' : '');\n"
        "}\n"
        "function show(l, reconnect = true) {\n"
        "  last = l; lastAt = new Date();\n"
        "  botdesk.you = l.you; botdesk.holder = l.holder;\n"
        "  $('take').disabled = !l.ticket || l.you;\n"
        "  $('release').disabled = !l.ticket || !l.you;\n"
        "  render();\n"
        "  /* Back to watching once the stream may be had again: the agent holds\n"
        "   * control (a takeover by another viewer closed it), or this viewer does. */\n"
        "  if (reconnect && !botdesk.rfb && l.ticket && (l.holder === 'agent' || l.you)) connect();\n"
        "}\n"
        "async function lease(action) {\n"
        "  try {\n"
        "    const r = await fetch(action || 'lease', { method: action ? 'POST' : 'GET', cache: 'no-store' });\n"
        "    if (r.ok) show(await r.json());\n"
        "  } catch (e) { /* the next refresh tries again */ }\n"
        "}\n"
        "$('take').onclick = () => lease('take');\n"
        "$('release').onclick = () => lease('release');\n"
        "function connect() {\n"
        "  const rfb = botdesk.rfb = new RFB($('screen'), url, { shared: true });\n"
        "  rfb.scaleViewport = true;\n"
        "  rfb.addEventListener('connect', () => { botdesk.connected = true; $('state').textContent = 'connected'; render(); });\n"
        "  rfb.addEventListener('disconnect', async (e) => {\n"
        "    botdesk.connected = false;\n"
        "    botdesk.rfb = null;\n"
        "    render();\n"
        "    $('state').textContent = e.detail.clean ? 'disconnected' : 'disconnected (the stream failed)';\n"
        "    /* A browser does not show why an upgrade was refused: ask whether this page has a session,\n"
        "     * and who holds control now (a takeover closed the stream: Take over is offered at once).\n"
        "     * No reconnect from here: the next refresh does it, so a stream refused again and again\n"
        "     * is tried every 2 s, not in a loop. */\n"
        "    try {\n"
        "      const r = await fetch('lease', { cache: 'no-store' });\n"
        "      const l = r.ok ? await r.json() : null;\n"
        "      if (l) show(l, false);\n"
        "      if (!l || !l.ticket)\n"
        "        $('state').textContent = 'not connected: this page has no valid ticket; open a new ticket URL';\n"
        "    } catch (err) { /* the server is gone: the text above stands */ }\n"
        "  });\n"
        "}\n"
        "connect();\n"
        "lease();\n"
        "setInterval(lease, 2000);\n";

char *web_page_html(const char *profile, bool novnc) {
        /* profile is a valid profile name: [A-Za-z0-9_-], nothing to escape. */
        if (!novnc)
                return strdup_printf(missing, profile, profile, profile);
        return strdup_printf(page, profile, profile);
}
