#!/usr/bin/env python3
"""Hostile --style files against every output that draws with a style (issue 41 item 1). Stdlib only.

    check_hostile_style.py PLAN_LAYOUT_BINARY SOURCE_DIR

1. Refused: each style of HOSTILE (the issue's reproducers and their kin: a font that closes the
   chart's CDATA and adds <script>, a font with '"' that Graphviz pastes into font-family="...",
   colours that end a CSS declaration and fetch a URL, ...) makes every command that reads --style
   (analyze --format dot and svg, each view, and report; text and json refuse --style) exit 2 with one line
   "plan-layout: error: FILE (/pointer): ...; ..." and write no output file.
2. Rendered: every output (analyze --format svg of each view, --format dot, and the report page)
   with EDGE, a style at the edge of what the reader allows (a font with every allowed character,
   colour names, #RRGGBBAA, colour lists, every line style, an unusual shape), parsed with a real
   parser (xml.etree for SVG, html.parser for the page): no element name or attribute name that the
   same output under the built-in style lacks (but STYLE_ATTRIBUTES), no on* attribute, no <script>, no url( other than
   url(#...), no @import.
3. In headless Chromium (tests/browser/cdp.py): each rendered output loaded from a file:// URL with
   the Network domain on fetches nothing but itself, runs no script (document.scripts, no element
   with an on* attribute) and logs no error. A self-test first loads pages made the way the issue's
   reproducers made them (a <script>, an onmouseover in font-family, a CSS url(http://...)) and
   checks that each is caught, so the check can fail.
4. The report page with every input given by absolute path (the layout, a --node capture, a
   --model-config that warns) names no absolute path (issue 41 item 9).
Exit 0 when all pass, 1 on a failure, 77 (CTest SKIP_RETURN_CODE) when only the browser part could
not run because chromium is not installed.
"""
import html.parser
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cdp  # noqa: E402

LAYOUT = "layouts/seed-2x8-ep16.json"
FETCH_URL = "http://127.0.0.1:9/fetched"
# name -> (style document, the JSON pointer the error must name)
HOSTILE = {
    "font-closes-cdata": ({"font": "]]></style><script>console.error('script ran')</script><style><![CDATA["}, "/font"),
    "font-quote": ({"font": 'Helvetica" onmouseover="console.error(1)'}, "/font"),
    "ink-css-fetch": ({"ink": "#000} svg { background-image: url(%s) }" % FETCH_URL}, "/ink"),
    "muted-css-fetch": ({"muted": "red; background: url(%s)" % FETCH_URL}, "/muted"),
    "class-colour-list-fetch": ({"classes": {"RAIL": {"color": "#0072B2:url(%s)" % FETCH_URL}}}, "/classes/RAIL/color"),
    "group-fill-element": ({"groups": ["#E69F00", '#FFF"/><script>console.error(2)</script>']}, "/groups/1"),
    "shape-custom": ({"devices": {"gpu": {"shape": "custom"}}}, "/devices/gpu/shape"),
    "margin-attribute": ({"devices": {"nic": {"margin": '0.3" onload="console.error(3)'}}}, "/devices/nic/margin"),
    "style-function": ({"group_styles": ["filled", "setlinewidth(9)"]}, "/group_styles/1"),
    "chart-colour-fetch": ({"charts": {"kinds": {"ep": "url(%s)" % FETCH_URL}}}, "/charts/kinds/ep"),
}
# Allowed, but every character class the reader lets through.
EDGE = {
    "font": "DejaVu Sans, Arial_Narrow-2.0",
    "ink": "black", "muted": "grey50", "background": "#FFFFFFFF",
    "highlight": {"color": "orangered", "style": "filled,bold,rounded"},
    "classes": {"RAIL": {"color": "#0072B2:white:#0072B2", "style": "bold,dashed"}},
    "devices": {"gpu": {"shape": "Msquare", "fillcolor": "lightyellow", "margin": ".25,0.1"}},
    "groups": ["lightblue", "#E69F0080", "palegreen"],
    "group_styles": ["filled,dotted", "filled,diagonals"],
    "rails": ["navy", "#88CCEE"], "rail_styles": ["dotted,bold", "solid"],
    "cluster": {"color": "grey40", "style": "rounded,dashed", "fillcolor": "ivory"},
    "charts": {"compute": "gainsboro", "bubble": "white", "kinds": {"ep": "orange"}, "other": ["khaki"],
               "series": ["blue", "red"]},
}
# Presentation attributes a line style or a colour with alpha legitimately adds (Graphviz writes a
# dash array for "dotted", an opacity for #RRGGBBAA): neither a handler nor a reference.
STYLE_ATTRIBUTES = {"stroke-dasharray", "stroke-opacity", "fill-opacity", "stroke-width"}
SVG_VIEWS = [("node", []), ("groups", ["--kind", "ep"]), ("fabric", []), ("score", []), ("matrix", ["--kind", "ep"]),
             ("load", [])]
DOT_VIEWS = ["node", "groups", "fabric"]
COMMAND_TIMEOUT = 120

