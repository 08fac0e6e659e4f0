#!/usr/bin/env python3
"""The example pages and pictures, checked in a real browser (issue 17 item 5). Stdlib only.

    check_browser.py PLAN_LAYOUT_BINARY SOURCE_DIR [--update]

1. Regenerates every example of EXAMPLES with the built binary and compares it with the file kept
   in viz/examples/ (--update writes them, and the screenshots SCREENSHOTS, instead).
2. Checks every page is self-contained (no script, nothing fetched) and every SVG, on its own
   (viz/examples/*.svg and the SVG_OUTPUTS of analyze --format svg) or inline in a page, is
   well-formed XML.
3. Loads every viz/examples/*.html, *.svg and SVG_OUTPUTS in headless Chromium (file:// URLs) and fails on a
   console error, an exception, an error log entry, an <svg>/<img> drawn with zero size, or a
   blank screenshot (one colour, or too few pixels off the background).
4. Loads every page once more in light, dark (prefers-color-scheme) and print media (issue 31): the
   verdict line is at the top, dark mode is dark with light text, print and light are light and
   print hides the navigation; --update keeps the dark and print tops of report-seed-a.
Exit 0 when all pass, 1 on a failure, 77 (CTest SKIP_RETURN_CODE) when only the browser part could
not run because chromium is not installed (`apt-get install chromium`; CI installs it).
"""
import glob
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
import png_check  # noqa: E402

# Kept in viz/examples/: name -> plan-layout arguments (paths relative to the source folder).
EXAMPLES = {
    "report-seed-a.html": ["report", "layouts/seed-2x8-ep16.json",
                           "--verify", "tests/data/verify/2x8-gdrdma-pass.log",
                           "--ab", "tests/data/ab/tcp-round1.csv", "tests/data/ab/tcp-round2.csv",
                           "tests/data/ab/tcp-round3.csv", "tests/data/ab/rdma-round1.csv",
                           "tests/data/ab/rdma-round2.csv", "tests/data/ab/rdma-round3.json"],
    "report-seed-b.html": ["report", "layouts/seed-2x8-pp2-ep8.json"],
    # the groups view README.md shows (its PNG: rsvg-convert of this SVG, docs/diagrams.md)
    "4node-groups-ep.svg": ["analyze", "layouts/h100-4node-pp2-ep16.json", "--format", "svg", "--view", "groups",
                            "--kind", "ep"],
}
# SVG outputs checked besides the examples (written to a temporary folder, not kept).
SVG_OUTPUTS = {
    "seed-a-node.svg": ["analyze", "layouts/seed-2x8-ep16.json", "--format", "svg", "--view", "node"],
    "seed-a-groups-ep.svg": ["analyze", "layouts/seed-2x8-ep16.json", "--format", "svg", "--view", "groups", "--kind", "ep"],
    "seed-b-groups-pp.svg": ["analyze", "layouts/seed-2x8-pp2-ep8.json", "--format", "svg", "--view", "groups", "--kind", "pp"],
    "32node-fabric.svg": ["analyze", "layouts/h100-32node-tp8-pp4-ep8.json", "--format", "svg", "--view", "fabric"],
}
VIEWPORT = (1280, 900)
CHECK_PIXELS = 250_000        # the blank test looks at the page scaled down to about this many pixels
MIN_INK = 0.002               # at least this fraction of pixels off the background colour
MAX_SHOT_HEIGHT = 16_000      # CSS pixels of a page the kept screenshots cover at most
# Screenshots kept in viz/examples/ with --update: page -> [(png, height cap in px)]. The "-top"
# crops (the summary, the crossing groups and the score chart) are what README.md shows.
SCREENSHOTS = {"report-seed-a.html": [("report-seed-a.png", MAX_SHOT_HEIGHT), ("report-seed-a-top.png", 1400)],
               "report-seed-b.html": [("report-seed-b.png", MAX_SHOT_HEIGHT), ("report-seed-b-top.png", 1400)]}
COMMAND_TIMEOUT = 120

failures = []
expecting_failures = False  # during the self-test: the failures are the point


def fail(what):
    failures.append(what)
    print(("refused as it must: " if expecting_failures else "FAIL: ") + what, flush=True)


def generate(binary, src, out_dir):
    for name, args in list(EXAMPLES.items()) + list(SVG_OUTPUTS.items()):
        out = os.path.join(out_dir, name)
        r = subprocess.run([binary, *args, "-o", out], cwd=src, capture_output=True, text=True,
                           timeout=COMMAND_TIMEOUT, check=False)
        if r.returncode != 0:
            fail("plan-layout %s: exit %d: %s" % (" ".join(args), r.returncode, r.stderr.strip()))
        elif r.stderr:
            fail("plan-layout %s wrote to standard error: %s" % (" ".join(args), r.stderr.strip()))


