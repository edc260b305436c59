"""The built course book, driven in a real browser (headless Chromium through selenium).

At a 1280 px window no output or code cell of any page may scroll sideways or stick out of the
content column, every notebook page must show typeset maths, a solution opens with one click, no
``assert``, ``check(...)`` or ``expect(...)`` is shown, and an explorer's slider changes its picture
and its numbers with no kernel.
The book carries one BokehJS for every page and weighs less than half of what it did with a copy
per page; served over HTTP (``make course-serve``) its search shows a snippet of every hit.

Every read waits for what it reads (an explicit wait on the element or the script's result, never a
sleep), so a loaded machine makes the test slower, not red.

Runs only with ``-m browser`` (``make course-test``, after ``make course`` has built
``build/course/``). By hand, a missing book, selenium, Chromium or chromedriver skips the test with a
message that says what to install; under CI (``CI`` set) the same thing fails it, since CI installs all
of them (``.ci/run``).
"""

import functools
import http.server
import json
import os
import re
import shutil
import threading
from pathlib import Path
from urllib.parse import unquote, urlparse

import pytest

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[1]
BOOK = ROOT / "build" / "course"
INDEX = BOOK / "index.html"
NOTEBOOKS = sorted(p.stem for p in (ROOT / "notebooks").glob("[0-9][0-9]_*.py"))
# Text that would make a student think something broke (a progress bar frozen at 0% too).
ALARMING = (
    "Traceback", "CHECK DID NOT HOLD", "Warning:", "DeprecationWarning", "RuntimeWarning", "Error:", "0%|",
)  # fmt: skip
WAIT = 60  # seconds any one wait may take on a loaded machine before the test fails


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
    driver.set_page_load_timeout(120)
    yield driver
    driver.quit()


def _until(driver, script: str, *args, what: str, timeout: float = WAIT):
    """Wait until ``script`` returns something truthy in the page, and return it."""
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(driver, timeout, poll_frequency=0.1).until(
        lambda d: d.execute_script(script, *args), message=f"waited {timeout} s for {what}"
    )


def _loaded(driver, url: str) -> None:
    """Open ``url`` and wait until the page and every image on it have loaded, and the theme's
    footer (the previous/next links) is in place."""
    driver.get(url)
    driver.execute_script("for (const i of document.images) { i.loading = 'eager'; }")
    _until(
        driver,
        "return document.readyState === 'complete' && [...document.images].every(i => i.complete)"
        " && !!document.querySelector('footer.prev-next-footer, .prev-next-area')",
        what=f"{url} to load",
    )


def _links(driver, selector: str) -> list[str]:
    """The hrefs of ``selector``, read in one script (no element can go stale between two reads)."""
    return driver.execute_script(
        "return [...document.querySelectorAll(arguments[0])].map(a => a.href)", selector
    )


def _local(url: str) -> Path | None:
    parsed = urlparse(url)
    return Path(unquote(parsed.path)) if parsed.scheme == "file" else None


def _open(driver, url: str) -> dict:
    """Load ``url``; return what a student would trip over on it."""
    path = _local(url)
    assert path is not None and path.is_file(), f"broken link: {url}"
    _loaded(driver, url)  # images load eagerly for the check, wherever they are on the page
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
                for href in _links(driver, "a[href]")
                if (p := _local(href)) is not None and not p.exists()
            }
        ),
    }


def test_every_page_of_the_toc_and_of_prev_next_loads_whole(browser):
    problems = {}
    report = _open(browser, INDEX.as_uri())
    if any(report.values()):
        problems[INDEX.name] = report
    toc = list(dict.fromkeys(h.split("#")[0] for h in _links(browser, "nav.bd-docs-nav a.reference")))
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
        nexts += _links(browser, "a.right-next")
        prevs += _links(browser, "a.left-prev")
    for url in set(nexts + prevs) - visited:
        report = _open(browser, url.split("#")[0])
        if any(report.values()):
            problems[url] = report
    assert not problems, problems
    # Following "next" from the landing page walks the whole table of contents.
    chain, url = [], INDEX.as_uri()
    while url and len(chain) <= len(toc) + 1:
        _loaded(browser, url)
        chain.append(url)
        nxt = _links(browser, "a.right-next")
        url = nxt[0] if nxt else None
    assert set(toc) <= set(chain), sorted(set(toc) - set(chain))


