/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What botdesk says of a failed dump or restore: the cause in CRIU's log, not its consequences. */
#include "criu-log.h"
#include "tap.h"
#include "util.h"

static void is(const char *text, const char *want, const char *what) {
        _cleanup_free_ char *got = criu_log_cause(text);

        tap_ok(streq_ptr(got, want), "%s (\"%s\")", what, strnull(got));
}

int main(void) {
        is("Error (criu/util.c:1534): rlimit: Can't setup RLIMIT_NOFILE for self: Operation not permitted\n"
           "Error (criu/files-reg.c:1031): Can't dump ghost file /p/x.pma of 4194304 size, increase limit\n"
           "Error (criu/cr-dump.c:1440): Collect mappings (pid: 14969) failed with -1\n"
           "Error (criu/cr-dump.c:1975): Dumping FAILED.\n",
           "Error (criu/files-reg.c:1031): Can't dump ghost file /p/x.pma of 4194304 size, increase limit",
           "the first error is the cause, past the harmless rlimit line, before what it made fail");
        is("(00.081307) Error (criu/util.c:1534): rlimit: Can't setup RLIMIT_NOFILE for self\n"
           "(00.120000) Warn  (compel/arch/x86/src/lib/infect.c:419): Will restore 17781 with interrupted system call\n"
           "(01.312993) Error (criu/cr-restore.c:10): Can't open file /r/helper.log: No such file\n"
           "(01.316588) Error (criu/cr-restore.c:20): Restoring FAILED.\n",
           "Error (criu/cr-restore.c:10): Can't open file /r/helper.log: No such file",
           "... in a log with -v4's time stamps too, a warning passed over");
        is("Error (criu/util.c:1534): rlimit: Can't setup RLIMIT_NOFILE for self\n"
           "Error (criu/sk-unix.c:881): unix: Can't dump half of stream unix connection. name: (null)\n"
           "Error (criu/cr-dump.c:1975): Dumping FAILED.\n",
           "a connection from outside the desktop is open (a program of the host on its X display or its bus, "
           "say): CRIU cannot keep it (Error (criu/sk-unix.c:881): unix: Can't dump half of stream unix connection. "
           "name: (null))",
           "a connection from outside is said in words a user can act on");
        is("Error (criu/cr-dump.c:1975): Dumping FAILED.\n", "Error (criu/cr-dump.c:1975): Dumping FAILED.",
           "an error alone is said as it is");
        is("Usage: criu ...\nsomething else\n\n", "something else", "no error: its last line");
        is("a line Error (x) not at its start\n", "a line Error (x) not at its start",
           "\"Error (\" inside a line is no error line");
        is("", "CRIU said nothing", "nothing: said so");
        return tap_done();
}
