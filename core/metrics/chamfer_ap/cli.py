"""``python -m core.metrics chamfer-ap GT PRED [--json OUT.json] [--official] ...``

GT and PRED are either the challenge's JSON files (annotations and submission) or two vector
layers (GeoPackage, GeoJSON, Shapefile...) with a class field. Prints a table like the
reference's (rounded to 4 decimals) and warnings; ``--json`` writes every value unrounded.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from ...atomic import write_text_atomic
from ...cli import EXIT_OK, number
from ...errors import InputError
from ...outputs import check_outputs
from .evaluate import chamfer_ap
from .formats import ChamferApInput, is_challenge_gt, load_json, read_challenge
from .layers import LayerFields, read_layers
from .model import DEFAULT_THRESHOLDS, ChamferApResult

GEOJSON_TYPES = ("FeatureCollection", "Feature")


def build_parser(command: str = "chamfer-ap") -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=f"python -m core.metrics {command}",
        description="Chamfer-distance AP of polylines (CVPR 2023 Online HD Map Construction "
                    "challenge): AP per class at each threshold, class AP, mAP.",
        epilog="Default mode differs from the reference only where it is wrong or crashes "
               "(a class without GT is left out of the mAP instead of scoring 0; 1-point "
               "lines are zero-length lines; see docs/metrics-chamfer-ap.md). "
               "Exit status: 0 ok, 2 bad input.")
    parser.add_argument("gt", type=Path, help="GT: challenge annotation JSON, or a layer")
    parser.add_argument("pred", type=Path, help="predictions: submission JSON, or a layer")
    parser.add_argument("--json", type=Path, metavar="OUT.json",
                        help="write the full result (unrounded) as JSON")
    parser.add_argument("--official", action="store_true",
                        help="reproduce the reference exactly, also where it is wrong")
    parser.add_argument("--per-frame", action="store_true",
                        help="add per-frame matching details to the JSON")
    parser.add_argument("--thresholds", metavar="T1,T2,...",
                        help="chamfer-distance thresholds in coordinate units "
                             "(default 0.5,1.0,1.5)")
    parser.add_argument("--sample-dist", type=number("sample-dist", positive=True), metavar="D",
                        help="resampling spacing in coordinate units (default: 0.3 for the "
                             "challenge files, 0.6 x the smallest threshold for layers)")
    parser.add_argument("--format", choices=("auto", "challenge", "layer"), default="auto",
                        help="input kind (default: auto: .json files in the challenge format "
                             "are challenge files, anything else is a layer)")
    layers = parser.add_argument_group("layers (GeoPackage, GeoJSON, ... read with OGR)")
    layers.add_argument("--class-field", metavar="FIELD",
                        help="field holding the class (default: class)")
    layers.add_argument("--one-class", action="store_true",
                        help="no class field: every feature is of one class named 'all'")
    layers.add_argument("--score-field", metavar="FIELD",
                        help="prediction field holding the confidence (default: score)")
    layers.add_argument("--no-score", action="store_true",
                        help="predictions have no score: each scores 1 (ranked in feature "
                             "order)")
    layers.add_argument("--frame-field", metavar="FIELD",
                        help="field holding the frame (sheet, tile...); default: each layer "
                             "is one frame")
    layers.add_argument("--gt-layer", metavar="NAME", help="layer of GT with several layers")
    layers.add_argument("--pred-layer", metavar="NAME",
                        help="layer of PRED with several layers")
    return parser


def main(command: str, argv: list[str]) -> int:
    """Score PRED against GT; print the table; write ``--json``. Raises InputError."""
    args = build_parser(command).parse_args(argv)
    thresholds = _parse_thresholds(args.thresholds)
    check_outputs({"json": args.json}, inputs=[args.gt, args.pred])
    inp = read_input(args, thresholds)
    sample_dist = args.sample_dist if args.sample_dist is not None else inp.sample_dist
    result = chamfer_ap(inp.gt_frames, inp.pred_frames, thresholds, official=args.official,
                        classes=inp.classes, sample_dist=sample_dist, per_frame=args.per_frame)
    out = result_json(result, inp)
    if args.json is not None:
        write_text_atomic(args.json, json.dumps(out, indent=1) + "\n")
    print(format_table(result))
    for note in out["warnings"]:
        print(f"warning: {note}", file=sys.stderr)
    return EXIT_OK


def _parse_thresholds(text: str | None) -> tuple[float, ...]:
    if text is None:
        return DEFAULT_THRESHOLDS
    try:
        return tuple(float(t) for t in text.replace(" ", ",").split(",") if t)
    except ValueError:
        raise InputError(f"--thresholds {text!r}: give numbers separated by commas, "
                         "e.g. 0.5,1.0,1.5") from None


def read_input(args: argparse.Namespace, thresholds: tuple[float, ...]) -> ChamferApInput:
    """Read GT and PRED as challenge JSON files or as layers (``--format``)."""
    layer_options = {"--class-field": args.class_field, "--one-class": args.one_class or None,
                     "--score-field": args.score_field, "--no-score": args.no_score or None,
                     "--frame-field": args.frame_field, "--gt-layer": args.gt_layer,
                     "--pred-layer": args.pred_layer}
    if args.one_class and args.class_field:
        raise InputError("give --class-field or --one-class, not both")
    if args.no_score and args.score_field:
        raise InputError("give --score-field or --no-score, not both")
    kind, gt_data = _kind(args.gt, args.format, args.official)
    pred_kind, pred_data = _kind(args.pred, args.format, args.official)
    if kind != pred_kind:
        raise InputError(f"{args.gt} is a {kind} file but {args.pred} is a {pred_kind} file; "
                         "give two challenge JSON files or two layers")
    if kind == "challenge":
        used = [name for name, value in layer_options.items() if value is not None]
        if used:
            raise InputError(f"{', '.join(used)} only apply to layers, not to the challenge's "
                             "JSON files")
        return read_challenge(args.gt, args.pred, official=args.official, gt_data=gt_data,
                              pred_data=pred_data)
    fields = LayerFields(
        class_field=None if args.one_class else (args.class_field or "class"),
        score_field=None if args.no_score else (args.score_field or "score"),
        frame_field=args.frame_field)
    return read_layers(args.gt, args.pred, fields=fields, gt_layer=args.gt_layer,
                       pred_layer=args.pred_layer, thresholds=thresholds)


def _kind(path: Path, fmt: str, official: bool) -> tuple[str, Any]:
    """("challenge", parsed JSON) or ("layer", None) for one input file."""
    if fmt == "layer" or (fmt == "auto" and path.suffix.lower() != ".json"):
        return "layer", None
    data = load_json(path, official=official)
    if fmt == "auto" and isinstance(data, dict) and data.get("type") in GEOJSON_TYPES:
        return "layer", None
    if not (is_challenge_gt(data) or (isinstance(data, dict) and "results" in data)):
        raise InputError(f"{path} is neither a challenge annotation file "
                         "({segment_id: [frames]}) nor a submission ({\"results\": ...}) nor "
                         "GeoJSON")
    return "challenge", data


def result_json(result: ChamferApResult, inp: ChamferApInput) -> dict[str, Any]:
    """The JSON written by ``--json``: the result with the input's segment count and notes."""
    out = result.to_dict()
    out["stats"] = {"segments": inp.segments, **out["stats"]}
    out["warnings"] = [*inp.notes, *out["warnings"]]
    return out


def format_table(result: ChamferApResult) -> str:
    """The reference's table (values rounded to 4 decimals; n/a when undefined) and mAP."""
    def fmt(value: float | None) -> str:
        return "n/a" if value is None else f"{value:.4f}"

    headers = ["category", "num_preds", "num_gts",
               *(result.ap_key(t) for t in result.thresholds), "AP"]
    rows = [[name, str(res.num_preds), str(res.num_gts), *(fmt(a) for a in res.ap_at),
             fmt(res.ap)] for name, res in result.classes.items()]
    widths = [max(len(str(c)) for c in col) for col in zip(headers, *rows, strict=True)]
    lines = ["  ".join(h.ljust(w) if i == 0 else h.rjust(w)
                       for i, (h, w) in enumerate(zip(row, widths, strict=True)))
             for row in [headers, *rows]]
    mode = "official" if result.official else "default"
    lines.append(f"mAP = {fmt(result.mean_ap)}   ({mode} mode, sample spacing "
                 f"{result.sample_dist:g})")
    return "\n".join(lines)
