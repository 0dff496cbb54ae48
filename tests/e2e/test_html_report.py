"""The HTML report: deterministic, escaped, honest about what it shows; and pytest-html columns."""

from __future__ import annotations

import html
import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from browser import Browser, chromium_path
from builders import copy_example, metrics_writer, session, write_jsonl, write_raw_lines
from pages import (
    HOSTILE_EVIDENCE,
    HOSTILE_ID,
    cell,
    every,
    hostile_report,
    listed_rows,
    page_data,
    report,
    row,
    skipped_rows,
    weekly_report,
)

from pytest_sessioneval.report.html import write_report
from pytest_sessioneval.report.page_data import NotScoredRow, ReportData, SessionRow


def find_chromium() -> str:
    found = chromium_path()
    if found is None:
        pytest.skip(
            "headless Chromium not found (neither 'chromium' nor 'chromium-browser' on PATH); "
            "Debian: apt-get install chromium"
        )
    return found


@pytest.fixture
def browser(tmp_path: Path) -> Iterator[Browser]:
    with Browser(find_chromium(), tmp_path / "profile") as opened:
        yield opened


def drawn_ids(browser: Browser) -> list[str]:
    """The session ids of the rows the page drew."""
    ids: list[str] = browser.evaluate(
        "Array.from(document.querySelectorAll('#sessions tbody th.sid'), th => th.firstChild.textContent)"
    )
    return ids


def test_report_renders_in_headless_chromium_without_script_errors(tmp_path: Path, browser: Browser) -> None:
    path = tmp_path / "report.html"
    write_report(hostile_report(), path)
    browser.open(path.as_uri())
    assert browser.problems() == [], "the page logged script errors or policy violations"
    for table in ("dimensions", "sessions", "not-scored-table", "advisory-table"):
        assert browser.evaluate(f"document.getElementById({json.dumps(table)}).rows.length") > 1
    # The script ran: it revealed the filters and counted the rows.
    assert browser.evaluate("document.getElementById('filters').hidden") is False
    assert browser.evaluate("document.getElementById('filter-count').textContent") == "Showing 3 of 3 sessions"
    # The data's scripts did not: the title is still the text it was given.
    assert browser.evaluate("document.title") == HOSTILE_ID
    assert browser.evaluate("document.querySelectorAll('img').length") == 0
    assert drawn_ids(browser) == [HOSTILE_ID, "plain", "judged"]
    assert browser.evaluate("document.querySelector('#sessions tbody .where').textContent") == (
        "m/<b>sessions</b>.jsonl:1"
    )
    # Each verdict's evidence became its tooltip, as text.
    tooltips = browser.evaluate("Array.from(document.querySelectorAll('#sessions summary'), s => s.title)")
    evidence = browser.evaluate("Array.from(document.querySelectorAll('#sessions .evidence'), p => p.textContent)")
    assert tooltips == evidence and HOSTILE_EVIDENCE in tooltips


def test_filters_work_in_headless_chromium(tmp_path: Path, browser: Browser) -> None:
    path = tmp_path / "report.html"
    write_report(weekly_report(), path)
    browser.open(path.as_uri() + "#status=fail&dimension=gate-health")
    assert browser.problems() == []
    assert browser.evaluate("document.getElementById('filter-count').textContent") == "Showing 2 of 6 sessions"
    assert drawn_ids(browser) == ["w28-b", "w31-a"]
    # Choosing a dimension shows its column alone.
    assert browser.evaluate("Array.from(document.querySelectorAll('#sessions thead th'), th => th.textContent)") == [
        "Session and record",
        "Started",
        "gate-health",
    ]
    browser.open(path.as_uri() + "#q=W30-B")
    assert browser.evaluate("document.getElementById('filter-count').textContent") == "Showing 1 of 6 sessions"
    assert drawn_ids(browser) == ["w30-b"]


