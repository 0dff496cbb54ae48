"""The HTML report: deterministic, escaped, honest about what it shows; and pytest-html columns."""

from __future__ import annotations

import html
import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from builders import copy_example, metrics_writer, session, write_jsonl, write_raw_lines
from pages import (
    HOSTILE_EVIDENCE,
    HOSTILE_ID,
    hostile_report,
    weekly_report,
)

from pytest_sessioneval.report.html import (
    write_report,
)


def find_chromium() -> str:
    for name in ("chromium", "chromium-browser"):
        found = shutil.which(name)
        if found:
            return found
    pytest.skip(
        "headless Chromium not found (neither 'chromium' nor 'chromium-browser' on PATH); Debian: apt-get install chromium"
    )


def dump_dom(browser: str, url: str, profile: Path) -> tuple[str, str]:
    result = subprocess.run(
        [
            browser,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            f"--user-data-dir={profile}",
            "--enable-logging=stderr",
            "--v=0",
            "--dump-dom",
            url,
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    return result.stdout, result.stderr


def test_report_renders_in_headless_chromium_without_script_errors(tmp_path: Path) -> None:
    browser = find_chromium()
    path = tmp_path / "report.html"
    write_report(hostile_report(), path)
    dom, log = dump_dom(browser, path.as_uri(), tmp_path / "profile")
    console = [line for line in log.splitlines() if ":CONSOLE" in line]
    assert console == [], "the page logged script errors or policy violations"
    for table in (
        '<table id="dimensions"',
        '<table id="sessions"',
        '<table id="not-scored-table"',
        '<table id="advisory-table"',
    ):
        assert table in dom
    # The script ran: it revealed the filters and counted the rows.
    assert '<form id="filters" class="filters">' in dom
    assert "Showing 3 of 3 sessions" in dom
    # The data's scripts did not: the title is still the (escaped) text it was given.
    title = re.search(r"<title>(.*?)</title>", dom, re.S)
    assert title is not None and html.unescape(title.group(1)) == HOSTILE_ID
    assert "<img" not in dom
    # Each verdict's evidence became its tooltip, as text.
    tooltips = [html.unescape(t) for t in re.findall(r'<summary title="([^"]*)">', dom)]
    evidence = [html.unescape(t) for t in re.findall(r'<p class="evidence">(.*?)</p>', dom, re.S)]
    assert tooltips == evidence and HOSTILE_EVIDENCE in tooltips


def test_filters_work_in_headless_chromium(tmp_path: Path) -> None:
    browser = find_chromium()
    path = tmp_path / "report.html"
    write_report(weekly_report(), path)
    dom, log = dump_dom(browser, path.as_uri() + "#status=fail&dimension=gate-health", tmp_path / "profile")
    assert [line for line in log.splitlines() if ":CONSOLE" in line] == []
    assert "Showing 2 of 6 sessions" in dom
    hidden_rows = re.findall(r'<tr hidden="">\s*<th scope="row" class="sid">([^<]*)<', dom)
    assert hidden_rows == ["w28-a", "w30-a", "w30-b", "undated"]
    dom, _ = dump_dom(browser, path.as_uri() + "#q=W30-B", tmp_path / "profile")
    assert "Showing 1 of 6 sessions" in dom


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


def test_the_html_option_needs_a_writable_place(pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\n")
    (pytester.path / "sessions.jsonl").write_text('{"session_id": "a", "status": "completed"}\n')
    result = pytester.runpytest("--session-eval", "sessions.jsonl", "--session-eval-html", "no/such/dir/r.html")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--session-eval-html: *r.html: directory *no/such/dir does not exist*"])


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
    cells = re.findall(r'<td class="verdict" data-dimension="([^"]+)" data-status="([^"]*)"', page)
    # Every scored session's row, and only the dimension that ran: as the terminal summary,
    # no table or chart of a dimension left out ("n = 0" would say it was never decided).
    assert len(cells) == 12 and {dimension for dimension, _ in cells} == {"gate-health"}
    assert set(re.findall(r'<th scope="col" data-dimension="([^"]+)"', page)) == {"gate-health"}
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
