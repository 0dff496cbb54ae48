"""Peer sessions: other session ids whose windows strictly overlap a session's window.

Two windows overlap when ``a.start < b.end and b.start < a.end`` (touching at a
boundary is not overlap). Every line of ``sessions.jsonl`` with a window takes
part, abandoned ones included; lines sharing the session's own id never count.
Whether a session has a peer is answered in O(log S) from prefix maxima over
windows sorted by start; naming the peers walks a max-tree and stops early.
"""

from __future__ import annotations

from array import array
from bisect import bisect_left
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Final

from .sessions import Window

__all__ = ["PEER_NAME_LIMIT", "PeerIndex", "Peers"]

PEER_NAME_LIMIT: Final = 10
_UNKNOWN: Final = "(unknown)"
_NONE: Final = -(1 << 62)


@dataclass(frozen=True, slots=True)
class Peers:
    """The peers of one session: their ids (at most ``PEER_NAME_LIMIT``) and whether more exist."""

    names: tuple[str, ...] = ()
    more: bool = False

    @property
    def count(self) -> int:
        """Number of peers named (a lower bound when ``more`` is set)."""
        return len(self.names)

    def describe(self) -> str:
        listed = ", ".join(self.names)
        if self.more:
            return f"more than {len(self.names)} other sessions ({listed}, ...)"
        return f"{len(self.names)} other session{'s' if len(self.names) > 1 else ''} ({listed})"


_NO_PEERS: Final = Peers()  # shared: most sessions have no peer, and Peers is immutable


class PeerIndex:
    """All windows of a sessions file, indexed for overlap queries."""

    def __init__(self, windows: Iterable[tuple[Window, object]]) -> None:
        """``windows``: ``(window, raw session_id)`` of every line that has a window."""
        entries = sorted(windows, key=_start)
        # Machine integers (8 bytes each) rather than lists of int objects: the
        # index of 100,000 windows stays a few megabytes.
        self._starts = array("q", [window.start for window, _ in entries])
        self._ends = array("q", [window.end for window, _ in entries])
        self._ids = [sid if type(sid) is str else None for _, sid in entries]
        # Prefix maxima of end over the first i windows, kept for two distinct ids so
        # that the best window of "any id but mine" is known in O(1).
        best_end, best_id, second_best = [_NONE], [object()], [_NONE]
        top_end, top_id, second_end = _NONE, best_id[0], _NONE
        for end, sid in zip(self._ends, self._ids):
            if end > top_end:
                if sid != top_id:
                    second_end = top_end
                top_end, top_id = end, sid
            elif sid != top_id and end > second_end:
                second_end = end
            best_end.append(top_end)
            best_id.append(top_id)
            second_best.append(second_end)
        self._best_end = array("q", best_end)
        self._best_id = best_id
        self._second_best = array("q", second_best)
        size = 1
        while size < max(len(entries), 1):
            size *= 2
        tree = [_NONE] * (2 * size)
        tree[size : size + len(self._ends)] = self._ends
        for node in range(size - 1, 0, -1):
            tree[node] = max(tree[2 * node], tree[2 * node + 1])
        self._size, self._tree = size, array("q", tree)

    def has_peer(self, session_id: str, window: Window | None) -> bool:
        """Whether any other id's window strictly overlaps ``window``."""
        if window is None:
            return False
        i = bisect_left(self._starts, window.end)
        best_other = self._second_best[i] if self._best_id[i] == session_id else self._best_end[i]
        return best_other > window.start

    def peers(self, session_id: str, window: Window | None) -> Peers:
        """The overlapping other ids, in order of window start, up to ``PEER_NAME_LIMIT``."""
        if not self.has_peer(session_id, window):
            return _NO_PEERS
        assert window is not None
        limit = bisect_left(self._starts, window.end)
        names: dict[str, None] = {}
        tree, size = self._tree, self._size
        stack = [1]
        while stack:
            node = stack.pop()
            if tree[node] <= window.start or (node - size if node >= size else _first_leaf(node, size) - size) >= limit:
                continue
            if node < size:
                stack.append(2 * node + 1)
                stack.append(2 * node)
                continue
            sid = self._ids[node - size]
            if sid == session_id:
                continue
            names.setdefault(sid if sid is not None else _UNKNOWN, None)
            if len(names) > PEER_NAME_LIMIT:
                return Peers(tuple(list(names)[:PEER_NAME_LIMIT]), more=True)
        return Peers(tuple(names))


def _start(entry: tuple[Window, object]) -> int:
    return entry[0].start


def _first_leaf(node: int, size: int) -> int:
    while node < size:
        node *= 2
    return node
