"""MapSeg task 3 point files: a ``x,y`` header, then one point a line, pixels, x right, y down."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from ..atomic import write_text_atomic
from ..errors import InputError
from ..limits import MAX_PIXEL_COORD, coordinate_problem


def read_points_csv(path: str | os.PathLike) -> np.ndarray:
    """Read a MapSeg point CSV as an ``(N, 2)`` float64 array (N may be 0).

    A UTF-8 BOM, CRLF line ends, spaces around values and blank lines are accepted; anything
    else that is not two numbers a line is an InputError naming the line.
    """
    p = Path(path)
    if not p.is_file():
        raise InputError(f"{p}: no such file; check the path")
    try:
        text = p.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputError(f"{p} is not a text CSV file; give a MapSeg 'x,y' CSV") from exc
    lines = text.splitlines()
    if not lines or [c.strip().lower() for c in lines[0].split(",")] != ["x", "y"]:
        raise InputError(f"{p}: first line must be the header 'x,y' (MapSeg task 3 format)")
    points = []
    for number, line in enumerate(lines[1:], start=2):
        if not line.strip():
            continue
        fields = line.split(",")
        try:
            if len(fields) != 2:
                raise ValueError
            x, y = float(fields[0]), float(fields[1])
        except ValueError:
            raise InputError(f"{p}, line {number}: expected two numbers 'x,y', got {line!r}") \
                from None
        problem = coordinate_problem((x, y), MAX_PIXEL_COORD, "px")
        if problem:
            raise InputError(f"{p}, line {number}: {problem}, got {line.strip()!r}; fix the "
                             "line")
        points.append((x, y))
    return np.array(points, dtype=np.float64).reshape(-1, 2)


def format_points_csv(points: np.ndarray, decimals: int = 1) -> str:
    """The CSV text for ``(N, 2)`` pixel points, ``decimals`` digits after the point."""
    pts = np.asarray(points, dtype=np.float64).reshape(-1, 2)
    rows = [f"{x:.{decimals}f},{y:.{decimals}f}" for x, y in pts]
    return "\n".join(["x,y", *rows]) + "\n"


def write_points_csv(path: str | os.PathLike, points: np.ndarray, decimals: int = 1) -> None:
    """Write ``(N, 2)`` pixel points as a MapSeg CSV, atomically."""
    write_text_atomic(path, format_points_csv(points, decimals))
