"""``write_sheet``: the six files of a generated sheet, written atomically.

``NNN-INPUT.jpg`` (the sheet), ``NNN-OUTPUT-GT.csv`` (intersections, MapSeg task 3),
``NNN-INPUT-MASK.png`` (map area 255), ``NNN-BLOCKS-GT.png`` (blocks 255), ``NNN.points``
(QGIS GCPs in the grid CRS) and ``NNN.json`` (every parameter).
"""

from __future__ import annotations

import json
import os
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import cv2
import numpy as np

from ..atomic import atomic_outputs
from ..formats.mapseg_csv import format_points_csv
from ..formats.qgis_points import PIXEL_CENTRE, GroundControlPoints, format_points_file
from ..mapseg_names import INPUT, INPUT_MASK, OUTPUT_GT
from .sheet import SyntheticSheet, encode_jpeg

BLOCKS_GT = "-BLOCKS-GT.png"
FILE_KEYS = ("image", "gt_csv", "mask", "blocks", "points", "json")


def sheet_paths(outdir: str | os.PathLike, name: str) -> dict[str, Path]:
    """The six output paths of sheet ``name`` in ``outdir``, by key (see FILE_KEYS)."""
    d = Path(outdir)
    return {"image": d / f"{name}{INPUT}", "gt_csv": d / f"{name}{OUTPUT_GT}.csv",
            "mask": d / f"{name}{INPUT_MASK}", "blocks": d / f"{name}{BLOCKS_GT}",
            "points": d / f"{name}.points", "json": d / f"{name}.json"}


def _plain(value: object) -> object:
    """JSON fallback for numpy scalars and arrays given as overrides."""
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, np.generic):
        return value.item()
    raise TypeError(f"{type(value).__name__} is not JSON serialisable")


def _png(mask: np.ndarray) -> bytes:
    u8 = np.ascontiguousarray(mask, dtype=bool).view(np.uint8) * np.uint8(255)
    ok, buf = cv2.imencode(".png", u8,
                           [cv2.IMWRITE_PNG_COMPRESSION, 1, cv2.IMWRITE_PNG_STRATEGY,
                            cv2.IMWRITE_PNG_STRATEGY_RLE])
    if not ok:
        raise RuntimeError("OpenCV could not encode the PNG")
    return buf.tobytes()


def write_sheet(sheet: SyntheticSheet, outdir: str | os.PathLike, name: str) -> dict[str, Path]:
    """Write the sheet's six files as ``outdir/name...``; all appear or none.

    Returns the paths by key: image, gt_csv, mask, blocks, points, json.
    """
    paths = sheet_paths(outdir, name)
    gcps = GroundControlPoints(sheet.grid_xy, sheet.intersections + PIXEL_CENTRE,
                               crs=sheet.grid_crs)
    # the three images are encoded in parallel (OpenCV releases the GIL)
    with ThreadPoolExecutor(max_workers=3) as pool:
        jpeg = (pool.submit(lambda: sheet.jpeg) if sheet.jpeg else
                pool.submit(encode_jpeg, sheet.image, int(sheet.params["jpeg_quality"])))
        mask = pool.submit(_png, sheet.map_mask)
        blocks = pool.submit(_png, sheet.blocks_mask)
        images = {"image": jpeg.result(), "mask": mask.result(), "blocks": blocks.result()}
    payloads = {
        **images,
        "gt_csv": format_points_csv(sheet.intersections, decimals=3).encode(),
        "points": format_points_file(gcps).encode(),
        "json": (json.dumps(sheet.params, indent=1, ensure_ascii=False, default=_plain)
                 + "\n").encode(),
    }
    with atomic_outputs([paths[k] for k in FILE_KEYS]) as temps:
        for key, tmp in zip(FILE_KEYS, temps, strict=True):
            tmp.write_bytes(payloads[key])
    return paths
