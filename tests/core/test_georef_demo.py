"""End to end with the real detector: core.synth sheet -> detect_graticule -> georeference.

The 1.5x-best-affine accuracy target is tested with simulated detections in
test_georef_pipeline.py, where georeferencing is isolated from detection errors; here the
whole chain must name every intersection right and land within a few pixels of the truth.
"""

from __future__ import annotations

import numpy as np
import pytest

from core.cli import run_cli
from core.georef.demo import main, run_demo
from core.georef.grid_labels import CENTRE_TO_CORNER


@pytest.mark.parametrize(("seed", "orientation"), [(3, "tilted"), (2, "rot90")])
def test_detected_and_georeferenced_sheet_matches_its_truth(tmp_path, seed, orientation):
    from core.synth import generate_sheet

    d = run_demo(tmp_path, seed=seed, size=2000, spacing_px=420.0, difficulty=0.2,
                 orientation=orientation)
    r = d.result
    sheet = generate_sheet(seed, 2000, spacing_px=420.0, difficulty=0.2,
                           orientation=orientation)
    assert int(r.inliers.sum()) >= 8
    # every used GCP is named with its true node (never a cell off, never mirrored)
    for p, g in zip(r.pixel_xy[r.inliers], r.grid_xy[r.inliers], strict=True):
        assert np.hypot(*(sheet.grid_to_pixel(g[0], g[1]) + CENTRE_TO_CORNER - p)) < 10.0
    assert r.labelling.mirrored is False
    assert (r.labelling.north_in_image == "up") == (orientation != "rot90")
    # the sheet lands within a few pixels of the truth everywhere (a cell is 420 px)
    pixel_size = r.transform.pixel_size()
    assert d.max_error_m < 5.0 * pixel_size
    assert r.rmse_px < 2.0


def test_demo_prints_paths_and_rmse(tmp_path, capsys):
    assert run_cli(main, [str(tmp_path), "--size", "2000", "--seed", "3",
                          "--spacing-px", "420"]) == 0
    out = capsys.readouterr().out
    assert "georeferenced into EPSG:2154 (affine): RMSE" in out
    tif = tmp_path / "003-INPUT_georef" / "003-INPUT.tif"
    assert tif.is_file() and f"tif: {tif}" in out
