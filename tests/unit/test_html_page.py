"""The HTML report: deterministic, escaped, honest about what it shows; and pytest-html columns."""

from __future__ import annotations

import base64
import dataclasses
import hashlib
import html
import json
import re
from collections import Counter
from html.parser import HTMLParser
from pathlib import Path

import pytest
from pages import (
    DIMENSIONS,
    HOSTILE_DIMENSION,
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

from pytest_sessioneval import RUBRIC_V1
from pytest_sessioneval.report import listing
from pytest_sessioneval.report.html import ADVISORY_HEADING, render_report, write_report
from pytest_sessioneval.report.page_data import NotScoredRow, ReportData, SessionRow, VerdictCell, where_shown
from pytest_sessioneval.report.summary import ordered_causes, told_causes


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


def test_markup_and_script_in_the_data_show_as_text() -> None:
    page = render_report(hostile_report())
    document = Document(page)
    scripts = [attrs for tag, attrs in document.tags if tag == "script"]
    # The report's own script, and the data it draws the session table from (never run).
    assert scripts == [{"type": "application/json", "id": "session-data"}, {}]
    assert not [tag for tag, _ in document.tags if tag in {"img", "iframe", "object", "embed", "b", "i"}]
    for tag, attrs in document.tags:
        handlers = [name for name in attrs if name.startswith("on")]
        assert not handlers, f"<{tag}> got event handler attributes {handlers}"
    text = "".join(document.text)
    assert HOSTILE_ID in text
    assert HOSTILE_EVIDENCE in text
    assert skipped_rows(page) == [(HOSTILE_ID, "m/<b>sessions</b>.jsonl:4", None, HOSTILE_EVIDENCE)]
    listed = listed_rows(page)
    assert listed[0].session_id == HOSTILE_ID and listed[0].where == "m/<b>sessions</b>.jsonl:1"
    assert HOSTILE_EVIDENCE in {evidence for row in listed for _, evidence, _ in row.cells.values()}
    # The raw markup never appears unescaped in the file, nor anything that would end the data block.
    assert HOSTILE_ID not in page and HOSTILE_EVIDENCE not in page
    assert page.count("<script") == 2 and page.count("</script") == 2
    data = page[page.index('id="session-data">') : page.index("</script>")]
    assert not set("<>&") & set(data.removeprefix('id="session-data">'))


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
    evidence = [evidence for _, evidence, _ in page_data(page)["verdicts"]]
    assert evidence and len(evidence) == len(set(evidence))
    assert all(page.count(json.dumps(text)) == 1 for text in evidence)
    # Each row refers to its verdicts: two sessions with the same verdict share it.
    assert len({row.cells["efficiency-kpis"] for row in listed_rows(page)}) == 1


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
            SessionRow(
                r.session_id,
                r.source,
                r.line,
                r.started_at,
                (*r.verdicts, cell("report-quality", "pass", method="judge")),
            )
            for r in data.sessions
        )
    )
    page = render_report(data)
    series = re.findall(r'<g class="series" data-dimension="([^"]*)">', page)
    assert series == list(DIMENSIONS)


def test_weekly_chart_leaves_gaps_for_empty_weeks_and_counts_undated_sessions_apart() -> None:
    page = render_report(weekly_report())
    weekly = section(page, "weekly")
    assert [label for label in re.findall(r">(\d{4}-W\d\d)<", weekly)][:4] == [
        "2026-W28",
        "2026-W29",
        "2026-W30",
        "2026-W31",
    ]
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
    assert (
        "1 session without a parseable started_at (or one outside the years 1 to 9999): counted in the tables, not in the charts."
        in weekly
    )
    assert "undated" in [row.session_id for row in listed_rows(page)]


def test_session_table_lists_every_verdict_with_its_evidence_and_record() -> None:
    page = render_report(weekly_report())
    listed = listed_rows(page)
    assert [row.session_id for row in listed] == ["w28-a", "w28-b", "w30-a", "w30-b", "w31-a", "undated"]
    assert all(list(row.cells) == list(DIMENSIONS) for row in listed)
    assert {status for row in listed for status, _, _ in row.cells.values()} == {
        "pass",
        "fail",
        "not-applicable",
        "cannot-determine",
    }
    assert listed[2].where == "metrics/sessions.jsonl:3"
    assert listed[2].cells["gate-health"] == ("cannot-determine", "gate-health is cannot-determine", "")
    reasons = " ".join(" ".join(Document(section(page, "not-scored")).text).split())
    assert "1 abandoned session (status is 'abandoned')" in reasons
    assert skipped_rows(page) == [
        ("abandoned-1", "metrics/sessions.jsonl:7", None, "abandoned session (status is 'abandoned')")
    ]


