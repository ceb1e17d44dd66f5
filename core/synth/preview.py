"""Pictures for the documentation: a generated sheet beside the real crop, and a detail view
of graticule intersections with their ground truth.

``python -m core.synth.preview [--real DIR] [--out docs/images] [--seed S]`` writes
``synth-vs-real.png`` and ``synth-intersection.png``. ``--real`` is the real crop folder
(default ``../shared/data/paris-1925-sheet1-crop`` beside the checkout); without it only
generated sheets are shown.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont

from ..atomic import atomic_output
from ..cli import number, run_cli
from ..errors import InputError
from ..formats.mapseg_csv import read_points_csv
from ..imageio import read_image
from ..outputs import check_outputs
from .sheet import generate_sheet
from .text import find_font

DEFAULT_REAL = Path(__file__).resolve().parents[2].parent / "shared" / "data" / \
    "paris-1925-sheet1-crop"
PANEL_WIDTH = 1800
CAPTION_PX = 34


def _caption(img: np.ndarray, text: str) -> np.ndarray:
    """``img`` (RGB) with a white caption band above it."""
    band = Image.new("RGB", (img.shape[1], CAPTION_PX + 12), (255, 255, 255))
    path = find_font("sans")
    font = ImageFont.truetype(str(path), CAPTION_PX - 6) if path else ImageFont.load_default()
    ImageDraw.Draw(band).text((8, 6), text, fill=(0, 0, 0), font=font)
    return np.vstack([np.asarray(band), img])


def _fit(img: np.ndarray, width: int) -> np.ndarray:
    h = round(img.shape[0] * width / img.shape[1])
    return cv2.resize(img, (width, h), interpolation=cv2.INTER_AREA)


def _save_png(img: np.ndarray, path: Path) -> None:
    """Save as a 256-colour PNG (maps quantise well; keeps the repository light)."""
    pal = Image.fromarray(img).quantize(colors=256, method=Image.Quantize.FASTOCTREE)
    with atomic_output(path) as tmp:
        pal.save(tmp, optimize=True)


def _mark(img: np.ndarray, points: np.ndarray, zoom: float, radius: int = 14) -> None:
    """Draw a thin red circle around each point (pixel coords already zoomed, corner
    convention) so the crossing itself stays visible."""
    for x, y in points:
        c = (round((x * zoom - 0.5) * 16), round((y * zoom - 0.5) * 16))
        cv2.circle(img, c, radius * 16, (220, 0, 0), 2, cv2.LINE_AA, 4)


def _detail(image: np.ndarray, centre: np.ndarray, points: np.ndarray, half: int,
            zoom: int) -> np.ndarray:
    """A (2 half) px square around ``centre``, enlarged ``zoom`` times, ground truth marked."""
    h, w = image.shape[:2]
    cx, cy = (int(v) for v in np.floor(centre))
    x0, y0 = min(max(0, cx - half), w - 2 * half), min(max(0, cy - half), h - 2 * half)
    crop = image[y0:y0 + 2 * half, x0:x0 + 2 * half]
    big = np.ascontiguousarray(cv2.resize(crop, None, fx=zoom, fy=zoom,
                                          interpolation=cv2.INTER_CUBIC))
    near = points[(np.abs(points[:, 0] - x0 - half) < half)
                  & (np.abs(points[:, 1] - y0 - half) < half)]
    _mark(big, near - [x0, y0], zoom)
    return big


def make_pictures(out: Path, real: Path | None, seed: int) -> list[Path]:
    """Write the two documentation pictures into ``out``; returns their paths."""
    sheet = generate_sheet(seed, 10000, difficulty=0.35, orientation="axis", jpeg_roundtrip=True,
                           frame_shape="notched", river=True, railways=1)
    gen = sheet.image
    panels = []
    if real is not None:
        real_img = read_image(real / "INPUT.jpg")
        rh, rw = real_img.shape[:2]
        panels.append(_caption(_fit(real_img, PANEL_WIDTH), "Real: Atlas municipal de Paris, "
                               f"1925, sheet 1 (crop, {rw} x {rh} px)"))
    else:
        rh, rw = 3000, 9000
    # the same number of pixels of a generated 10000 x 10000 sheet, at the same scale
    y0 = 5000 - rh // 2
    panels.append(_caption(_fit(gen[y0:y0 + rh, 500:500 + rw], PANEL_WIDTH),
                           f"Generated: core.synth seed {seed}, difficulty 0.35 "
                           f"(a {rw} x {rh} px part of a 10000 x 10000 px sheet)"))
    out.mkdir(parents=True, exist_ok=True)
    both = out / "synth-vs-real.png"
    _save_png(np.vstack(panels), both)

    details = []
    pts = sheet.intersections
    mid = pts[np.argmin(np.hypot(*(pts - [5000, 5000]).T))]
    details.append(_caption(_detail(gen, mid, pts, 160, 2), "Generated: ground truth circled"))
    hard = generate_sheet(seed + 1, 4000, difficulty=0.95, spacing_px=1200.0,
                          orientation="tilted", jpeg_roundtrip=True)
    hp = hard.intersections
    hmid = hp[np.argmin(np.hypot(*(hp - [2000, 2000]).T))]
    details.append(_caption(_detail(hard.image, hmid, hp, 160, 2),
                            "Generated, difficulty 0.95 (faint, tilted)"))
    if real is not None:
        rp = read_points_csv(real / "GRATICULE-GT.csv")
        details.append(_caption(_detail(real_img, rp[1], rp, 160, 2),
                                "Real crop: ground truth circled"))
    gap = np.full((details[0].shape[0], 12, 3), 255, np.uint8)
    row = details[0]
    for d in details[1:]:
        row = np.hstack([row, gap, d])
    detail = out / "synth-intersection.png"
    _save_png(row, detail)
    return [both, detail]


def main(argv: Sequence[str] | None = None) -> int:
    """Command line entry point."""
    ap = argparse.ArgumentParser(prog="python -m core.synth.preview", description=__doc__)
    ap.add_argument("--real", type=Path, default=DEFAULT_REAL,
                    help="real crop folder (INPUT.jpg, GRATICULE-GT.csv)")
    ap.add_argument("--no-real", action="store_true", help="show generated sheets only")
    ap.add_argument("--out", type=Path, default=Path("docs/images"), help="output folder")
    ap.add_argument("--seed", type=number("seed", minimum=0, maximum=2**32 - 1, integer=True),
                    default=1925, help="sheet seed")
    args = ap.parse_args(argv)
    check_outputs(folders={"out": args.out})
    real = None if args.no_real else args.real
    if real is not None and not (real / "INPUT.jpg").is_file():
        raise InputError(f"{real} holds no INPUT.jpg; give --real DIR or --no-real")
    for p in make_pictures(args.out, real, args.seed):
        print(p)
    return 0


if __name__ == "__main__":
    sys.exit(run_cli(main))
