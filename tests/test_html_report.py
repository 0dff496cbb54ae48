"""The HTML report: deterministic, escaped, honest about what it shows; and pytest-html columns."""

from __future__ import annotations

import base64
import dataclasses
import hashlib
import html
import json
import re
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import pytest
from conftest import metrics_writer, session, write_jsonl, write_raw_lines

from pytest_sessioneval.report.html import (
    ADVISORY_HEADING,
    ReportData,
    SessionRow,
    VerdictCell,
    render_report,
    write_report,
)

DIMENSIONS = ("verification-evidence", "plan-fidelity", "gate-health", "process-safety", "efficiency-kpis")

HOSTILE_ID = '<script>document.title="pwned-by-id"</script>'
HOSTILE_EVIDENCE = '"><img src=x onerror="document.title=\'pwned\'">\'</details><script>alert(1)</script>'
HOSTILE_DIMENSION = 'x" onmouseover="alert(2)'


def cell(dimension: str, status: str, evidence: str = "", method: str = "deterministic", score: float | None = None) -> VerdictCell:
    return VerdictCell(dimension, method, status, evidence or f"{dimension} is {status}", score)


def row(session_id: str, started_at: str | None, statuses: dict[str, str], line: int = 1, extra: tuple[VerdictCell, ...] = ()) -> SessionRow:
    verdicts = tuple(cell(dimension, status) for dimension, status in statuses.items())
    return SessionRow(session_id, "metrics/sessions.jsonl", line, started_at, verdicts + extra)


def report(sessions: tuple[SessionRow, ...], not_scored: tuple[tuple[str, str], ...] = (), title: str = "Session evaluation") -> ReportData:
    return ReportData(
        title=title,
        rubric_version="rubric-v1",
        rubric_sha256="ab" * 32,
        standard_version="aiat-llm-eval/1.0",
        plugin_version="pytest-sessioneval/0.1.0",
        timestamp="2026-08-01T09:00:00Z",
        dimension_order=DIMENSIONS,
        sessions=sessions,
        not_scored=not_scored,
    )


def every(status: str, **overrides: str) -> dict[str, str]:
    statuses = {dimension: status for dimension in DIMENSIONS}
    statuses.update({key.replace("_", "-"): value for key, value in overrides.items()})
    return statuses


def weekly_report() -> ReportData:
    """Sessions in ISO weeks 28 (two), 30 (two) and 31 (one), none in week 29, one undated."""
    return report(
        (
            row("w28-a", "2026-07-06T09:00:00Z", every("pass", efficiency_kpis="not-applicable"), 1),
            row("w28-b", "2026-07-12T23:59:59Z", every("fail", efficiency_kpis="not-applicable"), 2),
            row("w30-a", "2026-07-20T00:00:00+00:00", every("pass", efficiency_kpis="not-applicable", gate_health="cannot-determine"), 3),
            row("w30-b", "2026-07-26T09:00:00Z", every("pass", efficiency_kpis="not-applicable"), 4),
            row("w31-a", "2026-07-27T09:00:00Z", every("fail", efficiency_kpis="not-applicable"), 5),
            row("undated", "yesterday", every("pass", efficiency_kpis="not-applicable"), 6),
        ),
        not_scored=(("abandoned-1", "abandoned session (status is 'abandoned')"),),
    )


def hostile_report() -> ReportData:
    evil = (
        cell("plan-fidelity", "fail", HOSTILE_EVIDENCE, score=0.5),
        cell(HOSTILE_DIMENSION, "pass", HOSTILE_EVIDENCE),
    )
    statuses = every("pass", plan_fidelity="fail")
    del statuses["plan-fidelity"]
    hostile = report(
        (
            SessionRow(HOSTILE_ID, "m/<b>sessions</b>.jsonl", 1, '"><script>alert(3)</script>', tuple(cell(d, s) for d, s in statuses.items()) + evil),
            row("plain", "2026-07-20T09:00:00Z", every("pass"), 2),
            row("judged", "2026-07-21T09:00:00Z", every("fail"), 3, extra=(cell("instruction-adherence", "pass", HOSTILE_EVIDENCE, method="judge"),)),
        ),
        not_scored=((HOSTILE_ID, HOSTILE_EVIDENCE),),
        title=HOSTILE_ID,
    )
    return dataclasses.replace(
        hostile,
        rubric_version="<i>rubric</i>",
        rubric_sha256="<i>sha</i>",
        standard_version="<i>standard</i>",
        plugin_version="<i>plugin</i>",
        timestamp="<i>timestamp</i>",
    )