failures = []
expecting_failures = False


def fail(what):
    failures.append(what)
    print(("caught as it must be: " if expecting_failures else "FAIL: ") + what, flush=True)


def run(binary, src, args):
    return subprocess.run([binary, *args], cwd=src, capture_output=True, text=True, timeout=COMMAND_TIMEOUT, check=False)


def outputs(style_args):
    """name -> plan-layout arguments of every output that draws with a style (the -o path appended later)."""
    out = {"report.html": ["report", LAYOUT, *style_args]}
    for view, extra in SVG_VIEWS:
        out["%s.svg" % view] = ["analyze", LAYOUT, "--format", "svg", "--view", view, *extra, *style_args]
    for view in DOT_VIEWS:
        out["%s.dot" % view] = ["analyze", LAYOUT, "--format", "dot", "--view", view, *style_args]
    return out


def check_refused(binary, src, tmp):
    commands = outputs([])  # analyze --format text or json refuses --style itself ("only applies to diagrams")
    for name, (doc, pointer) in HOSTILE.items():
        style = os.path.join(tmp, "hostile-%s.json" % name)
        with open(style, "w", encoding="utf-8") as f:
            json.dump(doc, f)
        for out_name, args in commands.items():
            target = os.path.join(tmp, "refused-" + out_name)
            r = run(binary, src, [*args, "--style", style, "-o", target])
            line = r.stderr.strip()
            what = "%s with --style %s" % (" ".join(args[:2] + args[2:6]), name)
            if r.returncode != 2:
                fail("%s: exit %d, not 2 (%s)" % (what, r.returncode, line[:200]))
            elif "\n" in line or not line.startswith("plan-layout: error: %s (%s): " % (style, pointer)) or "; " not in line:
                fail("%s: not the one-line error naming %s (%s): %s" % (what, pointer, style, line[:300]))
            if os.path.exists(target):
                fail("%s: wrote %s" % (what, out_name))
                os.remove(target)
        print("ok   refused %-26s by %d commands" % (name, len(commands)), flush=True)


class Collect(html.parser.HTMLParser):
    """Element names, attribute names and the text of <style> elements of a page."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tags, self.attrs, self.css, self._in_style = set(), set(), [], 0

    def handle_starttag(self, tag, attrs):
        self.tags.add(tag)
        self.attrs.update(a for a, _ in attrs)
        self._in_style += tag == "style"

    def handle_startendtag(self, tag, attrs):
        self.tags.add(tag)
        self.attrs.update(a for a, _ in attrs)

    def handle_endtag(self, tag):
        self._in_style -= tag == "style" and self._in_style > 0

    def handle_data(self, data):
        if self._in_style:
            self.css.append(data)


def parsed(path):
    """(element names, attribute names, attribute values + CSS text) of an SVG, page or DOT file."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    if path.endswith(".dot"):
        return {"dot"}, set(re.findall(r"[\[,]\s*([A-Za-z_]+)=", text)), text
    if path.endswith(".html"):
        c = Collect()
        c.feed(text)
        return c.tags, c.attrs, text
    root = ET.fromstring(text)
    tags, attrs, values = set(), set(), []
    for e in root.iter():
        tags.add(e.tag.split("}")[-1])
        for k, v in e.attrib.items():
            attrs.add(k.split("}")[-1])
            values.append(v)
        if e.tag.endswith("style") and e.text:
            values.append(e.text)
    return tags, attrs, "\n".join(values)


def check_static(path, baseline):
    name = os.path.basename(path)
    try:
        tags, attrs, text = parsed(path)
    except (ET.ParseError, UnicodeDecodeError) as e:
        fail("%s: not well-formed: %s" % (name, e))
        return
    if baseline is not None:
        for what, new, old in (("element", tags, baseline[0]), ("attribute", attrs, baseline[1] | STYLE_ATTRIBUTES)):
            if new - old:
                fail("%s: %s %s not in the output with the built-in style" % (name, what, sorted(new - old)))
    if "script" in tags or any(a.startswith("on") for a in attrs):
        fail("%s: has a script or an event handler" % name)
    if re.search(r"url\((?!\s*#)|@import|javascript:", text, re.I):
        fail("%s: refers to something outside itself: %s" % (name, re.search(r"url\((?!\s*#)[^)]*|@import|javascript:", text, re.I).group(0)))


def render(binary, src, tmp, prefix, style_args):
    paths = {}
    for name, args in outputs(style_args).items():
        path = os.path.join(tmp, prefix + name)
        r = run(binary, src, [*args, "-o", path])
        if r.returncode != 0:
            fail("plan-layout %s: exit %d: %s" % (" ".join(args), r.returncode, r.stderr.strip()[:300]))
        else:
            paths[name] = path
    return paths


LIVE_JS = """JSON.stringify({scripts: document.querySelectorAll('script').length,
  handlers: Array.from(document.querySelectorAll('*')).filter(e => Array.from(e.attributes).some(a => /^on/i.test(a.name))).length})"""


