#!/usr/bin/env python3
"""Loads a self-contained HTML page in a headless browser and says whether it rendered cleanly.

  headless_browser.py check PAGE.html [--screenshot OUT.png] [--size 1280x900] [--budget-ms 4000]
  headless_browser.py find          prints the browser it would use (exit 3 and why when there is none)

Prints one JSON object on stdout and exits 0 when the page was loaded (whatever it found), 3 when no
browser is installed (the reason on stderr), 1 on a usage or browser failure. The object holds:
  browser          the executable used
  errors           uncaught exceptions, rejected promises, console.error/warn calls and failed resource
                   loads, each as a string (empty: the page loaded without errors)
  external_refs    src/href attributes that leave the page (http:, https:, //): a self-contained page has none
  rendered         the page's own report: the value it put in <body data-tg-rendered="..."> once it drew
                   (pages in this repository set it to the number of things drawn), or null
  screenshot       the PNG written, with "inked_fraction" (share of pixels that differ from the background)

Chromium's own log cannot tell console.error from console.log, so the page is checked through a copy with
a first <script> that records errors into an attribute of <html>, read back from --dump-dom. Nothing is
fetched: host names do not resolve inside the browser.
"""
import argparse
import html
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")

RECORDER = """<script>(function(){
var errs=[];function put(m){errs.push(String(m));document.documentElement.setAttribute('data-tg-errors',JSON.stringify(errs));}
window.addEventListener('error',function(e){if(e.target&&e.target!==window&&(e.target.src||e.target.href)){put('failed to load '+(e.target.src||e.target.href));}else{put(e.message+' at line '+e.lineno);}},true);
window.addEventListener('unhandledrejection',function(e){put('unhandled rejection: '+e.reason);});
var ce=console.error,cw=console.warn;
console.error=function(){put('console.error: '+Array.prototype.join.call(arguments,' '));ce.apply(console,arguments);};
console.warn=function(){put('console.warn: '+Array.prototype.join.call(arguments,' '));cw.apply(console,arguments);};
})();</script>"""


def find_browser():
    """The browser's path, or None. TG_BROWSER names one explicitly."""
    named = os.environ.get("TG_BROWSER")
    if named:
        return named if os.access(named, os.X_OK) else None
    for name in BROWSERS:
        for d in os.environ.get("PATH", "").split(os.pathsep) + ["/usr/bin", "/usr/local/bin"]:
            p = os.path.join(d, name)
            if os.path.isfile(p) and os.access(p, os.X_OK):
                return p
    return None


def external_refs(text):
    refs = re.findall(r"""\b(?:src|href)\s*=\s*["']?((?:https?:)?//[^"'\s>]+)""", text, re.I)
    refs += re.findall(r"""@import\s+(?:url\()?["']?((?:https?:)?//[^"')\s]+)""", text, re.I)
    return sorted(set(refs))


def instrumented_copy(page, workdir):
    with open(page, encoding="utf-8") as f:
        text = f.read()
    m = re.search(r"<head[^>]*>", text, re.I) or re.search(r"<html[^>]*>", text, re.I)
    at = m.end() if m else 0
    out = os.path.join(workdir, os.path.basename(page))
    with open(out, "w", encoding="utf-8") as f:
        f.write(text[:at] + RECORDER + text[at:])
    return out, text


def browser_command(browser, profile_dir, budget_ms, extra):
    return [browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
            "--no-first-run", "--no-default-browser-check", "--disable-extensions", "--mute-audio",
            "--hide-scrollbars", "--host-resolver-rules=MAP * ~NOTFOUND",
            "--user-data-dir=" + profile_dir, "--virtual-time-budget=%d" % budget_ms] + extra


def run_browser(cmd, home):
    env = dict(os.environ, HOME=home)
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, timeout=120,
                          check=False)


def attribute(dom, tag, name):
    m = re.search(r"<%s\b[^>]*\b%s=\"([^\"]*)\"" % (tag, name), dom, re.I)
    return html.unescape(m.group(1)) if m else None


def inked_fraction(png):
    """Share of pixels that differ from the most common colour (the background) by more than a little."""
    from PIL import Image  # python3-pil, installed by tools/setup.sh
    img = Image.open(png).convert("RGB")
    colors = img.getcolors(maxcolors=1 << 24)
    background = max(colors)[1]
    near = sum(n for n, c in colors if sum(abs(a - b) for a, b in zip(c, background)) <= 24)
    return 1.0 - near / float(img.width * img.height)


def no_browser():
    print("no headless browser: none of %s is on PATH (tools/setup.sh installs Debian's chromium; "
          "TG_BROWSER names another)" % ", ".join(BROWSERS), file=sys.stderr)
    return 3


def find(_args):
    browser = find_browser()
    if browser is None:
        return no_browser()
    print(browser)
    return 0


def check(args):
    browser = find_browser()
    if browser is None:
        return no_browser()
    width, height = (int(v) for v in args.size.lower().split("x"))
    work = tempfile.mkdtemp(prefix="tg-browser-")
    try:
        page, text = instrumented_copy(os.path.abspath(args.page), work)
        url = "file://" + page
        extra = ["--dump-dom"]
        shot = os.path.abspath(args.screenshot) if args.screenshot else None
        if shot:  # one browser start does both: it dominates the time of a check
            extra += ["--screenshot=" + shot, "--window-size=%d,%d" % (width, height)]
        run = run_browser(browser_command(browser, os.path.join(work, "profile"), args.budget_ms, extra + [url]),
                          work)
        dom = run.stdout.decode("utf-8", "replace")
        if run.returncode != 0 or "<html" not in dom.lower():
            print("the browser failed (exit %d): %s" % (run.returncode,
                  run.stderr.decode("utf-8", "replace")[-2000:]), file=sys.stderr)
            return 1
        errors = json.loads(attribute(dom, "html", "data-tg-errors") or "[]")
        report = {"browser": browser, "errors": errors, "external_refs": external_refs(text),
                  "rendered": attribute(dom, "body", "data-tg-rendered")}
        if shot:
            if not os.path.isfile(shot):
                print("the browser wrote no screenshot", file=sys.stderr)
                return 1
            report["screenshot"] = shot
            report["inked_fraction"] = round(inked_fraction(shot), 4)
        print(json.dumps(report))
        return 0
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    c = sub.add_parser("check", help="load a page, report errors and optionally take a screenshot")
    c.add_argument("page")
    c.add_argument("--screenshot")
    c.add_argument("--size", default="1280x900")
    c.add_argument("--budget-ms", type=int, default=4000)
    sub.add_parser("find", help="print the browser that would be used")
    args = parser.parse_args()
    return find(args) if args.command == "find" else check(args)


if __name__ == "__main__":
    sys.exit(main())
