/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * botdesk thumbnail PROFILE [-o FILE] [--size WxH] [--format png|jpeg] [--data-url] [--quality N]
 *
 * argv[0] is the verb itself ("thumbnail") and argv[1..argc) everything
 * after it: the verb parses its own options, so botdesk.c dispatches to it
 * before its shared option loop (which refuses options it does not know):
 *
 *         if (streq(verb, "thumbnail"))
 *                 return verb_thumbnail(argc - optind + 1, argv + optind - 1);
 *
 * Returns the CLI exit code: 0 written; 1 failed (X refused, grab or encode
 * failed, FILE not writable); 2 usage; 3 refused by the control lease;
 * 4 the desktop is not running. Messages go to stderr, one line each.
 */
int verb_thumbnail(int argc, char **argv);
