#!/usr/bin/env python3
"""Issue 31, "pictures that read": every view of `analyze --format svg` at 4, 32 and 1,024 nodes
fits 2,000 x 2,000 px, writes no text under 10 px at that size, and no text says "hover" (a static
picture cannot be hovered) or prints a byte count of "0 B" (a number the picture does not have).

    check_picture_sizes.py PLAN_LAYOUT REPO_ROOT [--keep DIR]

Sizes are in CSS px as a browser shows the SVG at 100 %: Graphviz writes width/height in pt
(1 pt = 4/3 px), our own writer in px. A font size is in the user units of the viewBox, scaled by
the root's width over the viewBox's width and by every `scale(...)` transform above the text; CSS
font sizes in <style> count too. The score view needs a model: the 32-node layout has none, so
its score view is checked for the refusal (exit 2) instead. The 1,024-node cluster is also drawn
without a model (flags only), where the pictures have no bytes to show.
"""
import os
import re
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

LIMIT_PX = 2000.0
MIN_FONT_PX = 10.0
SVG_NS = "{http://www.w3.org/2000/svg}"

LAYOUTS = {
    "4node": ["layouts/h100-4node-tp8-pp2-ep8.json"],
    "32node": ["layouts/h100-32node-tp8-pp4-ep8.json"],
    "1024node": ["layouts/h100-1024node-tp8-pp8-ep64.json"],
    "1024node-no-model": ["--nodes", "1024", "--node", "h100-hgx-8gpu-8nic", "--tp", "8", "--pp", "8",
                          "--ep", "64"],
}
# (view, extra args); the groups view for the default kind (ep) and for dp and pp.
VIEWS = [
    ("groups", ["--kind", "ep"]),
    ("groups", ["--kind", "dp"]),
    ("groups", ["--kind", "pp"]),
    ("node", []),
    ("fabric", []),
    ("matrix", ["--kind", "ep"]),
    ("load", []),
    ("score", []),
]
HAS_MODEL = {"4node": True, "32node": False, "1024node": True, "1024node-no-model": False}


def length_px(value):
    """An SVG length ("2201pt", "1236px", "800") in px."""
    m = re.fullmatch(r"\s*([0-9.]+)\s*(pt|px)?\s*", value or "")
    if not m:
        raise ValueError("unreadable length %r" % value)
    v = float(m.group(1))
    return v * 4.0 / 3.0 if m.group(2) == "pt" else v


def transform_scale(t):
    """The scale a transform attribute applies (scale(a) or scale(a b): the smaller)."""
    s = 1.0
    for m in re.finditer(r"scale\(\s*([-0-9.eE]+)(?:[ ,]+([-0-9.eE]+))?\s*\)", t or ""):
        a = abs(float(m.group(1)))
        b = abs(float(m.group(2))) if m.group(2) else a
        s *= min(a, b)
    return s


def check_svg(text):
    """The problems of one SVG document (empty when it reads)."""
    problems = []
    root = ET.fromstring(text)
    w = length_px(root.get("width"))
    h = length_px(root.get("height"))
    if w > LIMIT_PX or h > LIMIT_PX:
        problems.append("%.0f x %.0f px, over %d x %d" % (w, h, LIMIT_PX, LIMIT_PX))
    box = root.get("viewBox")
    scale = 1.0
    if box:
        parts = [float(p) for p in re.split(r"[ ,]+", box.strip())]
        if parts[2] > 0 and parts[3] > 0:
            scale = min(w / parts[2], h / parts[3])
    small = []
    hover = []
    zero = []

    def walk(el, s, size):
        s *= transform_scale(el.get("transform"))
        fs = el.get("font-size")
        m = re.search(r"font-size\s*:\s*([0-9.]+)", el.get("style") or "")
        if m:
            fs = m.group(1)
        if fs is not None:
            size = float(re.match(r"[0-9.]+", fs).group(0))
        tag = el.tag.replace(SVG_NS, "")
        if tag in ("text", "tspan"):
            content = "".join(el.itertext()) if tag == "text" else (el.text or "")
            px = (size if size is not None else 16.0) * s
            if content.strip() and px < MIN_FONT_PX - 1e-6:
                small.append("%.1f px %r" % (px, content.strip()[:40]))
            if tag == "text":
                if "hover" in content.lower():
                    hover.append(content.strip()[:60])
                if re.search(r"(?<![0-9.])0 (B|KiB|MiB|GiB|TiB|KB|MB|GB|TB)\b", content):
                    zero.append(content.strip()[:60])
        for child in el:
            if child.tag.replace(SVG_NS, "") in ("title", "style", "defs"):
                continue
            walk(child, s, size)

    walk(root, scale, None)
    for css in root.iter(SVG_NS + "style"):
        for m in re.finditer(r"font(?:-size)?\s*:[^;}]*?([0-9.]+)(px|pt)?", css.text or ""):
            v = float(m.group(1)) * (4.0 / 3.0 if m.group(2) == "pt" else 1.0) * scale
            if v < MIN_FONT_PX - 1e-6:
                small.append("CSS %.1f px" % v)
    if small:
        problems.append("%d texts under %g px, e.g. %s" % (len(small), MIN_FONT_PX, "; ".join(small[:3])))
    if hover:
        problems.append('says "hover": %s' % hover[0])
    if zero:
        problems.append('prints a zero byte count: %s' % zero[0])
    return problems, (w, h)


def main(argv):
    if len(argv) < 3:
        print(__doc__)
        return 2
    binary, repo = argv[1], argv[2]
    keep = argv[argv.index("--keep") + 1] if "--keep" in argv else None
    failures = 0
    checked = 0
    with tempfile.TemporaryDirectory() as tmp:
        out_dir = keep or tmp
        os.makedirs(out_dir, exist_ok=True)
        for scale, inputs in LAYOUTS.items():
            for view, extra in VIEWS:
                name = "%s-%s%s" % (scale, view, "-" + extra[1] if extra else "")
                if view == "score" and not HAS_MODEL[scale]:
                    if scale == "1024node-no-model":
                        continue
                    r = subprocess.run([binary, "analyze"] + inputs + ["--format", "svg", "--view", "score"],
                                       cwd=repo, capture_output=True, text=True)
                    status = "ok (no model: refused, exit 2)" if r.returncode == 2 else "FAIL"
                    if r.returncode != 2:
                        failures += 1
                    print("%-34s %s" % (name, status))
                    continue
                out = os.path.join(out_dir, name + ".svg")
                r = subprocess.run([binary, "analyze"] + inputs + ["--format", "svg", "--view", view] + extra +
                                   ["-o", out], cwd=repo, capture_output=True, text=True)
                if r.returncode != 0:
                    print("%-34s FAIL: exit %d: %s" % (name, r.returncode, r.stderr.strip()[-200:]))
                    failures += 1
                    continue
                with open(out, encoding="utf-8") as f:
                    problems, (w, h) = check_svg(f.read())
                checked += 1
                if problems:
                    failures += 1
                    print("%-34s FAIL %5.0f x %4.0f px: %s" % (name, w, h, " | ".join(problems)))
                else:
                    print("%-34s ok   %5.0f x %4.0f px" % (name, w, h))
    print("%d pictures checked, %d failed" % (checked, failures))
    return 1 if failures or checked == 0 else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