def check_self_contained(path, text):
    if re.search(r"<script|javascript:|\son[a-z]+\s*=", text, re.I):
        fail(path + ": has a script or an event handler")
    for m in re.finditer(r"""(?:src|href)\s*=\s*["']([^"']*)""", text, re.I):
        if not m.group(1).startswith("#"):
            fail(path + ": refers to " + m.group(1) + " (a page must fetch nothing)")
    if re.search(r"@import|url\((?!#)", text, re.I):
        fail(path + ": its CSS fetches something")


def check_xml(path, text):
    try:
        ET.fromstring(text)
    except ET.ParseError as e:
        fail("%s: not well-formed XML: %s" % (path, e))


def static_checks(examples_dir, tmp):
    pages = sorted(glob.glob(os.path.join(examples_dir, "*.html")))
    svgs = sorted(glob.glob(os.path.join(examples_dir, "*.svg")))
    svgs += [os.path.join(tmp, name) for name in SVG_OUTPUTS if os.path.exists(os.path.join(tmp, name))]
    for path in pages:
        with open(path, encoding="utf-8") as f:
            text = f.read()
        check_self_contained(path, text)
        for i, m in enumerate(re.finditer(r"<svg\b.*?</svg>", text, re.S)):
            check_xml("%s (inline svg %d)" % (path, i + 1), m.group(0))
    for path in svgs:
        with open(path, encoding="utf-8") as f:
            check_xml(path, f.read())
    return pages, svgs


SIZES_JS = """JSON.stringify(Array.from(document.querySelectorAll('svg, img'))
  .filter(e => !(e.parentElement && e.parentElement.closest('svg')))
  .map(e => { const r = e.getBoundingClientRect();
              return {tag: e.tagName, id: e.id || (e.parentElement && e.parentElement.id) || '',
                      w: r.width, h: r.height}; }))"""


def load(browser, path):
    """Opens path; returns (target, session, content width, content height)."""
    target, session = browser.open_page(*VIEWPORT)
    browser.send("Page.navigate", {"url": "file://" + os.path.abspath(path)}, session=session)
    browser.wait_event("Page.loadEventFired", session)
    size = browser.send("Page.getLayoutMetrics", session=session)["cssContentSize"]
    return target, session, max(1, int(size["width"])), max(1, int(size["height"]))


def check_in_browser(browser, path, keep_png=None):
    start, failed_before = time.monotonic(), len(failures)
    target, session, width, height = load(browser, path)
    try:
        import json
        for item in json.loads(browser.evaluate(session, SIZES_JS)):
            if item["w"] <= 0 or item["h"] <= 0:
                fail("%s: <%s> %s drawn %gx%g" % (path, item["tag"].lower(), item["id"], item["w"], item["h"]))
        scale = min(1.0, (CHECK_PIXELS / (width * height)) ** 0.5)
        shot = browser.screenshot(session, width, height, scale)
        colours, ink = png_check.ink(shot)
        if colours < 2 or ink < MIN_INK:
            fail("%s: the screenshot is blank (%d colours, %.2f%% ink)" % (path, colours, 100 * ink))
        for png, cap in keep_png or []:
            with open(png, "wb") as f:
                f.write(browser.screenshot(session, width, min(height, cap), 1.0))
        for e in browser.console_errors(session):
            fail("%s: %s" % (path, e))
        print("%-4s %-40s %5d x %-6d %4d colours %5.1f%% ink  %.1f s"
              % ("ok" if len(failures) == failed_before else "bad", os.path.basename(path), width, height, colours, 100 * ink, time.monotonic() - start), flush=True)
    finally:
        browser.close_page(target)


# Issue 31: the report page in light, dark (prefers-color-scheme) and print media. The verdict line
# is at the top; dark mode darkens the page and lightens its text; print hides the navigation and
# the folded details and stays light even when the reader's screen prefers dark (as emulated here).
MEDIA_JS = """JSON.stringify({
  bg: getComputedStyle(document.body).backgroundColor, fg: getComputedStyle(document.body).color,
  nav: document.querySelector('nav') ? getComputedStyle(document.querySelector('nav')).display : null,
  verdict: document.getElementById('verdict') ? document.getElementById('verdict').getBoundingClientRect().top : null,
  verdict_bg: document.getElementById('verdict') ? getComputedStyle(document.getElementById('verdict')).backgroundColor : null})"""
MEDIA = {"light": {"media": "screen", "features": [{"name": "prefers-color-scheme", "value": "light"}]},
         "dark": {"media": "screen", "features": [{"name": "prefers-color-scheme", "value": "dark"}]},
         "print": {"media": "print", "features": [{"name": "prefers-color-scheme", "value": "dark"}]}}
VERDICT_TOP_MAX = 250  # CSS px: the go / no-go line is the first thing under the page's title


