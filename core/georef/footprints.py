"""Footprints of an atlas run: where each placed sheet lies on the ground, and the sheets
that overlap another's ground or leave a hole inside the atlas.

The sheets of an atlas tile the plane, so two footprints that share much ground, or a gap
the sheets around it do not cover, say that a sheet is placed wrong (or missing).
:func:`atlas_footprints` computes this from the outputs a directory run of
``python -m core.georef`` leaves (each sheet's ``<stem>.report.json``, the run's
``summary.csv``); :func:`write_footprints` writes ``footprints.gpkg`` beside the summary:

- layer ``footprints``: one polygon per placed sheet, in the run's output CRS: its map
  area (the mask file the run used; else the map area ``core.maparea`` finds, about half
  a second a sheet; else the whole image) taken through the fitted transform (edges
  densified, so warped kinds bend them as they bend the sheet). Fields: ``sheet``,
  ``status`` (``placed``, ``uncertain``, ``flagged``), ``rmse_px``, ``rmse_map``,
  ``certainty`` (the labelling's, when the reader gives one), ``warnings``, ``overlaps``
  (the sheets whose ground it shares), ``overlap_share`` (the largest share of its area on
  another sheet's), ``hole`` (it borders a hole), ``reasons`` (why uncertain or flagged),
  ``area_from`` (``mask``, ``map area``, ``image``), and the paths ``sheet_path``,
  ``outdir``, ``report``, ``raster``;
- layer ``sheets`` (no geometry): every sheet of the run, placed or not, with ``sheet``,
  ``status`` (as above, or ``refused`` with its ``error``) and the same paths.

Thresholds (fractions, see :data:`OVERLAP_SHARE`, :data:`HOLE_SHARE`) leave room for the
slivers a mask's outline and a fit's residuals make between sheets that abut.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..atomic import atomic_output
from ..batch.summary import read_previous
from ..errors import InputError
from ..gridlabels.reader import SURE_MARGIN, margin_of
from . import crs as crsmod
from .allmaps import mask_polygon
from .transforms import fit_transform

FOOTPRINTS_NAME = "footprints.gpkg"
#: Two footprints overlap when they share more than this share of the smaller one's area.
#: Neighbours share their margins when the map area is the paper (core.maparea finds the
#: paper on sheets whose frame it cannot tell apart): Jacoubet's sheets 20 and 21, placed
#: from their hand GCPs, share 10 % of sheet 21's area; a sheet on another's ground shares
#: nearly all of it, one shifted by a grid cell a quarter or more.
OVERLAP_SHARE = 0.2
#: A gap inside the atlas is a hole when larger than this share of the median sheet area.
HOLE_SHARE = 0.05
#: A placed sheet is uncertain when its labelling's margin over the runner-up is below this
#: (natural-log units; :data:`core.gridlabels.reader.SURE_MARGIN`).
UNCERTAIN_BELOW = SURE_MARGIN
#: Longest edge of a footprint before it is transformed, pixels.
DENSIFY_PX = 50.0
_SEPARATOR = " | "


@dataclass
class Footprint:
    """One placed sheet of a run (see the module docstring for the fields)."""

    sheet: str
    polygon: np.ndarray            # (K, 2) outline in the output CRS
    status: str = "placed"
    rmse_px: float | None = None
    rmse_map: float | None = None
    certainty: float | None = None
    warnings: list[str] = field(default_factory=list)
    reasons: list[str] = field(default_factory=list)
    overlaps: list[str] = field(default_factory=list)
    overlap_share: float = 0.0
    hole: bool = False
    area_from: str = "image"
    paths: dict[str, str] = field(default_factory=dict)


@dataclass
class AtlasFootprints:
    """Footprints of a run: ``footprints`` of the placed sheets, ``sheets`` every sheet
    as ``{"sheet", "status", "error", paths...}``, ``crs_wkt`` the output CRS (None when no
    sheet was placed), ``holes`` the outlines of the holes found."""

    footprints: list[Footprint]
    sheets: list[dict[str, str]]
    crs_wkt: str | None
    holes: list[np.ndarray] = field(default_factory=list)


def _ogr():
    from osgeo import ogr

    ogr.UseExceptions()
    return ogr


def _ring_polygon(ogr, outline: np.ndarray):
    ring = ogr.Geometry(ogr.wkbLinearRing)
    for x, y in outline:
        ring.AddPoint_2D(float(x), float(y))
    ring.CloseRings()
    polygon = ogr.Geometry(ogr.wkbPolygon)
    polygon.AddGeometry(ring)
    if polygon.IsValid():
        return polygon
    fixed = polygon.Buffer(0)     # a self-touching outline: its largest valid part
    if fixed.GetGeometryType() == ogr.wkbPolygon:
        return fixed
    parts = [fixed.GetGeometryRef(k) for k in range(fixed.GetGeometryCount())]
    return max(parts, key=lambda g: g.GetArea()).Clone()


def densify(outline: np.ndarray, step: float = DENSIFY_PX) -> np.ndarray:
    """``outline`` ``(K, 2)`` (closed implicitly) with points added so that no edge is
    longer than ``step``."""
    pts = np.asarray(outline, dtype=np.float64).reshape(-1, 2)
    out = []
    for a, b in zip(pts, np.roll(pts, -1, axis=0), strict=True):
        n = max(1, int(np.ceil(np.hypot(*(b - a)) / step)))
        out.append(a + (b - a) * (np.arange(n)[:, None] / n))
    return np.vstack(out)


def _map_area_outline(report: dict) -> tuple[np.ndarray, str]:
    """The sheet's map area in pixels (corner convention) and where it comes from."""
    size = tuple(report["image_size"])
    if report.get("mask") and Path(report["mask"]).is_file():
        return mask_polygon(Path(report["mask"]), size), "mask"
    from ..maparea import map_area_mask

    area = map_area_mask(report["input"])
    if area.any():
        return mask_polygon(area, size), "map area"
    return mask_polygon(None, size), "image"


