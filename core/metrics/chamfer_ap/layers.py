"""Polylines from vector layers (GeoPackage, GeoJSON, Shapefile... anything OGR reads).

Each feature gives one or more polylines of its class:

- LineString: one polyline; MultiLineString and GeometryCollection: one per part;
- Polygon: its exterior ring as a closed polyline (first point repeated at the end; holes
  are ignored); MultiPolygon: one per polygon;
- curves (CircularString, CompoundCurve, CurvePolygon...) are linearized by OGR first;
- z and m are dropped; points are an error; features without geometry (null or empty) give
  no polyline, but a GT feature without geometry still declares its frame (the way to say
  "this frame has no GT lines": its predictions are then all false positives).

Fields: the class (``class_field``, default ``class``; None puts every feature in one class
named ``all``), the score of predictions (``score_field``, default ``score``; None gives every
prediction score 1, so ties follow feature order) and the frame (``frame_field``, default
None: the whole layer is one frame named ``all``). Values are read as text for classes and
frames, as numbers for scores. Coordinates stay in the layer's units (map units or pixels,
y down or up does not matter for distances); GT and prediction layers must share their CRS.
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ...errors import InputError
from .formats import ChamferApInput
from .model import DEFAULT_THRESHOLDS, Prediction

ONE_NAME = "all"
"""Class name without a class field, and frame name without a frame field."""

SAMPLE_TO_THRESHOLD = 0.6
"""Default spacing for layers = this x the smallest threshold (the challenge: 0.3 / 0.5)."""


@dataclass(frozen=True)
class LayerFields:
    """Which attribute holds what; None: not used (see the module docstring)."""

    class_field: str | None = "class"
    score_field: str | None = "score"
    frame_field: str | None = None


@dataclass(frozen=True)
class LayerLine:
    """One polyline read from a feature: ``points`` ``(N, 2)`` float64 in layer units."""

    frame: str
    label: str
    score: float
    points: np.ndarray


@dataclass(frozen=True)
class LayerContent:
    """The polylines of a layer, its frames in order of appearance (features without
    geometry included) and its CRS."""

    lines: list[LayerLine]
    frames: list[str]
    srs_wkt: str | None
    geographic: bool
    skipped_empty: int


def read_layer_lines(path: str | os.PathLike, fields: LayerFields, *, layer: str | None = None,
                     scores: bool = False) -> LayerContent:
    """Every polyline of one layer, in feature order, with its frame, class and score.

    ``scores=False`` (GT) ignores the score field; with ``scores=True`` a missing score field
    is an error unless ``fields.score_field`` is None (then every score is 1).
    """
    from osgeo import gdal, ogr

    p = Path(path)
    if not p.exists():
        raise InputError(f"{p}: no such file; check the path")
    gdal.PushErrorHandler("CPLQuietErrorHandler")
    try:
        gdal.ErrorReset()
        ds = gdal.OpenEx(str(p), gdal.OF_VECTOR | gdal.OF_READONLY)
        if ds is None:
            msg = gdal.GetLastErrorMsg()
            raise InputError(f"{p} is not a vector file OGR can read"
                             + (f" ({msg})" if msg else "")
                             + "; give a GeoPackage, GeoJSON or Shapefile")
        lyr = _pick_layer(ds, p, layer)
        defn = lyr.GetLayerDefn()
        names = [defn.GetFieldDefn(i).GetName() for i in range(defn.GetFieldCount())]
        class_idx = _field_index(defn, fields.class_field, p, names, "--class-field",
                                 "--one-class")
        frame_idx = _field_index(defn, fields.frame_field, p, names, "--frame-field", None)
        score_idx = (_field_index(defn, fields.score_field, p, names, "--score-field",
                                  "--no-score") if scores else -1)
        srs_wkt, geographic = _crs(lyr)
        lines: list[LayerLine] = []
        frames: dict[str, None] = {} if frame_idx >= 0 else {ONE_NAME: None}
        skipped = 0
        lyr.ResetReading()
        for feat in lyr:
            where = f"{p}, feature {feat.GetFID()}"
            frame = _text(feat, frame_idx, where, fields.frame_field)
            frames[frame] = None  # a feature without geometry still declares its frame
            geom = feat.GetGeometryRef()
            if geom is None or geom.IsEmpty():
                skipped += 1
                continue
            label = _text(feat, class_idx, where, fields.class_field)
            score = _number(feat, score_idx, where, fields.score_field, ogr)
            for points in _polylines(geom, where, ogr):
                lines.append(LayerLine(frame, label, score, points))
        if gdal.GetLastErrorType() >= gdal.CE_Failure:
            raise InputError(f"{p}: OGR could not read every feature "
                             f"({gdal.GetLastErrorMsg()}); check the file")
    finally:
        gdal.PopErrorHandler()
    return LayerContent(lines, list(frames), srs_wkt, geographic, skipped)


def _crs(lyr: Any) -> tuple[str | None, bool]:
    """The layer's horizontal CRS as WKT (None when undefined, as in a GeoPackage without
    CRS) and whether it is geographic with coordinates that fit longitudes and latitudes."""
    srs = lyr.GetSpatialRef()
    if srs is None or (srs.GetName() or "").lower().startswith("undefined"):
        return None, False
    srs = srs.Clone()
    if srs.GetAxesCount() > 2:
        srs.DemoteTo2D()
    geographic = bool(srs.IsGeographic())
    if geographic and lyr.GetFeatureCount() > 0:
        min_x, max_x, min_y, max_y = lyr.GetExtent()
        # a GeoJSON file without "crs" is read as WGS 84 even when it holds pixels
        geographic = -180 <= min_x <= max_x <= 180 and -90 <= min_y <= max_y <= 90
    return srs.ExportToWkt(), geographic


def _pick_layer(ds: Any, path: Path, name: str | None) -> Any:
    names = [ds.GetLayerByIndex(i).GetName() for i in range(ds.GetLayerCount())]
    if name is not None:
        lyr = ds.GetLayerByName(name)
        if lyr is None:
            raise InputError(f"{path} has no layer {name!r}; its layers: {', '.join(names)}")
        return lyr
    if len(names) != 1:
        raise InputError(f"{path} has {len(names)} layers ({', '.join(names) or 'none'}); "
                         "choose one with --gt-layer / --pred-layer")
    return ds.GetLayerByIndex(0)


def _field_index(defn: Any, field: str | None, path: Path, names: list[str], option: str,
                 off_option: str | None) -> int:
    if field is None:
        return -1
    idx = defn.GetFieldIndex(field)
    if idx < 0:
        off = f", or {off_option}" if off_option else ""
        raise InputError(f"{path} has no field {field!r} (fields: {', '.join(names) or 'none'}); "
                         f"name the right one with {option}{off}")
    return idx


def _text(feat: Any, idx: int, where: str, field: str | None) -> str:
    if idx < 0:
        return ONE_NAME
    if not feat.IsFieldSetAndNotNull(idx):
        raise InputError(f"{where}: field {field!r} is empty; fill it or remove the feature")
    return feat.GetFieldAsString(idx)


def _number(feat: Any, idx: int, where: str, field: str | None, ogr: Any) -> float:
    if idx < 0:
        return 1.0
    if not feat.IsFieldSetAndNotNull(idx):
        raise InputError(f"{where}: score field {field!r} is empty; give every prediction a "
                         "score")
    if feat.GetFieldType(idx) in (ogr.OFTInteger, ogr.OFTInteger64, ogr.OFTReal):
        value = feat.GetFieldAsDouble(idx)
    else:
        text = feat.GetFieldAsString(idx)
        try:
            value = float(text)
        except ValueError:
            raise InputError(f"{where}: score {text!r} in field {field!r} is not a number") \
                from None
    if not math.isfinite(value):
        raise InputError(f"{where}: score must be finite, not {value}")
    return value


def _polylines(geom: Any, where: str, ogr: Any) -> Iterator[np.ndarray]:
    if ogr.GT_IsNonLinear(geom.GetGeometryType()):
        geom = geom.GetLinearGeometry()
    kind = ogr.GT_Flatten(geom.GetGeometryType())
    if kind in (ogr.wkbLineString, ogr.wkbLinearRing):
        yield np.array(geom.GetPoints(2), dtype=np.float64).reshape(-1, 2)
    elif kind == ogr.wkbPolygon:
        if geom.GetGeometryCount() and not geom.GetGeometryRef(0).IsEmpty():
            yield np.array(geom.GetGeometryRef(0).GetPoints(2), dtype=np.float64).reshape(-1, 2)
    elif kind in (ogr.wkbMultiLineString, ogr.wkbMultiPolygon, ogr.wkbGeometryCollection):
        for i in range(geom.GetGeometryCount()):
            part = geom.GetGeometryRef(i)
            if not part.IsEmpty():
                yield from _polylines(part, where, ogr)
    else:
        raise InputError(f"{where}: a {geom.GetGeometryName().title()} geometry; give lines or "
                         "polygons")


def read_layers(gt_path: str | os.PathLike, pred_path: str | os.PathLike, *,
                fields: LayerFields | None = None, gt_layer: str | None = None,
                pred_layer: str | None = None,
                thresholds: tuple[float, ...] = DEFAULT_THRESHOLDS) -> ChamferApInput:
    """GT frames and predictions from two layers.

    Frames are those of the GT layer, in order of first appearance (predictions of other frames
    are ignored, as the challenge ignores extra tokens); classes sorted by name (the GT's and
    the predictions'). The default spacing is ``0.6 x min(thresholds)`` (0.3 for the
    challenge's thresholds) in layer units.
    """
    fields = fields or LayerFields()
    gt = read_layer_lines(gt_path, fields, layer=gt_layer)
    pred = read_layer_lines(pred_path, fields, layer=pred_layer, scores=True)
    notes = []
    if gt.srs_wkt and pred.srs_wkt:
        from osgeo import osr

        a, b = osr.SpatialReference(), osr.SpatialReference()
        a.ImportFromWkt(gt.srs_wkt)
        b.ImportFromWkt(pred.srs_wkt)
        if not a.IsSame(b):
            raise InputError(f"{gt_path} and {pred_path} have different coordinate reference "
                             "systems; reproject one of them (distances are in layer units)")
    if gt.geographic or pred.geographic:
        notes.append("the layers' CRS is geographic (a GeoJSON file without \"crs\" is read as "
                     "WGS 84): thresholds and spacing are then in degrees; reproject to a CRS "
                     "in metres, or ignore this if the coordinates are pixels")
    for what, content in (("GT", gt), ("prediction", pred)):
        if content.skipped_empty:
            notes.append(f"{content.skipped_empty} {what} feature(s) without geometry skipped")
    if fields.score_field is None:
        notes.append("no scores: every prediction scores 1, so they rank in feature order; "
                     "AP then depends on that order")

    gt_frames: dict[str, dict[str, list[np.ndarray]]] = {frame: {} for frame in gt.frames}
    for line in gt.lines:
        gt_frames.setdefault(line.frame, {}).setdefault(line.label, []).append(line.points)
    pred_frames: dict[str, list[Prediction]] = {frame: [] for frame in pred.frames}
    for line in pred.lines:
        pred_frames.setdefault(line.frame, []).append(
            Prediction(line.points, line.score, line.label))
    classes = tuple(sorted({line.label for line in gt.lines}
                           | {line.label for line in pred.lines}))
    return ChamferApInput(gt_frames, pred_frames, classes, 1,
                          SAMPLE_TO_THRESHOLD * min(thresholds), tuple(notes))