class Document(HTMLParser):
    """Every start tag with its attributes, and the text, as a browser's parser sees them."""

    def __init__(self, text: str) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.text: list[str] = []
        self.feed(text)
        self.close()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def section(page: str, section_id: str) -> str:
    start = page.index(f'<section id="{section_id}"')
    return page[start : page.index("</section>", start) + len("</section>")]


# --------------------------------------------------------------------------- determinism


def test_same_input_gives_the_same_bytes(tmp_path: Path) -> None:
    data = weekly_report()
    assert render_report(data) == render_report(weekly_report())
    write_report(data, tmp_path / "a.html")
    write_report(weekly_report(), tmp_path / "b.html")
    assert (tmp_path / "a.html").read_bytes() == (tmp_path / "b.html").read_bytes()
    assert b"\r\n" not in (tmp_path / "a.html").read_bytes()


def test_the_given_timestamp_is_the_only_time_in_the_page() -> None:
    data = weekly_report()
    page = render_report(data)
    assert "2026-08-01T09:00:00Z" in page
    later = render_report(dataclasses.replace(data, timestamp="2030-01-01T00:00:00Z"))
    assert later == page.replace("2026-08-01T09:00:00Z", "2030-01-01T00:00:00Z")


# --------------------------------------------------------------------------- escaping


def test_markup_and_script_in_the_data_show_as_text() -> None:
    page = render_report(hostile_report())
    document = Document(page)
    scripts = [tag for tag, _ in document.tags if tag == "script"]
    assert len(scripts) == 1, "only the report's own script"
    assert not [tag for tag, _ in document.tags if tag in {"img", "iframe", "object", "embed", "b", "i"}]
    for tag, attrs in document.tags:
        handlers = [name for name in attrs if name.startswith("on")]
        assert not handlers, f"<{tag}> got event handler attributes {handlers}"
    text = "".join(document.text)
    assert HOSTILE_ID in text
    assert HOSTILE_EVIDENCE in text
    assert "m/<b>sessions</b>.jsonl:1" in text
    # The raw markup never appears unescaped in the file.
    assert HOSTILE_ID not in page and HOSTILE_EVIDENCE not in page
    assert page.count("<script") == 1


def test_attribute_values_from_the_data_are_quoted_and_escaped() -> None:
    page = render_report(hostile_report())
    document = Document(page)
    dimensions = {attrs.get("data-dimension") for _, attrs in document.tags}
    assert HOSTILE_DIMENSION in dimensions
    escaped = html.escape(HOSTILE_DIMENSION, quote=True)
    assert f'data-dimension="{escaped}"' in page


def test_each_evidence_text_is_written_once() -> None:
    # The tooltip is set by the script from the text: a year of sessions is not written twice.
    page = render_report(weekly_report())
    document = Document(page)
    assert not [attrs for tag, attrs in document.tags if "title" in attrs and tag != "title"]
    cells = re.findall(r'<td class="verdict"[^>]*>(.*?)</td>', page)
    assert cells and all(cell.count('class="evidence"') == 1 for cell in cells if "<details>" in cell)


