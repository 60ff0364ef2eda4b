/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * An MCP requestState (helper/agent/mcp-state.c): what is signed verifies,
 * in this process or in any other of the desktop's (one key, made once,
 * 0600, never replaced); a payload or MAC altered by one character, a
 * state of another desktop's key, and no key at all are refused.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "mcp-state.h"
#include "tap.h"
#include "util.h"
#include "cli.h"

/* The module's one call into the CLI (x11-verbs-module.c), never made here. */
int cli_start_on_demand(const char *profile, bool flag) {
        abort();
}

int main(void) {
        char a[] = "/tmp/botdesk-test-mcp-state.XXXXXX", b[] = "/tmp/botdesk-test-mcp-state.XXXXXX";
        _cleanup_close_ int da = -EBADF, db = -EBADF;
        _cleanup_free_ char *state = NULL, *again = NULL, *payload = NULL, *other = NULL;
        struct stat st;

        if (!mkdtemp(a) || !mkdtemp(b))
                return 1;
        da = open(a, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        db = open(b, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (da < 0 || db < 0)
                return 1;

        TAP_EQ_INT(mcp_state_verify(da, "ask_human:1:2.00", &payload), -EBADMSG, "before any key, nothing verifies");
        TAP_EQ_INT(mcp_state_sign(da, "ask_human:3:99", &state), 0, "a payload is signed");
        tap_ok(fstatat(da, "mcp-state.key", &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode) &&
               (st.st_mode & 0777) == 0600 && st.st_size == 32, "the key is made: 32 bytes, 0600");
        TAP_EQ_INT(mcp_state_verify(da, state, &payload), 0, "the state verifies");
        TAP_EQ_STR(payload, "ask_human:3:99", "... and gives its payload back");
        TAP_EQ_INT(mcp_state_sign(da, "ask_human:3:99", &again), 0, "signing again uses the same key");
        TAP_EQ_STR(again, state, "... so the same payload has the same state");
        {
                char *bad = strdup(state);

                bad[strlen("ask_human:")] = '4';
                TAP_EQ_INT(mcp_state_verify(da, bad, &other), -EBADMSG, "an altered payload is refused");
                strcpy(bad, state);
                bad[strlen(bad) - 1] = bad[strlen(bad) - 1] == '0' ? '1' : '0';
                TAP_EQ_INT(mcp_state_verify(da, bad, &other), -EBADMSG, "an altered MAC is refused");
                free(bad);
        }
        TAP_EQ_INT(mcp_state_verify(da, "no-dot-at-all", &other), -EBADMSG, "a state without a MAC is refused");
        TAP_EQ_INT(mcp_state_sign(db, "ask_human:0:1", &other), 0, "another desktop makes a key of its own");
        TAP_EQ_INT(mcp_state_verify(db, state, &payload), -EBADMSG, "... and refuses the first desktop's state");

        (void) unlinkat(da, "mcp-state.key", 0);
        (void) unlinkat(db, "mcp-state.key", 0);
        (void) rmdir(a);
        (void) rmdir(b);
        return tap_done();
}
