// SPDX-License-Identifier: LGPL-2.1-or-later
// conf/polkit/50-botdesk.rules run under node with polkit stood in for:
// who may start, stop and restart which botdesk-session@ unit. The unit's
// User= comes from a fixture table in place of `systemctl show`. TAP.
"use strict";
const fs = require("fs");
const vm = require("vm");

const path = process.argv[2];
const owners = { "botdesk-session@work.service": "alice", "botdesk-session@ci.service": "bob",
                 "botdesk-session@noowner.service": "" };
const Result = { YES: "yes", NO: "no", NOT_HANDLED: "not-handled", AUTH_ADMIN: "auth_admin" };
let rules = [], spawned = [], spawnFails = false, n = 0, failed = 0;

const polkit = {
    Result,
    addRule: (f) => rules.push(f),
    log: () => {},
    spawn: (argv) => {
        spawned.push(argv);
        if (spawnFails)
            throw new Error("Error spawning helper: timed out");
        const unit = argv[argv.length - 1];
        return (owners[unit] !== undefined ? owners[unit] : "") + "\n";
    },
};
vm.runInNewContext(fs.readFileSync(path, "utf8"), { polkit }, { filename: path });

function decide(actionId, unit, verb, user, groups) {
    const details = { unit, verb };
    const action = { id: actionId, lookup: (k) => details[k] };
    const subject = { user, isInGroup: (g) => groups.includes(g) };
    for (const r of rules) {
        const v = r(action, subject);
        if (v !== undefined && v !== Result.NOT_HANDLED)
            return v;
    }
    return Result.NOT_HANDLED;
}

function is(got, want, name) {
    n++;
    if (got === want)
        console.log(`ok ${n} - ${name}`);
    else {
        failed++;
        console.log(`not ok ${n} - ${name}`);
        console.log(`#   got ${JSON.stringify(got)}, want ${JSON.stringify(want)}`);
    }
}

const M = "org.freedesktop.systemd1.manage-units";
is(rules.length, 1, "the rules file adds one rule");
is(decide(M, "botdesk-session@work.service", "start", "bob", ["botdesk"]), Result.YES,
   "a member may start another user's desktop (it runs as its owner, out of the starter's reach)");
is(decide(M, "botdesk-session@work.service", "stop", "alice", ["botdesk"]), Result.YES,
   "a member may stop a desktop whose User= is the member");
is(decide(M, "botdesk-session@work.service", "restart", "alice", ["botdesk"]), Result.YES,
   "and restart it");
is(decide(M, "botdesk-session@work.service", "stop", "bob", ["botdesk"]), Result.NOT_HANDLED,
   "a member may not stop another user's desktop");
is(decide(M, "botdesk-session@work.service", "restart", "bob", ["botdesk"]), Result.NOT_HANDLED,
   "nor restart it");
is(decide(M, "botdesk-session@noowner.service", "stop", "", ["botdesk"]), Result.NOT_HANDLED,
   "a unit without User= (it would run as root) is stopped by nobody through this rule");
is(decide(M, "botdesk-session@work.service", "stop", "alice", []), Result.NOT_HANDLED,
   "a non-member gets nothing, even for a desktop of its own");
is(decide(M, "botdesk-session@work.service", "kill", "alice", ["botdesk"]), Result.NOT_HANDLED,
   "verbs other than start, stop and restart are not granted");
is(decide(M, "sshd.service", "stop", "alice", ["botdesk"]), Result.NOT_HANDLED, "other units are not granted");
spawned = [];
is(decide(M, "botdesk-session@x;rm -rf.service", "stop", "alice", ["botdesk"]), Result.NOT_HANDLED,
   "a unit name outside the profile syntax is refused");
is(decide(M, "botdesk-session@--help.service", "stop", "alice", ["botdesk"]), Result.NOT_HANDLED,
   "a name that reads as an option is refused");
is(spawned.length, 0, "and neither is passed to a program");
is(decide("org.freedesktop.login1.reboot", "botdesk-session@work.service", "stop", "alice", ["botdesk"]),
   Result.NOT_HANDLED, "other actions are not handled");
spawned = [];
decide(M, "botdesk-session@ci.service", "stop", "bob", ["botdesk"]);
is(JSON.stringify(spawned), JSON.stringify([["/usr/bin/systemctl", "show", "--property=User", "--value", "--",
                                             "botdesk-session@ci.service"]]),
   "the owner is asked of the service manager: /usr/bin/systemctl show --property=User --value -- UNIT");
spawnFails = true;
is(decide(M, "botdesk-session@work.service", "stop", "alice", ["botdesk"]), Result.NOT_HANDLED,
   "when the owner cannot be read, stop is not granted");
console.log(`1..${n}`);
process.exit(failed ? 1 : 0);
