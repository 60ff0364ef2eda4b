/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Cleanup helpers for sd-bus objects, for _cleanup_(...) (see util.h). */

#include <systemd/sd-bus.h>

/* A connection we opened: flush what is queued, close, unref. NULL is fine. */
static inline void bus_flush_close_unrefp(sd_bus **b) {
        if (*b)
                sd_bus_flush_close_unref(*b);
}

static inline void bus_message_unrefp(sd_bus_message **m) {
        sd_bus_message_unref(*m);
}
