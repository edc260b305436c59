"""The built course book, driven in a real browser (headless Chromium through selenium).

At a 1280 px window no output or code cell of any page may scroll sideways or stick out of the
content column, every notebook page must show typeset maths, a solution opens with one click, no
``assert`` is shown, and an explorer's slider changes its picture and its numbers with no kernel.

Runs only with ``-m browser`` (``make course-test``, after ``make course`` has built
``build/course/``). By hand, a missing book, selenium, Chromium or chromedriver skips the test with a
message that says what to install; under CI (``CI`` set) the same thing fails it, since CI installs all
of them (``.ci/run``).
"""

import os
import re
import shutil
import time
from pathlib import Path
from urllib.parse import unquote, urlparse

import pytest

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[1]
BOOK = ROOT / "build" / "course"
INDEX = BOOK / "index.html"
NOTEBOOKS = sorted(p.stem for p in (ROOT / "notebooks").glob("[0-9][0-9]_*.py"))
# Text that would make a student think something broke.
ALARMING = ("Traceback", "CHECK DID NOT HOLD", "Warning:", "DeprecationWarning", "RuntimeWarning", "Error:")


def _missing() -> list[str]:
    missing = []
    if not INDEX.is_file():
        missing.append(f"the built book ({INDEX}; run `make course`)")
    try:
        import selenium  # noqa: F401
    except ImportError:
        missing.append("selenium (pip install the `course` extra)")
    if not any(shutil.which(name) for name in ("chromium", "chromium-browser")):
        missing.append("Chromium (apt-get install chromium)")
    if not shutil.which("chromedriver"):
        missing.append("chromedriver (apt-get install chromium-driver)")
    return missing


@pytest.fixture(scope="module")
def browser():
    missing = _missing()
    if missing:
        message = "the browser test needs " + ", ".join(missing)
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1280,1600"):
        options.add_argument(arg)
    options.binary_location = shutil.which("chromium") or shutil.which("chromium-browser")
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(options=options, service=Service(shutil.which("chromedriver")))
    driver.set_page_load_timeout(60)
    yield driver
    driver.quit()


def _local(url: str) -> Path | None:
    parsed = urlparse(url)
    return Path(unquote(parsed.path)) if parsed.scheme == "file" else None


def _open(driver, url: str) -> dict:
    """Load ``url``; return what a student would trip over on it."""
    path = _local(url)
    assert path is not None and path.is_file(), f"broken link: {url}"
    driver.get(url)
    # Images load eagerly for the check, wherever they are on the page.
    driver.execute_script("for (const i of document.images) { i.loading = 'eager'; }")
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        if driver.execute_script("return [...document.images].every(i => i.complete)"):
            break
        time.sleep(0.2)
    text = driver.execute_script("return document.body.innerText")
    return {
        "broken images": driver.execute_script(
            "return [...document.images].filter(i => !(i.complete && i.naturalWidth > 0)).map(i => i.src)"
        ),
        "console errors": [e["message"] for e in driver.get_log("browser") if e["level"] == "SEVERE"],
        "alarming text": [w for w in ALARMING if w in text],
        "broken local links": sorted(
            {
                href
                for href in driver.execute_script("return [...document.links].map(a => a.href)")
                if (p := _local(href)) is not None and not p.exists()
            }
        ),
    }


def _hrefs(driver, selector: str) -> list[str]:
    return [a.get_attribute("href") for a in driver.find_elements("css selector", selector)]


