/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * resources/read of a desktop (mcp-resources.h). The windows and the
 * screen go through the same gate and the same code as the windows tool
 * and the computer tool's screenshot, pinned to the process's epoch (a
 * read names none): under a human, the contents are the refusal.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "agent.h"
#include "cli.h"
#include "mcp-resources.h"
#include "mcp-view.h"
#include "util.h"

void mcp_lease_write(struct json *j, const struct lease *l) {
        json_object_begin(j);
        json_kv_string(j, "holder", l->failed ? "nobody" : lease_holder_to_string(l->holder));
        json_kv_int(j, "epoch", (long long) l->epoch);
        json_object_end(j);
}

/* The refusal (or failure) of o as JSON contents. */
static int outcome_contents(const struct mcp_action *act, const struct agent_outcome *o,
                            struct mcp_resource_contents *ret) {
        struct json_mem m;

        if (json_mem_open(&m) < 0)
                return -ENOMEM;
        agent_outcome_write(&m.j, act, o);
        ret->mime = "application/json";
        return json_mem_close(&m, &ret->text);
}

static int read_lease(struct agent *a, struct mcp_resource_contents *ret) {
        struct lease l;
        struct json_mem m;

        (void) lease_read_at(a->dirfd, &l);
        if (json_mem_open(&m) < 0)
                return -ENOMEM;
        mcp_lease_write(&m.j, &l);
        ret->mime = "application/json";
        return json_mem_close(&m, &ret->text);
}

static int read_windows(struct agent *a, struct mcp_resource_contents *ret) {
        _cleanup_(agent_outcome_done) struct agent_outcome o = {};

        if (agent_windows(a, &ret->text, &o) < 0)
                return -ENOMEM;
        if (!o.ok)
                return outcome_contents(NULL, &o, ret);
        ret->mime = "application/json";
        return 0;
}

static int read_screen(struct agent *a, struct mcp_resource_contents *ret) {
        _cleanup_(agent_outcome_done) struct agent_outcome o = {};
        const struct mcp_action act = { .kind = MCP_ACT_SCREENSHOT, .name = "screenshot" };
        int r = agent_run(a, &act, true, &o);

        if (r < 0)
                return r;
        if (!o.ok || !o.image_base64)
                return outcome_contents(&act, &o, ret);
        ret->mime = "image/jpeg";
        ret->blob = TAKE_PTR(o.image_base64);
        return 0;
}

int mcp_desktop_read_resource(void *userdata, unsigned one, struct mcp_resource_contents *ret) {
        struct agent *a = userdata;

        a->epoch_pin = cli_epoch_pin();
        switch (one) {
        case MCP_RESOURCE_LEASE:
                return read_lease(a, ret);
        case MCP_RESOURCE_WINDOWS:
                return read_windows(a, ret);
        case MCP_RESOURCE_SCREEN:
                return read_screen(a, ret);
        case MCP_RESOURCE_VIEWER:
                return mcp_viewer_read(ret);
        default:
                return -ENOENT;
        }
}
