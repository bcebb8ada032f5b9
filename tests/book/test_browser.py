"""Build the book (smoke profile) in a scratch root and open it in headless Chromium."""

import functools
import http.server
import shutil
import threading
from pathlib import Path

import pytest

from lengthgen.book import ROOT, build_book

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]


@pytest.fixture(scope="module")
def served_book(tmp_path_factory):
    root = tmp_path_factory.mktemp("book")
    for name in ("_config.yml", "_toc.yml"):
        shutil.copy(ROOT / name, root / name)
    shutil.copytree(ROOT / "book", root / "book", ignore=shutil.ignore_patterns("chapters"))
    (root / "lengthgen").symlink_to(ROOT / "lengthgen")  # for the chapters' literalinclude
    build_book("smoke", root=root, results_dir=str(root / "results"))
    html = root / "_build" / "html"
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(html))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}", html
    server.shutdown()


@pytest.mark.browser
@pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="Debian chromium not installed (make test installs it)")
@pytest.mark.parametrize("page,min_figures", [("book/chapters/vv.html", 7),
                                              ("book/chapters/mla.html", 2),
                                              ("book/chapters/sparsity.html", 3), ("book/chapters/abc.html", 4),
                                              ("book/intro.html", 0), ("book/scorecard.html", 0),
                                              ("book/methods.html", 0)])
def test_page_renders_offline_without_errors(served_book, page, min_figures):
    from playwright.sync_api import sync_playwright

    base, html = served_book
    external, errors = [], []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        pg = browser.new_page(viewport={"width": 1300, "height": 900})  # wide enough for the contents sidebar
        pg.on("request", lambda r: None if r.url.startswith((base, "data:", "blob:")) else external.append(r.url))
        pg.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        pg.on("pageerror", lambda e: errors.append(str(e)))
        pg.goto(f"{base}/{page}", wait_until="networkidle")
        # Count the figures in the file, not in the DOM: a long page can still be parsing when the network is
        # idle. Plotly draws asynchronously: wait until every figure div has been turned into a plot.
        divs = (html / page).read_text().count('class="plotly-graph-div"')
        pg.wait_for_function(f"document.querySelectorAll('.js-plotly-plot').length >= {divs}", timeout=60_000)
        figures = pg.locator(".js-plotly-plot").count()
        svgs = pg.locator(".js-plotly-plot svg.main-svg").count()
        has_plotly = pg.evaluate("typeof window.Plotly !== 'undefined'")
        search_fields = pg.locator(".search-button-field:visible").count()  # the sidebar's, not a header bar's too
        wide = pg.evaluate("() => [...document.querySelectorAll('.bd-article table')]"
                           ".filter(t => t.scrollWidth > t.parentElement.clientWidth + 1)"
                           ".map(t => t.innerText.slice(0, 80))")
        browser.close()
    assert external == [], f"requests left the machine: {external}"
    assert errors == [], f"console errors: {errors}"
    assert divs >= min_figures and figures == divs and svgs >= figures
    assert search_fields == 1
    assert wide == [], f"tables wider than the text column, their last columns behind a scroll bar: {wide}"
    if min_figures:
        assert has_plotly
        assert (html / "_static" / "plotly.min.js").exists()


@pytest.mark.browser
@pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="Debian chromium not installed (make test installs it)")
@pytest.mark.parametrize("page,selector", [("book/chapters/mla.html", ".output table.dataframe"),
                                           ("book/scorecard.html", "table.table")])
def test_tables_are_set_smaller_than_the_prose(served_book, page, selector):
    """book/_static/lengthgen.css compacts output DataFrames and Markdown tables (wide verdict tables hid their last
    columns behind a scroll): its selectors must match what the theme renders."""
    from playwright.sync_api import sync_playwright

    base, _ = served_book
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        pg = browser.new_page()
        pg.goto(f"{base}/{page}", wait_until="load")
        size = "s => parseFloat(getComputedStyle(document.querySelector(s)).fontSize)"
        table, prose = pg.evaluate(size, f".bd-article {selector} td"), pg.evaluate(size, ".bd-article p")
        browser.close()
    assert table <= 0.9 * prose
