"""Georeferencing reports: JSON (machine-readable) and a self-contained HTML page.

The HTML page embeds its residual plot as an inline PNG: every GCP over a reduced copy
of the sheet, with its pixel residual vector (exaggerated, scale in the legend); rejected
points are red crosses.
"""

from __future__ import annotations

import base64
import html
import io
import json
from pathlib import Path

import numpy as np

from ..errors import InputError
from ..imageio import read_image


def _num(v: float) -> float | None:
    """A JSON number, or None for NaN/infinity (a point sent to infinity by a projective)."""
    v = float(v)
    return v if np.isfinite(v) else None


def gcp_table(pixel_xy: np.ndarray, map_xy: np.ndarray, grid_xy: np.ndarray | None,
              inliers: np.ndarray, residuals_px: np.ndarray,
              residuals_map: np.ndarray, index: np.ndarray | None = None) -> list[dict]:
    """One JSON-ready record per GCP: positions, whether used, residuals (px, map units).

    Residuals are ``inverse(map) - pixel`` in pixels (x right, y down) and
    ``forward(pixel) - map`` in map units, as in QGIS's GCP table. ``index``: ``(N, 2)``
    (column, row) of each GCP in the detection, written as ``index`` when given.
    """
    rows = []
    for k in range(len(pixel_xy)):
        dpx, dmap = residuals_px[k], residuals_map[k]
        rows.append({
            "id": k + 1,
            "pixel": [float(pixel_xy[k, 0]), float(pixel_xy[k, 1])],
            "grid": None if grid_xy is None else [float(grid_xy[k, 0]), float(grid_xy[k, 1])],
            "map": [float(map_xy[k, 0]), float(map_xy[k, 1])],
            "used": bool(inliers[k]),
            "residual_px": {"dx": _num(dpx[0]), "dy": _num(dpx[1]),
                            "length": _num(np.hypot(*dpx))},
            "residual_map": {"dx": _num(dmap[0]), "dy": _num(dmap[1]),
                             "length": _num(np.hypot(*dmap))},
        })
        if index is not None:
            rows[-1]["index"] = [int(index[k, 0]), int(index[k, 1])]
    return rows


def residual_plot_png(image_path: Path | None, image_size: tuple[int, int],
                      pixel_xy: np.ndarray, residuals_px: np.ndarray,
                      inliers: np.ndarray, title: str = "") -> bytes:
    """PNG bytes of the residual-vector plot over a reduced copy of the sheet."""
    from matplotlib.figure import Figure  # no pyplot: no global backend change

    w, h = image_size
    fig = Figure(figsize=(8.0, 8.0 * min(2.0, max(0.4, h / max(w, 1)))), dpi=100)
    ax = fig.add_subplot(1, 1, 1)
    if image_path is not None:
        try:
            reduce = 8 if max(w, h) > 4000 else (4 if max(w, h) > 2000 else 1)
            thumb = read_image(image_path, reduce=reduce, gray=True)
            ax.imshow(thumb, cmap="gray", extent=(0, w, h, 0), alpha=0.6,
                      interpolation="bilinear")
        except (InputError, OSError):  # the plot is still useful without the sheet
            pass
    ax.set_xlim(0, w)
    ax.set_ylim(h, 0)
    ax.set_aspect("equal")
    lengths = np.hypot(residuals_px[:, 0], residuals_px[:, 1])
    finite = np.isfinite(lengths)
    ref = float(np.max(lengths[inliers & finite])) if np.any(inliers & finite) else 0.0
    scale = 0.05 * max(w, h) / ref if ref > 0 else 1.0
    scale = float(10 ** np.floor(np.log10(scale))) if scale > 1 else 1.0
    used = inliers & finite
    if np.any(used):
        ax.quiver(pixel_xy[used, 0], pixel_xy[used, 1], residuals_px[used, 0] * scale,
                  residuals_px[used, 1] * scale, angles="xy", scale_units="xy", scale=1,
                  color="tab:blue", width=0.003)
        ax.plot(pixel_xy[used, 0], pixel_xy[used, 1], "o", color="tab:blue", ms=4,
                label=f"used ({int(used.sum())}); residual x {scale:g}")
    if np.any(~inliers):
        ax.plot(pixel_xy[~inliers, 0], pixel_xy[~inliers, 1], "x", color="tab:red", ms=9,
                mew=2, label=f"rejected ({int((~inliers).sum())})")
    for k, (x, y) in enumerate(pixel_xy):
        ax.annotate(str(k + 1), (x, y), xytext=(3, 3), textcoords="offset points", fontsize=7)
    ax.legend(loc="lower right", fontsize=8)
    ax.set_title(title, fontsize=10)
    ax.set_xlabel("pixel x")
    ax.set_ylabel("pixel y (down)")
    buf = io.BytesIO()
    fig.tight_layout()
    fig.savefig(buf, format="png", pil_kwargs={"compress_level": 1})
    return buf.getvalue()


