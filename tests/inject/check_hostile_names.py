#!/usr/bin/env python3
"""Hostile names through every input that carries a name and every output format that writes one
(issue 27 items 4 and 5). Each result is parsed with a real parser: libyaml (python3-yaml), a
strict XML parser (xml.dom.minidom), JSON, plan-layout's own topology.conf and topology.yaml
readers, bash -n. The test fails when an output has an extra line, key, attribute or element, when
a name arrives changed, or when an input is accepted that its output cannot hold; a refused input
must be refused with exit 2 and one line on standard error.

usage: check_hostile_names.py PLAN_LAYOUT SOURCE_DIR
Exit 77 (skipped) without python3-yaml.
"""
import copy
import json
import os
import pathlib
import re
import subprocess
import sys
import tempfile
import xml.dom.minidom

try:
    import yaml
except ImportError as e:  # pragma: no cover
    print(f"skipped: {e} (apt-get install python3-yaml)")
    sys.exit(77)

BIN = sys.argv[1]
SRC = pathlib.Path(sys.argv[2])
# --sample N: only every Nth attack (the sanitizer build runs this, where each run costs ~10x).
SAMPLE = int(sys.argv[sys.argv.index("--sample") + 1]) if "--sample" in sys.argv else 1
WORK = pathlib.Path(tempfile.mkdtemp(prefix="hostile-"))

# The attacks: each would end a line, a quoted value, a comment, an attribute or an element, or run
# a command, in one of the output languages.
HOSTILE = {
    "newline": "evil\nSwitchName=evil Nodes=attacker[1-9]",
    "crlf": "evil\r\nkind: Evil",
    "dquote": 'evil" evil="1',
    "squote": "evil' evil='1",
    "lt": "evil<inject/>",
    "gt": "evil>",
    "amp": "evil&amp;",
    "dashes": "evil--",
    "comment-end": "evil-->",
    "hash": "evil#comment",
    "colon-space": "evil: key",
    "braces": "{evil}",
    "cmd": "$(touch /tmp/hostile-pwned)",
    "backtick": "`touch /tmp/hostile-pwned`",
    "nul": "evil\u0000x",
    "long": "e" * 5000,
    "u2028": "evil\u2028kind: Evil",
    "yaml-doc": "evil\n---\nkind: Evil",
    "space": "evil name",
}
# Names that are valid device names but special in some output language: they must be accepted
# and arrive byte for byte.
HOSTILE = {k: v for i, (k, v) in enumerate(HOSTILE.items()) if i % SAMPLE == 0}
TRICKY_SWITCHES = ["leaf:1", "-leaf", "leaf--a", "x@y+z", "l.e_a-f"]

# What the readers accept (src/names.cpp): a device (switch, block) name and an RFC 1123 host name.
DEVICE_NAME = re.compile(r"[A-Za-z0-9_.:@+-]{1,64}")
HOST_NAME = re.compile(r"(?=.{1,253}$)[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*")

FORMATS = ["slurm-topology", "slurm-topology-yaml", "kueue", "volcano", "nccl-topo", "scheduler",
           "hostfile", "dot", "svg", "launch", "json"]

failures = []
checks = 0


def fail(msg):
    failures.append(msg)
    print("FAIL:", msg)


def run(args, **kw):
    return subprocess.run([BIN, *args], capture_output=True, timeout=120, **kw)


def refused_cleanly(label, p):
    """Exit 2 with one line on standard error."""
    global checks
    checks += 1
    err = p.stderr.decode("utf-8", "replace")
    lines = err.split("\n")
    # One error line, last; notes before it are allowed (each a line of its own).
    if p.returncode != 2 or lines[-1] != "" or not lines[-2].startswith("plan-layout: error: ") \
            or any(not line.startswith("plan-layout: ") or line.startswith("plan-layout: error: ") for line in lines[:-2]):
        fail(f"{label}: expected exit 2 and one error line, got exit {p.returncode}: {err[:300]!r}")


def conf_switches(text, label):
    """topology.conf: every line a comment or SwitchName=NAME Nodes|Switches=LIST; the names."""
    names = []
    for line in text.split("\n"):
        if line == "" or line.startswith("#"):
            continue
        m = re.fullmatch(r"SwitchName=(\S+) (Nodes|Switches)=(\S+)( +# [ -~]*)?", line)
        if not m:
            fail(f"{label}: topology.conf line not of the writer's shape: {line[:200]!r}")
            continue
        names.append(m.group(1))
    return names


