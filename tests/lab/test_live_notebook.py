"""Every chapter, live: JupyterLab on a loopback port, the chapter opened in headless Chromium, every cell run (smoke
profile), its explorer's first slider moved, and the explorer's figure redrawn in place; nothing requested off the
machine, no console error."""

import re
import secrets
import subprocess
import time
import urllib.request
from pathlib import Path

import jupytext
import nbformat
import pytest

from lengthgen.book import CHAPTERS, ROOT, text_notebook
from lengthgen.lab import free_port, lab_command

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def smoke_copy(root: Path) -> None:
    """Every chapter under root/notebooks/, with a cell after its parameters that switches it to the smoke profile
    and a scratch results store (what papermill's injected parameters do under `lengthgen book`)."""
    (root / "notebooks").mkdir()
    for chapter, source in CHAPTERS.items():
        nb = text_notebook(ROOT / source)
        at = next(i for i, c in enumerate(nb.cells) if "parameters" in c.metadata.get("tags", []))
        override = f'profile = "smoke"\nresults_dir = "{root / "results" / chapter}"\njobs = 1'
        nb.cells.insert(at + 1, nbformat.v4.new_code_cell(override))
        jupytext.write(nb, root / source, fmt="md:myst")


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    root = tmp_path_factory.mktemp("lab")
    smoke_copy(root)
    port, token = free_port(), secrets.token_hex(16)
    log = open(root / "lab.log", "w")
    server = subprocess.Popen(lab_command(port, token, root), stdout=log, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 60
    while True:  # until the server answers
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/api/status?token={token}", timeout=2)
            break
        except OSError:
            if time.monotonic() > deadline or server.poll() is not None:
                server.kill()
                pytest.fail(f"JupyterLab did not start: {(root / 'lab.log').read_text()[-2000:]}")
            time.sleep(0.5)
    yield port, token, root
    server.terminate()
    server.wait(timeout=30)
    log.close()


@pytest.mark.lab
@pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="Debian chromium not installed (make test installs it)")
@pytest.mark.parametrize("chapter", list(CHAPTERS))
def test_widget_redraws_its_figure_in_a_live_chapter(lab, chapter):
    from playwright.sync_api import sync_playwright

    port, token, root = lab
    base = f"http://127.0.0.1:{port}"
    address = f"{base}/lab/workspaces/{chapter}/tree/{CHAPTERS[chapter]}?token={token}"  # one tab, its own
    external, errors = [], []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        page.on("request", lambda r: None if r.url.startswith((base, "data:", "blob:")) else external.append(r.url))
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: errors.append(str(e)))
        try:
            before, after = run_and_move(page, address)
        except Exception:
            page.screenshot(path=str(root / f"{chapter}-failure.png"), full_page=True)
            raise
        browser.close()
    assert before != after
    assert external == [], f"requests left the machine: {external}"
    assert errors == [], f"console errors: {errors}"


def run_and_move(page, address: str) -> tuple[str, str]:
    """Open the chapter, run all its cells, move the explorer's first slider one step: the explorer's figure's data
    (as JSON) before and after."""
    page.goto(address, wait_until="domcontentloaded")
    page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=60_000)
    page.get_by_text(re.compile(r"\| Idle$")).wait_for(timeout=60_000)  # the kernel is up
    prompt = page.locator(".jp-CodeCell .jp-InputPrompt").first
    for _ in range(3):  # a click on a menu that is still being wired up can be lost: retry until cells run
        page.locator(".jp-Notebook .jp-Cell").first.click()
        page.locator(".lm-MenuBar-itemLabel", has_text=re.compile(r"^Run$")).click()
        page.locator(".lm-Menu-itemLabel", has_text=re.compile(r"^Run All Cells$")).click()
        try:
            page.wait_for_function("e => /\\[(\\*|\\d+)\\]/.test(e.textContent)", arg=prompt.element_handle(),
                                   timeout=10_000)
            break
        except Exception:
            continue
    slider = page.locator(".widget-slider .noUi-handle").first  # the explorer's first slider
    slider.wait_for(state="attached", timeout=240_000)
    slider.scroll_into_view_if_needed()
    figure = "document.querySelector('.widget-output .js-plotly-plot')"  # the figure the explorer draws
    page.wait_for_function(f"{figure} && {figure}.data", timeout=60_000)
    data = f"JSON.stringify({figure}.data)"
    before = page.evaluate(data)
    slider.focus()
    page.keyboard.press("ArrowRight")  # one step
    page.wait_for_function(f"t => {figure} && {figure}.data && {data} !== t", arg=before, timeout=60_000)
    after = page.evaluate(data)
    return before, after