def luminance(css):
    """Relative luminance 0..1 of 'rgb(r, g, b)' / 'rgba(r, g, b, a)'."""
    r, g, b = (int(v) / 255 for v in re.findall(r"[\d.]+", css)[:3])
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def check_media(browser, path, keep_png=None):
    """Each medium of MEDIA on a report page; keep_png: {medium: png path} screenshots of the top."""
    import json
    target, session, width, _ = load(browser, path)
    try:
        for medium, params in MEDIA.items():
            browser.send("Emulation.setEmulatedMedia", params, session=session)
            m = json.loads(browser.evaluate(session, MEDIA_JS))
            bg, fg = luminance(m["bg"]), luminance(m["fg"])
            if m["verdict"] is None or m["verdict"] > VERDICT_TOP_MAX:
                fail("%s (%s): the verdict line is not at the top (%s px)" % (path, medium, m["verdict"]))
            if medium == "dark" and not (bg < 0.2 and fg > 0.7 and luminance(m["verdict_bg"]) < 0.3):
                fail("%s (dark): not dark: background %s, text %s, verdict %s" % (path, m["bg"], m["fg"], m["verdict_bg"]))
            if medium != "dark" and not (bg > 0.9 and fg < 0.3 and luminance(m["verdict_bg"]) > 0.8):
                fail("%s (%s): not light: background %s, text %s, verdict %s" % (path, medium, m["bg"], m["fg"], m["verdict_bg"]))
            if (medium == "print") != (m["nav"] == "none"):
                fail("%s (%s): navigation display %s" % (path, medium, m["nav"]))
            if keep_png and medium in keep_png:
                with open(keep_png[medium], "wb") as f:
                    f.write(browser.screenshot(session, width, 1000, 1.0))
            print("ok   %-40s %-5s background %s, text %s, verdict at %d px" % (os.path.basename(path), medium, m["bg"], m["fg"], m["verdict"]), flush=True)
    finally:
        browser.close_page(target)


# Pages the checks must refuse: the check itself is checked on every run.
BAD_PAGES = {
    "blank.html": ("<!DOCTYPE html><html><body></body></html>", ["blank"]),
    "broken.html": ('<!DOCTYPE html><html><body><p>text</p><svg width="0" height="0"></svg>'
                    '<script>console.error("boom"); undefined_function();</script></body></html>',
                    ["drawn 0x0", "console.error: boom", "exception"]),
}


def self_test(browser, tmp):
    global failures, expecting_failures
    for name, (text, expected) in BAD_PAGES.items():
        path = os.path.join(tmp, name)
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        kept, failures, expecting_failures = failures, [], True
        try:
            check_in_browser(browser, path)
        finally:
            found, failures, expecting_failures = failures, kept, False
        for what in expected:
            if not any(what in f for f in found):
                fail("self-test: %s did not fail with '%s' (got: %s)" % (name, what, found))


def main(argv):
    if len(argv) < 3 or len(argv) > 4 or (len(argv) == 4 and argv[3] != "--update"):
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    binary, src, update = os.path.abspath(argv[1]), os.path.abspath(argv[2]), len(argv) == 4
    examples_dir = os.path.join(src, "viz", "examples")
    tmp = tempfile.mkdtemp(prefix="planlayout-browser-")
    try:
        generate(binary, src, tmp)
        for name in EXAMPLES:
            fresh, kept = os.path.join(tmp, name), os.path.join(examples_dir, name)
            if not os.path.exists(fresh):
                continue
            if update:
                shutil.copyfile(fresh, kept)
            elif not os.path.exists(kept) or open(fresh, "rb").read() != open(kept, "rb").read():
                fail("viz/examples/%s is not what plan-layout %s writes now; regenerate: "
                     "python3 tests/browser/check_browser.py build/plan-layout . --update"
                     % (name, " ".join(EXAMPLES[name][:2])))
        pages, svgs = static_checks(examples_dir, tmp)
        chromium = cdp.find_chromium()
        if chromium is None:
            print("SKIP: chromium is not installed (apt-get install chromium); static checks: %s"
                  % ("failed" if failures else "passed"))
            return 1 if failures else 77
        with cdp.Browser(chromium, timeout=60) as browser:
            self_test(browser, tmp)
            for path in pages + svgs:
                keep = SCREENSHOTS.get(os.path.basename(path), []) if update else []
                try:
                    check_in_browser(browser, path, [(os.path.join(examples_dir, png), cap) for png, cap in keep])
                except cdp.CdpError as e:
                    fail("%s: %s" % (path, e))
            for path in pages:
                stem = os.path.join(examples_dir, os.path.basename(path)[:-len(".html")])
                keep = {m: "%s-%s-top.png" % (stem, m) for m in ("dark", "print")} if update and path.endswith("seed-a.html") else None
                try:
                    check_media(browser, path, keep)
                except cdp.CdpError as e:
                    fail("%s: %s" % (path, e))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print("browser check: %s, %d failures" % ("FAIL" if failures else "PASS", len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