def test_the_page_loads_nothing_and_pins_its_own_style_and_script() -> None:
    page = render_report(weekly_report())
    assert "://" not in page
    assert not re.search(r"\b(src|href|xlink:href)\s*=", page)
    assert "@import" not in page and "url(" not in page
    csp = re.search(r'<meta http-equiv="Content-Security-Policy" content="([^"]*)">', page)
    assert csp is not None
    policy = html.unescape(csp.group(1))
    assert "default-src 'none'" in policy
    for tag in ("script", "style"):
        body = re.search(rf"<{tag}>(.*?)</{tag}>", page, re.S)
        assert body is not None
        digest = base64.b64encode(hashlib.sha256(body.group(1).encode()).digest()).decode()
        assert f"{tag}-src 'sha256-{digest}'" in policy


# --------------------------------------------------------------------------- what is shown


def test_per_dimension_table_counts_rates_and_intervals() -> None:
    page = render_report(weekly_report())
    table = page[page.index('<table id="dimensions"') : page.index("</table>", page.index('<table id="dimensions"'))]
    rows = {
        match.group(1): [html.unescape(c) for c in re.findall(r"<td[^>]*>([^<]*)</td>", match.group(2))]
        for match in re.finditer(r'<tr data-dimension="([^"]+)">(.*?)</tr>', table)
    }
    assert list(rows) == list(DIMENSIONS)
    # pass, fail, not-applicable, cannot-determine, n, rate, interval
    assert rows["plan-fidelity"][:7] == ["4", "2", "0", "0", "6", "0.67", "0.30\u20130.90"]
    assert rows["gate-health"][:7] == ["3", "2", "0", "1", "5", "0.60", "0.23\u20130.88"]
    assert rows["efficiency-kpis"][:7] == ["0", "0", "6", "0", "0", "\u2014", "n = 0, no pass rate"]


def test_one_decided_session_is_labelled_without_an_interval() -> None:
    data = report((row("only", "2026-07-20T09:00:00Z", every("not-applicable", gate_health="pass")),))
    page = render_report(data)
    assert "n = 1, no interval" in page
    assert 'class="whisker"' not in page  # no interval drawn for n = 1 either


def test_judge_verdicts_appear_only_in_the_advisory_section() -> None:
    mark = "JUDGE-EVIDENCE-7f3a"
    judged = cell("instruction-adherence", "fail", mark, method="judge", score=0.2)
    data = report(
        (
            row("a", "2026-07-20T09:00:00Z", every("pass"), 1, extra=(judged,)),
            row("b", "2026-07-21T09:00:00Z", every("fail"), 2),
        )
    )
    page = render_report(data)
    advisory = section(page, "advisory")
    assert ADVISORY_HEADING in advisory
    assert "instruction-adherence" in advisory and mark in advisory
    outside = page.replace(advisory, "")
    assert "instruction-adherence" not in outside
    assert mark not in outside
    # Everything but the advisory section is what the deterministic verdicts alone give.
    without = report(
        tuple(
            dataclasses.replace(r, verdicts=tuple(v for v in r.verdicts if v.method == "deterministic"))
            for r in data.sessions
        )
    )
    assert render_report(without) == page.replace(advisory + "\n", "")


def test_no_advisory_section_without_judge_verdicts() -> None:
    page = render_report(weekly_report())
    assert ADVISORY_HEADING not in page and 'id="advisory"' not in page


def test_no_overall_figure_outside_what_this_does_not_show() -> None:
    page = render_report(hostile_report())
    rest = page.replace(section(page, "does-not-show"), "")
    found = re.findall(r"\b(overall|global score|mean|average|aggregate|total score|combined)\b", rest, re.I)
    assert found == []


def test_what_this_does_not_show_says_the_four_things() -> None:
    text = " ".join(Document(section(render_report(weekly_report()), "does-not-show")).text)
    assert "What this does not show" in text
    assert "No global score." in text and "no overall" in text
    assert "n per figure." in text and "95% Wilson interval" in text
    assert "Reproducibility means the scoring replays." in text and "the model is not deterministic" in text
    assert "Self-evaluation." in text and "not an independent audit" in text


