"""Building blocks (MapSeg task 1) and closed shapes: quality, time and memory.

Targets (issue 6): blocks mean PQ >= 0.90 on generated sheets; closed shapes of the real
crop ``../shared/data/paris-1925-sheet1-crop`` PQ >= 0.65 (anchor: the deep edge maps of
Chen et al., ICDAR 2021, labelled the same way: PQ 0.57, SQ 0.85, RQ 0.68); at most 60 s
and 4 GB per 10000 x 10000 sheet, either level, PNG and GeoPackage included.

Run: ``.venv/bin/python -m benchmarks.bench_blocks [--count 4] [--size 10000] [--seed 0]
[--lines] [--style-count 4] [--style-size 5000] [--styles-only] [--styles NAME ...]``
(``--lines``: the generated sheets' blocks from the line network instead of the default
block-interior network).

Styles (issue 19): the blocks are also scored on ``--style-count`` sheets of
``--style-size`` px drawn in the generator's default style and, with the same seeds,
sizes and layouts (so the same truth), in the held-out style ``core.synth --style
heldout`` that the block network's training never draws, and in the second held-out style
``heldout-organic`` (that drawing on another layout too: irregular blocks of a grown
town, so other truth); mean PQ per style (target 0.95 on each). ``--styles-only`` runs
this part alone.
Each sheet runs ``python -m core.blocks SHEET -o PNG --gpkg GPKG`` in a child process, so
the time and the peak resident memory are those of the whole command; the PQ of its PNG is
computed with ``core.metrics.panoptic`` (``python -m core.metrics T1`` gives the same). The
shapes level is timed on the first sheet. On the real crop, the polygons of the shapes
level are counted (polygons, vertices) and their vectorization timed, and the blocks of
both methods (the network, default, and the line network) are also scored against
``core.blocks.evaluate.blocks_reference``, a proxy built from the edge ground truth.
Timings are indicative on a shared machine.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from benchmarks.bench_maparea import REAL_CROP, REPO, generated_sheets

#: the drawing styles scored: the training's own and the two held out from it
STYLE_NAMES = ("default", "heldout", "heldout-organic")

_CHILD = """
import resource, sys, time
from core.blocks.__main__ import main
t = time.perf_counter()
code = main(sys.argv[1:])
print('{"seconds": %.3f, "max_rss_mb": %.1f, "code": %d}' % (
    time.perf_counter() - t, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, code))