def test_every_page_of_the_toc_and_of_prev_next_loads_whole(browser):
    problems = {}
    report = _open(browser, INDEX.as_uri())
    if any(report.values()):
        problems[INDEX.name] = report
    toc = list(dict.fromkeys(h.split("#")[0] for h in _hrefs(browser, "nav.bd-docs-nav a.reference")))
    pages = {h.rsplit("/", 1)[-1] for h in toc}
    for name in NOTEBOOKS:
        assert f"{name}.html" in pages, f"notebook {name} is not in the table of contents"
        assert f"{name}_sol.html" in pages, f"the solutions of {name} are not in the table of contents"
    assert "done_when.html" in pages, "the 'Done when' page is not in the table of contents"

    visited, nexts, prevs = set(), [], []
    for url in toc:
        report = _open(browser, url)
        if any(report.values()):
            problems[url] = report
        visited.add(url)
        nexts += _hrefs(browser, "a.right-next")
        prevs += _hrefs(browser, "a.left-prev")
    for url in set(nexts + prevs) - visited:
        report = _open(browser, url.split("#")[0])
        if any(report.values()):
            problems[url] = report
    assert not problems, problems
    # Following "next" from the landing page walks the whole table of contents.
    chain, url = [], INDEX.as_uri()
    while url and len(chain) <= len(toc) + 1:
        browser.get(url)
        chain.append(url)
        nxt = _hrefs(browser, "a.right-next")
        url = nxt[0] if nxt else None
    assert set(toc) <= set(chain), sorted(set(toc) - set(chain))


def test_search_finds_notebook_2(browser):
    browser.get((BOOK / "search.html").as_uri() + "?q=specificity")
    deadline = time.monotonic() + 30
    hits = []
    while time.monotonic() < deadline and not hits:
        hits = _hrefs(browser, "#search-results a")
        time.sleep(0.3)
    assert any("02_node_specificity" in h for h in hits), hits


def test_maths_is_typeset(browser):
    browser.get(INDEX.as_uri())
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if browser.find_elements("css selector", "mjx-container"):
            break
        time.sleep(0.3)
    assert browser.find_elements("css selector", "mjx-container"), "MathJax rendered no formula"


def test_a_solution_opens_on_click(browser):
    browser.get((BOOK / "solutions" / f"{NOTEBOOKS[0]}_sol.html").as_uri())
    dropdown = browser.find_element("css selector", ".admonition.dropdown")
    body = dropdown.find_elements("css selector", "p")[-1]
    assert not body.is_displayed(), "a solution must be collapsed until the student opens it"
    dropdown.find_element("css selector", "button.toggle-button").click()
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and not body.is_displayed():
        time.sleep(0.1)
    assert body.is_displayed(), "clicking the solution's toggle did not open it"


# What a student reads, scrolling sideways or sticking out of the content column: a box whose own
# content is wider than it (and that scrolls or clips it), or an element past the column's right
# edge that no such box contains. MathJax's assistive MathML is hidden on purpose and not counted.
_OVERFLOW_JS = r"""
for (const t of document.querySelectorAll('.toggle-hidden')) { t.classList.remove('toggle-hidden'); }
for (const d of document.querySelectorAll('details')) { d.open = true; }
const art = document.querySelector('article.bd-article');
const right = art.getBoundingClientRect().right + 1;
const describe = el => el.tagName.toLowerCase() + '.' + [...el.classList].join('.') + ' «'
    + (el.innerText || el.getAttribute('src') || '').slice(0, 60).replace(/\s+/g, ' ') + '»';
const clipped = el => {
  for (let p = el.parentElement; p && p !== art; p = p.parentElement) {
    if (getComputedStyle(p).overflowX !== 'visible') return true;
  }
  return false;
};
const out = [];
for (const el of art.querySelectorAll('*')) {
  const s = getComputedStyle(el), r = el.getBoundingClientRect();
  if (r.width === 0 || s.display === 'inline') continue;
  if (el.tagName.toLowerCase().startsWith('mjx-assistive')) continue;
  if (['auto', 'scroll', 'hidden'].includes(s.overflowX) && el.scrollWidth > el.clientWidth + 1) {
    out.push('scrolls sideways: ' + describe(el));
  } else if (r.right > right && !clipped(el)) {
    out.push('sticks out of the column: ' + describe(el));
  }
}
return out;
"""


def _pages() -> list[Path]:
    return [
        *sorted(BOOK.glob("notebooks/*.html")),
        *sorted(BOOK.glob("solutions/*.html")),
        *(BOOK / name for name in ("index.html", "done_when.html", "notes.html", "findings.html")),
    ]