def test_provenance_names_rubric_hash_standard_plugin_and_timestamp() -> None:
    text = " ".join(Document(section(render_report(weekly_report()), "provenance")).text)
    for value in ("rubric-v1", "ab" * 32, "aiat-llm-eval/1.0", "pytest-sessioneval/0.1.0", "2026-08-01T09:00:00Z"):
        assert value in text


def test_weekly_chart_has_one_series_per_deterministic_dimension() -> None:
    data = weekly_report()
    data = report(
        tuple(
            SessionRow(r.session_id, r.source, r.line, r.started_at, r.verdicts + (cell("report-quality", "pass", method="judge"),))
            for r in data.sessions
        )
    )
    page = render_report(data)
    series = re.findall(r'<g class="series" data-dimension="([^"]*)">', page)
    assert series == list(DIMENSIONS)


def test_weekly_chart_leaves_gaps_for_empty_weeks_and_counts_undated_sessions_apart() -> None:
    page = render_report(weekly_report())
    weekly = section(page, "weekly")
    assert [label for label in re.findall(r">(\d{4}-W\d\d)<", weekly)][:4] == ["2026-W28", "2026-W29", "2026-W30", "2026-W31"]
    plan = weekly[weekly.index('data-dimension="plan-fidelity"') :]
    plan = plan[: plan.index("</g></svg>")]
    # W28 stands alone (W29 is empty): the only line joins W30 and W31.
    paths = re.findall(r'<path class="line" d="([^"]*)"', plan)
    assert len(paths) == 1 and paths[0].count("L") == 1
    tooltips = [html.unescape(t) for t in re.findall(r"<title>([^<]*)</title>", plan)]
    assert tooltips == [
        "2026-W28 (week of 2026-07-06): pass rate 0.50 (n = 2, 95% CI 0.09\u20130.91)",
        "2026-W30 (week of 2026-07-20): pass rate 1.00 (n = 2, 95% CI 0.34\u20131.00)",
        "2026-W31 (week of 2026-07-27): pass rate 0.00 (n = 1, no interval)",
    ]
    gate = weekly[weekly.index('data-dimension="gate-health"') :]
    assert "pass rate 1.00 (n = 1, no interval); 1 cannot-determine" in html.unescape(gate[: gate.index("</g></svg>")])
    assert "1 session without a parseable started_at (or one outside the years 1 to 9999): counted in the tables, not in the charts." in weekly
    assert ">undated<" in section(page, "per-session")


def test_session_table_lists_every_verdict_with_its_evidence_and_record() -> None:
    page = render_report(weekly_report())
    sessions = section(page, "per-session")
    document = Document(sessions)
    cells = [attrs for tag, attrs in document.tags if tag == "td" and "data-status" in attrs]
    assert len(cells) == 6 * len(DIMENSIONS)
    assert {attrs["data-status"] for attrs in cells} == {"pass", "fail", "not-applicable", "cannot-determine"}
    text = "".join(document.text)
    assert "metrics/sessions.jsonl:3" in text and "gate-health is cannot-determine" in text
    assert "abandoned session (status is 'abandoned')" in "".join(Document(section(page, "not-scored")).text)


# --------------------------------------------------------------------------- in a browser


def find_chromium() -> str:
    for name in ("chromium", "chromium-browser"):
        found = shutil.which(name)
        if found:
            return found
    pytest.skip("headless Chromium not found (neither 'chromium' nor 'chromium-browser' on PATH); Debian: apt-get install chromium")


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
    for table in ('<table id="dimensions"', '<table id="sessions"', '<table id="not-scored-table"', '<table id="advisory-table"'):
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


# --------------------------------------------------------------------------- pytest-html