def test_search_finds_notebook_2(browser):
    browser.get((BOOK / "search.html").as_uri() + "?q=specificity")
    hits = _until(
        browser, "const h = [...document.querySelectorAll('#search-results a')].map(a => a.href);"
        "return h.length && h", what="the search's hits",
    )  # fmt: skip
    assert any("02_node_specificity" in h for h in hits), hits


@pytest.fixture(scope="module")
def served():
    """The book over HTTP on 127.0.0.1, as ``make course-serve`` serves it (a free port)."""
    if not INDEX.is_file():
        pytest.skip("the built book is missing; run `make course`")
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(BOOK))
    handler.log_message = lambda *args: None
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    thread.join()


def test_served_search_shows_a_snippet_of_every_hit(browser, served):
    """Opened from file:// the browser refuses to fetch the pages a hit's snippet comes from; served
    over HTTP (make course-serve) every hit shows one."""
    browser.get(f"{served}/search.html?q=specificity")
    snippets = _until(
        browser,
        "const items = [...document.querySelectorAll('#search-results li')];"
        "return items.length && items.every(li => li.querySelector('p.context')) &&"
        " items.map(li => li.querySelector('p.context').innerText)",
        what="a snippet under every search hit",
    )
    assert any("specificity" in s.lower() for s in snippets), snippets[:3]


def test_maths_is_typeset(browser):
    browser.get(INDEX.as_uri())
    _until(browser, "return document.querySelector('mjx-container')", what="MathJax to render a formula")


def test_a_solution_opens_on_click(browser):
    _loaded(browser, (BOOK / "solutions" / f"{NOTEBOOKS[0]}_sol.html").as_uri())
    dropdown = browser.find_element("css selector", ".admonition.dropdown")
    body = dropdown.find_elements("css selector", "p")[-1]
    assert not body.is_displayed(), "a solution must be collapsed until the student opens it"
    dropdown.find_element("css selector", "button.toggle-button").click()
    from selenium.webdriver.support import expected_conditions
    from selenium.webdriver.support.ui import WebDriverWait

    WebDriverWait(browser, WAIT).until(
        expected_conditions.visibility_of(body), message="clicking the solution's toggle did not open it"
    )


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


# Laid out: MathJax has typeset every formula, and every explorer has drawn its sliders.
_LAID_OUT_JS = r"""
const maths = [...document.querySelectorAll('article span.math, article div.math')];
const typeset = maths.every(e => e.querySelector('mjx-container'));
const explorers = [...document.querySelectorAll('.pathfinding-explorer')];
const drawn = explorers.every(e => e.querySelector('.bk-Column, .bk-Row, [class^="bk"]'));
return typeset && drawn;
"""


def test_nothing_scrolls_sideways_or_is_cut_off_at_1280_px(browser):
    browser.set_window_size(1280, 1600)
    problems = {}
    for page in _pages():
        _loaded(browser, page.as_uri())
        _until(browser, _LAID_OUT_JS, what=f"{page.name}'s maths and explorers to lay out")
        found = browser.execute_script(_OVERFLOW_JS)
        if found:
            problems[page.name] = found[:5] + ([f"... and {len(found) - 5} more"] if len(found) > 5 else [])
    assert not problems, problems


def test_every_notebook_page_typesets_its_maths(browser):
    untypeset = []
    for page in sorted(BOOK.glob("notebooks/*.html")):
        _loaded(browser, page.as_uri())
        _until(browser, _LAID_OUT_JS, what=f"{page.name}'s maths to be typeset")
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


