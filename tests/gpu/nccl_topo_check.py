#!/usr/bin/env python3
"""NCCL topology XML as NCCL reads it: the rules a file must keep, and a plan against NCCL's dump.

  nccl_topo_check.py rules FILE...            each FILE is well-formed XML and keeps NCCL's rules
  nccl_topo_check.py compare PLAN DUMP        what NCCL kept (NCCL_TOPO_DUMP_FILE) is the plan's tree
  nccl_topo_check.py self-test                the checks above fail on files that break each rule

The rules are NCCL's own (NVIDIA/nccl src/graph/xml.cc: the parser, xmlLoadSub and its handler
tables; topo.cc: ncclTopoAddCpu/AddPci/AddGpu/AddNet/AddNvLinks, the attributes read with
xmlGetAttrStr, which stops with "Attribute X of node Y not found"), plus plan-layout's own: no
value NCCL fills and then keeps (a <gpu>'s dev, sm, rank, gdr; a <net>'s gdr).
Exit 0 when every check passes, 1 otherwise; one line per failure, naming file, element and rule.
"""
import re
import sys
import xml.etree.ElementTree as ET

MAX_STR_LEN = 255  # xml.h
MAX_ATTR_COUNT = 16
# xml.cc's handler tables: what each element may hold (anything else NCCL ignores, INFO only).
CHILDREN = {
    None: {"system"},
    "system": {"cpu"},
    "cpu": {"pci", "nic"},
    "pci": {"pci", "gpu", "nic", "pcilink"},
    "gpu": {"nvlink", "c2c"},
    "nic": {"net"},
    "net": set(), "nvlink": set(), "pcilink": set(), "c2c": set(),
}
BUSID = re.compile(r"^[0-9a-fA-F]{4}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-9a-fA-F]$")


class Node:
    def __init__(self, name, attrs, parent):
        self.name, self.attrs, self.parent, self.subs = name, attrs, parent, []

    def path(self):
        out, n = [], self
        while n is not None:
            key = n.attrs.get("busid") or n.attrs.get("numaid") or n.attrs.get("name") or ""
            out.append(f"{n.name}[{key}]" if key else n.name)
            n = n.parent
        return "/".join(reversed(out))


def nccl_parse(text):
    """xml.cc's parser (xmlGetNode, xmlGetToken, xmlGetValue, xmlSkipComment, xmlLoadSub) over a
    string: returns the root nodes or raises ValueError with NCCL's message."""
    pos = 0

    def getc():
        nonlocal pos
        if pos >= len(text):
            raise ValueError("XML Parse : Unexpected EOF")
        c = text[pos]
        pos += 1
        return c

    def token(with_value):
        name = ""
        while True:
            c = getc()
            if c == "=":
                if not with_value:
                    raise ValueError(f"XML Parse : Unexpected value with name {name}")
                q = getc()
                if q not in "\"'":
                    raise ValueError("XML Parse : Expected (double) quote.")
                end = text.find(q, pos)
                if end < 0:
                    raise ValueError("XML Parse : Unexpected EOF")
                value = text[pos:end]
                if len(value) >= MAX_STR_LEN:
                    raise ValueError(f"Error : value {value[:40]}... too long (max {MAX_STR_LEN})")
                set_pos(end + 1)
                return name, value, getc()
            if c in " >/\n\r":
                return name, None, c
            name += c
            if len(name) >= MAX_STR_LEN:
                raise ValueError(f"Error : name {name[:40]}... too long")

    def set_pos(p):
        nonlocal pos
        pos = p

    def get_node():
        while True:
            c = " "
            while c in " \n\r":
                if pos >= len(text):
                    return None
                c = getc()
            if c != "<":
                raise ValueError(f"XML Parse error : expecting '<', got {c!r}")
            start = pos
            name, _, c = token(False)
            if name.startswith("!--"):
                end = text.find("-->", start + 3)
                if end < 0:
                    raise ValueError("XML Parse error : unterminated comment")
                set_pos(end + 3)
                continue
            if name == "" and c == "/":
                name, _, c = token(False)
                if c != ">":
                    raise ValueError(f"XML Parse error : unexpected trailing {c!r} in closing tag {name}")
                return ("close", name, {})
            attrs = {}
            while c == " ":
                key, value, c = token(True)
                if len(attrs) >= MAX_ATTR_COUNT:
                    raise ValueError(f"XML Parse : more than {MAX_ATTR_COUNT} attributes in <{name}>")
                attrs[key] = value
            kind = "open"
            if c == "/":
                kind = "single"
                _, _, c = token(False)
            if c != ">":
                raise ValueError(f"XML Parse : expected >, got {c!r}")
            return (kind, name, attrs)

    def load(head):
        while True:
            n = get_node()
            if n is None:
                if head is not None:
                    raise ValueError(f"XML Parse : unterminated {head.name}")
                return
            kind, name, attrs = n
            if kind == "close":
                if head is None or name != head.name:
                    raise ValueError(f"XML Mismatch : {head.name if head else ''} / {name}")
                return
            node = Node(name, attrs, head)
            if name not in CHILDREN.get(head.name if head else None, set()):
                raise ValueError(f"<{name}> inside <{head.name if head else ''}>: NCCL ignores it (INFO Ignoring element)")
            (head.subs if head else roots).append(node)
            if kind == "open":
                load(node)

    roots = []
    load(None)
    return roots


