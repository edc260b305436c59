"""The built course book, driven in a real browser (headless Chromium through selenium).

Runs only with ``-m browser`` (``make course-test``, after ``make course`` has built
``build/course/``). By hand, a missing book, selenium, Chromium or chromedriver skips the test with a
message that says what to install; under CI (``CI`` set) the same thing fails it, since CI installs all
of them (``.ci/run``).
"""

import os
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
