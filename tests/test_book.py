"""The book's one list of chapters, how it shows a table, and the build's handling of the kernel's own output."""

import json
import subprocess
import sys
from pathlib import Path

import pandas as pd

from lengthgen.book import CHAPTERS, ROOT, cell_sources, chapters_of, stderr_to, text_notebook
from lengthgen.display import table_html
from lengthgen.papers import CHAPTER


def test_the_table_of_contents_is_the_one_list_of_chapters(tmp_path):
    toc = tmp_path / "_toc.yml"
    toc.write_text("format: jb-book\nroot: book/intro\nchapters:\n  - file: book/chapters/b-two\n"
                   "  - file: book/methods\n  - file: book/chapters/a_one\n")
    assert chapters_of(toc) == {"b-two": "notebooks/b-two.md", "a_one": "notebooks/a_one.md"}
    assert {p.stem for p in (ROOT / "notebooks").iterdir()} == set(CHAPTERS)  # every notebook is a chapter
    assert set(CHAPTER.values()) == set(CHAPTERS)  # every chapter has experiments, and only chapters do
    assert all(name == chapter or name.startswith(f"{chapter}-") for name, chapter in CHAPTER.items())  # the prefix


def test_stderr_of_started_processes_goes_to_the_log(tmp_path, capfd):
    log = tmp_path / "logs" / "chapter.log"
    with stderr_to(log):
        subprocess.run([sys.executable, "-c", "import sys; sys.stderr.write('kernel noise')"], check=True)
    print("after", file=sys.stderr)  # standard error is back once the context closes
    assert Path(log).read_text() == "kernel noise"
    err = capfd.readouterr().err
    assert "after" in err and "kernel noise" not in err


def test_a_table_shows_a_missing_value_as_a_dash_and_lets_names_wrap():
    frame = pd.DataFrame({"solved_by": ["onestep_no_sigmoid", "a < b_c"], "rho": [0.5, float("nan")]},
                         index=pd.Index(["inv_recopy", "copy"], name="task_name"))
    html = table_html(frame)
    assert "<td>onestep_<wbr>no_<wbr>sigmoid</td>" in html and "<td>a &lt; b_<wbr>c</td>" in html
    assert ">inv_<wbr>recopy<" in html and ">solved_<wbr>by<" in html and ">task_<wbr>name<" in html
    assert "<td>–</td>" in html and "NaN" not in html  # a missing value reads "–", as for_display writes it
    assert html.replace("<wbr>", "").replace("–", "NaN") == frame._repr_html_()  # the rest as pandas shows it


def test_a_table_leaves_out_pandas_row_numbers_but_keeps_a_real_index():
    frame = pd.DataFrame({"task": ["copy", "lookup"], "accuracy": [99.5, 12.0]})
    html = table_html(frame)
    assert "<th>" not in html.split("<tbody>")[1] and "<td>copy</td>" in html  # no row-number cells, data intact
    assert html.count("<th>") == 2  # the header holds the two columns only
    assert "<th>" not in table_html(frame.set_axis([24, 25])).split("<tbody>")[1]  # rows 24-25 of a longer table
    data = ((pd.RangeIndex(2, name="seed"), 0), (pd.Index([1, 0]), 1), (pd.Index([16, 32]), 16),  # named, shuffled,
            (pd.MultiIndex.from_tuples([(1, 2), (3, 4)]), 1), (pd.Index(["1", "2"]), "1"))  # gaps, two levels, text
    for index, first in data:
        assert f"<th>{first}</th>" in table_html(frame.set_axis(index)).split("<tbody>")[1]


def test_lab_serves_on_loopback_offline_with_a_token():
    from lengthgen.lab import OFFLINE, lab_command, url

    cmd = lab_command(8899, "abc", ROOT)
    assert "--ServerApp.ip=127.0.0.1" in cmd and "--ServerApp.port=8899" in cmd and "--ServerApp.port_retries=0" in cmd
    assert "--IdentityProvider.token=abc" in cmd and all(flag in cmd for flag in OFFLINE)
    assert url(8899, "abc") == "http://127.0.0.1:8899/lab/tree/notebooks?token=abc"


def test_lab_opens_the_text_chapters_as_notebooks(tmp_path):
    from lengthgen.lab import lab_command

    cmd = lab_command(8899, "abc", tmp_path)
    settings = tmp_path / "_build" / "lab"
    assert f"--LabApp.app_settings_dir={settings}" in cmd
    viewers = json.loads((settings / "overrides.json").read_text())["@jupyterlab/docmanager-extension:plugin"]
    assert viewers["defaultViewers"]["markdown"] == "Jupytext Notebook"


def test_a_chapter_source_reads_as_the_notebook_papermill_runs():
    for chapter in CHAPTERS:
        cells = text_notebook(ROOT / CHAPTERS[chapter]).cells
        tagged = [c for c in cells if "parameters" in c.metadata.get("tags", [])]
        assert len(tagged) == 1 and "profile = " in tagged[0].source  # the cell papermill's parameters follow
        assert cells[0].cell_type == "markdown" and cells[0].source.startswith("# ")  # the title, not the header
        assert cell_sources(ROOT / CHAPTERS[chapter], "code") == [c.source for c in cells if c.cell_type == "code"]


def test_every_generated_methods_section_is_written_and_included(tmp_path):
    from lengthgen.book import ROOT, write_methods_sections
    from lengthgen.leaderboard.sizing import METHODS
    from lengthgen.papers import PAPERS

    (tmp_path / "book").mkdir()
    written = write_methods_sections(tmp_path)  # an empty store: each section says nothing is stored yet
    names = [name for paper in PAPERS.values() for name, _ in paper.methods] + [name for name, _ in METHODS]
    assert sorted(p.name for p in written) == sorted(names)
    assert {"abc-factors.md", "sparsity-sizing.md", "leaderboard-sizing.md"} <= set(names)
    from_code = {"abc-recipe.md", "sparsity-sizes.md", "leaderboard-sizes.md"}  # read from the profiles, not the store
    assert all("stored yet" in p.read_text() for p in written if p.name not in from_code)
    methods, ignored = (ROOT / "book" / "methods.md").read_text(), (ROOT / ".gitignore").read_text()
    assert all(f"{{include}} {name}" in methods and f"book/{name}" in ignored for name in names)