def _uncertainty(report: dict, transform) -> list[str]:
    """Why a placed sheet is uncertain (empty: it is not)."""
    labelling = report.get("labelling") or {}
    reasons = []
    certainty = margin_of(labelling.get("certainty"))
    if certainty is not None and certainty < UNCERTAIN_BELOW:
        reasons.append(f"labelling margin {certainty:.1f} over the runner-up (sure from "
                       f"{UNCERTAIN_BELOW:g})")
    reasons += list(labelling.get("warnings") or [])
    if (report.get("summary") or {}).get("redundancy", 1) <= 0:
        reasons.append("no redundancy: the RMSE says nothing")
    c = np.asarray(report["image_size"], dtype=np.float64) / 2
    q = transform.forward(c + np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]]))
    if np.linalg.det(np.column_stack([q[1] - q[0], q[2] - q[0]])) > 0:
        reasons.append("the fit mirrors the sheet")
    return reasons


def sheet_footprint(report: dict, name: str | None = None) -> Footprint:
    """The footprint of one georeferenced sheet from its run report (a dict, as
    ``<stem>.report.json`` holds it): its map area through the fitted transform.

    The transform is fitted again to the report's used GCPs (the same least-squares fit
    the run made).
    """
    rows = report["gcps"]
    used = np.array([bool(r["used"]) for r in rows])
    pixel = np.array([r["pixel"] for r in rows], dtype=np.float64).reshape(-1, 2)
    mapxy = np.array([r["map"] for r in rows], dtype=np.float64).reshape(-1, 2)
    transform = fit_transform(pixel[used], mapxy[used], report["transform"]["kind"])
    outline, area_from = _map_area_outline(report)
    summary = report.get("summary") or {}
    labelling = report.get("labelling") or {}
    reasons = _uncertainty(report, transform)
    return Footprint(sheet=name or Path(report["input"]).name,
                     polygon=transform.forward(densify(outline)),
                     status="uncertain" if reasons else "placed",
                     rmse_px=summary.get("rmse_px"), rmse_map=summary.get("rmse_map"),
                     certainty=margin_of(labelling.get("certainty")),
                     warnings=list(report.get("warnings") or []), reasons=reasons,
                     area_from=area_from)