"""


def run_command(sheet: Path, level: str, outdir: Path,
                lines: bool = False) -> tuple[dict, Path]:
    """Run core.blocks on one sheet in a child process; its timing and its PNG."""
    png, gpkg = outdir / f"{sheet.stem}-{level}.png", outdir / f"{sheet.stem}-{level}.gpkg"
    mask = sheet.with_name(sheet.name.replace("-INPUT.jpg", "-INPUT-MASK.png"))
    out = subprocess.run([sys.executable, "-c", _CHILD, str(sheet), "--mask", str(mask),
                          "--level", level, "-o", str(png), "--gpkg", str(gpkg),
                          *(["--lines"] if lines else [])],
                         cwd=REPO, check=True, capture_output=True, text=True)
    return json.loads(out.stdout.strip().splitlines()[-1]), png


def style_scores(count: int, size: int, seed: int, lines: bool = False,
                 styles: tuple[str, ...] = STYLE_NAMES) -> dict[str, float]:
    """Mean blocks PQ per drawing style (:data:`STYLE_NAMES`) on ``count`` sheets of
    ``size`` px each (run ``seed``); prints one line per sheet and one per style."""
    from core.blocks import BlockSettings, segment_sheet
    from core.imageio import read_mask
    from core.metrics.panoptic import panoptic_quality

    settings = BlockSettings.for_level("blocks", block_net=not lines)
    means = {}
    for style in styles:
        pqs = []
        for k, sheet in enumerate(generated_sheets(count, size, seed, style)):
            truth = read_mask(sheet.with_name(sheet.name.replace("-INPUT.jpg",
                                                                 "-BLOCKS-GT.png")))
            mask = sheet.with_name(sheet.name.replace("-INPUT.jpg", "-INPUT-MASK.png"))
            seg = segment_sheet(sheet, mask, level="blocks", settings=settings)
            r = panoptic_quality(truth, seg.blocks > 0)
            pqs.append(r.pq)
            print(f"{style} {k:03d}: PQ {r.pq:.3f} SQ {r.sq:.3f} RQ {r.rq:.3f} "
                  f"({r.n_matched}/{r.n_ref} blocks, {r.n_pred} predicted)", flush=True)
        means[style] = float(np.mean(pqs))
        method = "line network" if lines else "network, default"
        print(f"blocks ({method}), {style} style ({count} sheets, {size} px, seed {seed}): "
              f"mean PQ {means[style]:.3f} (target >= 0.95)", flush=True)
    return means


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--count", type=int, default=4)
    ap.add_argument("--size", type=int, default=10000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--lines", action="store_true",
                    help="generated sheets' blocks from the line network (not the default "
                         "network)")
    ap.add_argument("--style-count", type=int, default=4,
                    help="sheets per style for the style comparison (default 4; 0: none)")
    ap.add_argument("--style-size", type=int, default=5000,
                    help="size of the style comparison's sheets, px (default 5000)")
    ap.add_argument("--styles-only", action="store_true",
                    help="only the style comparison (default and held-out styles)")
    ap.add_argument("--styles", nargs="+", choices=STYLE_NAMES, default=STYLE_NAMES,
                    help="the styles compared (default: all)")
    args = ap.parse_args()
    if args.style_count > 0:
        style_scores(args.style_count, args.style_size, args.seed, args.lines,
                     tuple(args.styles))
    if args.styles_only:
        return

    from core.blocks import layers_for, segment_sheet
    from core.blocks.evaluate import closed_shapes_reference, shapes_quality
    from core.blocks.rings import vertex_count
    from core.imageio import read_mask
    from core.metrics.panoptic import panoptic_quality

    sheets = generated_sheets(args.count, args.size, args.seed)
    pqs, secs, mems = [], [], []
    with tempfile.TemporaryDirectory() as tmp:
        outdir = Path(tmp)
        for k, sheet in enumerate(sheets):
            stats, png = run_command(sheet, "blocks", outdir, args.lines)
            truth = read_mask(sheet.with_name(sheet.name.replace("-INPUT.jpg",
                                                                 "-BLOCKS-GT.png")))
            r = panoptic_quality(truth, read_mask(png))
            params = json.loads(sheet.with_name(f"{k:03d}.json").read_text())
            pqs.append(r.pq)
            secs.append(stats["seconds"])
            mems.append(stats["max_rss_mb"])
            print(f"{sheet.name}: difficulty {params['difficulty']:.2f}  PQ {r.pq:.3f} "
                  f"SQ {r.sq:.3f} RQ {r.rq:.3f} ({r.n_matched}/{r.n_ref} blocks, "
                  f"{r.n_pred} predicted)  {stats['seconds']:.1f} s  "
                  f"{stats['max_rss_mb']:.0f} MB", flush=True)
        method = "line network" if args.lines else "network, default"
        print(f"blocks ({method}), generated ({len(sheets)} sheets, {args.size} px): mean PQ "
              f"{np.mean(pqs):.3f} (target >= 0.90); time max {max(secs):.1f} s, memory max "
              f"{max(mems):.0f} MB (targets 60 s, 4096 MB)", flush=True)
        stats, _ = run_command(sheets[0], "shapes", outdir)
        print(f"shapes level on {sheets[0].name}: {stats['seconds']:.1f} s, "
              f"{stats['max_rss_mb']:.0f} MB (targets 60 s, 4096 MB)", flush=True)
    if REAL_CROP.is_dir():
        mask = read_mask(REAL_CROP / "INPUT-MASK.png")
        import cv2

        edges = cv2.imread(str(REAL_CROP / "SHAPES-EDGE-GT.png"), cv2.IMREAD_GRAYSCALE)
        reference, ignored = closed_shapes_reference(edges, mask)
        t = time.perf_counter()
        seg = segment_sheet(REAL_CROP / "INPUT.jpg", mask, level="shapes")
        r = shapes_quality(reference, ignored, seg.shapes > 0)
        print(f"shapes (default), whole real crop (the edge network was trained on its "
              f"left half; the test half: bench_real_shapes): PQ {r.pq:.3f} SQ {r.sq:.3f} "
              f"RQ {r.rq:.3f} ({r.n_matched}/{r.n_ref} shapes, {r.n_pred} predicted)  "
              f"{time.perf_counter() - t:.1f} s")
        t = time.perf_counter()
        layers = layers_for(seg, "shapes")
        counts = ", ".join(
            f"{layer.name} {sum(g is not None for g in layer.geoms)} polygons "
            f"{sum(vertex_count(g) for g in layer.geoms if g is not None)} vertices"
            for layer in layers)
        print(f"polygons, real crop (shapes level, tolerance 1.5 px): {counts}  "
              f"{time.perf_counter() - t:.1f} s", flush=True)
        score_blocks_proxy(REAL_CROP / "INPUT.jpg", mask, edges, "real crop")


def score_blocks_proxy(image, mask: np.ndarray, edges: np.ndarray, where: str) -> None:
    """Print the blocks PQ of the block network and of the line network against the proxy
    reference ``core.blocks.evaluate.blocks_reference`` built from ``edges`` (image: path
    or RGB array; mask and edges of the same size)."""
    from core.blocks import BlockSettings, segment_sheet
    from core.blocks.evaluate import blocks_reference, shapes_quality

    reference, ignored = blocks_reference(edges, mask)
    for name, net in (("network, default", True), ("line network", False)):
        t = time.perf_counter()
        seg = segment_sheet(image, mask, level="blocks",
                            settings=BlockSettings.for_level("blocks", block_net=net))
        r = shapes_quality(reference, ignored, seg.blocks > 0)
        print(f"blocks ({name}), {where} against the proxy reference: PQ {r.pq:.3f} "
              f"SQ {r.sq:.3f} RQ {r.rq:.3f} ({r.n_matched}/{r.n_ref} blocks, "
              f"{r.n_pred} predicted)  {time.perf_counter() - t:.1f} s", flush=True)


if __name__ == "__main__":
    main()