def test_every_solution_opens_with_one_toggle_and_no_page_shows_an_assert_or_a_check(browser):
    for page in sorted(BOOK.glob("solutions/*.html")):
        _loaded(browser, page.as_uri())
        code_in_dropdowns = browser.execute_script(
            "return [...document.querySelectorAll('.admonition.dropdown')]"
            ".map(d => d.querySelectorAll('div.highlight').length)"
        )
        assert code_in_dropdowns and all(code_in_dropdowns), (
            f"{page.name}: a solution's code is not inside its dropdown: {code_in_dropdowns}"
        )
    for page in [*BOOK.glob("notebooks/*.html"), *BOOK.glob("solutions/*.html")]:
        _loaded(browser, page.as_uri())
        code = browser.execute_script(
            "return [...document.querySelectorAll('article div.highlight')]"
            ".map(e => e.textContent).join('\\n')"
        )
        shown = re.search(r"^\s*(assert\b|check\(|expect\()", code, re.M)
        assert not shown, f"{page.name} shows the check plumbing {shown.group(1)!r}" if shown else ""


# Every element under ``root`` that matches ``selector``, looking inside Bokeh's shadow roots too.
_SHADOW_FN = """(root, selector) => {
  const found = [];
  const walk = (node) => {
    for (const el of node.querySelectorAll('*')) {
      if (el.matches(selector)) found.push(el);
      if (el.shadowRoot) walk(el.shadowRoot);
    }
  };
  walk(root);
  return found;
}"""


def test_an_explorer_runs_in_the_page_without_a_kernel(browser):
    from selenium.webdriver.common.keys import Keys

    _loaded(browser, (BOOK / "notebooks" / "01_meet_node_arithmetic.html").as_uri())
    explorer = browser.find_element("css selector", ".pathfinding-explorer")
    browser.execute_script("arguments[0].scrollIntoView()", explorer)
    handles = _until(
        browser, f"const h = ({_SHADOW_FN})(arguments[0], '.noUi-handle'); return h.length === 2 && h",
        explorer, what="the meet-node explorer's two sliders (restart_prob, degree)",
    )  # fmt: skip
    texts = f"const t = ({_SHADOW_FN})(arguments[0], '.bk-clearfix').map(e => e.innerText).filter(t => t);"
    before_text = _until(browser, texts + "return t.length && t", explorer, what="the explorer's numbers")
    before_picture = explorer.screenshot_as_png
    assert any("2.00 at convergence" in t for t in before_text), before_text
    handles[1].click()  # the degree slider, moved with the keyboard as a student would
    for _ in range(3):
        handles[1].send_keys(Keys.ARROW_RIGHT)
    after_text = _until(
        browser, texts + "return JSON.stringify(t) !== arguments[1] && t", explorer, json.dumps(before_text),
        what="moving the degree slider to change a number on the page",
    )  # fmt: skip
    assert any("2.00 at convergence" in t for t in after_text), "the ratio must stay 2 at any degree"
    from selenium.webdriver.support.ui import WebDriverWait

    WebDriverWait(browser, WAIT, poll_frequency=0.2).until(
        lambda d: explorer.screenshot_as_png != before_picture,
        message="moving the slider changed nothing in the picture",
    )


def test_the_book_carries_one_bokehjs_and_half_its_old_weight():
    """Each of four explorer pages carried its own 1.6 MB of BokehJS (and so did its downloadable
    notebook): the book weighed 67 MB. One copy in _static/, loaded by the pages that need it."""
    if not INDEX.is_file():
        pytest.skip("the built book is missing; run `make course`")
    weight = sum(f.stat().st_size for f in BOOK.rglob("*") if f.is_file())
    assert weight < 32_500_000, f"the book weighs {weight:,} bytes"
    bokehjs = [f for f in BOOK.rglob("bokeh*.min.js")]
    assert sorted(f.name for f in bokehjs) == ["bokeh-widgets.min.js", "bokeh.min.js"], bokehjs
    for page in BOOK.glob("notebooks/*.html"):
        html = page.read_text(encoding="utf-8")
        shows = 'class="pathfinding-explorer"' in html
        assert shows == ("_static/bokeh.min.js" in html), page.name  # loaded where it is needed only
        assert page.stat().st_size < 1_000_000, f"{page.name} carries something heavy inline"


def test_an_explorer_loads_the_books_bokehjs(browser):
    _loaded(browser, (BOOK / "notebooks" / "05_cost_of_index_once_query_cheap.html").as_uri())
    version = _until(browser, "return window.Bokeh && Bokeh.version", what="BokehJS to load")
    import bokeh

    assert version == bokeh.__version__
