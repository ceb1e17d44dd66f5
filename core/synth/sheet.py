"""``generate_sheet``: a synthetic atlas sheet with exact ground truth, in memory."""

from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np

from ..progress import ProgressCallback, report
from .geometry import SheetGeometry
from .masks import shapes_mask_output
from .params import make_params
from .render import render

GENERATOR_VERSION = 1


@dataclass
class SyntheticSheet:
    """One generated sheet and its ground truth.

    Pixel coordinates are x right, y down, with pixel centres at integer coordinates (the
    centre of the top-left pixel is (0, 0)), as in core and MapSeg ground truth.

    Attributes:
        image: ``(H, W, 3)`` uint8 RGB (JPEG-decoded when generated with
            ``jpeg_roundtrip=True``; otherwise the image before JPEG compression).
        intersections: ``(N, 2)`` float64 true pixel positions of the visible graticule
            intersections inside the map area, after warp and rotation.
        grid_xy: ``(N, 2)`` float64 grid coordinates (easting, northing), metres, of each.
        map_mask: ``(H, W)`` bool, True inside the map frame.
        blocks_mask: ``(H, W)`` bool, True on building blocks (each block one 4-connected
            component, strictly inside its drawn outline).
        params: every generation parameter and statistic (the content of NNN.json).
        geometry: the exact grid <-> pixel mapping (:meth:`grid_to_pixel`).
        jpeg: the encoded JPEG when ``jpeg_roundtrip=True`` (written as is by write_sheet).
        drawing: the block polygons and the frame as drawn (flat coordinates), for
            :meth:`shapes_mask`.
    """

    image: np.ndarray
    intersections: np.ndarray
    grid_xy: np.ndarray
    map_mask: np.ndarray
    blocks_mask: np.ndarray
    params: dict
    geometry: SheetGeometry
    jpeg: bytes | None = field(default=None, repr=False)
    drawing: tuple | None = field(default=None, repr=False)

    def shapes_mask(self) -> np.ndarray:
        """``(H, W)`` bool, True inside every closed shape of the blocks (block polygons
        split by their parcel lines and courtyard rings), strictly inside the drawn lines,
        each shape one 4-connected component; computed on demand."""
        if self.drawing is None:
            return np.zeros_like(self.blocks_mask)
        blocks, frame = self.drawing
        return shapes_mask_output(blocks, self.geometry, int(self.params["outline_width_px"]),
                                  frame, float(self.params["frame_width_px"]))

    def grid_to_pixel(self, e: np.ndarray | float, n: np.ndarray | float) -> np.ndarray:
        """True pixel position ``(..., 2)`` of any grid point(s) (easting, northing in metres)."""
        return self.geometry.grid_to_pixel(e, n)

    def pixel_to_grid(self, x: np.ndarray | float, y: np.ndarray | float) -> np.ndarray:
        """Grid coordinates ``(..., 2)`` (easting, northing) of pixel position(s)."""
        return self.geometry.pixel_to_grid(x, y)

    @property
    def grid_spacing_m(self) -> float:
        """Distance between neighbouring grid lines, metres."""
        return float(self.params["grid_spacing_m"])

    @property
    def grid_crs(self) -> str:
        """PROJ string of the grid CRS."""
        return str(self.params["grid_crs"])

    def grid_index(self) -> np.ndarray:
        """``(N, 2)`` int (column, row) of each intersection, as a detector numbers them.

        Columns count the line family closer to vertical from left to right, rows the other
        family from top to bottom, both starting at 0 (``GraticuleResult.index`` convention),
        whatever the sheet's rotation.
        """
        g, spacing = self.grid_xy, self.grid_spacing_m
        centre = g.mean(axis=0)
        p0 = self.grid_to_pixel(centre[0], centre[1])
        step_e = self.grid_to_pixel(centre[0] + spacing, centre[1]) - p0
        step_n = self.grid_to_pixel(centre[0], centre[1] + spacing) - p0
        if abs(step_e[0]) >= abs(step_n[0]):
            col, row = np.sign(step_e[0]) * g[:, 0], np.sign(step_n[1]) * g[:, 1]
        else:
            col, row = np.sign(step_n[0]) * g[:, 1], np.sign(step_e[1]) * g[:, 0]
        index = np.round(np.column_stack([col, row]) / spacing).astype(int)
        return index - index.min(axis=0)


