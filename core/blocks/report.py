"""What a blocks run found, in words: how many regions, whether the input looks like a sheet.

A scanned map sheet has many building blocks (hundreds on a 1:5000 sheet; ten or more on
any piece of a city map a few blocks wide). A screenshot, a photo or a blank page gives
none, or one region that fills the picture: :func:`sheet_warnings` says so, so that a
command that exits 0 does not pass such a result off as a map's blocks.
"""

from __future__ import annotations

import numpy as np

from .pipeline import Segmentation

#: one block covering this share of the image or more: not the blocks of a map sheet
LARGEST_BLOCK_SHARE = 0.5
_ROWS_PER_CHUNK = 512   # the areas are counted a band of rows at a time (no int64 copy)


def largest_block_share(seg: Segmentation) -> float:
    """Area of the largest block over the image's area (0 when there is no block)."""
    if seg.n_blocks == 0:
        return 0.0
    areas = np.zeros(seg.n_blocks + 1, np.int64)
    for top in range(0, seg.blocks.shape[0], _ROWS_PER_CHUNK):
        band = seg.blocks[top:top + _ROWS_PER_CHUNK]
        areas += np.bincount(band.ravel(), minlength=seg.n_blocks + 1)
    return float(areas[1:].max()) / seg.blocks.size


def sheet_warnings(seg: Segmentation) -> list[str]:
    """Warnings when the segmentation does not look like the blocks of a map sheet.

    Returns
    -------
    list of str
        Empty for a plausible result; else one sentence per problem (no block at all, or a
        single block, or one block covering at least LARGEST_BLOCK_SHARE of the image),
        saying what to check.
    """
    check = ("is the input a scanned map sheet, and its map area right (--mask)? A map's "
             "blocks are outlined areas; a screenshot, a photo or a blank page has none")
    if seg.n_blocks == 0:
        return [f"no building block found: {check}"]
    share = largest_block_share(seg)
    if seg.n_blocks == 1:
        return [f"only one building block found (covering {share:.0%} of the image): "
                f"{check}"]
    if share >= LARGEST_BLOCK_SHARE:
        return [f"one block covers {share:.0%} of the image: {check}"]
    return []


def count_phrase(counts: dict[str, int]) -> str:
    """``"412 blocks and 1530 shapes"`` from ``{"blocks": 412, "shapes": 1530}``."""
    parts = [f"{n} {name if n != 1 else name[:-1]}" for name, n in counts.items()]
    return " and ".join(parts) if parts else "nothing"