@pytest.mark.parametrize("workers", [(), ("-n", "2")], ids=["serial", "xdist"])
def test_pytest_html_rows_carry_verdict_and_evidence_escaped(
    pytester: pytest.Pytester, workers: tuple[str, ...]
) -> None:
    pytest.importorskip("pytest_html")
    pytester.makeini("[pytest]\n")
    metrics = pytester.path / "metrics"
    metrics.mkdir()
    hostile = "<script>alert(1)</script>"
    write_jsonl(
        metrics / "sessions.jsonl",
        [
            session(
                "s-1",
                total_files_changed=0,
                total_waves=0,
                waves=[],
                effectiveness={"completion_rate": hostile, "planned_issues": 3},
            ),
            {"session_id": "gone", "status": "abandoned", "started_at": "2026-07-20T11:00:00Z"},
            {"session_id": "<img src=x onerror=alert(1)>", "status": "abandoned"},
        ],
    )
    write_jsonl(metrics / "events.jsonl", [])
    result = pytester.runpytest(
        "--session-eval", str(metrics), "--html=report.html", "--self-contained-html", "-p", "no:randomly", *workers
    )
    result.assert_outcomes(skipped=5, xfailed=2)
    page = (pytester.path / "report.html").read_text(encoding="utf-8")
    assert page.count('data-column-type="verdict">Verdict</th>') == 1
    assert page.count("<th>Evidence</th>") == 1
    blob = re.search(r'data-jsonblob="([^"]*)"', page)
    assert blob is not None
    tests = json.loads(html.unescape(blob.group(1)))["tests"]
    rows = {test_id: entries[0]["resultsTableRow"] for test_id, entries in tests.items()}
    cells = rows["metrics/sessions.jsonl::s-1[plan-fidelity]"]
    assert cells[2] == '<td class="col-verdict">cannot-determine</td>'
    assert cells[3].startswith('<td class="col-evidence">planned_issues=3 but effectiveness.completion_rate is missing')
    assert html.escape(json.dumps(hostile), quote=True) in cells[3]
    assert hostile not in cells[3]
    # pytest-html writes node ids into its page as they are: a session id holding markup
    # reaches it escaped, in the data too.
    assert not any("<img src=x" in test_id for test_id in tests) and "<img src=x" not in html.unescape(blob.group(1))
    gone = rows["metrics/sessions.jsonl::gone"]
    assert gone[2] == '<td class="col-verdict">not scored</td>'
    assert "abandoned" in gone[3]


def test_the_html_option_writes_one_identical_file_serially_and_under_xdist(pytester: pytest.Pytester) -> None:
    pytest.importorskip("xdist")
    pytester.makeini("[pytest]\n")
    examples = copy_example(pytester.path, "metrics")
    args = ("--session-eval", str(examples), "--session-eval-timestamp", "2026-08-01T00:00:00Z", "-p", "no:randomly")
    pytester.runpytest_subprocess(*args, "--session-eval-html", "serial.html")
    pytester.runpytest_subprocess(*args, "--session-eval-html", "again.html")
    result = pytester.runpytest_subprocess(*args, "--session-eval-html", "parallel.html", "-n", "2")
    result.stdout.fnmatch_lines(["HTML report: parallel.html"])
    serial = (pytester.path / "serial.html").read_bytes()
    assert serial == (pytester.path / "again.html").read_bytes() == (pytester.path / "parallel.html").read_bytes()
    assert b"main-2026-07-21-session-1" in serial and b"2026-08-01T00:00:00Z" in serial


@pytest.mark.parametrize(
    ("flag", "starts"),
    [
        ("--session-eval-html", b"<!DOCTYPE html>"),
        ("--session-eval-summary", b"{"),
        ("--session-eval-markdown", b"### Session evaluation"),
    ],
)
def test_a_report_file_gets_its_missing_directories_as_junitxml_does(
    pytester: pytest.Pytester, flag: str, starts: bytes
) -> None:
    pytester.makeini("[pytest]\n")
    (pytester.path / "sessions.jsonl").write_text('{"session_id": "a", "status": "completed"}\n')
    result = pytester.runpytest(
        "--session-eval", "sessions.jsonl", flag, "no/such/dir/r.out", "--junitxml", "also/new/junit.xml"
    )
    assert result.ret == pytest.ExitCode.OK, result.stderr.str()
    assert (pytester.path / "no/such/dir/r.out").read_bytes().startswith(starts)
    assert (pytester.path / "also/new/junit.xml").is_file()
    # Nothing is made when nothing is written.
    collected = pytester.runpytest("--session-eval", "sessions.jsonl", flag, "other/r.out", "--co")
    assert collected.ret == pytest.ExitCode.OK and not (pytester.path / "other").exists()


