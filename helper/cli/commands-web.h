/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * botdesk web [--listen unix:PATH|HOST:PORT] [--novnc DIR] [--ping S]
 * botdesk web ticket PROFILE --viewer ID [--ttl S]
 *
 * argv[0] is the verb ("web"): it parses its own options, so botdesk.c
 * dispatches to it before its shared option loop, like thumbnail. Returns
 * the CLI exit code (0 ok, 1 failed, 2 usage); messages go to stderr.
 */
int verb_web(int argc, char **argv);
