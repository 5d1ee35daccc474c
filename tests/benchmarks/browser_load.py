"""How long report.html takes to become usable in headless Chromium, and to find a card by search.

`--dump-dom` alone times the writing out of the whole DOM (every compressed card included),
not the page a user sees: at 44k cards that is seconds of serialisation after the page was
ready. So a driver script is put into a copy of the page (its Content-Security-Policy removed,
the only change) and waits for the report's own "tb-rendered" event: the leaderboards are
painted and the first cards laid out. It then empties the data block and the card list, so the
dump costs nothing. A second driver also types a card id into the search box and waits until
that card is shown: the search reaches every card, not only the first page's.

Times are wall seconds beyond loading a blank page, Chromium started fresh each time (one
profile, warmed once).
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import time
from pathlib import Path

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--virtual-time-budget=600000"]
_CSP = re.compile(r'<meta http-equiv="Content-Security-Policy"[^>]*>')
_FINISH = """function tbFinish(state) {
  state.cards = document.querySelectorAll("#cases article.case").length;
  document.getElementById("tb-data").textContent = "";
  var box = document.getElementById("cases"); while (box.firstChild) box.removeChild(box.firstChild);
  var out = document.createElement("pre"); out.id = "tb-probe"; out.textContent = JSON.stringify(state);
  document.body.appendChild(out);
}
"""
_LOADED = _FINISH + """document.addEventListener("tb-rendered", function () { tbFinish({}); }, {once: true});"""
_SEARCHED = _FINISH + """document.addEventListener("tb-rendered", function () {
  document.addEventListener("tb-rendered", function () {
    var ids = Array.prototype.map.call(document.querySelectorAll("#cases article.case a.id"),
                                       function (a) { return a.textContent; });
    tbFinish({found: ids.indexOf(WANTED) >= 0});
  }, {once: true});
  var search = document.getElementById("case-search");
  search.value = WANTED;
  search.dispatchEvent(new Event("input"));
}, {once: true});"""


def chromium() -> str | None:
    return next((p for p in map(shutil.which, ("chromium", "chromium-browser", "google-chrome")) if p), None)


def measure(page: Path, scratch: Path, wanted: str | None = None) -> dict:
    """{"load_s", and with a card id `wanted`: "search_s" (beyond the load) and "found"}; {} without Chromium."""
    browser = chromium()
    if browser is None or not page.exists():
        return {}
    html = _CSP.sub("", page.read_text(encoding="utf-8"), count=1)
    blank = scratch / "blank.html"
    blank.write_text("<!doctype html><title>blank</title>", encoding="utf-8")
    profile = scratch / "chromium-profile"
    _load(browser, blank, profile)  # the profile's first start
    out: dict = {}
    loaded = _driven(html, _LOADED, scratch / "loaded.html")
    seconds, state = _timed(browser, loaded, blank, profile)
    out["load_s"] = seconds if state is not None else None
    if wanted is not None:
        searched = _driven(html, _SEARCHED.replace("WANTED", json.dumps(wanted)), scratch / "searched.html")
        seconds, state = _timed(browser, searched, blank, profile)
        out["found"] = bool(state and state.get("found"))
        out["search_s"] = max(0.0, seconds - out["load_s"]) if out["found"] and out["load_s"] is not None else None
    return out


def _driven(html: str, driver: str, target: Path) -> Path:
    target.write_text(html.replace("</body>", f"<script>{driver}</script></body>", 1), encoding="utf-8")
    return target


def _timed(browser: str, page: Path, blank: Path, profile: Path) -> tuple[float, dict | None]:
    base, _ = _load(browser, blank, profile)
    seconds, dom = _load(browser, page, profile)
    probe = re.search(r'<pre id="tb-probe">([^<]*)</pre>', dom)
    return max(0.0, seconds - base), json.loads(probe.group(1).replace("&quot;", '"')) if probe else None


def _load(browser: str, page: Path, profile: Path) -> tuple[float, str]:
    start = time.perf_counter()
    done = subprocess.run([browser, *FLAGS, f"--user-data-dir={profile}", "--dump-dom", page.as_uri()],
                          capture_output=True, text=True, timeout=900, check=False)
    return time.perf_counter() - start, done.stdout
