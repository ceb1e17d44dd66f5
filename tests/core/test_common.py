"""Shared core pieces: image reading errors, atomic writes, point formats, batch runs."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from core.atomic import atomic_output, atomic_outputs
from core.cli import EXIT_BAD_INPUT, EXIT_OK, EXIT_SOME_FAILED, run_batch, run_cli
from core.errors import InputError
from core.formats.mapseg_csv import read_points_csv, write_points_csv
from core.formats.qgis_points import GroundControlPoints, read_points_file, write_points_file
from core.imageio import image_size, read_image, read_mask


def _jpeg(tmp_path, w=128, h=96):
    img = np.zeros((h, w, 3), np.uint8)
    img[:, :, 0] = 200  # red in RGB
    path = tmp_path / "a.jpg"
    cv2.imwrite(str(path), img[:, :, ::-1])
    return path


def test_read_image_returns_rgb_and_reduces(tmp_path):
    path = _jpeg(tmp_path)
    rgb = read_image(path)
    assert rgb.shape == (96, 128, 3)
    assert rgb[..., 0].mean() > 190 and rgb[..., 2].mean() < 10
    assert read_image(path, reduce=4, gray=True).shape == (24, 32)
    assert image_size(path) == (128, 96)


@pytest.mark.parametrize(("content", "message"), [
    (b"", "empty"),
    (b"not an image at all", "not a JPEG"),
    (b"\xff\xd8\xff\xe0" + b"\x00" * 100, "truncated"),
])
def test_read_image_rejects_bad_files_in_one_line(tmp_path, content, message):
    path = tmp_path / "bad.jpg"
    path.write_bytes(content)
    with pytest.raises(InputError, match=message) as info:
        read_image(path)
    assert "\n" not in str(info.value)


def test_read_image_rejects_missing_file_and_directory(tmp_path):
    with pytest.raises(InputError, match="no such file"):
        read_image(tmp_path / "nope.png")
    with pytest.raises(InputError, match="directory"):
        read_image(tmp_path)


def test_read_mask_thresholds_and_checks_size(tmp_path):
    m = np.array([[0, 127, 128, 255]], np.uint8)
    cv2.imwrite(str(tmp_path / "m.png"), m)
    assert read_mask(tmp_path / "m.png").tolist() == [[False, False, True, True]]
    with pytest.raises(InputError, match="4 x 1 px but the image is 5 x 1"):
        read_mask(tmp_path / "m.png", shape=(1, 5))
    cv2.imwrite(str(tmp_path / "c.png"), np.dstack([m, m * 0, m]))
    with pytest.raises(InputError, match="colour"):
        read_mask(tmp_path / "c.png")


def test_atomic_outputs_leave_nothing_on_error(tmp_path):
    target = tmp_path / "out.csv"

    def write_then_fail():
        with atomic_output(target) as tmp:
            tmp.write_text("half")
            raise RuntimeError("boom")

    with pytest.raises(RuntimeError):
        write_then_fail()
    assert list(tmp_path.iterdir()) == []
    with atomic_outputs([tmp_path / "a.txt", tmp_path / "b.txt"]) as (a, b):
        a.write_text("A")
        b.write_text("B")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.txt", "b.txt"]


def test_points_csv_round_trip_and_errors(tmp_path):
    pts = np.array([[1.25, 2.0], [1000.04, 3.96]])
    write_points_csv(tmp_path / "p.csv", pts)
    assert (tmp_path / "p.csv").read_text() == "x,y\n1.2,2.0\n1000.0,4.0\n"
    np.testing.assert_allclose(read_points_csv(tmp_path / "p.csv"), [[1.2, 2.0], [1000.0, 4.0]])
    (tmp_path / "h.csv").write_text("\ufeffx,y\r\n")
    assert read_points_csv(tmp_path / "h.csv").shape == (0, 2)
    (tmp_path / "bad.csv").write_text("x,y\n1,2\n3;4\n")
    with pytest.raises(InputError, match="line 3"):
        read_points_csv(tmp_path / "bad.csv")
    (tmp_path / "nohead.csv").write_text("1,2\n")
    with pytest.raises(InputError, match="header"):
        read_points_csv(tmp_path / "nohead.csv")


def test_qgis_points_read_real_file_and_round_trip(shared, tmp_path):
    gcps = read_points_file(shared / "data/paris-1925-sheet1-crop/GRATICULE-GT.points")
    assert gcps.crs.startswith("+proj=omerc")
    np.testing.assert_allclose(gcps.map_xy, [[-1000, 2000], [0, 2000], [1000, 2000]])
    # sourceY is negative in the file; pixel y is down (positive) in core
    np.testing.assert_allclose(gcps.pixel_xy[0], [2276.1, 1667.5])
    gcps.enabled[1] = False
    write_points_file(tmp_path / "out.points", gcps, residuals_px=np.ones((3, 2)))
    text = (tmp_path / "out.points").read_text().splitlines()
    assert text[0].startswith("#CRS: +proj=omerc")
    assert text[1] == "mapX,mapY,sourceX,sourceY,enable,dX,dY,residual"
    assert text[2].split(",")[3] == "-1667.5"
    back = read_points_file(tmp_path / "out.points")
    np.testing.assert_array_equal(back.map_xy, gcps.map_xy)
    np.testing.assert_array_equal(back.pixel_xy, gcps.pixel_xy)
    assert back.enabled.tolist() == [True, False, True]
    assert len(back.only_enabled()) == 2


def test_qgis_points_malformed(tmp_path):
    (tmp_path / "x.points").write_text("mapX,mapY,sourceX,sourceY\n1,2,abc,4\n")
    with pytest.raises(InputError, match="line 2"):
        read_points_file(tmp_path / "x.points")
    g = GroundControlPoints([[0, 0]], [[1, 1]])
    assert g.enabled.tolist() == [True]


def test_run_cli_and_batch_exit_codes(capsys):
    def bad(_argv):
        raise InputError("give a better file")

    assert run_cli(bad, []) == EXIT_BAD_INPUT
    assert capsys.readouterr().err == "error: give a better file\n"

    def work(item):
        if item == "b":
            raise InputError("broken")

    assert run_batch(["a", "c"], work) == EXIT_OK
    assert run_batch(["a", "b", "c"], work) == EXIT_SOME_FAILED
    err = capsys.readouterr().err
    assert "1 of 3 failed" in err and "b: broken" in err


def test_input_error_words_options_per_front_end_and_survives_pickling():
    import pickle

    from core.errors import NoGraticuleError, option

    err = NoGraticuleError(f"{option('grid-crs')} is not a CRS; check {option('spacing')}",
                           field="grid-crs", value="nonsense")
    assert str(err) == "--grid-crs is not a CRS; check --spacing"
    assert err.render(str.upper) == "GRID-CRS is not a CRS; check SPACING"
    back = pickle.loads(pickle.dumps(err))
    assert type(back) is NoGraticuleError
    assert (str(back), back.field, back.value) == (str(err), "grid-crs", "nonsense")
    assert run_cli(lambda argv: (_ for _ in ()).throw(err)) == EXIT_BAD_INPUT


def test_sheet_mask_is_the_given_file_else_the_one_beside_the_sheet(tmp_path):
    from core.mapseg_names import sheet_mask

    sheet = tmp_path / "007-INPUT.jpg"
    sheet.write_bytes(b"x")
    assert sheet_mask(sheet) is None
    beside = tmp_path / "007-INPUT-MASK.png"
    beside.write_bytes(b"x")
    assert sheet_mask(sheet) == beside
    given = tmp_path / "other.png"
    given.write_bytes(b"x")
    assert sheet_mask(sheet, given) == given
    with pytest.raises(InputError, match="missing.png: no such file"):
        sheet_mask(sheet, tmp_path / "missing.png")


def test_a_mask_is_found_beside_a_sheet_under_both_names(tmp_path):
    from core.mapseg_names import mask_for_input, mask_names, sheet_mask

    plain = tmp_path / "INPUT.jpg"          # the real 1925 crop's names
    assert [p.name for p in mask_names(plain)] == ["INPUT-INPUT-MASK.png", "INPUT-MASK.png"]
    assert mask_for_input(plain) is None
    (tmp_path / "INPUT-MASK.png").write_bytes(b"x")
    assert mask_for_input(plain) == sheet_mask(plain) == tmp_path / "INPUT-MASK.png"
    tif = tmp_path / "plate.tif"
    (tmp_path / "plate-MASK.png").write_bytes(b"x")
    assert mask_for_input(tif) == tmp_path / "plate-MASK.png"
    mapseg = tmp_path / "007-INPUT.jpg"     # both rules give the MapSeg name
    assert [p.name for p in mask_names(mapseg)] == ["007-INPUT-MASK.png"]
    elsewhere = tmp_path / "masks"
    elsewhere.mkdir()
    (elsewhere / "plate-MASK.png").write_bytes(b"x")
    assert mask_for_input(tif, elsewhere) == elsewhere / "plate-MASK.png"


@pytest.mark.parametrize("command", ["graticule", "georef", "blocks"])
def test_every_command_reads_the_stem_mask_beside_the_sheet(tmp_path, capsys, command):
    """An empty INPUT-MASK.png beside INPUT.png is read (and refused) by every command."""
    import importlib

    sheet = tmp_path / "INPUT.png"
    cv2.imwrite(str(sheet), np.full((200, 300, 3), 230, np.uint8))
    cv2.imwrite(str(tmp_path / "INPUT-MASK.png"), np.zeros((200, 300), np.uint8))
    main = importlib.import_module(f"core.{command}.__main__").main
    argv = {"graticule": ["-o", str(tmp_path / "x.csv")],
            "georef": ["--crs", "EPSG:2154", "--anchor", "10,10=0,0", "-o",
                       str(tmp_path / "out")],
            "blocks": ["-o", str(tmp_path / "x.png")]}[command]
    assert run_cli(main, [str(sheet), *argv]) == EXIT_BAD_INPUT
    assert "mask is empty" in capsys.readouterr().err