def test_a_report_file_under_a_file_is_a_usage_error(pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\n")
    (pytester.path / "sessions.jsonl").write_text('{"session_id": "a", "status": "completed"}\n')
    (pytester.path / "plain").write_text("a file\n")
    result = pytester.runpytest("--session-eval", "sessions.jsonl", "--session-eval-html", "plain/dir/r.html")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["*--session-eval-html: *r.html: directory *plain/dir cannot be made: *plain is not a directory*"]
    )


def test_the_journal_still_needs_its_directory(pytester: pytest.Pytester) -> None:
    # Records are appended only where the user made room for them: a typo makes no directory.
    pytester.makeini("[pytest]\n")
    (pytester.path / "sessions.jsonl").write_text('{"session_id": "a", "status": "completed"}\n')
    result = pytester.runpytest(
        "--session-eval", "sessions.jsonl", "--session-eval-journal", "no/such/j.jsonl", "--session-eval-model-id", "m"
    )
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--session-eval-journal: *j.jsonl: directory *no/such does not exist*"])
    assert not (pytester.path / "no").exists()


@pytest.mark.parametrize(
    ("content", "replaced"),
    [
        (b'{"record_kind": "session-eval", "run_id": "r1"}\n', False),  # a journal of another run
        (b"2026-08-01 build log\n", False),
        (b" " * 5000 + b'{"record_kind": "session-eval", "run_id": "r1"}\n', False),  # its text after much whitespace
        (b"\n" * 3000, True),
        (b"\xef\xbb\xbf" + b" " * 70000 + b"<!DOCTYPE html>\n<html></html>\n", True),  # a mark, then much whitespace
        (b"\xef\xbb\xbf\x0c<html></html>", True),
        (b"", True),
        (b"\xef\xbb\xbf\n  <!DOCTYPE html>\n<html></html>\n", True),  # a page of an earlier run, say
        (b"<HTML><body>old</body></HTML>", True),
    ],
)
def test_the_page_replaces_only_a_page_or_an_empty_file(
    pytester: pytest.Pytester, content: bytes, replaced: bool
) -> None:
    pytester.makeini("[pytest]\n")
    (pytester.path / "sessions.jsonl").write_text('{"session_id": "a", "status": "completed"}\n')
    (pytester.path / "out.html").write_bytes(content)
    result = pytester.runpytest("--session-eval", "sessions.jsonl", "--session-eval-html", "out.html")
    if replaced:
        assert result.ret == pytest.ExitCode.OK
        assert (pytester.path / "out.html").read_bytes().startswith(b"<!DOCTYPE html>")
    else:
        assert result.ret == pytest.ExitCode.USAGE_ERROR
        result.stderr.fnmatch_lines(["ERROR: --session-eval-html: *out.html: exists and is not an HTML page*"])
        assert (pytester.path / "out.html").read_bytes() == content


@pytest.mark.parametrize(
    ("output", "report", "what"),
    [
        ("--session-eval-html", ("--junitxml", "out.xml"), "the JUnit XML report (--junitxml)"),
        ("--session-eval-html", ("--html", "out.xml"), "the pytest-html report (--html)"),
        (
            "--session-eval-journal",
            ("--json-report", "--json-report-file", "out.xml"),
            "the JSON report (--json-report-file)",
        ),
        (
            "--session-eval-html",
            ("--junitxml", "$REPORTS/out.xml"),
            "the JUnit XML report (--junitxml)",
        ),  # as pytest expands it
        (
            "--session-eval-html",
            ("--html", "$REPORTS/out.xml"),
            "the pytest-html report (--html)",
        ),  # as pytest-html does
    ],
)
def test_an_output_that_is_another_report_of_the_run_is_a_usage_error(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, output: str, report: tuple[str, ...], what: str
) -> None:
    # One of them would silently replace the other, whichever is written last.
    pytester.makeini("[pytest]\n")
    monkeypatch.setenv("REPORTS", str(pytester.path))
    (pytester.path / "sessions.jsonl").write_text('{"session_id": "a", "status": "completed"}\n')
    result = pytester.runpytest(
        "--session-eval", "sessions.jsonl", output, "out.xml", *report, "--session-eval-model-id", "m"
    )
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"ERROR: {output}: *out.xml is also {what} of this run; give each its own file"])
    assert not (pytester.path / "out.xml").exists()


