"""Reading MapSeg evaluation inputs (masks, label maps, point CSVs) and pairing directories.

Images keep their stored values (no conversion): the metrics decide how to read them (see
:mod:`core.metrics.panoptic` and :mod:`core.metrics.hausdorff`). Anything that is not a
single-channel integer image is an :class:`~core.errors.InputError`.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from ..errors import InputError
from ..formats.mapseg_csv import read_points_csv
from ..imageio import check_readable_file, read_header
from ..mapseg_names import OUTPUT_GT, OUTPUT_PRED, check_same_sheets, sheet_id
from .mapseg_errors import OfficialToolFailure

IMAGE_SUFFIXES = (".png", ".tif", ".tiff")
POINT_SUFFIXES = (".csv",)


@dataclass(frozen=True)
class Pair:
    """One reference file and the prediction scored against it."""

    sheet: str
    ref: Path
    pred: Path


def read_label_image(path: str | os.PathLike) -> np.ndarray:
    """A single-channel integer image (8-bit mask, 16-bit PNG or TIFF label map) as stored."""
    p = check_readable_file(path)
    read_header(p, min_side=1)   # refuses an image bomb before any decoder allocates
    if p.suffix.lower() in (".tif", ".tiff"):
        import tifffile

        try:
            img = tifffile.imread(p)
        except Exception as exc:  # tifffile raises many types for corrupt files
            raise InputError(f"{p} is not a readable TIFF image; give a PNG or TIFF file") \
                from exc
    else:
        img = cv2.imdecode(np.fromfile(p, dtype=np.uint8),
                           cv2.IMREAD_UNCHANGED | cv2.IMREAD_IGNORE_ORIENTATION)
        if img is None:
            raise InputError(f"{p} is not a readable image; give a PNG or TIFF file")
    if img.ndim == 3 and img.shape[2] == 1:
        img = img[:, :, 0]
    if img.ndim != 2:
        kind = f"a {img.shape[2]}-channel (colour)" if img.ndim == 3 else f"a {img.ndim}-D"
        raise InputError(f"{p} is {kind} image; give a single-channel 0/255 mask or label map")
    if not (img.dtype == bool or np.issubdtype(img.dtype, np.integer)):
        raise InputError(f"{p} has {img.dtype} pixels; give a 0/255 8-bit mask or an integer "
                         "label map")
    return img


def read_mask_image(path: str | os.PathLike, *, official: bool = False) -> np.ndarray:
    """A binary mask image as stored: 8-bit (0/255), or any integer type with ``official``."""
    img = read_label_image(path)
    if not official and img.dtype not in (np.uint8, np.bool_):
        raise InputError(f"{path} has {img.dtype} pixels; give a 0/255 8-bit mask")
    return img


def read_points(path: str | os.PathLike, *, official: bool = False) -> np.ndarray:
    """An ``x,y`` point CSV as ``(N, 2)`` float64 pixels. With ``official``, fewer than two
    points is :class:`OfficialToolFailure` (its ``np.loadtxt`` reading then crashes)."""
    pts = read_points_csv(path)
    if official and len(pts) < 2:
        what = "a header-only CSV" if len(pts) == 0 else "a one-row CSV"
        raise OfficialToolFailure(f"{Path(path).name} is {what}")
    return pts


def check_same_size(ref: np.ndarray, pred: np.ndarray, ref_path: Path, pred_path: Path) -> None:
    """InputError naming both files when two images differ in size."""
    if ref.shape != pred.shape:
        raise InputError(f"{pred_path} is {pred.shape[1]} x {pred.shape[0]} px but {ref_path} "
                         f"is {ref.shape[1]} x {ref.shape[0]} px; give images of one size")


def _by_sheet(directory: Path, marker: str, suffixes: tuple[str, ...]) -> dict[str, Path]:
    found: dict[str, Path] = {}
    for p in sorted(directory.iterdir()):
        if not (p.is_file() and p.suffix.lower() in suffixes and p.stem.endswith(marker)):
            continue
        key = sheet_id(p)
        if key in found:
            raise InputError(f"{directory} holds two files for sheet {key}: {found[key].name} "
                             f"and {p.name}; keep one")
        found[key] = p
    return found


def pair_directories(ref_dir: str | os.PathLike, pred_dir: str | os.PathLike,
                     suffixes: tuple[str, ...]) -> list[Pair]:
    """Pair ``NNN-OUTPUT-GT.<ext>`` in ``ref_dir`` with ``NNN-OUTPUT-PRED.<ext>`` in
    ``pred_dir`` by ``NNN``; sorted by NNN. Like the official tool, predictions named
    ``NNN-OUTPUT-GT`` are accepted (with a warning) when ``pred_dir`` holds no ``-PRED`` file.
    Any unmatched or duplicated sheet is an InputError."""
    rdir, pdir = Path(ref_dir), Path(pred_dir)
    pattern = f"NNN{OUTPUT_GT}{suffixes[0]}"
    refs = _by_sheet(rdir, OUTPUT_GT, suffixes)
    if not refs:
        raise InputError(f"{rdir} holds no {pattern} file; name the references as in MapSeg")
    preds = _by_sheet(pdir, OUTPUT_PRED, suffixes)
    if not preds and rdir.resolve() != pdir.resolve():
        preds = _by_sheet(pdir, OUTPUT_GT, suffixes)
        if preds:
            print(f"warning: {pdir} holds no NNN{OUTPUT_PRED} file; using its NNN{OUTPUT_GT} "
                  "files as predictions", file=sys.stderr)
    if not preds:
        raise InputError(f"{pdir} holds no NNN{OUTPUT_PRED}{suffixes[0]} file; name the "
                         "predictions as in MapSeg")
    check_same_sheets(refs, preds)
    return [Pair(k, refs[k], preds[k]) for k in sorted(refs)]