@pytest.mark.parametrize("workers", [(), ("-n", "2")], ids=["serial", "xdist"])
def test_pytest_html_rows_carry_verdict_and_evidence_escaped(pytester: pytest.Pytester, workers: tuple[str, ...]) -> None:
    pytest.importorskip("pytest_html")
    pytester.makeini("[pytest]\n")
    metrics = pytester.path / "metrics"
    metrics.mkdir()
    hostile = "<script>alert(1)</script>"
    write_jsonl(
        metrics / "sessions.jsonl",
        [
            session("s-1", total_files_changed=0, total_waves=0, waves=[], effectiveness={"completion_rate": hostile, "planned_issues": 3}),
            {"session_id": "gone", "status": "abandoned", "started_at": "2026-07-20T11:00:00Z"},
            {"session_id": "<img src=x onerror=alert(1)>", "status": "abandoned"},
        ],
    )
    write_jsonl(metrics / "events.jsonl", [])
    result = pytester.runpytest("--session-eval", str(metrics), "--html=report.html", "--self-contained-html", "-p", "no:randomly", *workers)
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
    examples = Path(__file__).resolve().parent.parent / "examples" / "metrics"
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
def test_the_page_replaces_only_a_page_or_an_empty_file(pytester: pytest.Pytester, content: bytes, replaced: bool) -> None:
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
        ("--session-eval-journal", ("--json-report", "--json-report-file", "out.xml"), "the JSON report (--json-report-file)"),
        ("--session-eval-html", ("--junitxml", "$REPORTS/out.xml"), "the JUnit XML report (--junitxml)"),  # as pytest expands it
        ("--session-eval-html", ("--html", "$REPORTS/out.xml"), "the pytest-html report (--html)"),  # as pytest-html does
    ],
)
def test_an_output_that_is_another_report_of_the_run_is_a_usage_error(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, output: str, report: tuple[str, ...], what: str
) -> None:
    # One of them would silently replace the other, whichever is written last.
    pytester.makeini("[pytest]\n")
    monkeypatch.setenv("REPORTS", str(pytester.path))
    (pytester.path / "sessions.jsonl").write_text('{"session_id": "a", "status": "completed"}\n')
    result = pytester.runpytest("--session-eval", "sessions.jsonl", output, "out.xml", *report, "--session-eval-model-id", "m")
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
    result.stderr.fnmatch_lines(["ERROR: the JUnit XML report (--junitxml) */sessions.jsonl is a sessions file of this run*"])
    assert (pytester.path / "sessions.jsonl").read_bytes() == before


def test_a_report_is_checked_where_its_plugin_writes_it_after_a_conftest_changed_directory(pytester: pytest.Pytester) -> None:
    # JUnit XML and pytest-html read their paths from the directory of the moment, which a
    # conftest may change as it is imported.
    pytester.makeini("[pytest]\n")
    pytester.mkdir("tests")
    (pytester.path / "tests" / "conftest.py").write_text("import os\nos.chdir(os.path.dirname(os.path.abspath(__file__)))\n")
    (pytester.path / "tests" / "test_a.py").write_text("def test_ok():\n    pass\n")
    (pytester.path / "sessions.jsonl").write_text('{"session_id": "a", "status": "completed"}\n')
    before = (pytester.path / "sessions.jsonl").read_bytes()
    refused = pytester.runpytest_subprocess("tests", "--session-eval", "sessions.jsonl", "--junitxml", "../sessions.jsonl")
    assert refused.ret == pytest.ExitCode.USAGE_ERROR
    refused.stderr.fnmatch_lines(["ERROR: the JUnit XML report (--junitxml) */sessions.jsonl is a sessions file of this run*"])
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
    result = pytester.runpytest("--session-eval", "sessions.jsonl", "--session-eval-html", "out.html", "--json-report", "--json-report-file=$X")
    assert result.ret == pytest.ExitCode.OK
    assert (pytester.path / "out.html").read_text().startswith("<!DOCTYPE html>") and (pytester.path / "$X").is_file()


