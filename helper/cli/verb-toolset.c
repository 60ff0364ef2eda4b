/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * botdesk toolset PROFILE --vendor anthropic|openai|gemini: the tools[]
 * entry a gateway declares to the model for this desktop, in that vendor's
 * shape, made from the tables botdesk act parses with (action.h,
 * gemini.h), so that what the model is offered and what botdesk serves
 * cannot drift:
 *   anthropic  {"type": "computer_toolset_20260801"}, with "configs"
 *              disabling the members [agent] toolset_disabled names (act
 *              refuses those); no display size (the toolset takes
 *              coordinates in screenshot pixels, which botdesk maps itself);
 *   openai     {"type": "computer"}, the GA tool, which has no parameters;
 *   gemini     {"computerUse": {"environment": "ENVIRONMENT_DESKTOP",
 *              "excludedPredefinedFunctions": [the browser's own]}}.
 * Needs no running desktop.
 */
#include "cli.h"
#include "action.h"
#include "config.h"
#include "gemini.h"
#include "json.h"
#include "log.h"
#include "vendor.h"
#include "verbs.h"

int verb_toolset(const struct cli_args *args) {
        _cleanup_(config_done) struct bd_config c = {};
        const char *profile = args->operand;
        uint32_t off = 0;
        struct json j;
        int v, r;

        v = args->vendor;
        if (!args->vendor_given || v == MCP_VENDOR_AUTO) {
                log_error("toolset needs --vendor anthropic, openai or gemini.");
                return EXIT_USAGE;
        }
        if (cli_load_config(profile, &c) < 0)
                return EXIT_USAGE;
        r = cli_members_off(c.toolset_disabled, &off);
        if (r != EXIT_OK)
                return r;
        json_init(&j, stdout);
        json_object_begin(&j);
        switch (v) {
        case MCP_VENDOR_ANTHROPIC:
                json_kv_string(&j, "type", "computer_toolset_20260801");
                if (off == 0)
                        break;
                json_key(&j, "configs");
                json_object_begin(&j);
                for (size_t i = 0; i < mcp_members_count(); i++)
                        if (off & (UINT32_C(1) << i)) {
                                json_key(&j, mcp_member_name(i));
                                json_object_begin(&j);
                                json_kv_bool(&j, "enabled", false);
                                json_object_end(&j);
                        }
                json_object_end(&j);
                break;
        case MCP_VENDOR_OPENAI:
                json_kv_string(&j, "type", "computer");
                break;
        case MCP_VENDOR_GEMINI:
                json_key(&j, "computerUse");
                json_object_begin(&j);
                json_kv_string(&j, "environment", "ENVIRONMENT_DESKTOP");
                json_key(&j, "excludedPredefinedFunctions");
                json_array_begin(&j);
                for (size_t i = 0; mcp_gemini_excluded(i); i++)
                        json_string(&j, mcp_gemini_excluded(i));
                json_array_end(&j);
                json_object_end(&j);
                break;
        }
        json_object_end(&j);
        fputc('\n', stdout);
        return fflush(stdout) == 0 ? EXIT_OK : EXIT_FAILED;
}
