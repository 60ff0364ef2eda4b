#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
# The Kubernetes example (conf/examples/k8s/botdesk-statefulset.yaml),
# checked offline: it parses as YAML, its objects have the structure the
# API requires of them (no cluster, no schema download), the liveness probe
# runs `botdesk status --json`, the resource requests cover a desktop's
# measured PSS, the selector matches the template, the mounted ConfigMap
# exists, and its botdesk.ini passes `botdesk config check`. Its Pod form
# (botdesk-pod.yaml, for podman kube play) is checked to be the same.
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from taplib import done, skip, tap  # noqa: E402


def ok(cond, name, diag=None):
    return tap(cond, name, *([diag] if not cond and diag else []))


def mebibytes(q):
    m = re.fullmatch(r"(\d+)(Ki|Mi|Gi)?", str(q))
    if not m:
        return None
    return int(m.group(1)) * {None: 1.0 / (1 << 20), "Ki": 1.0 / 1024, "Mi": 1, "Gi": 1024}[m.group(2)]


src = sys.argv[1] if len(sys.argv) > 1 else os.environ.get("BOTDESK_SOURCE_DIR", ".")
path = os.path.join(src, "conf/examples/k8s/botdesk-statefulset.yaml")
try:
    import yaml
except ImportError:
    if os.environ.get("CI") == "true":
        print("1..1\nnot ok 1 - python3-yaml is not installed (scripts/install-deps.sh --tests)")
        sys.exit(1)
    print("1..0 # SKIP python3-yaml is not installed")
    sys.exit(0)

with open(path) as f:
    docs = [d for d in yaml.safe_load_all(f) if d is not None]
ok(len(docs) == 2, "the manifest holds two objects", docs)
by_kind = {d.get("kind"): d for d in docs}
cm = by_kind.get("ConfigMap") or {}
sts = by_kind.get("StatefulSet") or {}
ok(cm.get("apiVersion") == "v1" and cm.get("metadata", {}).get("name"), "a v1 ConfigMap with a name")
ok(sts.get("apiVersion") == "apps/v1" and sts.get("metadata", {}).get("name"), "an apps/v1 StatefulSet with a name")

spec = sts.get("spec", {})
tmpl = spec.get("template", {})
sel = spec.get("selector", {}).get("matchLabels", {})
labels = tmpl.get("metadata", {}).get("labels", {})
ok(bool(sel) and all(labels.get(k) == v for k, v in sel.items()), "the selector matches the template's labels",
   (sel, labels))
ok(isinstance(spec.get("serviceName"), str) and spec["serviceName"], "the StatefulSet names its service")
ok(isinstance(spec.get("replicas"), int) and spec["replicas"] >= 1, "replicas is a positive integer")

pod = tmpl.get("spec", {})
ok(pod.get("shareProcessNamespace") is True, "the pod shares its process namespace, so PID 1 reaps")
containers = pod.get("containers", [])
ok(len(containers) == 1 and containers[0].get("name"), "one named container")
c = containers[0] if containers else {}
ok("botdesk" in str(c.get("image", "")), "its image is botdesk's (scripts/build-image.sh)")
ok(all(isinstance(a, str) for a in c.get("command", [None])), "its command is a list of strings")
probe = c.get("livenessProbe", {})
ok(probe.get("exec", {}).get("command", [])[:3] == ["botdesk", "status", "--json"],
   "the liveness probe runs botdesk status --json", probe)
for k in ("initialDelaySeconds", "periodSeconds", "timeoutSeconds"):
    ok(isinstance(probe.get(k), int) and probe[k] > 0, "the probe's %s is a positive integer" % k)
env = {e.get("name"): e.get("value") for e in c.get("env", [])}
ok(env.get("BOTDESK_PLACEMENT") == "standalone", "the desktop runs standalone inside (no user manager there)")

res = c.get("resources", {})
req = mebibytes(res.get("requests", {}).get("memory"))
lim = mebibytes(res.get("limits", {}).get("memory"))
ok(req is not None and req >= 190, "the memory request covers a desktop's measured PSS (about 190 MiB)", res)
ok(lim is not None and req is not None and lim >= req, "the memory limit is at least the request", res)
ok(re.fullmatch(r"\d+m?", str(res.get("requests", {}).get("cpu", ""))) is not None, "the cpu request is a quantity")

vols = {v.get("name"): v for v in pod.get("volumes", [])}
mounts = c.get("volumeMounts", [])
ok(all(m.get("name") in vols for m in mounts) and mounts, "every volume mount names a volume of the pod")
cfgvol = next((v for v in vols.values() if "configMap" in v), {})
ok(cfgvol.get("configMap", {}).get("name") == cm.get("metadata", {}).get("name"), "the config volume is the ConfigMap")
cfg_mount = next((m for m in mounts if m.get("name") == cfgvol.get("name")), {})
cfg_file = env.get("BOTDESK_CONFIG") or ""
ok(cfg_mount.get("mountPath") and "subPath" not in cfg_mount, "the ConfigMap is mounted as a directory (no subPath)",
   cfg_mount)
ok(os.path.dirname(cfg_file) == cfg_mount.get("mountPath") and os.path.basename(cfg_file) in cm.get("data", {}),
   "BOTDESK_CONFIG names a key of the ConfigMap in its mount", (cfg_file, cfg_mount))

ini = cm.get("data", {}).get("botdesk.ini", "")
lim_mb = lim or 0
m = re.search(r"^min_free_memory_mb\s*=\s*(\d+)", ini, re.M)
ok(m is not None and int(m.group(1)) < lim_mb, "the memory gate's floor fits under the pod's memory limit", ini)
# The form podman kube play accepts: a Pod with the StatefulSet's template
# and the same ConfigMap, so what tests/integration/k8s-play.sh runs is
# what a cluster runs.
pod_path = os.path.join(src, "conf/examples/k8s/botdesk-pod.yaml")
with open(pod_path) as f:
    pod_docs = [d for d in yaml.safe_load_all(f) if d is not None]
pod_by_kind = {d.get("kind"): d for d in pod_docs}
ok(len(pod_docs) == 2 and set(pod_by_kind) == {"ConfigMap", "Pod"}, "botdesk-pod.yaml holds a ConfigMap and a Pod",
   list(pod_by_kind))
ok(pod_by_kind.get("ConfigMap") == cm, "its ConfigMap is the StatefulSet example's")
the_pod = pod_by_kind.get("Pod") or {}
ok(the_pod.get("apiVersion") == "v1" and the_pod.get("metadata", {}).get("name"), "a v1 Pod with a name")
ok(the_pod.get("spec") == pod, "the Pod's spec is the StatefulSet's pod template, identical")
ok(the_pod.get("metadata", {}).get("labels") == labels, "the Pod carries the template's labels")

botdesk = os.path.join(os.environ.get("BOTDESK_BUILD_DIR", ""), "helper/botdesk")
if os.access(botdesk, os.X_OK):
    with tempfile.NamedTemporaryFile("w", suffix=".ini") as f:
        f.write(ini)
        f.flush()
        e = dict(os.environ, BOTDESK_CONFIG=f.name, XDG_CONFIG_HOME="/nonexistent")
        p = subprocess.run([botdesk, "config", "check"], env=e, capture_output=True, text=True)
        ok(p.returncode == 0, "the ConfigMap's botdesk.ini passes botdesk config check", p.stdout + p.stderr)
else:
    skip("the ConfigMap's botdesk.ini passes botdesk config check", "botdesk is not built in BOTDESK_BUILD_DIR")
done()
