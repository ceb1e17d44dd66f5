"""Allmaps Georeference Annotation: the sheet's GCPs for a IIIF image, as a W3C Web Annotation.

The IIIF georeference extension (https://iiif.io/api/extension/georef/) stores what a
viewer such as Allmaps needs to warp a IIIF image in the browser:

- ``target``: a ``SpecificResource`` whose ``source`` is the IIIF image service (its URL,
  service type, width and height in pixels) and whose ``selector`` is an ``SvgSelector``,
  the map area as one polygon in full-resolution pixel coordinates;
- ``body``: a GeoJSON ``FeatureCollection`` of the GCPs used by the fit, each a ``Point`` in
  WGS84 ``[longitude, latitude]`` with ``properties.resourceCoords`` ``[x, y]`` in pixels;
  ``body.transformation`` names the fitted transform as Allmaps does (``polynomial`` with
  ``options.order``, ``thinPlateSpline``, ``projective``, ``helmert``) and
  ``body.resourceCrs`` the CRS the graticule is drawn in, when it is not the output CRS.

Pixel convention: IIIF's and GDAL's, x right, y down, origin at the top-left corner of the
top-left pixel (pixel (i, j) covers [i, i + 1] x [j, j + 1]), the same as the GCPs of
:mod:`core.georef.pipeline`.
"""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import urlparse

import numpy as np
import pyproj

from ..errors import InputError
from . import crs as crsmod

CONTEXT = ["http://iiif.io/api/extension/georef/1/context.json",
           "http://iiif.io/api/presentation/3/context.json"]
#: Allmaps' name of each transform kind of :mod:`core.georef.transforms`.
TRANSFORMATIONS: dict[str, dict] = {
    "helmert": {"type": "helmert"},
    "affine": {"type": "polynomial", "options": {"order": 1}},
    "poly2": {"type": "polynomial", "options": {"order": 2}},
    "poly3": {"type": "polynomial", "options": {"order": 3}},
    "projective": {"type": "projective"},
    "tps": {"type": "thinPlateSpline"},
}
#: IIIF Image API version -> service type of ``target.source``.
SERVICE_TYPES = {2: "ImageService2", 3: "ImageService3"}
MASK_TOLERANCE_PX = 2.0   # the mask outline is simplified to within this many pixels
WGS84 = "EPSG:4326"


def check_iiif_url(url: str) -> str:
    """The URL of a IIIF image service, checked: http or https with a host.

    Raises:
        InputError: anything else (a file path, an ftp URL, a bare name).
    """
    parts = urlparse(url.strip())
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise InputError(f"--iiif {url!r} is not an http(s) URL; give the IIIF image service "
                         "URL of this sheet (e.g. https://example.org/iiif/sheet-1, the URL "
                         "its info.json is under)")
    return url.strip().rstrip("/")


def mask_polygon(mask_path: Path | None, size: tuple[int, int]) -> np.ndarray:
    """``(K, 2)`` outline of the map area in pixels (corner origin), simplified to within
    MASK_TOLERANCE_PX: the largest region of the mask (0 outside), or the whole image."""
    width, height = size
    frame = np.array([[0, 0], [width, 0], [width, height], [0, height]], dtype=np.float64)
    if mask_path is None:
        return frame
    import cv2

    from ..imageio import read_mask

    mask = read_mask(mask_path, (height, width), what="map-area mask").view(np.uint8)
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    if not contours:
        raise InputError(f"the map-area mask {mask_path} is empty; give the mask of this "
                         "sheet")
    outline = cv2.approxPolyDP(max(contours, key=cv2.contourArea), MASK_TOLERANCE_PX, True)
    # contour points are pixel indices: their centres are at + 0.5
    return outline.reshape(-1, 2).astype(np.float64) + 0.5


def svg_selector(polygon: np.ndarray, size: tuple[int, int]) -> dict:
    """An ``SvgSelector`` of one polygon over a ``size`` (width, height) image."""
    points = " ".join(f"{_num(x)},{_num(y)}" for x, y in polygon)
    return {"type": "SvgSelector",
            "value": f'<svg width="{size[0]}" height="{size[1]}">'
                     f'<polygon points="{points}" /></svg>'}


def _num(v: float) -> str:
    """A pixel coordinate for SVG: an integer when it is one, else 0.1 px."""
    r = round(float(v), 1)
    return str(int(r)) if r == int(r) else str(r)


def annotation(service_url: str, size: tuple[int, int], pixel_xy: np.ndarray,
               map_xy: np.ndarray, map_crs: pyproj.CRS, kind: str, *,
               polygon: np.ndarray, grid_crs: pyproj.CRS | None = None,
               iiif_version: int = 2) -> dict:
    """The Georeference Annotation as a dict.

    Args:
        service_url: IIIF image service URL (checked with :func:`check_iiif_url`).
        size: (width, height) of the full-resolution image, pixels.
        pixel_xy: ``(N, 2)`` GCP pixel positions (corner origin, y down).
        map_xy: ``(N, 2)`` their coordinates in ``map_crs`` (x = easting or longitude).
        map_crs: the CRS of ``map_xy``; GCPs are written in WGS84 longitude, latitude.
        kind: the fitted transform kind (a key of :data:`TRANSFORMATIONS`).
        polygon: ``(K, 2)`` map-area outline in pixels (see :func:`mask_polygon`).
        grid_crs: the CRS the sheet is drawn in, written as ``resourceCrs`` (None: none).
        iiif_version: 2 or 3, the IIIF Image API version of the service.
    """
    lonlat = crsmod.transform_points(map_xy, map_crs, crsmod.parse_crs(WGS84))
    features = [{"type": "Feature",
                 "properties": {"resourceCoords": [float(px), float(py)]},
                 "geometry": {"type": "Point", "coordinates": [float(lon), float(lat)]}}
                for (px, py), (lon, lat) in zip(pixel_xy, lonlat, strict=True)]
    body: dict = {"type": "FeatureCollection", "transformation": TRANSFORMATIONS[kind]}
    if grid_crs is not None:
        body["resourceCrs"] = {"name": grid_crs.name or "grid CRS",
                               "definition": _definition(grid_crs)}
    body["features"] = features
    return {
        "type": "Annotation",
        "@context": CONTEXT,
        "motivation": "georeferencing",
        "target": {
            "type": "SpecificResource",
            "source": {"id": check_iiif_url(service_url), "type": SERVICE_TYPES[iiif_version],
                       "width": int(size[0]), "height": int(size[1])},
            "selector": svg_selector(polygon, size),
        },
        "body": body,
    }


def _definition(crs: pyproj.CRS) -> str:
    """``EPSG:n`` when the CRS has a code, else its PROJ string (what proj4js reads), else
    its WKT."""
    import warnings

    epsg = crs.to_epsg(min_confidence=90)
    if epsg:
        return f"EPSG:{epsg}"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        proj4 = crs.to_proj4()
    return proj4 or crsmod.crs_wkt(crs)


def to_json(doc: dict) -> str:
    """The annotation as indented JSON text."""
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"