def walk(node):
    yield node
    for s in node.subs:
        yield from walk(s)


def rule_errors(text):
    """Every broken rule of one file, as 'element: what' strings."""
    errs = []
    for m in re.finditer(r"<!--(.*?)-->", text, re.S):
        if "--" in m.group(1) or m.group(1).endswith("-"):
            errs.append(f"comment at offset {m.start()}: holds \"--\" (not well-formed XML)")
    try:
        ET.fromstring(text)
    except ET.ParseError as e:
        errs.append(f"not well-formed XML: {e}")
    if text.lstrip().startswith("<?"):
        errs.append("an XML declaration: NCCL's parser reads it as an element")
    try:
        roots = nccl_parse(text)
    except ValueError as e:
        return errs + [f"NCCL's parser: {e}"]
    if len(roots) != 1 or roots[0].name != "system":
        return errs + ["not one <system> element"]
    system = roots[0]
    if system.attrs.get("version") != "1":
        errs.append("<system>: version must be 1 (NCCL_TOPO_XML_VERSION)")
    cpus = [c for c in system.subs if c.name == "cpu"]
    for n in walk(system):
        a, where = n.attrs, n.path()

        def need(*keys):
            for k in keys:
                if k not in a:
                    errs.append(f"{where}: Attribute {k} of node {n.name} not found")

        if n.name == "cpu":
            need("numaid")
            if not re.fullmatch(r"-?\d+", a.get("numaid", "0")):
                errs.append(f"{where}: numaid is not a number")
            if len(cpus) > 1:  # NCCL fills these only for the CPU above its own GPU
                need("arch")
                if a.get("arch") == "x86_64":
                    need("vendor")
                    if a.get("vendor") in ("GenuineIntel", "CentaurHauls", "  Shanghai  "):
                        need("familyid", "modelid")
        elif n.name == "pci":
            need("busid", "class")
            if "busid" in a and not BUSID.match(a["busid"]):
                errs.append(f"{where}: busid {a['busid']!r} is not dddd:bb:dd.f")
            holds_gpu = any(s.name == "gpu" for s in n.subs)
            if not holds_gpu:  # NCCL fills link state only along its own GPU's path
                need("link_speed", "link_width")
        elif n.name == "gpu":
            for k in ("dev", "sm", "rank", "gdr"):
                if k in a:
                    errs.append(f"{where}: {k}=\"{a[k]}\" given, but NCCL fills it for its own GPU and keeps a given value")
        elif n.name == "nvlink":
            need("target", "count", "tclass")
        elif n.name == "net":
            need("name")  # dev: NCCL renumbers every net it keeps (ncclTopoPopulateNics)
            if "gdr" in a:
                errs.append(f"{where}: gdr=\"{a['gdr']}\" overrides NCCL's own GPUDirect RDMA test")
    return errs


