/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The desktop's resources (resources.h): their names, their URIs, and the
 * members of resources/list and resources/read.
 */
#include <stdlib.h>

#include "resources.h"
#include "util.h"

static const struct resource_row {
        const char *name;
        const char *title;
        const char *description;
        const char *mime;
        const char *uri;        /* a fixed URI; NULL: botdesk://PROFILE/NAME */
} rows[] = {    /* in the order of the MCP_RESOURCE_* bits */
        { "lease", "Control of the desktop",
          "Who has control (agent, human or nobody) and the lease epoch: {\"holder\", \"epoch\"}.",
          "application/json" },
        { "windows", "Windows",
          "The window manager's windows: id, title, class, geometry (screen pixels), active. Refused while a human "
          "has control: {\"suppressed\": ...}.",
          "application/json" },
        { "screen", "Screen",
          "A picture of the whole screen once it settled, as the computer tool's screenshot. Refused while a human "
          "has control: {\"suppressed\": ...} (application/json).",
          "image/jpeg" },
        { "viewer", "Live viewer",
          "The desktop, live and watch-only, for hosts that render MCP Apps: shown with the view tool's result, "
          "whose single-use ticket it connects with to botdesk web.",
          MCP_APP_MIME, MCP_VIEWER_URI },
};

void mcp_resource_contents_done(struct mcp_resource_contents *c) {
        free(c->text);
        free(c->blob);
        free(c->app_origin);
        *c = (struct mcp_resource_contents) {};
}

unsigned mcp_resource_of(const char *profile, const char *uri) {
        const char *rest = startswith(uri, "botdesk://");

        for (size_t i = 0; i < ELEMENTSOF(rows); i++)
                if (rows[i].uri && streq(uri, rows[i].uri))
                        return 1u << i;
        if (!rest || !(rest = startswith(rest, profile)) || *rest++ != '/')
                return 0;
        for (size_t i = 0; i < ELEMENTSOF(rows); i++)
                if (!rows[i].uri && streq(rest, rows[i].name))
                        return 1u << i;
        return 0;
}

const char *mcp_resource_name(unsigned one) {
        for (size_t i = 0; i < ELEMENTSOF(rows); i++)
                if (one == 1u << i)
                        return rows[i].name;
        return NULL;
}

static void uri_write(struct json *j, const char *profile, size_t i) {
        _cleanup_free_ char *u = rows[i].uri ? NULL : strdup_printf("botdesk://%s/%s", profile, rows[i].name);

        if (rows[i].uri) {
                json_string(j, rows[i].uri);
                return;
        }
        json_string(j, u);      /* out of memory: null, which a client refuses, rather than another URI */
}

void mcp_resource_uris(struct json *j, const char *profile, unsigned what) {
        for (size_t i = 0; i < ELEMENTSOF(rows); i++)
                if (what & (1u << i))
                        uri_write(j, profile, i);
}

void mcp_resources_list(struct json *j, const char *profile) {
        json_key(j, "resources");
        json_array_begin(j);
        for (size_t i = 0; i < ELEMENTSOF(rows); i++) {
                json_object_begin(j);
                json_key(j, "uri");
                uri_write(j, profile, i);
                json_kv_string(j, "name", rows[i].name);
                json_kv_string(j, "title", rows[i].title);
                json_kv_string(j, "description", rows[i].description);
                json_kv_string(j, "mimeType", rows[i].mime);
                json_object_end(j);
        }
        json_array_end(j);
}

void mcp_resource_contents_write(struct json *j, const char *profile, unsigned one,
                                 const struct mcp_resource_contents *c) {
        json_key(j, "contents");
        json_array_begin(j);
        json_object_begin(j);
        json_key(j, "uri");
        mcp_resource_uris(j, profile, one);
        json_kv_string(j, "mimeType", c->mime);
        if (c->blob)
                json_kv_string(j, "blob", c->blob);
        else
                json_kv_string(j, "text", c->text ?: "");
        if (one == MCP_RESOURCE_VIEWER) {
                /* What the frame may reach: botdesk web's files and its WebSocket, nothing else (MCP Apps'
                 * _meta.ui.csp, from which a host makes the frame's Content-Security-Policy). */
                const char *host = c->app_origin ? startswith(c->app_origin, "http://") : NULL;
                _cleanup_free_ char *ws = host ? strdup_printf("ws://%s", host) : NULL;

                json_key(j, "_meta");
                json_object_begin(j);
                json_key(j, "ui");
                json_object_begin(j);
                json_key(j, "csp");
                json_object_begin(j);
                json_key(j, "connectDomains");
                json_array_begin(j);
                if (ws)
                        json_string(j, ws);
                json_array_end(j);
                json_key(j, "resourceDomains");
                json_array_begin(j);
                if (ws)
                        json_string(j, c->app_origin);
                json_array_end(j);
                json_object_end(j);
                json_kv_bool(j, "prefersBorder", true);
                json_object_end(j);
                json_object_end(j);
        }
        json_object_end(j);
        json_array_end(j);
}

void mcp_viewer_tool_meta(struct json *j, bool app_only) {
        json_key(j, "_meta");
        json_object_begin(j);
        json_key(j, "ui");
        json_object_begin(j);
        json_kv_string(j, "resourceUri", MCP_VIEWER_URI);
        if (app_only) {
                json_key(j, "visibility");
                json_array_begin(j);
                json_string(j, "app");
                json_array_end(j);
        }
        json_object_end(j);
        json_kv_string(j, "ui/resourceUri", MCP_VIEWER_URI);
        json_object_end(j);
}