def check_output(fmt, out, label, expect_switches=()):
    """Parses one output; fails on anything the writer would not write by itself."""
    global checks
    checks += 1
    text = out.decode("utf-8") if fmt != "svg" else out.decode("utf-8", "replace")
    if fmt == "slurm-topology":
        names = conf_switches(text, label)
        for s in expect_switches:
            if s not in names:
                fail(f"{label}: switch {s!r} not written as itself")
        f = WORK / "roundtrip.conf"
        f.write_bytes(out)
        p = run(["import", "slurm", str(f)])
        if p.returncode != 0:
            fail(f"{label}: plan-layout's own reader refuses the topology.conf: {p.stderr[:300]!r}")
        else:
            back = sorted(s["name"] for s in json.loads(p.stdout)["switches"])
            if back != sorted(names):
                fail(f"{label}: topology.conf read back as {back}, written {sorted(names)}")
    elif fmt == "slurm-topology-yaml":
        doc = yaml.safe_load(text)
        if not isinstance(doc, list) or any(set(e) - {"topology", "cluster_default", "tree", "block"} for e in doc):
            fail(f"{label}: topology.yaml has unexpected structure: {str(doc)[:300]}")
            return
        names = [s["switch"] for e in doc if "tree" in e for s in e["tree"]["switches"]]
        for e in doc:
            for s in e.get("tree", {}).get("switches", []):
                if set(s) - {"switch", "nodes", "children"}:
                    fail(f"{label}: extra key in a switch: {s}")
        for s in expect_switches:
            if s not in names:
                fail(f"{label}: switch {s!r} not written as itself in topology.yaml")
        f = WORK / "roundtrip.yaml"
        f.write_bytes(out)
        p = run(["import", "slurm-yaml", str(f)])
        if p.returncode != 0:
            fail(f"{label}: plan-layout's own reader refuses the topology.yaml: {p.stderr[:300]!r}")
    elif fmt == "kueue":
        docs = list(yaml.safe_load_all(text))
        if len(docs) != 2 or set(docs[0]) != {"apiVersion", "kind", "metadata", "spec"} or set(docs[0]["spec"]) != {"levels"} \
                or set(docs[1]) != {"spec"}:
            fail(f"{label}: kueue output has unexpected documents or keys: {str(docs)[:300]}")
    elif fmt == "volcano":
        docs = [d for d in yaml.safe_load_all(text) if d is not None]
        for d in docs[:-1]:
            if set(d) != {"apiVersion", "kind", "metadata", "spec"} or d["kind"] != "HyperNode" \
                    or set(d["spec"]) != {"tier", "members"} or set(d["metadata"]) != {"name"}:
                fail(f"{label}: volcano HyperNode has unexpected keys: {str(d)[:300]}")
        names = [d["metadata"]["name"] for d in docs[:-1]]
        for n in names:  # Kubernetes object names: RFC 1123 DNS subdomains (issue 41 item 8)
            if not re.fullmatch(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*", n) or len(n) > 253:
                fail(f"{label}: HyperNode name {n!r} is not a Kubernetes object name")
        if len(set(names)) != len(names):
            fail(f"{label}: two HyperNodes of one name: {names}")
        renamed = {line.rsplit(": ", 1)[1]: line[4:].rsplit(": ", 1)[0] for line in text.splitlines()
                   if line.startswith("#   ") and ": " in line}  # "#   written: original"
        for s in expect_switches:  # as itself, or renamed to a valid name and the original named
            if s not in names and renamed.get(s) not in names:
                fail(f"{label}: switch {s!r} neither written as itself in a HyperNode nor renamed with its name in a comment")
        if set(docs[-1]) != {"spec"} or not {"networkTopology"} <= set(docs[-1]["spec"]) <= {"networkTopology", "tasks"}:
            fail(f"{label}: volcano job part has unexpected keys: {docs[-1]}")
    elif fmt == "nccl-topo":
        dom = xml.dom.minidom.parseString(out)  # strict: raises on any malformed XML ("--" in a comment too)
        allowed = {"system": {"version"}, "cpu": {"numaid", "affinity", "arch", "vendor", "familyid", "modelid"},
                   "pci": {"busid", "class", "vendor", "link_speed", "link_width"},
                   "gpu": set(), "nvlink": {"target", "count", "tclass"}, "nic": set(),
                   "net": {"name", "dev", "speed", "port"}}
        for el in dom.getElementsByTagName("*"):
            if el.tagName not in allowed:
                fail(f"{label}: unexpected element <{el.tagName}>")
            elif set(el.attributes.keys()) - allowed[el.tagName]:
                fail(f"{label}: unexpected attributes on <{el.tagName}>: {sorted(el.attributes.keys())}")
        for el in dom.getElementsByTagName("pci"):
            if not re.fullmatch(r"[0-9a-f]{4,8}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-9a-f]", el.getAttribute("busid")):
                fail(f"{label}: busid {el.getAttribute('busid')!r} is not a bus id")
    elif fmt in ("scheduler", "json"):
        json.loads(text)
    elif fmt == "hostfile":
        for line in text.split("\n"):
            if line and not line.startswith("#") and not re.fullmatch(r"[A-Za-z0-9.-]+ slots=\d+", line):
                fail(f"{label}: hostfile line {line[:200]!r}")
    elif fmt == "svg":
        xml.dom.minidom.parseString(out)
    elif fmt == "dot":
        # Every string in DOT is quoted: outside quotes only the writer's own tokens may appear.
        outside = re.sub(r'"(\\.|[^"\\])*"', '""', text)
        if re.search(r"[^\x20-\x7e\n\t]", outside) or "<" in outside:
            fail(f"{label}: DOT has bytes outside its quoted strings: {outside[:300]!r}")
    elif fmt == "launch":
        p = subprocess.run(["bash", "-n"], input=out, capture_output=True)
        if p.returncode != 0:
            fail(f"{label}: launch snippet is not valid bash: {p.stderr[:300]!r}")


def analyze_all(label, args, expect_switches=(), formats=FORMATS, accept_refusal=False):
    """analyze in every format: each either exits 0 with a well-formed output or refuses (exit 2)."""
    for i, fmt in enumerate(formats):
        p = run(["analyze", *args, "--format", fmt])
        if i == 0 and p.returncode == 2 and accept_refusal:
            refused_cleanly(f"{label} --format {fmt}", p)  # refused at read: the same for every format
            return
        if p.returncode == 0:
            try:
                check_output(fmt, p.stdout, f"{label} --format {fmt}", expect_switches)
            except Exception as e:  # a parser's error is the finding
                fail(f"{label} --format {fmt}: output does not parse: {type(e).__name__}: {str(e)[:300]}")
        elif accept_refusal:
            refused_cleanly(f"{label} --format {fmt}", p)
        else:
            fail(f"{label} --format {fmt}: exit {p.returncode}: {p.stderr[:300]!r}")


# ---- Kubernetes node labels --------------------------------------------------------------------

def k8s_list(leaf_values, spine="spine-a", names=None, domain=None):
    items = []
    for i, leaf in enumerate(leaf_values):
        labels = {"fabric.topograph.run/tier-0": leaf, "fabric.topograph.run/tier-1": spine,
                  "nvidia.com/gpu.product": "NVIDIA-H100-80GB-HBM3", "nvidia.com/gpu.count": "8"}
        if domain is not None:
            labels["nvidia.com/gpu.clique"] = domain
        items.append({"apiVersion": "v1", "kind": "Node",
                      "metadata": {"name": (names or [f"gpu{i:02d}" for i in range(len(leaf_values))])[i],
                                   "labels": labels},
                      "status": {"capacity": {"nvidia.com/gpu": "8"}}})
    return {"apiVersion": "v1", "kind": "List", "items": items}


def write(name, content):
    f = WORK / name
    if isinstance(content, (dict, list)):
        content = json.dumps(content)
    f.write_text(content)
    return f


# The built-in template as a capture gives it (bus ids, CPU ids): --format nccl-topo refuses a
# node without them, and the hostile names below must still reach its writer.
CAPTURED = json.loads(re.sub(r"^\s*//.*$", "", (SRC / "layouts/nodes/h100-hgx-8gpu-8nic.json").read_text(), flags=re.M))
for i, g in enumerate(CAPTURED["gpus"]):
    g["bus_id"] = f"0000:{0x18 + i:02x}:00.0"
for c in CAPTURED["cpus"]:
    c.update(arch="x86_64", vendor="GenuineIntel", familyid=6, modelid=143)
CAPTURED_NODE = write("captured-node.json", CAPTURED)
NODE = ["--node", str(CAPTURED_NODE), "--tp", "8"]

for key, bad in HOSTILE.items():
    leaves = ["leaf0", "leaf0", bad, bad]
    for where, doc in {"tier-0 value": k8s_list(leaves),
                       "tier-1 value": k8s_list(["leaf0", "leaf0", "leaf1", "leaf1"], spine=bad),
                       "node name": k8s_list(["leaf0", "leaf0", "leaf1", "leaf1"], names=["gpu00", "gpu01", "gpu02", bad]),
                       "clique value": k8s_list(["leaf0", "leaf0", "leaf1", "leaf1"], domain=bad)}.items():
        f = write("k8s.json", doc)
        label = f"k8s {where} {key}"
        p = run(["import", "k8s-nodes", str(f)])
        valid = DEVICE_NAME.fullmatch(bad) if where != "node name" else HOST_NAME.fullmatch(bad)
        if p.returncode == 0:
            fabric = json.loads(p.stdout)
            names = [s["name"] for s in fabric["switches"]] + [b["name"] for b in fabric["blocks"]] + \
                    [n["name"] for n in fabric.get("nodes", [])]
            if not valid:
                fail(f"{label}: import k8s-nodes accepted a name no scheduler file can hold")
            elif bad not in names:
                fail(f"{label}: the name did not arrive as itself")
        else:
            refused_cleanly(f"{label} (import)", p)
        analyze_all(label, ["--cluster-topology", str(f), *NODE], accept_refusal=True)
    f = write("k8s.json", k8s_list(["leaf0", "leaf0", "leaf1", "leaf1"]))
    refused_cleanly(f"k8s --tier-label {key}",
                    run(["import", "k8s-nodes", str(f), "--tier-label", bad.replace("\u0000", "")]))

# Valid but special names arrive as themselves in every format.
f = write("k8s-tricky.json", k8s_list([TRICKY_SWITCHES[0]] * 2 + [TRICKY_SWITCHES[1]] * 2, spine=TRICKY_SWITCHES[3]))
analyze_all("k8s tricky names", ["--cluster-topology", str(f), *NODE], expect_switches=TRICKY_SWITCHES[:2])

# ---- Fabric JSON (what import writes), inline in a cluster spec too ---------------------------

clean = json.loads(run(["import", "k8s-nodes", str(write("k8s.json", k8s_list(["leaf0", "leaf0", "leaf1", "leaf1"])))]).stdout)
for key, bad in HOSTILE.items():
    for where in ["switch name", "switch child", "switch node", "tier label", "node entry"]:
        fab = copy.deepcopy(clean)
        if where == "switch name":
            fab["switches"][0]["name"] = bad
        elif where == "switch child":
            fab["switches"][-1]["switches"][0] = bad
        elif where == "switch node":
            fab["switches"][0]["nodes"][0] = bad
        elif where == "tier label":
            fab["tier_labels"][0] = bad
        else:
            fab.setdefault("nodes", [{"name": "gpu00"}])[0]["name"] = bad
        f = write("fabric.json", fab)
        analyze_all(f"fabric JSON {where} {key}", ["--cluster-topology", str(f), *NODE], accept_refusal=True,
                    formats=["slurm-topology", "kueue"])
        layout = {"cluster": {"node": "h100-hgx-8gpu-8nic", "topology": fab}, "parallel": {"tp": 8}}
        f = write("layout-fabric.json", layout)
        analyze_all(f"cluster spec topology {where} {key}", [str(f)], accept_refusal=True,
                    formats=["slurm-topology", "volcano"])

# ---- topology.conf and topology.yaml ------------------------------------------------------------

for key, bad in HOSTILE.items():
    one_line = bad.replace("\n", " ").replace("\r", " ").replace("\u0000", "")
    f = write("topology.conf", f"SwitchName={one_line} Nodes=gpu[00-01]\nSwitchName=leaf1 Nodes=gpu[02-03]\n"
                               f"SwitchName=spine Switches={one_line},leaf1\n")
    p = run(["import", "slurm", str(f)])
    if p.returncode == 0:
        leaves = [s["name"] for s in json.loads(p.stdout)["switches"] if s.get("nodes")]
        analyze_all(f"topology.conf {key}", ["--cluster-topology", str(f), *NODE], formats=["slurm-topology", "kueue"],
                    expect_switches=leaves, accept_refusal=True)
    else:
        refused_cleanly(f"topology.conf {key}", p)
    f = write("topology.yaml", "- topology: t\n  cluster_default: true\n  tree:\n    switches:\n"
                               f"      - switch: {json.dumps(bad)}\n        nodes: gpu[00-01]\n"
                               "      - switch: leaf1\n        nodes: gpu[02-03]\n")
    p = run(["import", "slurm-yaml", str(f)])
    if p.returncode == 0:
        if bad not in [s["name"] for s in json.loads(p.stdout)["switches"]]:
            fail(f"topology.yaml {key}: the name changed on the way in")
        analyze_all(f"topology.yaml {key}", ["--cluster-topology", str(f), *NODE],
                    formats=["slurm-topology", "slurm-topology-yaml", "volcano"], accept_refusal=True)
    else:
        refused_cleanly(f"topology.yaml {key}", p)

# ---- Node templates: device names, bus ids, the template's own name -----------------------------

template = json.loads(re.sub(r"^\s*//.*$", "", (SRC / "layouts/nodes/h100-hgx-8gpu-8nic.json").read_text(), flags=re.M))
for c in template["cpus"]:  # what a capture gives: --format nccl-topo refuses two CPUs without them
    c.update(arch="x86_64", vendor="GenuineIntel", familyid=6, modelid=143)
for key, bad in HOSTILE.items():
    for where in ["gpu bus_id", "nic bus_id", "nic device", "nic netdev", "template name", "gpu name", "cpu vendor"]:
        t = copy.deepcopy(template)
        for i, g in enumerate(t["gpus"]):
            g["bus_id"] = f"0000:{0x18 + i:02x}:00.0"
        for i, n in enumerate(t["nics"]):
            n["bus_id"] = f"0000:{0x20 + i:02x}:00.0"
        if where == "gpu bus_id":
            t["gpus"][0]["bus_id"] = "0000:18:00.0" + bad
        elif where == "nic bus_id":
            t["nics"][0]["bus_id"] = bad
        elif where == "nic device":
            t["nics"][0]["device"] = bad
        elif where == "nic netdev":
            t["nics"][0]["netdev"] = bad
        elif where == "template name":
            t["name"] = bad
        elif where == "cpu vendor":
            t["cpus"][1]["vendor"] = bad
        else:
            old = t["gpus"][0]["name"]
            t["gpus"][0]["name"] = bad
            for p_ in t.get("paths", []):
                p_["a"] = bad if p_.get("a") == old else p_.get("a")
        f = write("node.json", t)
        analyze_all(f"node template {where} {key}", ["--node", str(f), "--nodes", "2", "--tp", "8"],
                    formats=["nccl-topo", "dot", "svg", "launch", "scheduler", "slurm-topology"], accept_refusal=True)
# The nvidia-smi form of a bus id is read as the NCCL form.
t = copy.deepcopy(template)
for i, g in enumerate(t["gpus"]):
    g["bus_id"] = f"0000:{0x18 + i:02x}:00.0"
t["gpus"][0]["bus_id"] = "00000000:1B:00.0"
p = run(["analyze", "--node", str(write("node.json", t)), "--nodes", "1", "--tp", "8", "--format", "nccl-topo"])
checks += 1
if p.returncode != 0 or b'busid="0000:1b:00.0"' not in p.stdout:
    fail(f"node template: nvidia-smi bus id 00000000:1B:00.0 not read as 0000:1b:00.0: {p.stderr[:200]!r}")

# ---- NCCL topology XML: a busid that would break out of its attribute ---------------------------

for key, bad in HOSTILE.items():
    x = ('<system version="1"><cpu numaid="0" affinity="ff"><pci busid="0000:18:00.0' +
         bad.replace("&", "&amp;").replace("<", "&lt;").replace('"', "&quot;").replace("\u0000", "") +
         '" class="0x030200" link_speed="32.0 GT/s PCIe" link_width="16"><gpu dev="0" sm="90" rank="0" gdr="1"/></pci>'
         '</cpu></system>')
    f = write("topo.xml", x)
    p = run(["import", "nccl-xml", str(f)])
    if p.returncode == 0:
        fail(f"NCCL XML busid {key}: accepted")
    else:
        refused_cleanly(f"NCCL XML busid {key}", p)

# ---- Hostfiles and layout names ------------------------------------------------------------------

layout = (SRC / "layouts/seed-2x8-ep16.json").read_text()
for key, bad in HOSTILE.items():
    hf = write("hosts.txt", f"gpu00 slots=8\n{bad.replace(chr(0), '')} slots=8\n")
    analyze_all(f"hostfile {key}", [str(SRC / "layouts/seed-2x8-ep16.json"), "--hostfile", str(hf)],
                formats=["hostfile", "launch", "slurm-topology"], accept_refusal=True)
    if "\u0000" in bad or "/" in bad or len(bad) > 200:
        continue
    d = WORK / "names"
    d.mkdir(exist_ok=True)
    f = d / (bad + ".json")
    f.write_text(layout)
    analyze_all(f"layout name {key}", [str(f), "--node", str(CAPTURED_NODE)])

print(f"{checks} outputs and refusals checked, {len(failures)} failures")
sys.exit(1 if failures else 0)