def tree(text):
    """busid or net name -> (ancestor chain, node) of one file, through NCCL's parser."""
    out = {}
    for n in walk(nccl_parse(text)[0]):
        chain = []
        p = n.parent
        while p is not None and p.name != "system":
            if p.name in ("pci", "cpu"):
                chain.append(f"cpu numaid={p.attrs.get('numaid')}" if p.name == "cpu" else f"pci {p.attrs.get('busid')}")
            p = p.parent
        if n.name == "pci" and any(s.name == "gpu" for s in n.subs):
            out["gpu " + n.attrs["busid"]] = (chain, n)
        elif n.name == "net":
            out["net " + n.attrs.get("name", "")] = (chain, n)
        elif n.name == "cpu":
            out["cpu numaid=" + n.attrs.get("numaid", "")] = ([], n)
    return out


def compare(plan_text, dump_text):
    """Lines 'ok|FAIL what' for every device and CPU NCCL kept, against the plan."""
    plan, dump = tree(plan_text), tree(dump_text)
    lines = []
    for key, (chain, node) in sorted(dump.items()):
        if key not in plan:
            lines.append(f"note {key}: NCCL's own (not in the plan), under {' < '.join(chain) or 'system'}")
            continue
        pchain, pnode = plan[key]
        same = chain == pchain
        lines.append(f"{'ok' if same else 'FAIL'} {key}: under {' < '.join(chain) or 'system'}"
                     + ("" if same else f"; the plan has {' < '.join(pchain)}"))
        if key.startswith("cpu"):
            for k in ("affinity", "arch", "vendor", "familyid", "modelid"):
                if k in pnode.attrs:
                    ok = pnode.attrs[k] == node.attrs.get(k)
                    lines.append(f"{'ok' if ok else 'FAIL'} {key} {k}: NCCL {node.attrs.get(k)!r}, plan {pnode.attrs[k]!r}")
                else:
                    lines.append(f"note {key} {k}: filled by NCCL: {node.attrs.get(k)!r}")
        if key.startswith("gpu"):
            gpu = next(s for s in node.subs if s.name == "gpu")
            pgpu = next(s for s in pnode.subs if s.name == "gpu")
            filled = " ".join(f"{k}={gpu.attrs[k]}" for k in sorted(gpu.attrs))
            lines.append(f"note {key}: NCCL filled {filled}")
            links = sorted((s.attrs.get("target"), s.attrs.get("count"), s.attrs.get("tclass")) for s in gpu.subs if s.name == "nvlink")
            plinks = sorted((s.attrs.get("target"), s.attrs.get("count"), s.attrs.get("tclass")) for s in pgpu.subs if s.name == "nvlink")
            if plinks:
                lines.append(f"{'ok' if links == plinks else 'FAIL'} {key} nvlink: NCCL {links}, plan {plinks}")
            else:
                lines.append(f"note {key} nvlink: none in the plan; NCCL detected {links}")
            for k in ("link_speed", "link_width"):
                if k in pnode.attrs:
                    ok = pnode.attrs[k] == node.attrs.get(k)
                    lines.append(f"{'ok' if ok else 'FAIL'} {key} {k}: NCCL {node.attrs.get(k)!r}, plan {pnode.attrs[k]!r}")
    for key in sorted(plan):
        if key.startswith("gpu") and key not in dump:
            lines.append(f"note {key}: not kept by NCCL (not this process's GPU)")
    if not any(line.startswith("ok gpu") for line in lines):
        lines.append("FAIL no GPU of the plan is in NCCL's topology: the bus ids do not match the machine")
    return lines