def flag_footprints(footprints: Sequence[Footprint]) -> list[np.ndarray]:
    """Flag, in place, the footprints that share ground with another (more than
    :data:`OVERLAP_SHARE` of the smaller one) or border a hole (a gap inside the union of
    all, larger than :data:`HOLE_SHARE` of the median sheet area); returns the holes'
    outlines. Both sheets of an overlap are flagged: which one is wrong is for a person to
    say."""
    ogr = _ogr()
    if not footprints:
        return []
    polygons = [_ring_polygon(ogr, f.polygon) for f in footprints]
    areas = np.array([p.GetArea() for p in polygons])
    envelopes = [p.GetEnvelope() for p in polygons]
    for i in range(len(polygons)):
        for j in range(i + 1, len(polygons)):
            (ax0, ax1, ay0, ay1), (bx0, bx1, by0, by1) = envelopes[i], envelopes[j]
            if ax1 < bx0 or bx1 < ax0 or ay1 < by0 or by1 < ay0:
                continue
            shared = polygons[i].Intersection(polygons[j]).GetArea()
            for a, b in ((i, j), (j, i)):
                fp = footprints[a]
                fp.overlap_share = max(fp.overlap_share, float(shared / areas[a]))
                if shared > OVERLAP_SHARE * min(areas[i], areas[j]):
                    fp.overlaps.append(footprints[b].sheet)
    union = ogr.Geometry(ogr.wkbMultiPolygon)
    for p in polygons:
        union.AddGeometry(p)
    union = union.UnionCascaded()
    holes = []
    parts = [union] if union.GetGeometryType() == ogr.wkbPolygon else [
        union.GetGeometryRef(k) for k in range(union.GetGeometryCount())]
    for part in parts:
        for k in range(1, part.GetGeometryCount()):       # interior rings
            ring = np.array(part.GetGeometryRef(k).GetPoints())[:, :2]
            hole = _ring_polygon(ogr, ring)
            if hole.GetArea() > HOLE_SHARE * float(np.median(areas)):
                holes.append(ring)
                tolerance = 0.01 * np.sqrt(float(np.median(areas)))
                around = hole.Buffer(tolerance)
                for fp, p in zip(footprints, polygons, strict=True):
                    if p.Intersects(around):
                        fp.hole = True
    for fp in footprints:
        if fp.overlaps:
            fp.reasons.append(f"shares up to {fp.overlap_share:.0%} of its ground with "
                              + ", ".join(fp.overlaps))
        if fp.hole:
            fp.reasons.append("borders a hole in the atlas")
        if fp.overlaps or fp.hole:
            fp.status = "flagged"
    return holes


def atlas_footprints(folder: str | os.PathLike, sheets: Sequence[Path],
                     outdir: Callable[[Path], Path]) -> AtlasFootprints:
    """The footprints of a directory run whose summary is in ``folder``.

    Parameters
    ----------
    folder : path
        Where the run wrote ``summary.csv``.
    sheets : sequence of Path
        The run's sheets.
    outdir : callable
        ``outdir(sheet)``: the sheet's output folder (holding ``<stem>.report.json``).

    Returns
    -------
    AtlasFootprints
        Placed sheets (a report that matches the sheet, and not failed in the summary) as
        flagged footprints; every sheet in ``sheets``.
    """
    rows = read_previous(Path(folder))
    footprints, listed, crs_wkt = [], [], None
    for sheet in sheets:
        out = Path(outdir(sheet))
        paths = {"sheet_path": str(sheet), "outdir": str(out),
                 "report": str(out / f"{sheet.stem}.report.json"),
                 "raster": str(out / f"{sheet.stem}.tif")}
        row = rows.get(sheet.name, {})
        entry = {"sheet": sheet.name, "status": "refused", "error": row.get("error", ""),
                 **paths}
        listed.append(entry)
        if row.get("status") == "failed" or not Path(paths["report"]).is_file():
            entry["error"] = entry["error"] or "not georeferenced"
            continue
        try:
            report = json.loads(Path(paths["report"]).read_text(encoding="utf-8"))
            fp = sheet_footprint(report, sheet.name)
        except (OSError, ValueError, KeyError, InputError) as exc:
            entry["error"] = f"its report cannot be read: {exc}"
            continue
        fp.paths = paths
        footprints.append(fp)
        crs_wkt = crs_wkt or report["crs"]["output_wkt"]
    holes = flag_footprints(footprints)
    status = {fp.sheet: fp.status for fp in footprints}
    for entry in listed:
        entry["status"] = status.get(entry["sheet"], "refused")
        if entry["status"] != "refused":
            entry["error"] = ""
    return AtlasFootprints(footprints, listed, crs_wkt, holes)


