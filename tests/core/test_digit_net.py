"""The learned figure reader of grid labels (core.georef.digit_net, issue 18)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from core.georef.digit_net import (
    BLANK,
    INPUT_H,
    INPUT_W,
    best_path,
    net_input,
    read_logits,
    string_probabilities,
)
from core.synth.text import Lettering


def _collapse(path: tuple[int, ...]) -> str:
    out, last = [], None
    for c in path:
        if c != last and c != BLANK:
            out.append(str(c - 1))
        last = c
    return "".join(out)


def test_string_probabilities_are_the_sum_over_every_alignment():
    # 4 steps over blank + 10 figures: all 11**4 paths enumerated and collapsed
    rng = np.random.default_rng(3)
    logits = rng.normal(0, 2, (2, 4, 11))
    logp = logits - np.log(np.exp(logits).sum(axis=2, keepdims=True))
    strings = ["10", "11", "100", "7", "2750", "99"]
    want = np.zeros((2, len(strings)))
    for path in itertools.product(range(11), repeat=4):
        s = _collapse(path)
        if s in strings:
            want[:, strings.index(s)] += np.exp(logp[:, np.arange(4), list(path)].sum(axis=1))
    got = string_probabilities(logp, strings)
    np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-15)
    assert best_path(np.log(np.eye(11)[[2, 2, 0, 1]] + 1e-9)) == "10"


def test_net_input_scales_centres_and_stretches():
    word = np.zeros((16, 40), np.uint8)
    word[4:12, 5:35] = 120
    x = net_input(word)
    assert x.shape == (INPUT_H, INPUT_W) and x.dtype == np.float32
    assert x.max() == pytest.approx(1.0) and x[:, :20].max() == 0.0   # centred, padded
    wide = net_input(np.full((10, 400), 200, np.uint8))
    assert wide.shape == (INPUT_H, INPUT_W) and wide.min() > 0.99        # squeezed


def _one_edit(text: str) -> list[str]:
    """Every string one figure away from ``text``: a figure dropped or changed."""
    out = {text[:i] + text[i + 1:] for i in range(len(text))}
    out |= {text[:i] + d + text[i + 1:] for i in range(len(text)) for d in "0123456789"}
    return sorted(s for s in out - {text} if s and not s.startswith("0"))


@pytest.mark.parametrize(("text", "style", "family"), [
    ("2750", "oldstyle", "liberation"), ("652000", "serif", "liberation"),
    ("6862", "sans", "dejavu"), ("3000", "serif-italic", "garamond")])
def test_reads_rendered_labels(text, style, family):
    """Clean renderings of the synth fonts, cut with a margin as the label reader does:
    the printed string is at least twice as likely as any string one figure away."""
    patch = np.asarray(Lettering(family=family).render([(text, 1.0, 0.0)], style, 30.0))
    h = patch.shape[0]
    word = np.pad(patch, ((h // 2, h // 2), (h // 3, h // 3)))
    logp = read_logits(net_input(word)[None])
    p = string_probabilities(logp, [text, *_one_edit(text)])[0]
    assert p[0] > 0.5 and p[0] > 2 * p[1:].max()
