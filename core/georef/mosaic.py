"""A VRT mosaic of the georeferenced sheets of a collection, to open them all in QGIS at once.

``mosaic.vrt`` (GDAL's ``BuildVRT``) shows every sheet north up: GeoTIFFs written with a
rotated geotransform (an affine fit of a sheet that is not exactly north up) cannot go in a
mosaic as they are, so each sheet is first seen through a warped VRT,
``mosaic-sheets/<stem>.vrt`` (no pixel copied; an alpha band makes the corners outside the
sheet transparent). Paths inside are relative, so the folder can be moved as a whole.
Sheets must share the CRS (one run uses one ``--crs``).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from ..atomic import atomic_output
from ..errors import InputError

MOSAIC_NAME = "mosaic.vrt"
SHEETS_DIR = "mosaic-sheets"


def _gdal():
    from osgeo import gdal

    gdal.UseExceptions()
    return gdal


def _north_up(gdal, raster: Path, target: Path) -> Path:
    """A warped VRT of ``raster``, north up with an alpha band, written atomically; the
    raster is referenced by a path relative to the VRT."""
    raster = Path(os.path.abspath(raster))
    with atomic_output(target) as tmp:
        ds = gdal.Warp(str(tmp), str(raster), options=gdal.WarpOptions(
            format="VRT", dstAlpha=True, resampleAlg="bilinear"))
        del ds       # closing writes the file
        absolute = f'<SourceDataset relativeToVRT="0">{raster}</SourceDataset>'
        relative = Path(os.path.relpath(raster, Path(os.path.abspath(target)).parent))
        text = tmp.read_text(encoding="utf-8")
        if absolute in text:
            tmp.write_text(text.replace(absolute, '<SourceDataset relativeToVRT="1">'
                                        f"{relative.as_posix()}</SourceDataset>"),
                           encoding="utf-8")
    return target


def write_mosaic(target: Path, rasters: Sequence[Path]) -> Path | None:
    """Write a VRT mosaic of ``rasters`` (GeoTIFFs) to ``target``, each file atomically.

    Overlaps show the sheet listed last; the resolution is the finest of the sheets.
    Returns ``target``, or None (nothing written) when there is no raster.
    """
    if not rasters:
        return None
    gdal = _gdal()
    folder = target.parent / SHEETS_DIR
    try:
        sheets = [str(_north_up(gdal, r, folder / f"{r.stem}.vrt")) for r in rasters]
        with atomic_output(target) as tmp:
            ds = gdal.BuildVRT(str(tmp), sheets,
                               options=gdal.BuildVRTOptions(resolution="highest"))
            if ds is None:
                raise RuntimeError("GDAL found no sheet it could put in a mosaic")
            ds = None
    except RuntimeError as exc:
        raise InputError(f"cannot build the mosaic {target}: {exc}; open the sheets' "
                         "GeoTIFFs one by one") from None
    return target
