/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The agent's clipboard content on its way to the helper that serves it
 * (supervisor/clipboard-owner.h): written into the runtime dir (0600,
 * renamed into place) by the CLI, read and removed by the helper. The
 * removal tells the writer it was taken.
 */
#define CLIPBOARD_FILE_TEXT "clipboard.txt"
#define CLIPBOARD_FILE_PNG "clipboard.png"