def check_in_browser(browser, path):
    """Loads path; fails on a fetch of anything but itself, a script, an event handler or an error."""
    name = os.path.basename(path)
    url = "file://" + os.path.abspath(path)
    target, session = browser.open_page(1280, 900)
    try:
        browser.send("Network.enable", session=session)
        browser.send("Page.navigate", {"url": url}, session=session)
        browser.wait_event("Page.loadEventFired", session)
        time.sleep(0.3)  # late fetches (CSS backgrounds) have time to start
        live = json.loads(browser.evaluate(session, LIVE_JS))
        fetched = sorted({e["params"]["request"]["url"] for e in browser.events
                          if e.get("sessionId") == session and e.get("method") == "Network.requestWillBeSent"} - {url})
        if fetched:
            fail("%s: fetched %s" % (name, ", ".join(fetched)))
        if live["scripts"] or live["handlers"]:
            fail("%s: %d scripts, %d elements with an event handler" % (name, live["scripts"], live["handlers"]))
        for e in browser.console_errors(session):
            fail("%s: %s" % (name, e))
        browser.events = [e for e in browser.events if e.get("sessionId") != session]
        print("ok   %-28s fetched nothing, ran nothing" % name if not fetched and not live["scripts"] and not live["handlers"]
              else "bad  %s" % name, flush=True)
    finally:
        browser.close_page(target)


# Pages made the way the reproducers made them: the checks must catch each.
BAD_PAGES = {
    "bad-cdata.svg": ('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><style><![CDATA[text{}]]></style>'
                      '<script>console.error("script ran")</script><text>x</text></svg>', ["scripts", "script ran"]),
    "bad-fontname.svg": ('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10">'
                         '<text font-family="Helvetica" onmouseover="alert(1)">x</text></svg>', ["event handler"]),
    "bad-fetch.html": ('<!DOCTYPE html><html><head><style>body { background-image: url(%s) }</style></head>'
                       '<body><p>x</p></body></html>' % FETCH_URL, ["fetched " + FETCH_URL]),
}


def self_test(browser, tmp):
    global failures, expecting_failures
    for name, (text, expected) in BAD_PAGES.items():
        path = os.path.join(tmp, name)
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        kept, failures, expecting_failures = failures, [], True
        try:
            check_static(path, None)
            check_in_browser(browser, path)
        finally:
            found, failures, expecting_failures = failures, kept, False
        for what in expected:
            if not any(what in f for f in found):
                fail("self-test: %s was not caught with '%s' (got: %s)" % (name, what, found))


def check_absolute_paths(binary, src, tmp):
    page = os.path.join(tmp, "absolute.html")
    args = ["report", "--nodes", "2", "--node",
            os.path.join(src, "tests/data/fixtures/nvidia-smi-topo/dgx1-style-8x-v100-sxm2-1nic-legacy-header.txt"),
            "--tp", "8", "-o", page]
    args2 = ["report", os.path.join(src, LAYOUT), "--model-config", os.path.join(src, "tests/data/hf-configs/deepseek-v3.json"),
             "--allow-unknown-model", "-o", page + "2.html"]
    for a, path in ((args, page), (args2, page + "2.html")):
        r = run(binary, src, a)
        if r.returncode != 0:
            fail("plan-layout %s: exit %d: %s" % (" ".join(a), r.returncode, r.stderr.strip()[:300]))
            continue
        with open(path, encoding="utf-8") as f:
            text = f.read()
        if "<li>" not in text or src in text:
            fail("%s: names %s (absolute paths; the page names files without their folders)" % (" ".join(a[:4]), src))
        else:
            print("ok   report with absolute inputs names no absolute path (%s)" % os.path.basename(a[4] if a[1] == "--nodes" else a[3]))


def main(argv):
    if len(argv) != 3:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    binary, src = os.path.abspath(argv[1]), os.path.abspath(argv[2])
    tmp = tempfile.mkdtemp(prefix="planlayout-hostile-style-")
    try:
        check_refused(binary, src, tmp)
        edge_style = os.path.join(tmp, "edge-style.json")
        with open(edge_style, "w", encoding="utf-8") as f:
            json.dump(EDGE, f)
        base = render(binary, src, tmp, "builtin-", [])
        edge = render(binary, src, tmp, "edge-", ["--style", edge_style])
        for name, path in sorted(edge.items()):
            check_static(path, parsed(base[name]) if name in base else None)
        print("ok   %d outputs with the edge style: no element, attribute or reference added" % len(edge), flush=True)
        check_absolute_paths(binary, src, tmp)
        chromium = cdp.find_chromium()
        if chromium is None:
            print("SKIP: chromium is not installed (apt-get install chromium); static checks: %s"
                  % ("failed" if failures else "passed"))
            return 1 if failures else 77
        with cdp.Browser(chromium, timeout=60) as browser:
            self_test(browser, tmp)
            for name, path in sorted(edge.items()):
                if not name.endswith(".dot"):
                    try:
                        check_in_browser(browser, path)
                    except cdp.CdpError as e:
                        fail("%s: %s" % (name, e))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print("hostile style check: %s, %d failures" % ("FAIL" if failures else "PASS", len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
