// SPDX-License-Identifier: LGPL-2.1-or-later
// node --import conformance-register.mjs: installs conformance-hooks.mjs.
import { register } from 'node:module';

register('./conformance-hooks.mjs', import.meta.url);