def test_weeks_at_the_ends_of_the_calendar_and_decades_apart() -> None:
    statuses = every("pass", efficiency_kpis="not-applicable")
    page = render_report(report((
        row("year-0", "0000-01-03T00:00:00Z", statuses, 1),
        row("first-week", "0001-01-01T00:00:00Z", statuses, 2),
        row("last-week", "9999-12-31T23:59:59Z", statuses, 3),
        row("now", "2026-07-20T09:00:00Z", statuses, 4),
    )))
    weekly = section(page, "weekly")
    # Only the weeks that hold sessions, not the half a million between them.
    assert sorted(set(re.findall(r">(\d{4}-W\d\d)<", weekly))) == ["0001-W01", "2026-W30", "9999-W52"]
    assert "1 session without a parseable started_at (or one outside the years 1 to 9999)" in weekly


def test_characters_a_page_may_not_hold_are_shown_as_escapes() -> None:
    report = dataclasses.replace(hostile_report(), sessions=(row("a\x00b\x1bc\x85d\ud800e", "2026-07-20T09:00:00Z", {"gate-health": "pass"}),))
    page = render_report(report)
    assert not re.search("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff]", page)
    assert "a\\x00b\\x1bc\\x85d\\ud800e" in page
    # Noncharacters of every plane, and the bidirectional controls that would make one id
    # display as another (U+202E turns the rest around).
    spoof = dataclasses.replace(hostile_report(), sessions=(row("ok\u202e1-dab\U0001fffe", "2026-07-20T09:00:00Z", {"gate-health": "pass"}),))
    page = render_report(spoof)
    assert "\u202e" not in page and "\U0001fffe" not in page
    assert "ok\\u202e1-dab\\U0001fffe" in page


def test_the_page_counts_only_the_items_that_ran(pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\n")
    examples = Path(__file__).resolve().parent.parent / "examples" / "metrics"
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
    result = pytester.runpytest("--session-eval", "metrics", "test_unit.py", "-k", "test_unit", "--session-eval-html", "page.html")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["*= session evaluation =*", "HTML report: page.html"])
    assert "session(s) scored" not in result.stdout.str()


def test_a_score_is_shown_as_recorded_never_rounded() -> None:
    scored = (cell("plan-fidelity", "fail", score=0.7999999),)
    page = render_report(report((row("s", "2026-07-20T09:00:00Z", {}, extra=scored),)))
    assert '<span class="score">0.7999999</span>' in page


def test_a_lone_surrogate_and_the_text_of_its_escape_are_two_sessions(pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\n")
    write_raw_lines(
        pytester.path / "m" / "sessions.jsonl",
        '{"session_id":"a\\ud800","status":"completed","effectiveness":{"completion_rate":1}}',
        '{"session_id":"a\\\\ud800","status":"completed","effectiveness":{"completion_rate":0.1}}',
    )
    common = ("--session-eval", "m", "--session-eval-html", "page.html", "--session-eval-journal", "j.jsonl", "--session-eval-model-id", "x")
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


def test_a_chart_line_joins_adjacent_weeks_only_also_over_a_long_span() -> None:
    sessions = (row("old", "2014-01-08T09:00:00Z", {"gate-health": "pass"}), row("new", "2026-07-20T09:00:00Z", {"gate-health": "fail"}))
    page = render_report(report(sessions))
    assert '<path class="line"' not in page  # twelve years apart: two points, no line between them
    close = (row("a", "2026-07-13T09:00:00Z", {"gate-health": "pass"}), row("b", "2026-07-20T09:00:00Z", {"gate-health": "fail"}))
    assert render_report(report(close)).count('<path class="line"') == 1


def test_a_page_without_sessions_says_so_once() -> None:
    page = render_report(report(()))
    assert "No session was scored, so there is no weekly chart." in page
    assert "Every session has a parseable started_at" not in page


def test_a_page_where_no_deterministic_item_ran_says_so_instead_of_empty_tables() -> None:
    judged = (cell("report-quality", "pass", method="judge"),)
    page = render_report(dataclasses.replace(report((row("s", "2026-07-20T09:00:00Z", {}, extra=judged),)), dimension_order=()))
    assert page.count("No item of a deterministic dimension ran") == 2
    assert "<tbody></tbody>" not in page and '<div class="charts"></div>' not in page
