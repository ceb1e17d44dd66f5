"""core.maparea: map-area masks of generated and real sheets, and the command line."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from core.errors import InputError
from core.imageio import read_mask
from core.maparea import map_area_mask
from core.maparea.__main__ import main as maparea_main
from core.metrics.hausdorff import hausdorff95
from core.synth import generate_sheet, write_sheet


@pytest.fixture(scope="module")
def sheets():
    """Two generated 2500 px sheets at the reference scale (a framed and a notched one)."""
    return [generate_sheet(seed, 2500, difficulty=d, jpeg_roundtrip=True)
            for seed, d in ((3, 0.2), (8, 0.8))]


def test_generated_sheets_within_25_px(sheets):
    for sheet in sheets:
        mask = map_area_mask(sheet.image)
        assert mask.shape == sheet.map_mask.shape and mask.dtype == bool
        assert hausdorff95(sheet.map_mask, mask) <= 25.0


def test_real_crop_without_frame_line(real_crop):
    """The real crop has no frame line (its border is painted over) and an L shape."""
    truth = read_mask(real_crop / "INPUT-MASK.png")
    mask = map_area_mask(real_crop / "INPUT.jpg")
    assert hausdorff95(truth, mask) <= 20.0
    # the notch at the bottom left stays outside
    assert not mask[2500, 1000] and mask[2500, 6000] and mask[500, 1000]


def test_cli_single_sheet_writes_0_255_png(sheets, tmp_path):
    write_sheet(sheets[0], tmp_path, "007")
    out = tmp_path / "out" / "007-OUTPUT-PRED.png"
    assert maparea_main([str(tmp_path / "007-INPUT.jpg"), "-o", str(out)]) == 0
    png = cv2.imread(str(out), cv2.IMREAD_UNCHANGED)
    assert png.dtype == np.uint8 and png.ndim == 2 and png.shape == (2500, 2500)
    assert set(np.unique(png)) == {0, 255}
    assert hausdorff95(sheets[0].map_mask, png > 0) <= 25.0


def test_cli_directory_goes_on_past_a_bad_sheet(sheets, tmp_path, capsys):
    src = tmp_path / "in"
    write_sheet(sheets[1], src, "001")
    (src / "002-INPUT.jpg").write_bytes(b"\xff\xd8\xff\xe0 not a jpeg")
    out = tmp_path / "out"
    assert maparea_main([str(src), "-o", str(out)]) == 1
    assert (out / "001-OUTPUT-PRED.png").is_file()
    assert not (out / "002-OUTPUT-PRED.png").exists()
    assert "002-INPUT.jpg" in capsys.readouterr().err


@pytest.mark.parametrize("name", ["missing.jpg", "empty.jpg"])
def test_cli_bad_input_writes_nothing(tmp_path, name):
    (tmp_path / "empty.jpg").write_bytes(b"")
    out = tmp_path / "o.png"
    with pytest.raises(InputError):
        maparea_main([str(tmp_path / name), "-o", str(out)])
    assert not out.exists()


def test_cli_refuses_non_png_output(sheets, tmp_path):
    write_sheet(sheets[0], tmp_path, "001")
    with pytest.raises(InputError, match="png"):
        maparea_main([str(tmp_path / "001-INPUT.jpg"), "-o", str(tmp_path / "o.jpg")])
