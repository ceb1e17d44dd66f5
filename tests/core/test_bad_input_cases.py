"""Issue 17: every careless input gives exit 2, one ``error:`` line, inputs byte-identical and
no file left behind (outputs over inputs, image bombs, tiny images, bad numbers, unwritable
places, NaN and huge values in the files read, unusable chart predictions).

Each case runs a command in-process (``run_cli``) in a fresh copy of a small set of inputs
and compares every file of that folder (names and bytes) before and after.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import struct
import zlib
from pathlib import Path

import cv2
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.blocks.__main__ import main as blocks_main
from core.cli import run_cli
from core.errors import InputError
from core.georef.__main__ import main as georef_main
from core.graticule.__main__ import main as graticule_main
from core.maparea.__main__ import main as maparea_main
from core.metrics.__main__ import main as metrics_main
from core.synth.__main__ import main as synth_main

MAINS = {"graticule": graticule_main, "maparea": maparea_main, "blocks": blocks_main,
         "georef": georef_main, "synth": synth_main, "metrics": metrics_main}
POINTS = ("#CRS: +proj=omerc +gamma=0.00047289 +lonc=2.33652533 +lon_0=2.33652533 "
          "+lat_0=48.83635864 +lat_ts=48.83635864 +x_0=0 +y_0=0 +ellps=GRS80 +no_defs\n"
          "mapX,mapY,sourceX,sourceY,enable,dX,dY,residual\n"
          "0,3000,100.5,-80.5,1,0,0,0\n1000,3000,300.5,-82.5,1,0,0,0\n"
          "0,2000,98.5,-280.5,1,0,0,0\n1000,2000,298.5,-282.5,1,0,0,0\n")


def png_bomb(path: Path, width: int, height: int) -> None:
    """A valid PNG header claiming width x height RGB pixels, with almost no data (1 KB)."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    path.write_bytes(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header)
                     + chunk(b"IDAT", zlib.compress(b"\x00" * 1000)) + chunk(b"IEND", b""))


def jpeg_bomb(path: Path, width: int, height: int) -> None:
    """A complete 16 x 16 JPEG whose frame header is rewritten to claim width x height."""
    ok, buf = cv2.imencode(".jpg", np.full((16, 16, 3), 200, np.uint8))
    data = bytearray(buf.tobytes())
    sof = data.find(b"\xff\xc0")
    data[sof + 5:sof + 9] = struct.pack(">HH", height, width)
    path.write_bytes(bytes(data))


