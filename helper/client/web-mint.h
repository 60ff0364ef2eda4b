/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>

struct bd_config;

/*
 * What the verbs that mint botdesk web's tickets and tokens share (botdesk
 * web ticket|token|revoke, botdesk browser endpoint): the private ticket
 * dir (ticket.h) below the runtime base, --ttl, and the URL a server on
 * TCP says it listens at. Exit codes, said.
 */

/* The runtime base (new string in *ret_base) and its ticket dir, made private when missing. */
int web_open_ticket_dir(char **ret_base, int *ret_dirfd);

/*
 * PROFILE judged, --ttl S read (def when absent), with running the desktop
 * found running (EXIT_NOT_RUNNING, said, without a live helper here), and
 * only then the dir opened. A profile placed through an exec prefix or
 * fronting a VNC server botdesk did not start (given: the configuration
 * main read, or NULL) is not judged running here: its far side answers
 * when the ticket is used.
 */
int web_mint_begin(const struct bd_config *given, const char *profile, bool running, const char *ttl_s, unsigned def,
                   unsigned *ret_ttl, char **ret_base, int *ret_dirfd);

/* "http://127.0.0.1:PORT" of a server on TCP (its WEB_URL_FILE in base), or NULL: behind a gateway's
 * proxy the path is what a client needs. */
char *web_url_read(const char *base);