_FOOTPRINT_FIELDS = (("sheet", "str"), ("status", "str"), ("rmse_px", "real"),
                     ("rmse_map", "real"), ("certainty", "real"), ("warnings", "str"),
                     ("overlaps", "str"), ("overlap_share", "real"), ("hole", "bool"),
                     ("reasons", "str"), ("area_from", "str"), ("sheet_path", "str"),
                     ("outdir", "str"), ("report", "str"), ("raster", "str"))
_SHEET_FIELDS = ("sheet", "status", "error", "sheet_path", "outdir", "report", "raster")


def _footprint_values(fp: Footprint) -> dict[str, object]:
    return {"sheet": fp.sheet, "status": fp.status, "rmse_px": fp.rmse_px,
            "rmse_map": fp.rmse_map, "certainty": fp.certainty,
            "warnings": _SEPARATOR.join(fp.warnings), "overlaps": _SEPARATOR.join(fp.overlaps),
            "overlap_share": fp.overlap_share, "hole": fp.hole,
            "reasons": _SEPARATOR.join(fp.reasons), "area_from": fp.area_from, **fp.paths}


def write_footprints(folder: str | os.PathLike, sheets: Sequence[Path],
                     outdir: Callable[[Path], Path]) -> tuple[Path, AtlasFootprints]:
    """Compute :func:`atlas_footprints` and write them to ``folder/footprints.gpkg``
    atomically (layers ``footprints`` and ``sheets``, see the module docstring)."""
    atlas = atlas_footprints(folder, sheets, outdir)
    ogr = _ogr()
    kinds = {"str": ogr.OFTString, "real": ogr.OFTReal, "bool": ogr.OFTInteger}
    target = Path(folder) / FOOTPRINTS_NAME
    with atomic_output(target) as tmp:
        source = ogr.GetDriverByName("GPKG").CreateDataSource(str(tmp))
        srs = (crsmod.gdal_srs(crsmod.parse_crs(atlas.crs_wkt))
               if atlas.crs_wkt is not None else None)
        layer = source.CreateLayer("footprints", srs, ogr.wkbPolygon)
        _add_fields(ogr, layer, _FOOTPRINT_FIELDS, kinds)
        layer.StartTransaction()
        for fp in atlas.footprints:
            feature = ogr.Feature(layer.GetLayerDefn())
            feature.SetGeometry(_ring_polygon(ogr, fp.polygon))
            _set_values(feature, _footprint_values(fp))
            layer.CreateFeature(feature)
        layer.CommitTransaction()
        table = source.CreateLayer("sheets", None, ogr.wkbNone)
        _add_fields(ogr, table, [(name, "str") for name in _SHEET_FIELDS], kinds)
        table.StartTransaction()
        for entry in atlas.sheets:
            feature = ogr.Feature(table.GetLayerDefn())
            _set_values(feature, entry)
            table.CreateFeature(feature)
        table.CommitTransaction()
        source = None    # closed (written) before the rename
    return target, atlas


def _add_fields(ogr, layer, fields, kinds) -> None:
    for name, kind in fields:
        definition = ogr.FieldDefn(name, kinds[kind])
        if kind == "bool":
            definition.SetSubType(ogr.OFSTBoolean)
        layer.CreateField(definition)


def _set_values(feature, values: dict[str, object]) -> None:
    for name, value in values.items():
        index = feature.GetFieldIndex(name)
        if index < 0:
            continue
        if value is None:
            feature.SetFieldNull(index)
        else:
            feature.SetField(index, int(value) if isinstance(value, bool) else value)


def run_settings(folder: str | os.PathLike) -> dict | None:
    """What a directory run used, from the report of its first placed sheet: ``crs`` and
    ``grid_crs`` (WKT), ``spacing`` and ``transform`` (to review a refused sheet of the
    run the same way); None when no sheet of it was placed."""
    ogr = _ogr()
    source = ogr.Open(str(Path(folder) / FOOTPRINTS_NAME))
    if source is None:
        return None
    for feature in source.GetLayerByName("footprints"):
        try:
            report = json.loads(Path(feature["report"]).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        crs = report["crs"]
        return {"crs": crs["output_wkt"], "grid_crs": crs.get("grid_wkt") or crs["output_wkt"],
                "spacing": report.get("spacing"), "transform": report["transform"]["kind"]}
    return None