GOOD = """<!-- a plan -->
<system version="1">
  <cpu numaid="0" affinity="0000ffff" arch="x86_64" vendor="GenuineIntel" familyid="6" modelid="207">
    <pci busid="ffff:ff:01.0" class="0x060400" link_speed="" link_width="0">
      <pci busid="0000:00:06.0" class="0x030200" vendor="0x10de">
        <gpu/>
      </pci>
      <pci busid="0000:00:07.0" class="0x020700" link_speed="32.0 GT/s PCIe" link_width="16">
        <nic>
          <net name="mlx5_0" dev="0" speed="400000" port="1"/>
        </nic>
      </pci>
    </pci>
  </cpu>
  <cpu numaid="1" affinity="ffff0000" arch="x86_64" vendor="AuthenticAMD">
    <nic>
      <net name="mlx5_1" dev="1" port="1"/>
    </nic>
  </cpu>
</system>
"""
# Each breaks one rule; main's emitter wrote the first five (issue 31).
BAD = {
    "double dash in a comment": ("<!-- a plan -->", "<!-- --format nccl-topo -->"),
    "gpu rank": ("<gpu/>", '<gpu dev="0" rank="8"/>'),
    "gpu gdr": ("<gpu/>", '<gpu gdr="1"/>'),
    "net gdr": ('port="1"/>\n        </nic>', 'port="1" gdr="1"/>\n        </nic>'),
    "second cpu without arch": (' arch="x86_64" vendor="AuthenticAMD"', ""),
    "intel cpu without model": (' familyid="6" modelid="207"', ""),
    "nic pci without link width": ('link_speed="32.0 GT/s PCIe" link_width="16"', 'link_speed="32.0 GT/s PCIe"'),
    "switch without link speed": ('link_speed="" link_width="0"', 'link_width="0"'),
    "xml declaration": ("<!-- a plan -->", '<?xml version="1.0"?>'),
    "unknown element": ("<gpu/>", "<gpu/><bogus/>"),
    "wrong version": ('version="1"', 'version="2"'),
    "attributes on two lines": ('class="0x060400" link_speed', 'class="0x060400"\n link_speed'),
    "unclosed element": ("    </pci>\n  </cpu>\n  <cpu", "  </cpu>\n  <cpu"),
    "bad bus id": ("0000:00:06.0", "0000:00:06"),
    "nvlink without tclass": ("<gpu/>", '<gpu><nvlink target="ffff:ff:00.0" count="18"/></gpu>'),
}


def self_test():
    fails = 0
    if rule_errors(GOOD):
        print("FAIL self-test: the good file breaks rules:", rule_errors(GOOD))
        fails += 1
    for what, (old, new) in BAD.items():
        assert old in GOOD, what
        errs = rule_errors(GOOD.replace(old, new, 1))
        print(("ok  " if errs else "FAIL") + f" self-test {what}: {errs[0] if errs else 'not caught'}")
        fails += 0 if errs else 1
    dump = GOOD.replace('<gpu/>', '<gpu dev="0" sm="90" rank="0" gdr="0"/>')
    if any(line.startswith("FAIL") for line in compare(GOOD, dump)):
        print("FAIL self-test: compare of a plan with its own tree fails")
        fails += 1
    moved = dump.replace('<pci busid="ffff:ff:01.0" class="0x060400" link_speed="" link_width="0">\n', "", 1)
    moved = moved.replace("      </pci>\n    </pci>\n  </cpu>", "      </pci>\n  </cpu>", 1)
    if not any(line.startswith("FAIL gpu") for line in compare(GOOD, moved)):
        print("FAIL self-test: a GPU NCCL placed elsewhere is not caught")
        fails += 1
    print(f"self-test: {len(BAD) + 3 - fails} of {len(BAD) + 3} checks behave")
    return 1 if fails else 0


def main(argv):
    if len(argv) >= 2 and argv[1] == "rules":
        bad = 0
        for f in argv[2:]:
            errs = rule_errors(open(f, encoding="utf-8").read())
            for e in errs:
                print(f"{f}: {e}")
            bad += 1 if errs else 0
            if not errs:
                print(f"{f}: keeps NCCL's rules")
        return 1 if bad else 0
    if len(argv) == 4 and argv[1] == "compare":
        lines = compare(open(argv[2], encoding="utf-8").read(), open(argv[3], encoding="utf-8").read())
        print("\n".join(lines))
        return 1 if any(line.startswith("FAIL") for line in lines) else 0
    if len(argv) == 2 and argv[1] == "self-test":
        return self_test()
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
