/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "argv-split.h"
#include "container-placement.h"
#include "json.h"
#include "placement-kind.h"
#include "remote-status.h"
#include "util.h"

void remote_status_unreachable(FILE *f, const char *profile, const struct bd_config *c, char *const *prefix,
                               const char *reason, bool json) {
        _cleanup_free_ char *joined = prefix ? argv_join_quoted(prefix) : NULL;
        static const char *const null_keys[] = { "supported", "installed", "pid", "display", "socket", "geometry",
                                                 "install_command", "browser", "blocker", "memory_available_mb",
                                                 "memory_limit_mb", "unit", "session", "lease", "idle_seconds",
                                                 "started_at", "warning", "hibernated_at", "hibernated_size" };
        struct json j;

        if (!json) {
                fprintf(f, "%s: not running (%s)\n", profile, reason);
                return;
        }
        json_init(&j, f);
        json_object_begin(&j);
        json_kv_string(&j, "profile", profile);
        json_kv_bool(&j, "running", false);
        json_kv_bool(&j, "hibernated", false);
        json_key(&j, "missing");
        json_array_begin(&j);
        json_array_end(&j);
        for (size_t i = 0; i < ELEMENTSOF(null_keys); i++)
                json_kv_null(&j, null_keys[i]);
        json_kv_string(&j, "placement", placement_elsewhere(c) ? "exec" : NULL);
        json_kv_string(&j, "exec", joined);
        placement_json(&j, c, NULL);
        json_kv_string(&j, "reason", reason);
        json_object_end(&j);
        fputc('\n', f);
}
