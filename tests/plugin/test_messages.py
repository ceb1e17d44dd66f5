"""Core's command-line advice is reworded with the names of the plugin's fields."""

from __future__ import annotations

import numpy as np
import pytest

pytestmark = pytest.mark.qgis


def _error_of(call) -> str:
    from core.errors import InputError

    with pytest.raises(InputError) as err:
        call()
    return str(err.value)


def test_core_errors_name_the_fields_not_the_options(plugin_package):
    from graticule_georeferencer.plugin.messages import plain_words

    from core.georef.grid_labels import parse_anchor, solve_labelling

    no_anchor = _error_of(lambda: solve_labelling(np.zeros((0, 2)), np.zeros((0, 2)), 1000))
    bad_spacing = _error_of(lambda: solve_labelling(np.zeros((1, 2)), np.zeros((1, 2)), -1))
    bad_anchor = _error_of(lambda: parse_anchor("10,20=abc"))
    assert "--anchor X,Y=E,N" in no_anchor and "--spacing" in bad_spacing
    assert plain_words(no_anchor).startswith(
        "no anchor: say which intersection is which with an anchor X,Y=E,N")
    assert "a .points file of known points" in plain_words(no_anchor)
    assert plain_words(bad_spacing) == "the grid spacing must be a positive distance, not -1"
    for message in (no_anchor, bad_spacing, bad_anchor):
        assert "--" not in plain_words(message)