def test_nothing_scrolls_sideways_or_is_cut_off_at_1280_px(browser):
    browser.set_window_size(1280, 1600)
    problems = {}
    for page in _pages():
        browser.get(page.as_uri())
        time.sleep(0.3)  # MathJax and the explorers lay out after load
        found = browser.execute_script(_OVERFLOW_JS)
        if found:
            problems[page.name] = found[:5] + ([f"... and {len(found) - 5} more"] if len(found) > 5 else [])
    assert not problems, problems


def test_every_notebook_page_typesets_its_maths(browser):
    untypeset = []
    for page in sorted(BOOK.glob("notebooks/*.html")):
        browser.get(page.as_uri())
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and not browser.find_elements("css selector", "mjx-container"):
            time.sleep(0.2)
        raw = browser.execute_script(
            "return [...document.querySelectorAll('article span.math')]"
            ".filter(e => !e.querySelector('mjx-container')).length"
        )
        # TeX that MathJax never saw: a formula the Markdown parser did not take for maths
        prose = browser.execute_script(
            "const a = document.querySelector('article').cloneNode(true);"
            "for (const e of a.querySelectorAll('pre, code, mjx-container, script')) { e.remove(); }"
            "return a.textContent;"
        )
        stray = sorted(set(re.findall(r"\\(?:frac|alpha|pi|tau|sum|cdot|tfrac|dots|sqrt)\b|\$", prose)))
        if not browser.find_elements("css selector", "mjx-container") or raw or stray:
            untypeset.append(f"{page.name} ({raw} formulas left as TeX, stray {stray})")
    assert not untypeset, f"no typeset maths on: {untypeset}"


def test_every_solution_opens_with_one_toggle_and_no_page_shows_an_assert(browser):
    for page in sorted(BOOK.glob("solutions/*.html")):
        browser.get(page.as_uri())
        code_in_dropdowns = browser.execute_script(
            "return [...document.querySelectorAll('.admonition.dropdown')]"
            ".map(d => d.querySelectorAll('div.highlight').length)"
        )
        assert code_in_dropdowns and all(code_in_dropdowns), (
            f"{page.name}: a solution's code is not inside its dropdown: {code_in_dropdowns}"
        )
    for page in [*BOOK.glob("notebooks/*.html"), *BOOK.glob("solutions/*.html")]:
        browser.get(page.as_uri())
        code = browser.execute_script(
            "return [...document.querySelectorAll('article div.highlight')]"
            ".map(e => e.textContent).join('\\n')"
        )
        assert not re.search(r"^\s*assert\b", code, re.M), f"{page.name} shows an assert"


_SHADOW_JS = """
const found = [];
const walk = (root) => {
  for (const el of root.querySelectorAll('*')) {
    if (el.matches(arguments[1])) found.push(el);
    if (el.shadowRoot) walk(el.shadowRoot);
  }
};
walk(arguments[0]);
return found;
"""


def test_an_explorer_runs_in_the_page_without_a_kernel(browser):
    from selenium.webdriver.common.keys import Keys

    browser.get((BOOK / "notebooks" / "01_meet_node_arithmetic.html").as_uri())
    explorer = browser.find_element("css selector", ".pathfinding-explorer")
    browser.execute_script("arguments[0].scrollIntoView()", explorer)
    deadline = time.monotonic() + 20
    handles = []
    while time.monotonic() < deadline and not handles:
        handles = browser.execute_script(_SHADOW_JS, explorer, ".noUi-handle")
        time.sleep(0.2)
    assert len(handles) == 2, "the meet-node explorer should draw two sliders (restart_prob, degree)"

    def readout():
        return [e.text for e in browser.execute_script(_SHADOW_JS, explorer, ".bk-clearfix") if e.text]

    before_text, before_picture = readout(), explorer.screenshot_as_png
    assert any("2.00 at convergence" in t for t in before_text), before_text
    handles[1].click()  # the degree slider, moved with the keyboard as a student would
    for _ in range(3):
        handles[1].send_keys(Keys.ARROW_RIGHT)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and readout() == before_text:
        time.sleep(0.2)
    after_text = readout()
    assert after_text != before_text, "moving the degree slider changed no number on the page"
    assert any("2.00 at convergence" in t for t in after_text), "the ratio must stay 2 at any degree"
    assert explorer.screenshot_as_png != before_picture, "moving the slider changed nothing in the picture"
