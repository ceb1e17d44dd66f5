"""CLEval end-to-end character credit: ordering a GT's detections and LCS elimination.

For each care GT with matches, its detections are ordered by the first pseudo-character centre
(PCC) each contains, their *remaining* transcriptions are concatenated without separator, and
the longest common subsequence with the GT text is removed from the detections (each LCS
character from the first detection, in that order, that still has it). A detection's e2e TP is
the number of characters removed from it.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def order_by_first_pcc(dets: Sequence[int], inside: np.ndarray) -> list[int]:
    """Detections (ascending indices) ordered by the first PCC each contains.

    ``inside[d, p]`` says whether detection d contains PCC p of the GT. For each PCC in turn
    the first unordered detection containing it is taken, until one is left; only the first
    of the detections left over is appended (CLEval's rule).
    """
    unordered = list(dets)
    ordered = []
    for p in range(inside.shape[1]):
        if len(unordered) == 1:
            break
        for d in unordered:
            if inside[d, p]:
                ordered.append(d)
                unordered.remove(d)
                break
    ordered.append(unordered[0])
    return ordered


def longest_common_subsequence(a: str, b: str) -> str:
    """CLEval's LCS of ``a`` and ``b``: a matching character extends the diagonal; otherwise
    the cell above is taken only if it is strictly longer, else the cell to the left."""
    if not a or not b:
        return ""
    n, m = len(a), len(b)
    length = [[0] * (m + 1) for _ in range(n + 1)]
    move = [[0] * (m + 1) for _ in range(n + 1)]  # 0 diagonal, 1 up, 2 left
    for i in range(1, n + 1):
        ai = a[i - 1]
        row, above, steps = length[i], length[i - 1], move[i]
        for j in range(1, m + 1):
            if ai == b[j - 1]:
                row[j] = above[j - 1] + 1
            elif above[j] > row[j - 1]:
                row[j] = above[j]
                steps[j] = 1
            else:
                row[j] = row[j - 1]
                steps[j] = 2
    out = []
    i, j = n, m
    while i > 0 and j > 0:
        step = move[i][j]
        if step == 0:
            out.append(a[i - 1])
            i, j = i - 1, j - 1
        elif step == 1:
            i -= 1
        else:
            j -= 1
    return "".join(reversed(out))


def eliminate(gt_text: str, ordered: Sequence[int], remaining: list[str]) -> int:
    """Remove the LCS of ``gt_text`` and the ordered detections' remaining text from
    ``remaining`` (in place); returns the LCS length."""
    common = longest_common_subsequence(gt_text, "".join(remaining[d] for d in ordered))
    for ch in common:
        for d in ordered:
            if ch in remaining[d]:
                remaining[d] = remaining[d].replace(ch, "", 1)
                break
    return len(common)
