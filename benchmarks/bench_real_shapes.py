"""Closed shapes of the real 1925 crop on its test half (issue 19), and the shapes level's
time and memory on a generated 10000 x 10000 sheet.

Protocol (issue 19): ``../shared/data/paris-1925-sheet1-crop`` is split at x = ``SPLIT``;
the left half may be used for training and tuning (``tools/train_edges_net.py`` trains the
edge network there), the right half is only scored. Both shape sources run on the right
half alone (its image and mask, columns ``SPLIT`` and beyond) with
``segment_sheet(level="shapes")``: the edge network (the default when
``core/blocks/models/edge_net.onnx`` is installed) and the classical line network
(``edge_net=False``, ``--line-shapes``), scored with ``core.blocks.evaluate`` (regions of
the edge ground truth inside the mask, street network over 3 % of the half's mask out,
regions under 1000 px ignored). The whole crop is also scored, labelled "trained on half of
it". Then ``python -m core.blocks SHEET --level shapes -o PNG --gpkg GPKG`` runs on sheet 0
of ``bench-output/sheets-<size>-s0`` in a child process (time and peak resident memory of
the whole command; targets 60 s and 4 GB for 10000 px). ``--generated N`` (default 3)
also scores both sources on N generated sheets of 3000 px (run seed 0) against their
closed shapes (``SyntheticSheet.shapes_mask()``). On each part of the crop scored, the
blocks of the block network and of the line network are also scored against the proxy
block reference (``core.blocks.evaluate.blocks_reference``), as ``bench_blocks`` does on
the whole crop.

Run: ``.venv/bin/python -m benchmarks.bench_real_shapes [--size 10000] [--no-sheet]
[--whole] [--generated 3]``
(``make bench-real-shapes``).
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import cv2

from benchmarks.bench_blocks import run_command, score_blocks_proxy
from benchmarks.bench_maparea import REAL_CROP, generated_sheets

SPLIT = 4500   #: first column of the crop's test half (issue 19)


def score_crop(crop: Path, first_column: int) -> None:
    """Print the closed-shapes scores of both sources on the crop's columns from
    ``first_column`` on."""
    from core.blocks import BlockSettings, segment_sheet
    from core.blocks.evaluate import closed_shapes_reference, shapes_quality
    from core.blocks.net import edge_model_available
    from core.imageio import read_image, read_mask

    cols = slice(first_column, None)
    rgb = read_image(crop / "INPUT.jpg")[:, cols].copy()
    mask = read_mask(crop / "INPUT-MASK.png")[:, cols].copy()
    edges = cv2.imread(str(crop / "SHAPES-EDGE-GT.png"), cv2.IMREAD_GRAYSCALE)[:, cols]
    reference = closed_shapes_reference(edges, mask)
    where = ("right half (test set)" if first_column else
             "whole crop (the edge network was trained on its left half)")
    sources = [("edge network, default", True)] if edge_model_available() else []
    for name, edge_net in [*sources, ("line network", False)]:
        t = time.perf_counter()
        seg = segment_sheet(rgb, mask, level="shapes",
                            settings=BlockSettings.for_level("shapes", edge_net=edge_net))
        r = shapes_quality(*reference, seg.shapes > 0)
        print(f"shapes ({name}), real crop, {where}: PQ {r.pq:.3f} SQ {r.sq:.3f} RQ "
              f"{r.rq:.3f} ({r.n_matched}/{r.n_ref} shapes, {r.n_pred} predicted)  "
              f"{time.perf_counter() - t:.1f} s", flush=True)
    score_blocks_proxy(rgb, mask, edges, f"real crop, {where}")


def score_generated(count: int, size: int) -> None:
    """Print the closed-shapes PQ of both sources on ``count`` generated sheets (run seed 0,
    the evaluation seed; reference: the 4-connected components of
    ``SyntheticSheet.shapes_mask()``, under 1000 px ignored, as on the real crop)."""
    import numpy as np

    from core.blocks import BlockSettings, segment_sheet
    from core.blocks.evaluate import closed_shapes_reference, shapes_quality
    from core.blocks.net import edge_model_available
    from core.synth import generate_sheet, run_difficulty, sheet_seed

    sources = [("edge network, default", True)] if edge_model_available() else []
    pqs: dict[str, list[float]] = {}
    for k in range(count):
        sheet = generate_sheet(sheet_seed(0, k), size, difficulty=run_difficulty(k),
                               jpeg_roundtrip=True)
        outside = (~sheet.shapes_mask()).astype(np.uint8)
        reference = closed_shapes_reference(outside, sheet.map_mask)
        for name, edge_net in [*sources, ("line network", False)]:
            seg = segment_sheet(sheet.image, sheet.map_mask, level="shapes",
                                settings=BlockSettings.for_level("shapes", edge_net=edge_net))
            r = shapes_quality(*reference, seg.shapes > 0)
            pqs.setdefault(name, []).append(r.pq)
            print(f"shapes ({name}), generated sheet {k} ({size} px, difficulty "
                  f"{run_difficulty(k):.2f}): PQ {r.pq:.3f} SQ {r.sq:.3f} RQ {r.rq:.3f} "
                  f"({r.n_matched}/{r.n_ref}, {r.n_pred} predicted)", flush=True)
    for name, values in pqs.items():
        print(f"shapes ({name}), {count} generated sheets of {size} px: mean PQ "
              f"{np.mean(values):.3f}", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size", type=int, default=10000, help="generated sheet size, px")
    ap.add_argument("--no-sheet", action="store_true",
                    help="score the real crop only (no timed generated sheet)")
    ap.add_argument("--whole", action="store_true",
                    help="also score the whole crop (trained on half of it)")
    ap.add_argument("--generated", type=int, default=3,
                    help="also score this many generated sheets of 3000 px (default 3)")
    args = ap.parse_args()
    if REAL_CROP.is_dir():
        score_crop(REAL_CROP, SPLIT)
        if args.whole:
            score_crop(REAL_CROP, 0)
    else:
        print(f"{REAL_CROP} not found: real crop not scored")
    if args.generated > 0:
        score_generated(args.generated, 3000)
    if not args.no_sheet:
        sheet = generated_sheets(1, args.size, 0)[0]
        with tempfile.TemporaryDirectory() as tmp:
            stats, _ = run_command(sheet, "shapes", Path(tmp))
        print(f"shapes level (default) on {sheet.name} ({args.size} px): "
              f"{stats['seconds']:.1f} s, {stats['max_rss_mb']:.0f} MB (targets 60 s, "
              "4096 MB)", flush=True)


if __name__ == "__main__":
    main()