def test_weeks_at_the_ends_of_the_calendar_and_decades_apart() -> None:
    statuses = every("pass", efficiency_kpis="not-applicable")
    page = render_report(
        report(
            (
                row("year-0", "0000-01-03T00:00:00Z", statuses, 1),
                row("first-week", "0001-01-01T00:00:00Z", statuses, 2),
                row("last-week", "9999-12-31T23:59:59Z", statuses, 3),
                row("now", "2026-07-20T09:00:00Z", statuses, 4),
            )
        )
    )
    weekly = section(page, "weekly")
    # Only the weeks that hold sessions, not the half a million between them.
    assert sorted(set(re.findall(r">(\d{4}-W\d\d)<", weekly))) == ["0001-W01", "2026-W30", "9999-W52"]
    assert "1 session without a parseable started_at (or one outside the years 1 to 9999)" in weekly


def test_characters_a_page_may_not_hold_are_shown_as_escapes() -> None:
    report = dataclasses.replace(
        hostile_report(), sessions=(row("a\x00b\x1bc\x85d\ud800e", "2026-07-20T09:00:00Z", {"gate-health": "pass"}),)
    )
    page = render_report(report)
    assert not re.search("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff]", page)
    assert listed_rows(page)[0].session_id == "a\\x00b\\x1bc\\x85d\\ud800e"
    # Noncharacters of every plane, and the bidirectional controls that would make one id
    # display as another (U+202E turns the rest around).
    spoof = dataclasses.replace(
        hostile_report(), sessions=(row("ok\u202e1-dab\U0001fffe", "2026-07-20T09:00:00Z", {"gate-health": "pass"}),)
    )
    page = render_report(spoof)
    assert "\u202e" not in page and "\U0001fffe" not in page
    assert listed_rows(page)[0].session_id == "ok\\u202e1-dab\\U0001fffe"


def test_a_score_is_shown_as_recorded_never_rounded() -> None:
    scored = (cell("plan-fidelity", "fail", score=0.7999999),)
    page = render_report(report((row("s", "2026-07-20T09:00:00Z", {}, extra=scored),)))
    assert listed_rows(page)[0].cells["plan-fidelity"] == ("fail", "plan-fidelity is fail", "0.7999999")


def test_a_chart_line_joins_adjacent_weeks_only_also_over_a_long_span() -> None:
    sessions = (
        row("old", "2014-01-08T09:00:00Z", {"gate-health": "pass"}),
        row("new", "2026-07-20T09:00:00Z", {"gate-health": "fail"}),
    )
    page = render_report(report(sessions))
    assert '<path class="line"' not in page  # twelve years apart: two points, no line between them
    close = (
        row("a", "2026-07-13T09:00:00Z", {"gate-health": "pass"}),
        row("b", "2026-07-20T09:00:00Z", {"gate-health": "fail"}),
    )
    assert render_report(report(close)).count('<path class="line"') == 1


def test_a_page_without_sessions_says_so_once() -> None:
    page = render_report(report(()))
    assert "No session was scored, so there is no weekly chart." in page
    assert "Every session has a parseable started_at" not in page


def test_a_page_where_no_deterministic_item_ran_says_so_instead_of_empty_tables() -> None:
    judged = (cell("report-quality", "pass", method="judge"),)
    page = render_report(
        dataclasses.replace(report((row("s", "2026-07-20T09:00:00Z", {}, extra=judged),)), dimension_order=())
    )
    assert page.count("No item of a deterministic dimension ran") == 2
    assert "<tbody></tbody>" not in page and '<div class="charts"></div>' not in page