@pytest.mark.parametrize("spelled", ["sessions.jsonl", "nowhere/../sessions.jsonl", "link/../sessions.jsonl"])
def test_a_report_of_the_run_at_an_input_is_a_usage_error(pytester: pytest.Pytester, spelled: str) -> None:
    # JUnit XML normalises its path as written: "link/.." is the link's own directory.
    pytester.makeini("[pytest]\n")
    (pytester.path / "sessions.jsonl").write_text('{"session_id": "a", "status": "completed"}\n')
    (pytester.path / "link").symlink_to(pytester.mkdir("deep") / "elsewhere", target_is_directory=True)
    (pytester.path / "deep" / "elsewhere").mkdir()
    before = (pytester.path / "sessions.jsonl").read_bytes()
    result = pytester.runpytest("--session-eval", "sessions.jsonl", "--junitxml", spelled)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["ERROR: the JUnit XML report (--junitxml) */sessions.jsonl is a sessions file of this run*"]
    )
    assert (pytester.path / "sessions.jsonl").read_bytes() == before


def test_a_report_is_checked_where_its_plugin_writes_it_after_a_conftest_changed_directory(
    pytester: pytest.Pytester,
) -> None:
    # JUnit XML and pytest-html read their paths from the directory of the moment, which a
    # conftest may change as it is imported.
    pytester.makeini("[pytest]\n")
    pytester.mkdir("tests")
    (pytester.path / "tests" / "conftest.py").write_text(
        "import os\nos.chdir(os.path.dirname(os.path.abspath(__file__)))\n"
    )
    (pytester.path / "tests" / "test_a.py").write_text("def test_ok():\n    pass\n")
    (pytester.path / "sessions.jsonl").write_text('{"session_id": "a", "status": "completed"}\n')
    before = (pytester.path / "sessions.jsonl").read_bytes()
    refused = pytester.runpytest_subprocess(
        "tests", "--session-eval", "sessions.jsonl", "--junitxml", "../sessions.jsonl"
    )
    assert refused.ret == pytest.ExitCode.USAGE_ERROR
    refused.stderr.fnmatch_lines(
        ["ERROR: the JUnit XML report (--junitxml) */sessions.jsonl is a sessions file of this run*"]
    )
    assert (pytester.path / "sessions.jsonl").read_bytes() == before
    # and the same name from the start directory is another file: the run goes ahead
    allowed = pytester.runpytest_subprocess("tests", "--session-eval", "sessions.jsonl", "--junitxml", "sessions.jsonl")
    assert allowed.ret == pytest.ExitCode.OK, allowed.stderr.str()
    assert (pytester.path / "tests" / "sessions.jsonl").read_text().startswith("<?xml")
    assert (pytester.path / "sessions.jsonl").read_bytes() == before