def labels_picture_png(image_path: Path, image_size: tuple[int, int],
                       labels: list[dict]) -> bytes:
    """PNG bytes of a reduced copy of the sheet with every grid label read boxed (green:
    used, red: left out) and its text, a left-out one with why in short (``short``: the
    value expected there, or that its family formed no sequence), for ``--debug``."""
    import cv2

    w, h = image_size
    reduce = 8 if max(w, h) > 8000 else (4 if max(w, h) > 4000 else (2 if max(w, h) > 2000
                                                                      else 1))
    img = cv2.cvtColor(read_image(image_path, reduce=reduce, gray=True), cv2.COLOR_GRAY2BGR)
    for lab in labels:
        x0, y0, x1, y1 = (round(v / reduce) for v in lab["box"])
        colour = (0, 160, 0) if lab["used"] else (0, 0, 220)
        cv2.rectangle(img, (x0 - 2, y0 - 2), (x1 + 2, y1 + 2), colour, 2)
        note = lab["text"] if lab["used"] else f"{lab['text']} ({lab.get('short') or 'left out'})"
        cv2.putText(img, note, (x0, max(12, y0 - 6)), cv2.FONT_HERSHEY_SIMPLEX, 0.5,
                    colour, 1, cv2.LINE_AA)
    ok, buf = cv2.imencode(".png", img)
    if not ok:
        raise RuntimeError("OpenCV could not encode the PNG")
    return buf.tobytes()


def to_json(report: dict) -> str:
    """The report as indented JSON text."""
    return json.dumps(report, indent=2, ensure_ascii=False, allow_nan=False) + "\n"


def _fmt(v: float | None, digits: int = 3) -> str:
    return "-" if v is None else f"{v:.{digits}f}"


