/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * What CRIU's log (or its output) says went wrong, as a sentence to show:
 * its first error line, leaving out the one about its file limit (CRIU
 * says it whenever it cannot raise RLIMIT_NOFILE for itself, which is
 * harmless), since later errors only report that what failed failed; the
 * cause a user can act on said first when it is a connection from outside
 * the desktop. Its last line when it said no error; "CRIU said nothing"
 * for nothing. A new string, or NULL.
 */
char *criu_log_cause(const char *text);
