/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The live viewer in the chat (mcp-view.h). A host that renders MCP Apps
 * (the io.modelcontextprotocol/ui extension) reads ui://botdesk/viewer,
 * puts the page in a sandboxed frame with the Content-Security-Policy its
 * _meta asks for (botdesk web's origin alone), answers the page's
 * ui/initialize, and hands it the view tool's result
 * (ui/notifications/tool-result). The page then loads noVNC's modules and
 * opens the stream beneath the result's embed URL: watch-only, since the
 * embed ticket's viewer never holds the lease through that page. A host
 * that renders no apps shows the result's text, which says the same.
 * With [agent] view_takeover = on (a host whose user is the desktop's
 * human), the page has Take over and Hand back: tools the host lets the
 * page alone call (view_take, view_release), which move the lease to and
 * from the embed ticket's viewer, whose stream's input then counts.
 */
#include <stdlib.h>

#include "agent.h"
#include "cli.h"
#include "lease.h"
#include "log.h"
#include "mcp-view.h"
#include "profile.h"
#include "ticket.h"
#include "util.h"
#include "web-mint.h"

/* The page: no secret, no address; both come with the tool's result, for one render. */
static const char viewer_html[] =
        "<!doctype html>\n"
        "<html lang=\"en\"><head><meta charset=\"utf-8\"><title>botdesk</title>\n"
        "<style>html,body{margin:0;height:100%;background:#1e1e1e;color:#ddd;font:13px sans-serif}"
        "#screen{position:absolute;inset:0}#note{position:absolute;left:8px;bottom:6px;opacity:.85}"
        "#control{position:absolute;right:8px;bottom:6px;display:none}</style>\n"
        "</head><body><div id=\"screen\"></div><div id=\"note\">Waiting for the desktop...</div>"
        "<button id=\"control\">Take over</button>\n"
        "<script type=\"module\">\n"
        "const note = document.getElementById('note');\n"
        "const pending = new Map();\n"
        "let nextId = 1;\n"
        "window.botdesk = { connected: false, error: null, control: false, rfb: null };\n"
        "function request(method, params) {\n"
        "  const id = nextId++;\n"
        "  window.parent.postMessage({ jsonrpc: '2.0', id, method, params }, '*');\n"
        "  return new Promise((resolve, reject) => pending.set(id, { resolve, reject }));\n"
        "}\n"
        "function say(text, error) { note.textContent = text; if (error) window.botdesk.error = text; }\n"
        "async function show(result) {\n"
        "  let view = null, takeover = false;\n"
        "  try { const r = JSON.parse(result.content[0].text); view = r.viewer; takeover = r.takeover === true; } catch (e) { }\n"
        "  if (!view) { say((result && result.content && result.content[0] && result.content[0].text) || "
        "'No desktop in the result.', true); return; }\n"
        "  const { default: RFB } = await import(view + 'novnc/core/rfb.js');\n"
        "  const rfb = new RFB(document.getElementById('screen'), view.replace(/^http/, 'ws') + 'websockify');\n"
        "  rfb.viewOnly = true;\n"
        "  rfb.scaleViewport = true;\n"
        "  window.botdesk.rfb = rfb;\n"
        "  if (takeover) control(rfb);\n"
        "  rfb.addEventListener('connect', () => { window.botdesk.connected = true; say('Watching the agent\\'s desktop'); });\n"
        "  rfb.addEventListener('disconnect', () => { window.botdesk.connected = false; say('The desktop is gone from view', true); });\n"
        "}\n"
        "// Take over and Hand back: the host calls view_take and view_release for this page alone.\n"
        "function control(rfb) {\n"
        "  const button = document.getElementById('control');\n"
        "  button.style.display = 'block';\n"
        "  button.addEventListener('click', async () => {\n"
        "    const want = !window.botdesk.control;\n"
        "    try {\n"
        "      const res = await request('tools/call', { name: want ? 'view_take' : 'view_release', arguments: {} });\n"
        "      const r = JSON.parse(res.content[0].text);\n"
        "      if (!r.ok) throw new Error(r.error);\n"
        "      window.botdesk.control = want;\n"
        "      rfb.viewOnly = !want;\n"
        "      button.textContent = want ? 'Hand back' : 'Take over';\n"
        "      say(want ? 'You have control of the desktop' : 'Watching the agent\\'s desktop');\n"
        "    } catch (e) { say('Cannot ' + (want ? 'take over' : 'hand back') + ': ' + (e && e.message || e), true); }\n"
        "  });\n"
        "}\n"
        "window.addEventListener('message', (event) => {\n"
        "  const m = event.data;\n"
        "  if (event.source !== window.parent || !m || m.jsonrpc !== '2.0') return;\n"
        "  if (m.id !== undefined && pending.has(m.id)) {\n"
        "    const p = pending.get(m.id);\n"
        "    pending.delete(m.id);\n"
        "    if (m.error) p.reject(m.error); else p.resolve(m.result);\n"
        "  } else if (m.method === 'ui/notifications/tool-result') {\n"
        "    show(m.params).catch((e) => say('Cannot show the desktop: ' + e, true));\n"
        "  }\n"
        "});\n"
        "request('ui/initialize', { protocolVersion: '2026-01-26', appInfo: { name: 'botdesk-viewer', version: '1' }, "
        "appCapabilities: {} })\n"
        "  .then(() => window.parent.postMessage({ jsonrpc: '2.0', method: 'ui/notifications/initialized', params: {} }, '*'))\n"
        "  .catch((e) => say('The host did not answer: ' + (e && e.message || e), true));\n"
        "</script></body></html>\n";

/* botdesk web's http:// origin, as the server on TCP wrote it beneath base (new string), or NULL. */
static char *web_origin_at(const char *base) {
        char *url = web_url_read(base);

        if (url && !startswith(url, "http://")) {
                free(url);
                return NULL;
        }
        return url;
}

int mcp_viewer_read(struct mcp_resource_contents *ret) {
        _cleanup_free_ char *base = NULL;

        ret->text = strdup(viewer_html);
        if (!ret->text)
                return -ENOMEM;
        ret->mime = MCP_APP_MIME;
        /* A read only reads: the ticket dir is the view tool's to make. */
        if (paths_runtime_base(&base) >= 0)
                ret->app_origin = web_origin_at(base);
        return 0;
}

int mcp_view_tool(void *userdata, const char *tool, const struct json_value *args, struct mcp_result *res) {
        struct agent *a = userdata;
        _cleanup_free_ char *base = NULL, *origin = NULL;
        _cleanup_close_ int tickets = -EBADF;
        char token[TICKET_TOKEN_LEN + 1];
        int r;

        if (web_open_ticket_dir(&base, &tickets) == EXIT_OK)
                origin = web_origin_at(base);
        if (!origin) {
                mcp_result_error(res, "{\"ok\": false, \"error\": \"No botdesk web listens on a loopback port of this "
                                      "host: start one (botdesk web --listen 127.0.0.1:0), then ask for the view "
                                      "again.\"}");
                return 0;
        }
        r = ticket_mint_embed_at(tickets, a->profile, TICKET_EMBED_VIEWER, TICKET_EMBED_TTL_DEFAULT, token);
        if (r < 0) {
                log_warning_errno(r, "Cannot store an embed ticket for %s: %m", a->profile);
                mcp_result_errorf(res, "{\"ok\": false, \"error\": \"Cannot store a ticket: %s.\"}", strerror(-r));
                return 0;
        }
        mcp_result_textf(res,
                         "{\"ok\": true, \"profile\": \"%s\", \"viewer\": \"%s/%s/embed/%s/\", \"expires_in\": %u, "
                         "\"watch_only\": %s, \"takeover\": %s, \"note\": \"A host that renders MCP Apps shows the "
                         "desktop live (ui://botdesk/viewer). The URL opens it once, within expires_in seconds.\"}",
                         a->profile, origin, a->profile, token, TICKET_EMBED_TTL_DEFAULT,
                         a->view_takeover ? "false" : "true", a->view_takeover ? "true" : "false");
        explicit_bzero(token, sizeof token);
        return 0;
}

int mcp_view_control_tool(void *userdata, const char *tool, const struct json_value *args, struct mcp_result *res) {
        struct agent *a = userdata;
        bool take = streq(tool, "view_take");
        struct lease l;
        int r;

        r = take ? lease_take_at(a->dirfd, TICKET_EMBED_VIEWER, "taken from the chat's viewer", &l)
                 : lease_release_at(a->dirfd, TICKET_EMBED_VIEWER, &l);
        if (r < 0) {
                mcp_result_errorf(res, "{\"ok\": false, \"error\": \"Cannot %s: %s.\"}",
                                  take ? "take control" : "hand control back", strerror(-r));
                return 0;
        }
        log_info("The chat's viewer of %s %s.", a->profile, take ? "took control" : "handed control back");
        mcp_result_textf(res, "{\"ok\": true, \"holder\": \"%s\", \"epoch\": %llu}",
                         lease_holder_to_string(l.holder), (unsigned long long) l.epoch);
        return 0;
}