def to_html(report: dict, plot_png: bytes) -> str:
    """A self-contained HTML page: summary, warnings, transform, GCP table, residual plot."""
    e = html.escape
    s = report["summary"]
    unit = e(report["crs"].get("unit") or "map units")
    rows = []
    for g in report["gcps"]:
        rp, rm = g["residual_px"], g["residual_map"]
        grid = "" if g["grid"] is None else f"{g['grid'][0]:g}, {g['grid'][1]:g}"
        cls = "" if g["used"] else ' class="rejected"'
        rows.append(
            f"<tr{cls}><td>{g['id']}</td><td>{_fmt(g['pixel'][0], 1)}, "
            f"{_fmt(g['pixel'][1], 1)}</td><td>{e(grid)}</td><td>{_fmt(g['map'][0])}, "
            f"{_fmt(g['map'][1])}</td><td>{'yes' if g['used'] else 'no'}</td>"
            f"<td>{_fmt(rp['dx'], 2)}</td><td>{_fmt(rp['dy'], 2)}</td>"
            f"<td>{_fmt(rp['length'], 2)}</td><td>{_fmt(rm['dx'])}</td><td>{_fmt(rm['dy'])}"
            f"</td><td>{_fmt(rm['length'])}</td></tr>")
    warnings = "".join(f"<li>{e(w)}</li>" for w in report.get("warnings", []))
    labels = (report.get("labelling") or {}).get("labels") or []
    label_rows = "".join(
        f"<tr{'' if lab['used'] else ' class=rejected'}><td>{e(lab['family'])}</td>"
        f"<td>{lab['line']}</td><td>{', '.join(str(v) for v in lab['box'])}</td>"
        f"<td>{e(lab['text'])}</td><td>{'yes' if lab['used'] else 'no'}</td>"
        f"<td>{e(lab['why'])}</td></tr>" for lab in labels)
    label_table = ("<h2>Grid labels read on the sheet</h2><table><tr><th>family</th><th>line"
                   "</th><th>box x0, y0, x1, y1 (px)</th><th>text</th><th>used</th><th>why"
                   f"</th></tr>{label_rows}</table>") if labels else ""
    outputs = "".join(f"<li>{e(k)}: <code>{e(str(v))}</code></li>"
                      for k, v in report.get("outputs", {}).items())
    params = e(json.dumps(report["transform"]["params"], indent=1))
    img = base64.b64encode(plot_png).decode("ascii")
    summary_rows = "".join(f"<tr><th>{e(k)}</th><td>{e(str(v))}</td></tr>" for k, v in [
        ("input", report["input"]),
        ("output CRS", report["crs"]["output"]),
        ("grid CRS", report["crs"]["grid"]),
        ("transform", report["transform"]["kind"]),
        ("GCPs used / rejected", f"{s['used']} / {s['rejected']}"
         + (f" ({s['disabled']} disabled)" if s.get("disabled") else "")),
        ("RMSE (px)", _fmt(s["rmse_px"], 3) if s.get("redundancy", 1) > 0 else
         "not measurable: no redundancy (see the warnings)"),
        (f"RMSE ({unit})", _fmt(s["rmse_map"], 3) if s.get("redundancy", 1) > 0 else "-"),
        ("redundancy (equations - unknowns)", s.get("redundancy", "-")),
        ("outliers", f"{report['robust']['method']}, threshold "
                     f"{report['robust']['threshold_px']:.1f} px"),
    ])
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<title>Georeferencing report: {e(Path(report['input']).name)}</title>
<style>
body {{ font-family: sans-serif; margin: 1.5em; color: #222; }}
table {{ border-collapse: collapse; margin: 0.5em 0 1.5em; }}
th, td {{ border: 1px solid #ccc; padding: 2px 6px; text-align: right; font-size: 0.9em; }}
th {{ background: #f0f0f0; text-align: left; }}
tr.rejected td {{ color: #b00; }}
pre {{ background: #f7f7f7; padding: 0.5em; overflow-x: auto; }}
img {{ max-width: 100%; }}
</style></head><body>
<h1>Georeferencing report</h1>
<table>{summary_rows}</table>
{"<h2>Warnings</h2><ul>" + warnings + "</ul>" if warnings else ""}
{label_table}
<h2>Outputs</h2><ul>{outputs}</ul>
<h2>Residuals</h2>
<img alt="residual vectors over the sheet" src="data:image/png;base64,{img}">
<h2>Ground control points</h2>
<table><tr><th>#</th><th>pixel x, y</th><th>grid E, N</th><th>map x, y</th><th>used</th>
<th>dX px</th><th>dY px</th><th>px</th><th>dX {unit}</th><th>dY {unit}</th><th>{unit}</th></tr>
{"".join(rows)}</table>
<p>Pixel residual: the GCP's map position taken back to the image by the fitted transform,
minus its pixel position (x right, y down). Map residual: the pixel position transformed to
the map, minus the GCP's map position.</p>
<h2>Transform parameters</h2><pre>{params}</pre>
</body></html>
"""
