/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The names of the [profile.NAME] sections of one configuration file that
 * hold at least one key, in file order, without duplicates, invalid names
 * skipped. Only a directory of names: the values (and every error) come from
 * config_load() for each name. A missing file is an empty list.
 */
int config_profile_names(const char *path, char ***ret);
