"""RRC text files: line parsing, encodings, and pairing GT with detection files."""

from __future__ import annotations

import zipfile

import pytest

from core.errors import InputError
from core.metrics.textdet import load_dataset, parse_text
from core.metrics.textdet.rrc_format import decode, image_key


def test_line_fields_quotes_and_dont_care():
    text = "\n".join([
        " 1 , 2,3 ,4,5,6,7,8, spaced text ",
        "-5,-6,10,-6,10,4,-5,4,a,b",
        '0,0,9,0,9,9,0,9,"say \\"hi\\" \\\\o/"',
        "0,0,9,0,9,9,0,9,###",
        '0,0,9,0,9,9,0,9,"###"',
        "0,0,9,0,9,9,0,9, ###",
        "0,0,9,0,9,9,0,9,",
    ])
    words = parse_text(text, "gt_img_1.txt", need_text=True)
    assert words[0].points == (1, 2, 3, 4, 5, 6, 7, 8)
    assert words[0].text == " spaced text "
    assert words[1].points[:2] == (-5, -6) and words[1].text == "a,b"
    assert words[2].text == 'say "hi" \\o/'
    assert [w.dont_care for w in words[3:]] == [True, True, False, False]
    assert words[6].text == ""


def test_crlf_bom_and_empty_lines_are_dropped_and_indices_count_non_empty_lines():
    raw = "\ufeff0,0,9,0,9,9,0,9,café\r\n\r\n\n10,0,19,0,19,9,10,9,東京\r\n".encode()
    words = parse_text(decode(raw, "x.txt"), "x.txt", need_text=True)
    assert [w.text for w in words] == ["café", "東京"]
    assert [w.line for w in words] == [1, 4]


def test_detection_lines_may_omit_the_transcription_gt_lines_may_not():
    det = parse_text("0,0,9,0,9,9,0,9\n0,0,9,0,9,9,0,9,x", "res_img_1.txt", need_text=False)
    assert [w.text for w in det] == [None, "x"]
    with pytest.raises(InputError, match=r"gt_img_1.txt line 2 .*transcription"):
        parse_text("0,0,9,0,9,9,0,9,ok\n0,0,9,0,9,9,0,9", "gt_img_1.txt", need_text=True)


@pytest.mark.parametrize("line", ["0,0,9.5,0,9,9,0,9,x", "0,0,9,0,9,9,0,x", "hello"])
def test_malformed_lines_are_one_line_input_errors(line):
    with pytest.raises(InputError, match="res_img_3.txt line 1") as info:
        parse_text(line, "res_img_3.txt", need_text=False)
    assert "\n" not in str(info.value)


def test_invalid_utf8_is_refused_by_default_and_replaced_in_official_mode():
    raw = "0,0,9,0,9,9,0,9,caf\xe9".encode("latin-1")
    with pytest.raises(InputError, match="not UTF-8"):
        decode(raw, "gt_img_1.txt")
    assert decode(raw, "gt_img_1.txt", strict_utf8=False).endswith("caf\ufffd")


def _write(directory, files):
    directory.mkdir()
    for name, text in files.items():
        (directory / name).write_text(text, encoding="utf-8")
    return directory


QUAD = "0,0,9,0,9,9,0,9"


def test_directory_and_zip_give_the_same_pairs_in_natural_order(tmp_path):
    gt = _write(tmp_path / "gt", {"gt_img_10.txt": f"{QUAD},a\n", "gt_img_2.txt": f"{QUAD},b\n",
                                  "gt_img_1.txt": "", "readme.md": "ignored"})
    res = _write(tmp_path / "res", {"res_img_2.txt": f"{QUAD},b\n", "res_img_10.txt": ""})
    archive = tmp_path / "res.zip"
    with zipfile.ZipFile(archive, "w") as z:
        z.writestr("submission/res_img_2.txt", f"{QUAD},b\n")
        z.writestr("res_img_10.txt", "")
    from_dir = load_dataset(gt, res)
    from_zip = load_dataset(gt, archive)
    assert [im.name for im in from_dir] == ["img_1", "img_2", "img_10"]
    assert [(im.name, im.det, im.det_file) for im in from_dir] == \
           [(im.name, im.det, im.det_file) for im in from_zip]
    assert from_dir[0].det_file is None and from_dir[0].det == ()  # no res file: no detections
    assert from_dir[2].det_file == "res_img_10.txt" and from_dir[2].det == ()


def test_cleval_style_names_pair_without_prefix(tmp_path):
    assert image_key("gt_kr_doc_KR03088.txt") == image_key("kr_doc_KR03088.txt")
    gt = _write(tmp_path / "gt", {"gt_doc_7.txt": f"{QUAD},a\n"})
    res = _write(tmp_path / "res", {"doc_7.txt": f"{QUAD},a\n"})
    (image,) = load_dataset(gt, res)
    assert image.name == "doc_7" and len(image.det) == 1


@pytest.mark.parametrize(("res_files", "message"), [
    ({"res_img_9.txt": ""}, "no GT file for res_img_9.txt"),
    ({"res_img_1.txt": "", "img_1.txt": ""}, "same image 'img_1'"),
])
def test_pairing_errors(tmp_path, res_files, message):
    gt = _write(tmp_path / "gt", {"gt_img_1.txt": f"{QUAD},a\n"})
    res = _write(tmp_path / "res", res_files)
    with pytest.raises(InputError, match=message):
        load_dataset(gt, res)


def test_missing_empty_or_corrupt_inputs(tmp_path):
    gt = _write(tmp_path / "gt", {"gt_img_1.txt": f"{QUAD},a\n"})
    with pytest.raises(InputError, match="does not exist"):
        load_dataset(gt, tmp_path / "nope")
    bad = tmp_path / "bad.zip"
    bad.write_bytes(b"PK\x03\x04 not really a zip")
    with pytest.raises(InputError, match="readable .zip"):
        load_dataset(gt, bad)
    with pytest.raises(InputError, match="holds no .txt file"):
        load_dataset(_write(tmp_path / "empty", {}), gt)
