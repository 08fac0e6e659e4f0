"""A minimal Chrome DevTools Protocol client over --remote-debugging-pipe (stdlib only).

Chromium reads commands from fd 3 and writes replies and events to fd 4, each message one JSON
text followed by a NUL byte. Every wait has a deadline: nothing here can hang.
"""
import base64
import json
import os
import select
import shutil
import subprocess
import tempfile
import time

CHROMIUM_FLAGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--disable-default-apps", "--disable-extensions", "--hide-scrollbars", "--mute-audio",
    "--font-render-hinting=none", "--remote-debugging-pipe",
]


class CdpError(Exception):
    pass


def find_chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return "/usr/bin/chromium" if os.access("/usr/bin/chromium", os.X_OK) else None


class Browser:
    """One headless Chromium; use as a context manager (it is killed on exit)."""

    def __init__(self, binary, timeout=30.0):
        self.timeout = timeout
        self.profile = tempfile.mkdtemp(prefix="planlayout-chromium-")
        cmd_r, self._cmd_w = os.pipe()   # we write, chromium reads on fd 3
        self._resp_r, resp_w = os.pipe()  # chromium writes on fd 4, we read
        # Above any fd the child might otherwise collide with, then placed on 3 and 4 in the child.
        high_r = fcntl_dup(cmd_r, 200)
        high_w = fcntl_dup(resp_w, 201)
        os.close(cmd_r)
        os.close(resp_w)

        def child_fds():
            os.dup2(high_r, 3)
            os.dup2(high_w, 4)

        self.proc = subprocess.Popen(
            [binary, *CHROMIUM_FLAGS, "--user-data-dir=" + self.profile, "about:blank"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
            preexec_fn=child_fds, pass_fds=(3, 4, high_r, high_w), close_fds=True)
        os.close(high_r)
        os.close(high_w)
        self._buf = b""
        self._next_id = 0
        self.events = []

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def close(self):
        try:
            if self.proc.poll() is None:
                try:
                    self.send("Browser.close", timeout=5)
                except Exception:  # noqa: BLE001 - closing anyway
                    pass
                try:
                    self.proc.wait(timeout=5)
                except subprocess.TimeoutExpired:
                    self.proc.kill()
                    self.proc.wait(timeout=5)
        finally:
            for fd in (self._cmd_w, self._resp_r):
                try:
                    os.close(fd)
                except OSError:
                    pass
            shutil.rmtree(self.profile, ignore_errors=True)

    def _read_message(self, deadline):
        while b"\0" not in self._buf:
            left = deadline - time.monotonic()
            if left <= 0:
                raise CdpError("no reply from chromium within the time limit")
            ready, _, _ = select.select([self._resp_r], [], [], left)
            if not ready:
                continue
            chunk = os.read(self._resp_r, 1 << 20)
            if not chunk:
                err = self.proc.stderr.read().decode(errors="replace")[-2000:] if self.proc.poll() is not None else ""
                raise CdpError("chromium closed the pipe" + (": " + err if err else ""))
            self._buf += chunk
        text, _, self._buf = self._buf.partition(b"\0")
        return json.loads(text)

    def send(self, method, params=None, session=None, timeout=None):
        """Sends a command and returns its result; events seen meanwhile are kept in self.events."""
        self._next_id += 1
        msg = {"id": self._next_id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        data = json.dumps(msg).encode() + b"\0"
        deadline = time.monotonic() + (timeout or self.timeout)
        while data:
            _, ready, _ = select.select([], [self._cmd_w], [], max(0.0, deadline - time.monotonic()))
            if not ready:
                raise CdpError("chromium does not read commands (%s)" % method)
            data = data[os.write(self._cmd_w, data):]
        while True:
            reply = self._read_message(deadline)
            if reply.get("id") == self._next_id:
                if "error" in reply:
                    raise CdpError("%s: %s" % (method, reply["error"].get("message")))
                return reply.get("result", {})
            self.events.append(reply)

    def wait_event(self, method, session, timeout=None):
        deadline = time.monotonic() + (timeout or self.timeout)
        while True:
            for i, e in enumerate(self.events):
                if e.get("method") == method and e.get("sessionId") == session:
                    return self.events.pop(i)
            self.events.append(self._read_message(deadline))

    def open_page(self, width, height):
        target = self.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = self.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        for domain in ("Page.enable", "Runtime.enable", "Log.enable"):
            self.send(domain, session=session)
        self.send("Emulation.setDeviceMetricsOverride",
                  {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False}, session=session)
        return target, session

    def close_page(self, target):
        self.send("Target.closeTarget", {"targetId": target})

    def console_errors(self, session):
        """The page's console errors, exceptions and error log entries seen so far (taken out)."""
        out, keep = [], []
        for e in self.events:
            if e.get("sessionId") != session:
                keep.append(e)
                continue
            m, p = e.get("method"), e.get("params", {})
            if m == "Runtime.consoleAPICalled" and p.get("type") == "error":
                out.append("console.error: " + " ".join(str(a.get("value", a.get("description", ""))) for a in p.get("args", [])))
            elif m == "Runtime.exceptionThrown":
                d = p.get("exceptionDetails", {})
                out.append("exception: " + d.get("text", "") + " " + str(d.get("exception", {}).get("description", "")))
            elif m == "Log.entryAdded" and p.get("entry", {}).get("level") == "error":
                out.append("log error: " + p["entry"].get("text", "") + " " + p["entry"].get("url", ""))
            else:
                keep.append(e)
        self.events = keep
        return out

    def evaluate(self, session, expression):
        r = self.send("Runtime.evaluate", {"expression": expression, "returnByValue": True}, session=session)
        if "exceptionDetails" in r:
            raise CdpError("evaluate: " + r["exceptionDetails"].get("text", ""))
        return r["result"].get("value")

    def screenshot(self, session, width, height, scale=1.0):
        data = self.send("Page.captureScreenshot",
                         {"format": "png", "captureBeyondViewport": True, "fromSurface": True,
                          "clip": {"x": 0, "y": 0, "width": width, "height": height, "scale": scale}},
                         session=session, timeout=max(self.timeout, 60))["data"]
        return base64.b64decode(data)


def fcntl_dup(fd, minimum):
    import fcntl
    return fcntl.fcntl(fd, fcntl.F_DUPFD, minimum)