def _labels_in_output(labels: list[dict], geom) -> list[dict]:
    """Margin labels with their centre and box in output pixels (x right, y down, pixel
    centres at integers): ``box`` [x0, y0, x1, y1]."""
    out = []
    for lab in labels:
        cx, cy = geom.flat_to_array(np.array([lab["centre"][0]]), np.array([lab["centre"][1]]))
        w, h = lab["size"] if geom.quarter_turns % 2 == 0 else lab["size"][::-1]
        cx, cy = float(cx[0]), float(cy[0])
        out.append({**lab, "centre": [cx, cy],
                    "box": [cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2]})
    return out


def encode_jpeg(image: np.ndarray, quality: int) -> bytes:
    """RGB uint8 image as baseline JPEG bytes (OpenCV, 4:2:0 chroma subsampling)."""
    ok, buf = cv2.imencode(".jpg", cv2.cvtColor(image, cv2.COLOR_RGB2BGR),
                           [cv2.IMWRITE_JPEG_QUALITY, int(quality)])
    if not ok:
        raise RuntimeError("OpenCV could not encode the JPEG")
    return buf.tobytes()


def generate_sheet(seed: int, size: int | tuple[int, int] = 10000, *,
                   difficulty: float | None = None, spacing_px: float = 2363.0,
                   jpeg_roundtrip: bool = False, progress: ProgressCallback | None = None,
                   **overrides: object) -> SyntheticSheet:
    """Generate one synthetic historical atlas sheet with exact ground truth.

    Args:
        seed: the sheet's seed (same seed and arguments -> identical sheet). For sheet k of
            a CLI run with seed S use ``core.synth.sheet_seed(S, k)`` and
            ``difficulty=core.synth.run_difficulty(k)``.
        size: ``W`` for a square sheet or ``(W, H)``, pixels of the output image.
        difficulty: 0 (clean, axis-aligned, strong lines) to 1 (faint interrupted tilted
            warped lines, distractors, clutter, damage); None draws one from the seed.
        spacing_px: distance between graticule lines (1000 m), output pixels.
        jpeg_roundtrip: encode at the sheet's JPEG quality and decode back into ``image``,
            so in-memory users see the compression artifacts the written file has.
        progress: optional callback (fraction, message); raise core.progress.Cancelled in it
            to stop.
        **overrides: any :class:`~core.synth.params.SheetParams` field, e.g.
            ``orientation="rot90"``, ``tilt_deg=12.0``, ``warp_amplitude_px=0``.
    """
    p = make_params(seed, size, difficulty=difficulty, spacing_px=spacing_px, **overrides)
    r = render(p, progress)
    geom = r.geometry
    en = r.grid_xy
    pix = geom.grid_to_pixel(en[:, 0], en[:, 1]) if len(en) else np.zeros((0, 2))
    inside = ((pix[:, 0] >= 0) & (pix[:, 0] < p.width) & (pix[:, 1] >= 0)
              & (pix[:, 1] < p.height)) if len(pix) else np.zeros(0, bool)
    pix, en = pix[inside], en[inside]
    # order: top to bottom, then left to right in the output image
    order = np.lexsort((pix[:, 0], np.round(pix[:, 1] / max(p.spacing_px / 2, 1.0))))
    pix, en = pix[order], en[order]
    params = p.to_dict()
    params.update({
        "generator": "core.synth", "generator_version": GENERATOR_VERSION,
        "geometry": geom.to_dict(),
        "intersections": len(pix),
        "hidden_intersections": r.hidden_xy.tolist(),
        "stats": r.stats,
        "grid_labels": _labels_in_output(r.grid_labels, geom),
    })
    sheet = SyntheticSheet(r.image, pix, en, r.map_mask, r.blocks_mask, params, geom,
                           drawing=(r.blocks, r.frame))
    if jpeg_roundtrip:
        report(progress, 0.97, "JPEG")
        sheet.jpeg = encode_jpeg(sheet.image, p.jpeg_quality)
        dec = cv2.imdecode(np.frombuffer(sheet.jpeg, np.uint8), cv2.IMREAD_COLOR)
        sheet.image = cv2.cvtColor(dec, cv2.COLOR_BGR2RGB)
    report(progress, 1.0, "done")
    return sheet
