"""Write ``tests/data/timestamps-more.jsonl``: V8's reading of more timestamp spellings.

The rows have the form of ``tests/data/timestamps.jsonl`` (``{"text", "v8_ms", "must"}``):
``text`` is a spelling drawn by ``timestamp_spellings.spellings`` with a fixed seed (every
family the parser reads, about a third of them mutated), ``v8_ms`` is what ``Date.parse``
gives for it in node with ``TZ=UTC`` (integer milliseconds, ``null`` for ``NaN``), and
``must`` is ``"equal"`` for every row: the parser reproduces V8 exactly, mutated junk
included. Spellings already in ``timestamps.jsonl``, and repeats, are left out.

After those ``ROWS`` rows comes a second block, drawn with ``EDGE_SEED`` by
``timestamp_spellings.edge_spellings``: ``EDGE_ROWS_PER_FAMILY`` spellings of each edge
family (offsets, fraction digits and 24:00, white space, years, fields out of range, names,
am/pm, comments, what JavaScript's Date methods write, US dates, numbers, token sequences,
the ends of the range of time values, times cut short or doubled colons),
none of them in an earlier row. The first block does not depend on the second.

Usage (node on PATH): python tests/generate_timestamp_table.py [OUTPUT]
The output is the same on every run with the same node and the same generator.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from timestamp_spellings import edge_spellings, spellings, v8_parse

SEED = 20260716
ROWS = 4000
EDGE_SEED = 20261206
EDGE_ROWS_PER_FAMILY = 75
DATA = Path(__file__).resolve().parent / "data"


def rows() -> list[dict[str, object]]:
    table = (DATA / "timestamps.jsonl").read_text(encoding="utf-8")
    known = {json.loads(line)["text"] for line in table.split("\n") if line}
    texts: list[str] = []
    seen = set(known)
    for text in spellings(SEED, ROWS * 2):
        if text not in seen:
            seen.add(text)
            texts.append(text)
        if len(texts) == ROWS:
            break
    texts += edge_spellings(EDGE_SEED, EDGE_ROWS_PER_FAMILY, seen)
    return [{"text": text, "v8_ms": ms, "must": "equal"} for text, ms in zip(texts, v8_parse(texts))]


def main(argv: list[str]) -> None:
    output = Path(argv[1]) if len(argv) > 1 else DATA / "timestamps-more.jsonl"
    lines = [json.dumps(row) for row in rows()]  # ASCII: no character of a text can break a line
    output.write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")
    print(f"{output}: {len(lines)} rows")


if __name__ == "__main__":
    main(sys.argv)
