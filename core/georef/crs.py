"""Coordinate reference systems: parsing user text (EPSG, WKT, PROJ, presets) and reprojection.

Coordinates are always in "traditional GIS order": x = easting (or longitude), y = northing
(or latitude), whatever axis order the CRS definition declares.

Debian's pyproj in a virtual environment cannot find PROJ's data directory (it looks under
the venv's prefix) and warns on import; importing this module first points it at the system
directory (the one GDAL uses) when pyproj ships none, so no warning is printed.
"""

from __future__ import annotations

import importlib.util
import os
import warnings
from pathlib import Path

import numpy as np

from ..errors import InputError, option

#: Named CRSs accepted wherever a CRS is asked for (names are case-insensitive).
PRESETS: dict[str, str] = {
    # Atlas municipal des vingt arrondissements de Paris: a local metric grid centred on
    # the Paris Observatory (Hotine oblique mercator), see shared/data/*/SOURCE.md.
    "paris-atlas": ("+proj=omerc +gamma=0.00047289 +lonc=2.33652533 +lon_0=2.33652533 "
                    "+lat_0=48.83635864 +lat_ts=48.83635864 +x_0=0 +y_0=0 +ellps=GRS80 "
                    "+no_defs +type=crs"),
}

ACCEPTED_FORMS = ("an EPSG code (EPSG:2154), a WKT or PROJ string, or a preset name ("
                  + ", ".join(sorted(PRESETS)) + ")")


def _proj_data_candidates() -> list[Path]:
    """Directories that may hold PROJ's proj.db: GDAL's search paths, then the usual ones."""
    found: list[Path] = []
    try:
        from osgeo import osr

        found += [Path(p) for p in (osr.GetPROJSearchPaths() or [])]
    except (ImportError, AttributeError):  # pragma: no cover - GDAL always present here
        pass
    found += [Path("/usr/share/proj"), Path("/usr/local/share/proj")]
    return found


def ensure_proj_data() -> None:
    """Point pyproj at the system PROJ data when neither pyproj nor the environment has any.

    Must run before ``pyproj`` is first imported (it warns at import time).
    """
    if os.environ.get("PROJ_DATA") or os.environ.get("PROJ_LIB"):
        return
    spec = importlib.util.find_spec("pyproj")
    if spec is not None and spec.origin is not None:
        bundled = Path(spec.origin).parent / "proj_dir" / "share" / "proj"
        if (bundled / "proj.db").is_file():
            return  # a PyPI wheel with its own data
    for candidate in _proj_data_candidates():
        if (candidate / "proj.db").is_file():
            os.environ["PROJ_DATA"] = str(candidate)  # PROJ >= 9.1
            os.environ["PROJ_LIB"] = str(candidate)   # older PROJ
            return


ensure_proj_data()

import pyproj  # noqa: E402  (must come after ensure_proj_data)
from pyproj.exceptions import CRSError  # noqa: E402


def parse_crs(text: str | pyproj.CRS) -> pyproj.CRS:
    """A CRS from an EPSG code (``EPSG:2154`` or ``2154``), WKT, PROJ string or preset name.

    Raises InputError (one line, listing the accepted forms) for anything else.
    """
    if isinstance(text, pyproj.CRS):
        return text
    if not isinstance(text, str) or not text.strip():
        raise InputError(f"empty CRS; give {ACCEPTED_FORMS}")
    s = " ".join(text.split())
    preset = PRESETS.get(s.lower())
    if preset is not None:
        return pyproj.CRS.from_user_input(preset)
    if s.isdigit():
        s = f"EPSG:{s}"
    try:
        crs = pyproj.CRS.from_user_input(s)
    except CRSError:
        short = s if len(s) <= 60 else s[:57] + "..."
        raise InputError(f"unknown CRS {short!r}; give {ACCEPTED_FORMS}") from None
    if not (crs.is_projected or crs.is_geographic or crs.is_engineering):
        raise InputError(f"CRS {crs.name!r} is not a 2-D projected or geographic CRS; "
                         f"give {ACCEPTED_FORMS}")
    return crs


def crs_label(crs: pyproj.CRS) -> str:
    """A short human name: ``EPSG:2154 (RGF93 v1 / Lambert-93)`` or the CRS name."""
    epsg = crs.to_epsg(min_confidence=90)
    name = crs.name or "unnamed CRS"
    if epsg:
        return f"EPSG:{epsg} ({name})"
    with warnings.catch_warnings():  # "you will likely lose information": it is a label
        warnings.simplefilter("ignore", UserWarning)
        proj4 = crs.to_proj4() if crs.is_projected else None
    return f"{name} ({proj4})" if proj4 and name in ("unknown", "unnamed CRS") else name


def crs_wkt(crs: pyproj.CRS) -> str:
    """One-line WKT2 (2019), as QGIS writes in ``#CRS:`` lines and GDAL reads."""
    return crs.to_wkt(pretty=False)


def same_crs(a: pyproj.CRS, b: pyproj.CRS) -> bool:
    """True when the two CRSs are equivalent (same definition, names may differ)."""
    return a == b or a.equals(b, ignore_axis_order=True)


def transform_points(points: np.ndarray, src: pyproj.CRS, dst: pyproj.CRS) -> np.ndarray:
    """Reproject ``(N, 2)`` (x, y) coordinates from ``src`` to ``dst`` (GIS axis order).

    Raises InputError when a point cannot be transformed (outside the CRS's area).
    """
    pts = np.asarray(points, dtype=np.float64).reshape(-1, 2)
    if same_crs(src, dst):
        return pts.copy()
    transformer = pyproj.Transformer.from_crs(src, dst, always_xy=True)
    x, y = transformer.transform(pts[:, 0], pts[:, 1], errcheck=False)
    out = np.column_stack([np.asarray(x, float), np.asarray(y, float)])
    if not np.all(np.isfinite(out)):
        raise InputError(f"some points cannot be transformed from {crs_label(src)} to "
                         f"{crs_label(dst)}; check {option('crs')} and {option('grid-crs')}",
                         field="grid-crs")
    return out


def gdal_srs(crs: pyproj.CRS):
    """An ``osr.SpatialReference`` for GDAL with x = easting/longitude axis mapping."""
    from osgeo import osr

    osr.UseExceptions()
    srs = osr.SpatialReference()
    srs.ImportFromWkt(crs_wkt(crs))
    srs.SetAxisMappingStrategy(osr.OAMS_TRADITIONAL_GIS_ORDER)
    return srs
