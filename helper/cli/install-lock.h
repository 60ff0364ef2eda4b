/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#define INSTALL_LOCK_RUN_DIR "/run/botdesk"

/*
 * Root's installs: RUN_DIR/install.lock when root made RUN_DIR, 0600, so
 * that no other user can open it, let alone hold it and refuse root's
 * install (a 0644 file made earlier is narrowed to 0600). Anyone else: the
 * caller's own RUNTIME_BASE/install.lock; between users the package
 * manager's own lock decides (their installs run it through sudo, as
 * root). Returns the locked fd, -EBUSY while another install holds it;
 * *ret_path names the file either way.
 */
int install_lock_take(const char *run_dir, char **ret_path);
