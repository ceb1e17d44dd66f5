"""Edit distances on Unicode strings (code points), as ``editdistance.eval`` computes them."""

from __future__ import annotations

from functools import lru_cache


@lru_cache(maxsize=200_000)
def levenshtein(a: str, b: str) -> int:
    """Plain Levenshtein distance: insertions, deletions and substitutions cost 1."""
    if a == b:
        return 0
    if len(a) < len(b):
        a, b = b, a
    if not b:
        return len(a)
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        current = [i]
        append = current.append
        for j, cb in enumerate(b, 1):
            append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (ca != cb)))
        previous = current
    return previous[-1]


def normalized_edit_distance(a: str, b: str) -> float:
    """Levenshtein distance / max(len(a), len(b), 1), in [0, 1]."""
    return levenshtein(a, b) / float(max(len(a), len(b), 1))
