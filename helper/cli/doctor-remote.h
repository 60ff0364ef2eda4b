/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include "json.h"

/*
 * botdesk doctor's lines for the profiles that front a VNC server botdesk
 * did not start (remote =): for each, whether its server answers and takes
 * botdesk's password and security (the session of remote-front.h, opened
 * and closed), with its size, or what stopped it in botdesk's words. j
 * NULL: text on stdout; else a "remote" key of the doctor's JSON object.
 */
void doctor_remote(struct json *j);
