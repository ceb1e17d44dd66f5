"""Chart image sizes, read from the image file header (no pixel decoding)."""

from __future__ import annotations

from pathlib import Path

from ...errors import InputError
from ...imageio import image_size

SUFFIXES = (".png", ".jpg", ".jpeg", ".tif", ".tiff", ".bmp", ".gif")


def find_image(folder: Path, stem: str, *, official: bool = False) -> Path | None:
    """``folder/<stem>.png``, else ``.jpg`` (the scripts' order), else (default) any suffix."""
    for suffix in (".png", ".jpg") if official else SUFFIXES:
        path = Path(folder) / (stem + suffix)
        if path.is_file():
            return path
    return None


def chart_size(folder: Path | None, stem: str, *, task: str,
               official: bool = False) -> tuple[int, int]:
    """(width, height) in pixels of the chart image ``<stem>.png`` (or another suffix)."""
    if folder is None:
        raise InputError(f"task {task} needs the chart images for their size; "
                         f"give --images DIR")
    path = find_image(folder, stem, official=official)
    if path is None:
        raise InputError(f"{Path(folder) / stem}.png: no chart image (png or jpg); "
                         f"put the chart images in the --images folder")
    return image_size(path, min_side=1)