def undecided_report() -> ReportData:
    def undecided(dimension: str, status: str, cause: str | None) -> VerdictCell:
        return VerdictCell(dimension, "deterministic", status, f"{dimension} is {status}", None, cause)

    sessions = tuple(
        row(f"s{index}", "2026-07-20T09:00:00Z", {}, index, extra=cells)
        for index, cells in enumerate(
            [
                (undecided("gate-health", "cannot-determine", "no-events"), undecided("plan-fidelity", "pass", None)),
                (undecided("gate-health", "cannot-determine", "peer-overlap"),),
                (undecided("gate-health", "cannot-determine", "peer-overlap"),),
                (undecided("gate-health", "not-applicable", "no-waves"),),
                (undecided("gate-health", "cannot-determine", "a-new-code"),),
                (undecided("gate-health", "cannot-determine", None),),
                (undecided("plan-fidelity", "not-applicable", "unplanned"),),
            ],
            start=1,
        )
    )
    return dataclasses.replace(report(sessions), causes=RUBRIC_V1.causes)


def test_the_page_tells_why_verdicts_were_not_decided_in_the_rubrics_words() -> None:
    page = render_report(undecided_report())
    causes = page[page.index('<table id="causes"') : page.index("</table>", page.index('<table id="causes"'))]
    rows = [
        " ".join(" ".join(Document(cells).text).split())
        for cells in re.findall(r"<tr data-dimension=[^>]*>(.*?)</tr>", causes)
    ]
    assert rows == [
        # In rubric order, cannot-determine before not-applicable, each cause most frequent
        # first and then by code (none last); as the terminal tells them.
        "plan-fidelity not-applicable 1 1 " + RUBRIC_V1.causes["unplanned"],
        "gate-health cannot-determine 5 2 "
        + RUBRIC_V1.causes["peer-overlap"]
        + " 1 a-new-code 1 "
        + RUBRIC_V1.causes["no-events"]
        + " 1 with no cause given",
        "gate-health not-applicable 1 1 " + RUBRIC_V1.causes["no-waves"],
    ]
    assert ordered_causes(
        Counter({("cannot-determine", "no-events"): 1, ("cannot-determine", "peer-overlap"): 2, ("pass", None): 9})
    ) == [("cannot-determine", "peer-overlap", 2), ("cannot-determine", "no-events", 1)]
    assert told_causes(
        Counter({("cannot-determine", "peer-overlap"): 2, ("cannot-determine", None): 1}),
        {"peer-overlap": "overlapping"},
    ) == [("cannot-determine", 3, "2 overlapping; 1 with no cause given")]


def test_no_cause_table_when_every_verdict_was_decided() -> None:
    page = render_report(report((row("s", "2026-07-20T09:00:00Z", every("pass")),)))
    assert 'id="causes"' not in page


def test_sessions_scored_on_request_are_named_with_the_rule_they_passed_over() -> None:
    named = dataclasses.replace(
        row("asked", "2026-07-20T09:00:00Z", every("pass"), 3), on_request="abandoned session (status is 'abandoned')"
    )
    page = render_report(report((row("plain", "2026-07-20T09:00:00Z", every("pass"), 2), named)))
    block = page[page.index('<div id="on-request">') : page.index("</div>", page.index('<div id="on-request">'))]
    said = " ".join(" ".join(Document(block).text).split())
    assert said.startswith(
        "Scored on request (1), although the eligibility rule would leave them out (the session was named "
        "for scoring): asked metrics/sessions.jsonl:3 : abandoned session (status is 'abandoned')"
    )
    assert [listed.requested for listed in listed_rows(page)] == [None, "abandoned session (status is 'abandoned')"]
    assert 'id="on-request"' not in render_report(weekly_report())


