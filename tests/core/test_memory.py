"""core.memory: a process that keeps freed memory touches no new pages for the next image."""

import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

# Decodes a 6000 x 6000 px RGB PNG (108 MB decoded) three times with OpenCV (on the main
# thread or on a second one), dropping the image in between, and prints the page faults of
# the last two decodes.
_SCRIPT = """
import resource, sys, tempfile
from concurrent.futures import ThreadPoolExecutor
import cv2, numpy as np
from core.memory import reuse_freed_memory
tuned = reuse_freed_memory() if sys.argv[1] == "tuned" else None
pool = ThreadPoolExecutor(1)
def decode(name):
    if sys.argv[2] == "thread":
        return pool.submit(cv2.imread, name).result() is None
    return cv2.imread(name) is None
with tempfile.NamedTemporaryFile(suffix=".png") as f:
    cv2.imwrite(f.name, np.zeros((6000, 6000, 3), np.uint8))
    decode(f.name)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    for _ in range(2):
        decode(f.name)
    print(tuned, resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before)
"""


def _faults(mode: str, where: str) -> tuple[str, int]:
    out = subprocess.run([sys.executable, "-c", _SCRIPT, mode, where], cwd=REPO, check=True,
                         capture_output=True, text=True).stdout.split()
    return out[0], int(out[1])


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc only")
@pytest.mark.parametrize("where", ["main", "thread"])
def test_freed_image_memory_is_reused_without_page_faults(where):
    pages = 2 * 108_000_000 // 4096   # two decodes
    tuned, faults = _faults("tuned", where)
    assert tuned == "True"
    assert faults < 0.05 * pages          # the freed buffer is served again
    _, default_faults = _faults("default", where)
    assert default_faults > 0.5 * pages   # glibc's default maps every decode afresh


# Decodes the same PNG three times inside freed_memory_kept(), then twice after it, and
# prints the page faults of the last two decodes inside and of the two after.
_SCOPED = """
import resource, tempfile
import cv2, numpy as np
from core.memory import freed_memory_kept
def faults():
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt
with tempfile.NamedTemporaryFile(suffix=".png") as f:
    cv2.imwrite(f.name, np.zeros((6000, 6000, 3), np.uint8))
    with freed_memory_kept():
        cv2.imread(f.name)
        before = faults()
        for _ in range(2):
            cv2.imread(f.name)
        inside = faults() - before
    before = faults()
    for _ in range(2):
        cv2.imread(f.name)
    print(inside, faults() - before)
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc only")
def test_freed_memory_is_kept_within_the_block_only():
    pages = 2 * 108_000_000 // 4096
    inside, after = (int(v) for v in subprocess.run(
        [sys.executable, "-c", _SCOPED], cwd=REPO, check=True, capture_output=True,
        text=True).stdout.split())
    assert inside < 0.05 * pages       # reused within the block
    assert after > 0.5 * pages         # given back after it: large buffers mapped again
