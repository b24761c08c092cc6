#!/usr/bin/env python3
"""The dashboard as a maintainer uses it, in Debian's chromium driven by
chromedriver (python3-selenium): open the page, type the admin token into
the login form, read the use cases, reload (the session carries them),
visit a hostile page on another port of the host (an <img> of the export,
a cookie of the session's name with a longer path), come back, log out,
and try the old cookie again. The browser's profile is kept for the caller
to search; the caller reads in the collector's log whether the <img> ran
an export.

  dash_login.py URL TOKEN PROFILE_DIR OUT_DIR

Writes OUT_DIR/dom.html (the page with the use cases), OUT_DIR/shot.png,
OUT_DIR/console.log (the browser's console: CSP violations land there) and
OUT_DIR/steps (one line per step: "ok NAME" or "fail NAME: why").
"""
import http.server
import json
import os
import sys
import threading

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.common.exceptions import TimeoutException
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

url, token, profile, out = sys.argv[1:5]
steps = open(os.path.join(out, "steps"), "w")


class Hostile(http.server.BaseHTTPRequestHandler):
    """Another port of 127.0.0.1: whatever a user runs there (issue 41).
    Cookies do not tell ports apart: its Set-Cookie lands in the jar the
    collector's page uses, and its <img> is a same-site request."""

    def do_GET(self):
        body = ('<!DOCTYPE html><title>elsewhere</title>'
                '<img id="x" src="%s/api/v1/export.mbox">' % url).encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Set-Cookie", "cgfb_session=planted; Path=/api/v1/reports")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


hostile = http.server.HTTPServer(("127.0.0.1", 0), Hostile)
threading.Thread(target=hostile.serve_forever, daemon=True).start()
hostile_url = "http://127.0.0.1:%d/" % hostile.server_address[1]


def step(name, ok, why=""):
    steps.write(("ok %s\n" % name) if ok else ("fail %s: %s\n" % (name, why)))
    steps.flush()


opts = webdriver.ChromeOptions()
opts.binary_location = "/usr/bin/chromium"
for a in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
          "--disable-background-networking", "--disable-component-update", "--disable-sync",
          "--window-size=1280,2200", "--hide-scrollbars", "--user-data-dir=" + profile):
    opts.add_argument(a)
opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
drv = webdriver.Chrome(service=Service("/usr/bin/chromedriver",
                                       log_path=os.path.join(out, "chromedriver.log")),
                       options=opts)
wait = WebDriverWait(drv, 20)
console = []


def all_cookies():
    # All of the browser's, whatever their path: the session's is /api/v1/,
    # which the page's own (get_cookies) does not show.
    return drv.execute_cdp_cmd("Network.getAllCookies", {})["cookies"]


def cookies():
    return {c["name"]: c for c in all_cookies() if c["path"] != "/api/v1/reports"}


def status_of(path):
    """The status of a fetch by the collector's page itself."""
    return drv.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "fetch(arguments[0], {credentials: 'same-origin', cache: 'no-store'})"
        ".then(r => done(r.status), e => done(String(e)));", path)


def use_cases():
    return len(drv.find_elements(By.CSS_SELECTOR, "#use-cases > li"))


try:
    drv.get(url + "/")
    wait.until(lambda d: d.find_element(By.ID, "status").get_attribute("data-state"))
    step("the page loads, with no use case before the login", use_cases() == 0,
         "%d shown" % use_cases())
    field = drv.find_element(By.ID, "admin-token")
    field.send_keys(token)
    drv.find_element(By.CSS_SELECTOR, "#admin-form button[type=submit]").click()
    wait.until(lambda d: use_cases() > 0)
    step("the token typed into the form shows the use cases", True)
    step("...and the field is emptied", field.get_attribute("value") == "")
    c = cookies().get("cgfb_session", {})
    step("the session is a cookie, HttpOnly and SameSite=Strict",
         c.get("httpOnly") is True and c.get("sameSite") == "Strict", json.dumps(c))
    step("...that scripts cannot read",
         "cgfb_session" not in drv.execute_script("return document.cookie"))
    step("...that expires within the hour",
         0 < c.get("expires", 0) - drv.execute_script("return Date.now() / 1000") <= 3600,
         str(c.get("expires")))
    open(os.path.join(out, "dom.html"), "w").write(drv.page_source)
    drv.save_screenshot(os.path.join(out, "shot.png"))
    console += drv.get_log("browser")
    drv.refresh()
    wait.until(lambda d: use_cases() > 0)
    step("a reload shows them again from the session, nothing typed", True)
    session = c.get("value", "")
    drv.get(hostile_url)
    wait.until(lambda d: d.execute_script("return document.getElementById('x').complete"))
    planted = [k for k in all_cookies() if k["value"] == "planted"]
    step("a page of another port of the host plants a cookie of the name, longer path",
         len(planted) == 1 and planted[0]["path"] == "/api/v1/reports", json.dumps(planted))
    drv.get(url + "/")
    # The form shows until the page's request answers: wait for the use
    # cases, a bounded while (only a failure waits it out).
    try:
        WebDriverWait(drv, 10).until(lambda d: use_cases() > 0)
    except TimeoutException:
        pass
    step("...the dashboard still shows the use cases: every cookie of the name is tried",
         use_cases() > 0, "the login form is back")
    drv.find_element(By.ID, "admin-logout").click()
    wait.until(lambda d: use_cases() == 0 and d.find_element(By.ID, "admin-form").is_displayed())
    step("log out: the use cases are gone, the form is back",
         "cgfb_session" not in cookies())
    # A copy of the cookie taken before the logout (here: put back).
    drv.execute_cdp_cmd("Network.setCookie", {
        "name": "cgfb_session", "value": session, "domain": "127.0.0.1", "path": "/api/v1/",
        "httpOnly": True, "sameSite": "Strict"})
    code = status_of("/api/v1/reports?use_case=1&limit=1")
    step("...and the old cookie, sent again by the page, is refused (401)", code == 401,
         str(code))
    console += drv.get_log("browser")
except Exception as e:  # the step that did not happen is the failure
    step("the browser session", False, repr(e)[:300])
finally:
    with open(os.path.join(out, "console.log"), "w") as f:
        for m in console:
            f.write("%s %s\n" % (m.get("level"), m.get("message")))
    drv.quit()
