"""``python -m core.metrics COMMAND ...``: dispatch to the command's module, imported lazily
so that a fast metric does not pay for the imports of a slow one."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Sequence

from ..cli import EXIT_BAD_INPUT, run_cli

# command -> (module under core.metrics with main(command, argv) -> int, one-line help)
COMMANDS = {
    "T1": ("mapseg_cli", "MapSeg task 1: panoptic quality of building-block masks"),
    "T2": ("mapseg_cli", "MapSeg task 2: Hausdorff-95 distance between map-area masks"),
    "T3": ("mapseg_cli", "MapSeg task 3: PDS score of graticule intersection points"),
    "textdet": ("textdet.cli", "text detection: IoU, DetEval, TIoU, CLEval"),
    "chamfer-ap": ("chamfer_ap.cli", "polylines: chamfer-distance AP (CVPR 2023 HD map)"),
    "chart": ("chart.cli", "CHART-Infographics tasks 1 to 7"),
}


def usage() -> str:
    lines = ["usage: python -m core.metrics COMMAND [ARGS...]   (COMMAND --help for details)",
             "", "commands:"]
    lines += [f"  {name:<11} {text}" for name, (_, text) in COMMANDS.items()]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] in ("-h", "--help"):
        print(usage())
        return 0 if args else EXIT_BAD_INPUT
    command = args[0]
    if command not in COMMANDS:
        print(f"error: unknown command {command!r}; choose one of {', '.join(COMMANDS)}",
              file=sys.stderr)
        return EXIT_BAD_INPUT
    module = importlib.import_module(f".{COMMANDS[command][0]}", __package__)
    return module.main(command, args[1:])


if __name__ == "__main__":
    sys.exit(run_cli(main))
