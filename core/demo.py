"""``python -m core.demo`` (``make demo``): the main job end to end on an embedded default.

Generates a sheet of the Paris atlas grid with core.synth (so the truth is known), detects
its graticule, georeferences it into Lambert-93 (EPSG:2154) from its true anchor, and prints
where the outputs are and the RMSE. See core.georef.demo for the options.
"""

import sys

from .cli import run_cli
from .georef.demo import main

if __name__ == "__main__":
    sys.exit(run_cli(main))