@pytest.mark.parametrize(
    ("source", "shown", "title"),
    [
        ("metrics/sessions.jsonl", "metrics/sessions.jsonl", None),
        ("../elsewhere/sessions.jsonl", "../elsewhere/sessions.jsonl", None),
        ("/srv/data/team/metrics/sessions.jsonl", "metrics/sessions.jsonl", "/srv/data/team/metrics/sessions.jsonl"),
        ("/sessions.jsonl", "sessions.jsonl", "/sessions.jsonl"),
        ("C:\\data\\metrics\\sessions.jsonl", "metrics/sessions.jsonl", "C:\\data\\metrics\\sessions.jsonl"),
    ],
)
def test_a_file_outside_the_project_is_shown_short_with_its_whole_path_on_hover(
    source: str, shown: str, title: str | None
) -> None:
    assert where_shown(source) == (shown, title)
    data = report(
        (dataclasses.replace(row("s", "2026-07-20T09:00:00Z", every("pass"), 4), source=source),),
        not_scored=(NotScoredRow("gone", "abandoned session", source, 9),),
    )
    page = render_report(data)
    assert [(listed.where, listed.title) for listed in listed_rows(page)] == [(f"{shown}:4", title)]
    assert skipped_rows(page) == [("gone", f"{shown}:9", title, "abandoned session")]


def many(count: int, fail_every: int) -> ReportData:
    """``count`` sessions with long evidence; every ``fail_every``-th one fails gate-health."""
    return report(
        tuple(
            SessionRow(
                f"session-{index:06d}",
                "metrics/sessions.jsonl",
                index,
                "2026-07-20T09:00:00Z",
                tuple(
                    cell(
                        dimension,
                        "fail" if dimension == "gate-health" and index % fail_every == 0 else "pass",
                        f"{dimension} of session {index}: " + "x" * 200,
                    )
                    for dimension in DIMENSIONS
                ),
            )
            for index in range(1, count + 1)
        )
    )


@pytest.mark.parametrize(
    ("budget", "listed", "all_evidence"),
    [
        (400_000, 300, True),  # everything fits (in 390,525 bytes)
        (40_000, 300, False),  # every row, the evidence of fails alone (32,103)
        (20_000, 60, False),  # the rows with a fail alone, with that evidence (18,271)
        (9_000, 29, False),  # as many of those as fit
    ],
)
def test_the_page_stays_within_its_budget_and_keeps_the_failures_first(
    monkeypatch: pytest.MonkeyPatch, budget: int, listed: int, all_evidence: bool
) -> None:
    monkeypatch.setattr(listing, "LISTED_BYTES", budget)
    data = many(300, fail_every=5)
    page = render_report(data)
    rows = listed_rows(page)
    encoded = re.search(r'id="session-data">(.*?)</script>', page, re.S)
    assert encoded is not None and len(encoded.group(1).encode()) <= budget
    assert len(rows) == listed
    if listed < 300:
        assert all(row.cells["gate-health"][0] == "fail" for row in rows)
        assert [row.session_id for row in rows] == [f"session-{i:06d}" for i in range(5, 5 * listed + 1, 5)]
    kept = {status for row in rows for status, evidence, _ in row.cells.values() if evidence is not None}
    assert kept == ({"pass", "fail"} if all_evidence else {"fail"})
    note = re.search(r'<p class="note" id="listing-note">(.*?)</p>', page)
    if all_evidence:
        assert note is None
    else:
        assert note is not None
        assert ("Only the evidence of fail and cannot-determine verdicts is kept" in note.group(1)) is True
        assert (f"The table lists {listed:,} of the 300 sessions" in note.group(1)) is (listed < 300)
    # The figures count every session, listed or not.
    assert '<tr data-dimension="gate-health"><th scope="row">gate-health</th><td class="num">240</td>' in page


def test_the_sessions_not_scored_take_at_most_half_the_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(listing, "LISTED_BYTES", 20_000)
    gone = tuple(
        NotScoredRow(f"gone-{index:04d}", "abandoned session", "metrics/sessions.jsonl", index) for index in range(1000)
    )
    page = render_report(dataclasses.replace(many(20, fail_every=5), not_scored=gone))
    encoded = re.search(r'id="session-data">(.*?)</script>', page, re.S)
    assert encoded is not None and len(encoded.group(1).encode()) <= 20_000
    skipped = skipped_rows(page)
    assert 100 < len(skipped) < 1000 and [entry[0] for entry in skipped] == [
        f"gone-{i:04d}" for i in range(len(skipped))
    ]
    assert f"The table lists the first {len(skipped):,} of them, as many as the page holds." in page
    assert "1000 abandoned session" in " ".join(" ".join(Document(section(page, "not-scored")).text).split())
    assert len(listed_rows(page)) == 20  # the scored sessions keep their half