@pytest.fixture(scope="module")
def base(tmp_path_factory, shared) -> Path:
    """The inputs every case starts from (about 1 MB)."""
    d = tmp_path_factory.mktemp("inputs")
    rng = np.random.default_rng(17)
    img = rng.integers(120, 255, (400, 400, 3), dtype=np.uint8)
    assert cv2.imwrite(str(d / "S.jpg"), img)
    mask = np.zeros((400, 400), np.uint8)
    mask[20:380, 20:380] = 255
    assert cv2.imwrite(str(d / "M.png"), mask)
    (d / "S.points").write_text(POINTS)
    png_bomb(d / "bomb.png", 65000, 65000)
    jpeg_bomb(d / "bomb.jpg", 65000, 65000)
    assert cv2.imwrite(str(d / "tiny.png"), np.zeros((1, 1, 3), np.uint8))
    assert cv2.imwrite(str(d / "tiny.jpg"), np.zeros((1, 1, 3), np.uint8))
    (d / "afile").write_text("a file where a folder is expected")
    (d / "sheets").mkdir()
    assert cv2.imwrite(str(d / "sheets" / "000-INPUT.jpg"), img)
    data = bytearray((d / "S.jpg").read_bytes())      # damaged in the middle, ends intact
    data[len(data) // 2:len(data) // 2 + 600] = bytes(600)
    (d / "C.jpg").write_bytes(bytes(data))
    (d / "C.points").write_text(POINTS)
    (d / "gt.csv").write_text("x,y\n10.0,20.0\n30.0,40.0\n")
    (d / "huge.csv").write_text("x,y\n2799.513,2673e038\n100,100\n")
    nan_points = POINTS.replace("0,3000,100.5", "0,3000,nan")
    (d / "nan").mkdir()
    shutil.copy(d / "S.jpg", d / "nan" / "S.jpg")
    (d / "nan" / "S.points").write_text(nan_points)
    fixtures = shared / "fixtures"
    shutil.copytree(fixtures / "textdet" / "c01_edge_thresholds" / "gt", d / "tgt")
    shutil.copytree(fixtures / "textdet" / "c01_edge_thresholds" / "pred", d / "tpred")
    cases = fixtures / "chamfer_ap" / "c01_edge_threshold_boundaries"
    shutil.copy(cases / "gt.json", d / "gt.json")
    shutil.copy(cases / "pred.json", d / "pred.json")
    pred = json.loads((d / "pred.json").read_text())
    frame = next(iter(pred["results"]))
    for name, value in (("pred_1e300.json", 1e300), ("pred_1e8.json", 1e8)):
        pred["results"][frame]["vectors"][0][0] = [value, 0.0]
        (d / name).write_text(json.dumps(pred))
    for task, case in (("1", "c01_perfect_all_classes"), ("2", "c01_perfect"),
                       ("3", "c01_perfect")):
        src = fixtures / "chart" / f"task{task}" / case
        shutil.copytree(src / "gt", d / f"c{task}gt")
        shutil.copytree(src / "pred", d / f"c{task}pred")
        for kind, text in (("empty", "[]"), ("nokey", '{"other": 1}')):
            (d / f"c{task}{kind}").mkdir()
            for f in (src / "pred").glob("*.json"):
                (d / f"c{task}{kind}" / f.name).write_text(text)
    gt2 = d / "c2gt" / sorted(p.name for p in (d / "c2gt").glob("*.json"))[0]
    (d / "c2nan").mkdir()
    (d / "c2nan" / gt2.name).write_text(gt2.read_text().replace('"x0":', '"x0": NaN, "_x":', 1))
    return d


def snapshot(root: Path) -> dict[str, str]:
    """Every file and folder under ``root``: relative name -> md5 (or "dir", or the link)."""
    out = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames:
            out[os.path.relpath(os.path.join(dirpath, name), root) + "/"] = "dir"
        for name in filenames:
            p = Path(dirpath, name)
            out[os.path.relpath(p, root)] = ("link:" + os.readlink(p) if p.is_symlink()
                                            else hashlib.md5(p.read_bytes()).hexdigest())
    return out




def read_only_place(tmp_path: Path) -> str:
    """A folder that cannot be written: a mode 555 folder, or (as root, who may write
    anywhere) /proc/sys where the file system is read-only."""
    d = tmp_path / "read-only"
    d.mkdir()
    d.chmod(0o555)
    if not os.access(d, os.W_OK):
        return str(d / "out")
    if not os.access("/proc/sys", os.W_OK):
        return "/proc/sys/issue17/out"
    pytest.skip("no read-only folder here (root on a writable /proc)")

CASES = {
    # data loss: an output that is (or resolves to) an input
    "graticule -o its input": ("graticule", "S.jpg -o S.jpg", "-o S.jpg is an input"),
    "graticule --output its input": ("graticule", "S.jpg --output S.jpg",
                                     "--output S.jpg is an input"),
    "graticule -o ./input": ("graticule", "S.jpg -o ./S.jpg", "is an input"),
    "graticule -o its --mask": ("graticule", "S.jpg --mask M.png -o M.png", "is an input"),
    "graticule -o hard link": ("graticule", "S.jpg -o HL.csv", "is an input (S.jpg)"),
    "graticule -o symlink": ("graticule", "S.jpg -o SL.csv", "is an input (S.jpg)"),
    "graticule --debug over input": ("graticule", "S.jpg -o o.csv --debug S.jpg",
                                     "is a file, not a folder"),
    "maparea -o its input": ("maparea", "M.png -o M.png", "is an input"),
    "blocks -o its --mask": ("blocks", "S.jpg --mask M.png -o M.png", "is an input"),
    "blocks --gpkg over input": ("blocks", "S.jpg -o o.png --gpkg S.jpg", ".gpkg"),
    "georef -o over its .points": ("georef", "S.jpg --crs paris-atlas --gcps-only -o .",
                                   "S.points is an input"),
    "chamfer-ap --json over GT": ("metrics", "chamfer-ap gt.json pred.json --json gt.json",
                                  "--json gt.json is an input"),
    "textdet --json over a GT file": ("metrics", "textdet tgt tpred --json tgt/gt_img_1.txt",
                                      "is an input"),
    "chart --json over a GT file": ("metrics", "chart 1 c1gt c1pred --json c1gt/01_gvbar.json",
                                    "is an input"),
    "T3 outdir is a file": ("metrics", "T3 gt.csv gt.csv gt.csv", "is a file, not a folder"),
    # image bombs: refused from the header, before any decoder allocates
    "graticule PNG bomb": ("graticule", "bomb.png -o o.csv", "65000 x 65000 px"),
    "graticule JPEG bomb": ("graticule", "bomb.jpg -o o.csv", "over the limit of 625 Mpx"),
    "georef PNG bomb": ("georef", "bomb.png --crs paris-atlas --anchor 1,1=0,0", "65000"),
    "georef JPEG bomb": ("georef", "bomb.jpg --crs paris-atlas --anchor 1,1=0,0", "65000"),
    "maparea PNG bomb": ("maparea", "bomb.png -o o.png", "GRATICULE_MAX_PIXELS"),
    "maparea JPEG bomb": ("maparea", "bomb.jpg -o o.png", "65000 x 65000 px"),
    "blocks PNG bomb": ("blocks", "bomb.png -o o.png", "65000 x 65000 px"),
    "blocks JPEG bomb": ("blocks", "bomb.jpg -o o.png", "65000 x 65000 px"),
    "graticule --mask bomb": ("graticule", "S.jpg --mask bomb.png -o o.csv", "65000"),
    "T2 PNG bomb": ("metrics", "T2 bomb.png M.png out", "65000 x 65000 px"),
    # images too small to hold a sheet
    "graticule 1x1": ("graticule", "tiny.png -o o.csv", "only 1 x 1 px"),
    "georef 1x1": ("georef", "tiny.png --crs paris-atlas --anchor 0,0=0,0", "only 1 x 1 px"),
    "maparea 1x1": ("maparea", "tiny.jpg -o o.png", "only 1 x 1 px"),
    "blocks 1x1": ("blocks", "tiny.png -o o.png", "only 1 x 1 px"),
    # numeric options
    "graticule --spacing nan": ("graticule", "S.jpg --spacing nan -o o.csv",
                                "--spacing must be a finite number"),
    "graticule --spacing 0": ("graticule", "S.jpg --spacing 0 -o o.csv",
                              "--spacing must be between 20 and 100000 px, not 0"),
    "georef --spacing nan": ("georef", "S.jpg --crs paris-atlas --spacing nan", "--spacing"),
    "georef --spacing -5": ("georef", "S.jpg --crs paris-atlas --spacing -5", "above 0"),
    "georef --threshold nan": ("georef", "S.jpg --crs paris-atlas --threshold nan",
                               "--threshold must be a finite number"),
    "georef --threshold 0": ("georef", "S.jpg --crs paris-atlas --threshold 0", "above 0"),
    "georef --anchor inf": ("georef", "S.jpg --crs paris-atlas --anchor 1e400,5=0,0",
                            "finite"),
    "georef --anchor 1e12": ("georef", "S.jpg --crs paris-atlas --anchor 1e12,5=0,0",
                             "beyond"),
    "blocks --scale nan": ("blocks", "S.jpg --scale nan -o o.png", "--scale must be a finite"),
    "blocks --scale 1e6": ("blocks", "S.jpg --scale 1e6 -o o.png",
                           "--scale must be between 0.05 and 20, not 1e6"),
    "blocks --tolerance nan": ("blocks", "S.jpg --tolerance nan -o o.png --gpkg o.gpkg",
                               "--tolerance must be a finite number"),
    "blocks --tolerance inf": ("blocks", "S.jpg --tolerance inf -o o.png --gpkg o.gpkg",
                               "--tolerance must be a finite number, not inf"),
    "synth --spacing nan": ("synth", "sy --spacing nan --size 800", "--spacing"),
    "synth --count 0": ("synth", "sy --count 0 --size 800", "--count must be between 1"),
    "synth --size 100000": ("synth", "sy --size 100000", "--size must be between 256"),
    "synth --seed -1": ("synth", "sy --seed -1", "--seed"),
    "chamfer-ap --sample-dist nan": ("metrics", "chamfer-ap gt.json pred.json --sample-dist nan",
                                     "--sample-dist must be a finite number"),
    # a JPEG damaged in the middle (issue 36): refused, naming the file and the option
    "graticule corrupt JPEG": ("graticule", "C.jpg -o o.csv", "C.jpg: the JPEG data is damaged"),
    "maparea corrupt JPEG": ("maparea", "C.jpg -o o.png", "--accept-corrupt to use it"),
    "blocks corrupt JPEG": ("blocks", "C.jpg -o o.png", "the JPEG data is damaged"),
    "georef corrupt JPEG": ("georef", "C.jpg --crs paris-atlas --gcps-only -o g",
                            "the JPEG data is damaged"),
    # outputs that cannot be written: checked before the work starts
    "graticule -o under a file": ("graticule", "S.jpg -o afile/o.csv", "afile is a file"),
    "graticule -o read-only": ("graticule", "S.jpg -o {RO}/o.csv", "not writable"),
    "georef -o under a file": ("georef", "S.jpg --crs paris-atlas --gcps-only -o afile/g",
                               "-o afile/g: afile is a file, not a folder"),
    "georef -o read-only": ("georef", "S.jpg --crs paris-atlas --gcps-only -o {RO}",
                            "not writable"),
    # the option as typed (-o, --outdir, or --outd abbreviated), never another spelling
    "georef --outdir read-only": ("georef", "S.jpg --crs paris-atlas --gcps-only "
                                  "--outdir {RO}", "cannot write in --outdir "),
    "georef --outd read-only": ("georef", "S.jpg --crs paris-atlas --gcps-only --outd {RO}",
                                "cannot write in --outd "),
    "georef DIR -o read-only": ("georef", "sheets --crs paris-atlas -o {RO}/x",
                                "cannot write in -o "),
    "maparea -o under a file": ("maparea", "S.jpg -o afile/o.png", "afile is a file"),
    "blocks -o read-only": ("blocks", "S.jpg -o {RO}/o.png", "not writable"),
    "T3 outdir under a file": ("metrics", "T3 gt.csv gt.csv afile/out", "afile is a file"),
    "textdet --json under a file": ("metrics", "textdet tgt tpred --json afile/o.json",
                                    "afile is a file"),
    "chamfer-ap --json read-only": ("metrics", "chamfer-ap gt.json pred.json --json "
                                               "{RO}/o.json", "not writable"),
    "chart --json under a file": ("metrics", "chart 1 c1gt c1pred --json afile/o.json",
                                  "afile is a file"),
    "synth outdir read-only": ("synth", "{RO} --size 800", "not writable"),
    # NaN, inf and huge values inside the files read
    "georef NaN in .points (detecting)": ("georef", "nan/S.jpg --crs paris-atlas",
                                          "S.points, line 3: coordinates must be finite"),
    "georef NaN in .points (--gcps-only)": ("georef", "nan/S.jpg --crs paris-atlas --gcps-only",
                                            "line 3"),
    "T3 row 2673e038": ("metrics", "T3 gt.csv huge.csv out",
                        "huge.csv, line 2: coordinate 2.673e+41 is beyond"),
    "chamfer-ap coordinate 1e300": ("metrics", "chamfer-ap gt.json pred_1e300.json",
                                    "over the limit of 1e+06 a line"),
    "chamfer-ap coordinate 1e8": ("metrics", "chamfer-ap gt.json pred_1e8.json",
                                  "3.33e+08 points"),
    "chart task 2 NaN in the GT": ("metrics", "chart 2 c2nan c2pred", "NaN is not a JSON"),
    # chart predictions that are [] or lack their task key
    "chart 1 prediction []": ("metrics", "chart 1 c1gt c1empty", "none of the prediction"),
    "chart 1 prediction without task1": ("metrics", "chart 1 c1gt c1nokey", "KeyError: 'task1'"),
    "chart 2 prediction []": ("metrics", "chart 2 c2gt c2empty", "none of the prediction"),
    "chart 2 prediction without task2": ("metrics", "chart 2 c2gt c2nokey", "No Task 2"),
    "chart 3 prediction []": ("metrics", "chart 3 c3gt c3empty", "none of the prediction"),
    "chart 3 prediction without task3": ("metrics", "chart 3 c3gt c3nokey", "KeyError"),
}


@pytest.mark.parametrize("case", list(CASES))
def test_bad_input_is_one_error_line_exit_2_and_touches_nothing(case, base, tmp_path, capsys,
                                                                 monkeypatch):
    command, args, message = CASES[case]
    if "{RO}" in args:
        args = args.replace("{RO}", read_only_place(tmp_path))
    work = tmp_path / "w"
    shutil.copytree(base, work)
    os.link(work / "S.jpg", work / "HL.csv")
    (work / "SL.csv").symlink_to("S.jpg")
    before = snapshot(work)
    monkeypatch.chdir(work)
    capsys.readouterr()
    code = run_cli(MAINS[command], args.split())
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2, (case, err)
    assert len(err) == 1 and err[0].startswith("error: "), err
    assert message in err[0], err[0]
    assert snapshot(work) == before          # inputs byte-identical, nothing left behind


def test_the_pixel_limit_is_raised_by_the_environment(base, tmp_path, monkeypatch, capsys):
    from core.imageio import image_size

    monkeypatch.setenv("GRATICULE_MAX_PIXELS", "70000x70000")
    assert image_size(base / "bomb.png") == (65000, 65000)   # header only: no decoding
    monkeypatch.setenv("GRATICULE_MAX_PIXELS", "lots")
    assert run_cli(graticule_main, [str(base / "S.jpg"), "-o", str(tmp_path / "o.csv")]) == 2
    assert "GRATICULE_MAX_PIXELS='lots' is not a pixel count" in capsys.readouterr().err


def test_an_interrupted_write_removes_its_temporary_files_and_new_folders(tmp_path):
    from core.atomic import atomic_outputs

    def write_then_stop(target: Path) -> None:
        with atomic_outputs([target]) as (tmp,):
            tmp.write_bytes(b"partial")
            Path(f"{tmp}.aux.xml").write_text("GDAL's side file")
            (tmp.parent / f".{tmp.stem}.colour.1.tif").write_bytes(b"a helper's temporary")
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        write_then_stop(tmp_path / "a" / "b" / "x.tif")
    assert list(tmp_path.iterdir()) == []


@settings(derandomize=True, deadline=None, max_examples=60, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(width=st.integers(0, 2**31 - 1), height=st.integers(0, 2**31 - 1),
       kind=st.sampled_from(["png", "jpg"]))
def test_image_header_check_never_lets_a_bomb_through(tmp_path, monkeypatch, width, height,
                                                      kind):
    """Any size in a header: refused unless within the limits (lowered to 512 x 512 here, so
    that what passes is cheap to decode); what is decoded has the header's size."""
    from core.imageio import MIN_SIDE, read_header, read_image

    monkeypatch.setenv("GRATICULE_MAX_PIXELS", "512x512")
    path = tmp_path / f"x.{kind}"
    if kind == "png":
        png_bomb(path, width, height)
    else:
        width, height = width % 65536, height % 65536
        jpeg_bomb(path, width, height)
    accepted = width * height <= 512 * 512 and min(width, height) >= MIN_SIDE
    if not accepted:
        with pytest.raises(InputError, match="over the limit|only .* px|not a readable"):
            read_header(path)
        return
    assert read_header(path) == (width, height)
    try:
        img = read_image(path)        # the data is garbage: decoded or refused, no crash
    except InputError:
        return
    assert img.shape[:2] == (height, width)