def test_the_json_report_path_is_taken_as_written(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    # pytest-json-report expands nothing: "$X" is a file named so, not the page's path.
    pytester.makeini("[pytest]\n")
    monkeypatch.setenv("X", "out.html")
    (pytester.path / "sessions.jsonl").write_text('{"session_id": "a", "status": "completed"}\n')
    result = pytester.runpytest(
        "--session-eval", "sessions.jsonl", "--session-eval-html", "out.html", "--json-report", "--json-report-file=$X"
    )
    assert result.ret == pytest.ExitCode.OK
    assert (pytester.path / "out.html").read_text().startswith("<!DOCTYPE html>") and (pytester.path / "$X").is_file()


def test_the_page_counts_only_the_items_that_ran(pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\n")
    examples = copy_example(pytester.path, "metrics")
    pytester.runpytest("--session-eval", str(examples), "-k", "gate-health", "--session-eval-html", "some.html")
    page = (pytester.path / "some.html").read_text()
    listed = listed_rows(page)
    # Every scored session's row, and only the dimension that ran: as the terminal summary,
    # no table or chart of a dimension left out ("n = 0" would say it was never decided).
    assert len(listed) == 12 and all(list(row.cells) == ["gate-health"] for row in listed)
    assert page_data(page)["columns"] == ["gate-health"]
    assert "plan-fidelity" not in page


def test_when_no_session_item_ran_the_summary_holds_only_what_was_written(pytester: pytest.Pytester) -> None:
    metrics_writer(pytester.path)([session("a")], [])
    pytester.makeini("[pytest]\n")
    pytester.makepyfile(test_unit="def test_unit(): pass\n")
    result = pytester.runpytest(
        "--session-eval", "metrics", "test_unit.py", "-k", "test_unit", "--session-eval-html", "page.html"
    )
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["*= session evaluation =*", "HTML report: page.html"])
    assert "session(s) scored" not in result.stdout.str()


def test_a_lone_surrogate_and_the_text_of_its_escape_are_two_sessions(pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\n")
    write_raw_lines(
        pytester.path / "m" / "sessions.jsonl",
        '{"session_id":"a\\ud800","status":"completed","effectiveness":{"completion_rate":1}}',
        '{"session_id":"a\\\\ud800","status":"completed","effectiveness":{"completion_rate":0.1}}',
    )
    common = (
        "--session-eval",
        "m",
        "--session-eval-html",
        "page.html",
        "--session-eval-journal",
        "j.jsonl",
        "--session-eval-model-id",
        "x",
    )
    result = pytester.runpytest(*common, "m/sessions.jsonl::a\\ud800[plan-fidelity]")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["rubric-v1: 1 session(s) scored", "journal j.jsonl: 1 record(s) appended*"])
    assert "Sessions (1)" in (pytester.path / "page.html").read_text()
    pytester.runpytest(*common).stdout.fnmatch_lines(["rubric-v1: 2 session(s) scored*"])
    assert "Sessions (2)" in (pytester.path / "page.html").read_text()


def test_pytest_html_columns_stay_empty_for_a_test_of_the_users_own(pytester: pytest.Pytester) -> None:
    pytest.importorskip("pytest_html")
    pytester.makeini("[pytest]\n")
    metrics_writer(pytester.path)([session("a")], [])
    (pytester.path / "session_eval").mkdir()  # the directory gives the user's test the plugin's keyword
    (pytester.path / "session_eval" / "test_mine.py").write_text(
        "def test_a(record_property):\n    record_property('status', 'fail')\n    record_property('dimension', 'x')\n"
    )
    pytester.runpytest("--session-eval", "metrics", "session_eval", "--html=report.html", "--self-contained-html")
    page = (pytester.path / "report.html").read_text(encoding="utf-8")
    blob = re.search(r'data-jsonblob="([^"]*)"', page)
    assert blob is not None
    tests = json.loads(html.unescape(blob.group(1)))["tests"]
    assert tests["session_eval/test_mine.py::test_a"][0]["resultsTableRow"][2] == '<td class="col-verdict"></td>'
    assert tests["metrics/sessions.jsonl::a[gate-health]"][0]["resultsTableRow"][2] != '<td class="col-verdict"></td>'


def test_the_page_tells_the_causes_of_undecided_verdicts_as_the_terminal_does(pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\n")
    examples = copy_example(pytester.path, "metrics")
    result = pytester.runpytest("--session-eval", str(examples), "--session-eval-html", "page.html")
    terminal = result.stdout.lines
    start = terminal.index("Why verdicts were not decided:") + 1
    told = []
    for line in terminal[start:]:
        if not line.startswith("  "):
            break
        told.append(line.strip())
    page = (pytester.path / "page.html").read_text()
    causes = page[page.index('<table id="causes"') : page.index("</table>", page.index('<table id="causes"'))]
    shown = []
    for dimension, status, total, items in re.findall(
        r'<tr data-dimension="([^"]*)" data-status="([^"]*)">.*?<td class="num">(\d+)</td><td><ul class="causes">(.*?)</ul>',
        causes,
    ):
        each = [
            f"{count} {html.unescape(phrase)}"
            for count, phrase in re.findall(r'<span class="count">(\d+)</span> ([^<]*)', items)
        ]
        shown.append(f"{dimension}: {total} {status}: {'; '.join(each)}")
    assert len(told) > 3 and shown == told


def test_the_page_names_the_sessions_scored_on_request(pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\n")
    metrics_writer(pytester.path)(
        [session("kept"), session("left", status="abandoned"), session("other", status="abandoned")], []
    )
    pytester.runpytest(
        "--session-eval", "metrics", "--session-eval-session", "left", "--session-eval-session", "kept",
        "--session-eval-html", "page.html",
    )  # fmt: skip
    page = (pytester.path / "page.html").read_text()
    block = page[page.index('<div id="on-request">') : page.index("</div>", page.index('<div id="on-request">'))]
    assert "Scored on request (1)" in block and ">left<" in block and "abandoned session" in block
    assert ">kept<" not in block
    assert [(row.session_id, row.requested is not None) for row in listed_rows(page)] == [
        ("kept", False),
        ("left", True),
    ]


def test_files_outside_the_rootdir_are_shown_short_and_not_scored_ones_by_file_and_line(
    pytester: pytest.Pytester, tmp_path_factory: pytest.TempPathFactory
) -> None:
    pytester.makeini("[pytest]\n")
    outside = metrics_writer(tmp_path_factory.mktemp("elsewhere"))(
        [session("a"), session("gone", status="abandoned")], [], directory="team-metrics"
    )
    inside = metrics_writer(pytester.path)([session("b"), session("also-gone", status="abandoned")], [])
    pytester.runpytest("--session-eval", str(outside), "--session-eval", str(inside), "--session-eval-html", "p.html")
    page = (pytester.path / "p.html").read_text()
    whole = str(outside / "sessions.jsonl")
    assert [(row.session_id, row.where, row.title) for row in listed_rows(page)] == [
        ("a", "team-metrics/sessions.jsonl:1", whole),  # the page adds the line to the title
        ("b", "metrics/sessions.jsonl:1", None),
    ]
    assert [(session_id, where, title) for session_id, where, title, _ in skipped_rows(page)] == [
        ("gone", "team-metrics/sessions.jsonl:2", whole),
        ("also-gone", "metrics/sessions.jsonl:2", None),
    ]


def wide_report() -> ReportData:
    """The shipped example's sessions with long ids, long evidence and a long path: what a
    real year of sessions shows."""
    long_evidence = "planned_issues=12 but effectiveness.completion_rate is missing; " * 6
    rows = []
    for index, statuses in enumerate(
        [every("fail"), every("pass", gate_health="cannot-determine"), every("not-applicable", plan_fidelity="fail")]
        * 4,
        start=1,
    ):
        verdicts = tuple(
            cell(dimension, status, f"{dimension}: {long_evidence}", score=0.7999999 if status == "fail" else None)
            for dimension, status in statuses.items()
        )
        rows.append(
            SessionRow(
                f"feature-authentication-refactor-2026-07-{index:02d}-session-{index}",
                "/home/someone/projects/orchestrator/.orchestrator/metrics/archive/2026/sessions.jsonl",
                index * 1000,
                "2026-07-20T09:00:00.123456+00:00",
                verdicts,
            )
        )
    return report(tuple(rows), not_scored=(NotScoredRow("gone", "abandoned session", "metrics/sessions.jsonl", 3),))


FITS = """(() => {
  const table = document.getElementById('sessions');
  const box = table.getBoundingClientRect();
  const holder = table.parentElement.getBoundingClientRect();
  const heads = table.querySelectorAll('thead th');
  const last = heads[heads.length - 1].getBoundingClientRect();
  return {
    table: box.right, holder: holder.right, last: last.right, viewport: window.innerWidth,
    scroll: table.parentElement.scrollWidth - table.parentElement.clientWidth,
    page: document.documentElement.scrollWidth - document.documentElement.clientWidth,
    lastName: heads[heads.length - 1].textContent, open: table.querySelectorAll('details[open]').length,
  };
})()"""


@pytest.mark.parametrize("width", [1366, 1400, 1920])
@pytest.mark.parametrize("fragment", ["", "#status=fail"], ids=["all", "failures"])
def test_the_session_table_fits_a_laptop_screen(tmp_path: Path, browser: Browser, width: int, fragment: str) -> None:
    path = tmp_path / "report.html"
    write_report(wide_report(), path)
    browser.open(path.as_uri() + fragment, width=width, height=900)
    assert browser.problems() == []
    box = browser.evaluate(FITS)
    assert box["lastName"] == "efficiency-kpis"
    assert (box["open"] > 0) is bool(fragment)  # the evidence shown makes it no wider
    # Its last column ends inside the table's box, which ends inside its holder and the viewport:
    # nothing scrolls sideways, nothing is cut.
    assert box["last"] <= box["table"] + 0.5 <= box["holder"] + 1 <= box["viewport"] + 1, box
    assert box["scroll"] == 0 and box["page"] == 0, box


def test_a_status_filter_shows_the_evidence_of_every_verdict_of_that_status(tmp_path: Path, browser: Browser) -> None:
    path = tmp_path / "report.html"
    write_report(weekly_report(), path)
    browser.open(path.as_uri() + "#status=fail")
    cells = browser.evaluate(
        """Array.from(document.querySelectorAll('#sessions td.verdict'), td => [
            td.dataset.status, !!td.querySelector('details[open]'),
            !!td.querySelector('.evidence') && td.querySelector('.evidence').checkVisibility()])"""
    )
    fails = [cell for cell in cells if cell[0] == "fail"]
    assert len(fails) == 8 and all(opened and visible for _, opened, visible in fails)
    assert not any(opened or visible for status, opened, visible in cells if status != "fail")
    # Choosing another status in the page shows that status's evidence instead.
    shown = browser.evaluate(
        """(() => { const s = document.getElementById('filter-status'); s.value = 'cannot-determine';
        s.dispatchEvent(new Event('change'));
        return Array.from(document.querySelectorAll('#sessions details[open] .evidence'), p => p.textContent); })()"""
    )
    assert shown == ["gate-health is cannot-determine"]
    # Without a status filter, evidence opens on a click.
    browser.open(path.as_uri())
    assert browser.evaluate("document.querySelectorAll('#sessions details[open]').length") == 0


def test_sessions_are_drawn_a_hundred_to_a_page_and_every_failure_is_reachable(
    tmp_path: Path, browser: Browser
) -> None:
    sessions = tuple(
        row(f"s-{index:03d}", "2026-07-20T09:00:00Z", every("fail" if index % 50 == 0 else "pass"), index)
        for index in range(1, 251)
    )
    gone = tuple(
        NotScoredRow(f"gone-{index:03d}", "abandoned session", "m/sessions.jsonl", index) for index in range(150)
    )
    path = tmp_path / "report.html"
    write_report(report(sessions, not_scored=gone), path)
    browser.open(path.as_uri())
    assert browser.problems() == []
    assert drawn_ids(browser) == [f"s-{index:03d}" for index in range(1, 101)]
    # The sessions not scored are drawn a hundred to a page too, each with its file and line.
    skipped = "Array.from(document.querySelectorAll('#not-scored-table tbody tr'), tr => tr.textContent)"
    assert browser.evaluate(skipped) == [f"gone-{i:03d}m/sessions.jsonl:{i}abandoned session" for i in range(100)]
    browser.evaluate("document.querySelectorAll('#not-scored-pages button')[1].click()")
    assert len(browser.evaluate(skipped)) == 50
    assert browser.evaluate("document.querySelector('#pages .page-of').textContent") == "Page 1 of 3 (rows 1\u2013100)"
    browser.evaluate("document.querySelectorAll('#pages button')[1].click()")  # Next
    assert drawn_ids(browser) == [f"s-{index:03d}" for index in range(101, 201)]
    browser.open(path.as_uri() + "#page=3")
    assert drawn_ids(browser) == [f"s-{index:03d}" for index in range(201, 251)]
    browser.open(path.as_uri() + "#status=fail&page=3")  # one page of failures: its first
    assert drawn_ids(browser) == ["s-050", "s-100", "s-150", "s-200", "s-250"]
    assert browser.evaluate("document.getElementById('pages').hidden") is True


def test_the_sessions_not_scored_are_drawn_when_no_session_was_scored(tmp_path: Path, browser: Browser) -> None:
    path = tmp_path / "report.html"
    write_report(
        report((), not_scored=(NotScoredRow("gone", "abandoned session", "/data/team/sessions.jsonl", 3),)), path
    )
    browser.open(path.as_uri())
    assert browser.problems() == []
    rows = "Array.from(document.querySelectorAll('#not-scored-table tbody tr'), tr => tr.textContent)"
    assert browser.evaluate(rows) == ["goneteam/sessions.jsonl:3abandoned session"]
    assert browser.evaluate("document.querySelector('#not-scored-table .where').title") == "/data/team/sessions.jsonl:3"
