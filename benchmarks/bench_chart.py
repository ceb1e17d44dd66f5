"""Speed of the CHART-Infographics metrics: every task on N generated charts (default 1000).

Run: ``.venv/bin/python -m benchmarks.bench_chart [--charts N] [--seed S] [--keep DIR]``.
A seeded generator writes N charts (bars, lines, scatter, boxes; all six task keys), one
perturbed prediction per task and a blank image per chart to a temporary folder, then times
each task in the default mode and with ``--official 2020`` and ``2019``. Target: each task
under 30 s on 1000 charts.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

import numpy as np
from PIL import Image

from core.metrics.chart import evaluate

TYPES = ("Grouped vertical bar", "Stacked horizontal bar", "Line", "Scatter", "Vertical box",
         "Horizontal box")
SIZES = ((640, 480), (800, 600), (1024, 768))
WORDS = ("Pumps", "Valves", "Relays", "Gizmos", "Bolts", "Sensors", "Widgets", "Motors")
SERIES = ("North", "South", "East", "West")
STATS = ("first_quartile", "max", "median", "min", "third_quartile")


def _bb(x, y, w, h):
    return {"x0": int(x), "y0": int(y), "width": int(w), "height": int(h)}


def make_chart(rng: np.random.Generator, chart_type: str) -> dict:
    """One synthetic GT document with the six task keys (competition layout)."""
    w, h = SIZES[rng.integers(len(SIZES))]
    n_series = 1 if "box" in chart_type else int(rng.integers(1, 4))
    n_cat = int(rng.integers(3, 7))
    blocks, roles = [], []

    def add(text, bb, role):
        blocks.append({"id": len(blocks), "bb": bb, "text": text})
        roles.append({"id": len(roles), "role": role})
        return len(blocks) - 1

    add("Total output by sector", _bb(w * 0.3, 20, w * 0.4, 22), "chart_title")
    x_ticks, y_ticks = [], []
    for i in range(n_cat):
        px = 100 + (i + 0.5) * (w - 200) / n_cat
        tid = add(WORDS[i % len(WORDS)] if "Scatter" not in chart_type else str(i * 10),
                  _bb(px - 20, h - 90, 40, 16), "tick_label")
        x_ticks.append({"id": tid, "tick_pt": {"x": round(px, 1), "y": h - 100}})
    for i in range(5):
        py = h - 100 - i * (h - 200) / 4
        tid = add(str(i * 25), _bb(60, py - 8, 30, 16), "tick_label")
        y_ticks.append({"id": tid, "tick_pt": {"x": 100, "y": round(py, 1)}})
    add("Month", _bb(w / 2 - 30, h - 60, 60, 17), "axis_title")
    add("Share (%)", _bb(20, h / 2 - 30, 17, 60), "axis_title")
    legend = []
    if n_series > 1:
        for s in range(n_series):
            tid = add(SERIES[s], _bb(w - 90, 60 + 22 * s, 40, 14), "legend_label")
            legend.append({"id": tid, "bb": _bb(w - 110, 60 + 22 * s, 14, 14)})

    series, ve = [], {"bars": [], "boxplots": [], "lines": [], "scatter points": []}
    for s in range(n_series):
        name = SERIES[s] if n_series > 1 else ""
        if "bar" in chart_type:
            data = [{"x": WORDS[i % len(WORDS)], "y": round(float(rng.uniform(5, 95)), 2)}
                    for i in range(n_cat)]
            for i, p in enumerate(data):
                ve["bars"].append(_bb(110 + i * 60 + s * 15, h - 100 - 4 * p["y"], 14,
                                      4 * p["y"]))
        elif chart_type == "Line":
            data = [{"x": float(i), "y": round(float(rng.uniform(5, 95)), 2)}
                    for i in range(n_cat + 3)]
            ve["lines"].append([{"x": 100.0 + 50 * p["x"], "y": h - 100 - 4 * p["y"]}
                                for p in data])
        elif chart_type == "Scatter":
            data = [{"x": round(float(rng.uniform(0, 100)), 3),
                     "y": round(float(rng.uniform(0, 100)), 3)} for _ in range(25)]
            ve["scatter points"] += [{"x": 100 + 4 * p["x"], "y": h - 100 - 3 * p["y"]}
                                     for p in data]
        else:
            for i in range(n_cat):
                vals = np.sort(rng.uniform(0, 90, 5))
                stats = dict(zip(("min", "first_quartile", "median", "third_quartile", "max"),
                                 (round(float(v), 2) for v in vals), strict=True))
                series.append({"name": WORDS[i % len(WORDS)], "data": stats})
                ve["boxplots"].append({k: {"x": 120 + 60 * i, "y": h - 100 - 4 * stats[k]}
                                       for k in STATS})
            continue
        series.append({"name": name, "data": data})
    return {"task1": {"output": {"chart_type": chart_type}},
            "task2": {"output": {"text_blocks": blocks}},
            "task3": {"output": {"text_roles": roles}},
            "task4": {"output": {"axes": {"x-axis": x_ticks, "y-axis": y_ticks}}},
            "task5": {"output": {"legend_pairs": legend}},
            "task6": {"output": {"data series": series, "visual elements": ve}},
            "_size": [int(w), int(h)]}


def _jit(rng, v, s):
    return round(float(v + rng.normal(0, s)), 2)


def make_predictions(rng: np.random.Generator, gt: dict) -> dict[str, dict]:
    """One perturbed prediction document per task."""
    out = {}
    ctype = gt["task1"]["output"]["chart_type"]
    out["1"] = {"task1": {"output": {"chart_type": ctype if rng.random() < 0.8
                                     else TYPES[rng.integers(len(TYPES))]}}}
    blocks = [{"bb": {k: v + int(rng.integers(-2, 3)) for k, v in b["bb"].items()},
               "text": b["text"] if rng.random() < 0.8 else b["text"][:-1] + "x"}
              for b in gt["task2"]["output"]["text_blocks"] if rng.random() < 0.9]
    blocks.append({"bb": _bb(5, 5, 30, 12), "text": "spurious"})
    out["2"] = {"task2": {"output": {"text_blocks": blocks}}}
    roles = [{"id": r["id"], "role": r["role"] if rng.random() < 0.85 else "axis_title"}
             for r in gt["task3"]["output"]["text_roles"]]
    out["3"] = {"task3": {"output": {"text_roles": roles}}}
    axes = {name: [{"id": t["id"], "tick_pt": {"x": _jit(rng, t["tick_pt"]["x"], 4),
                                               "y": _jit(rng, t["tick_pt"]["y"], 4)}}
                   for t in ticks]
            for name, ticks in gt["task4"]["output"]["axes"].items()}
    out["4"] = {"task4": {"output": {"axes": axes}}}
    pairs = [{"id": p["id"], "bb": {k: v + int(rng.integers(-2, 3)) for k, v in p["bb"].items()}}
             for p in gt["task5"]["output"]["legend_pairs"]]
    out["5"] = {"task5": {"output": {"legend_pairs": pairs}}}
    ve = json.loads(json.dumps(gt["task6"]["output"]["visual elements"]))
    for b in ve["bars"]:
        b["x0"] += int(rng.integers(-2, 3))
    for line in ve["lines"]:
        for p in line:
            p["y"] = _jit(rng, p["y"], 2)
    for p in ve["scatter points"]:
        p["x"], p["y"] = _jit(rng, p["x"], 2), _jit(rng, p["y"], 2)
    for box in ve["boxplots"]:
        for v in box.values():
            v["y"] = _jit(rng, v["y"], 2)
    out["6a"] = {"task6": {"output": {"visual elements": ve}}}
    series = json.loads(json.dumps(gt["task6"]["output"]["data series"]))
    for s in series:
        if isinstance(s["data"], dict):
            s["data"] = {k: _jit(rng, v, 1.5) for k, v in s["data"].items()}
        else:
            for p in s["data"]:
                p["y"] = _jit(rng, p["y"], 2)
    out["6b"] = {"task6": {"output": {"data series": series}}}
    return out


def generate(root: Path, n: int, seed: int) -> None:
    """Write gt/, pred_<task>/ and images/ for ``n`` charts under ``root``."""
    rng = np.random.default_rng(seed)
    for sub in ("gt", "images", *(f"pred_{t}" for t in ("1", "2", "3", "4", "5", "6a", "6b"))):
        (root / sub).mkdir(parents=True, exist_ok=True)
    for i in range(n):
        cid = f"{i:05d}"
        gt = make_chart(rng, TYPES[i % len(TYPES)])
        w, h = gt.pop("_size")
        (root / "gt" / f"{cid}.json").write_text(json.dumps(gt))
        Image.new("1", (w, h)).save(root / "images" / f"{cid}.png")
        for task, doc in make_predictions(rng, gt).items():
            (root / f"pred_{task}" / f"{cid}.json").write_text(json.dumps(doc))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--charts", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=20240915)
    ap.add_argument("--keep", type=Path, help="generate here and keep the files")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = args.keep or Path(tmp)
        t0 = time.perf_counter()
        generate(root, args.charts, args.seed)
        print(f"generated {args.charts} charts in {time.perf_counter() - t0:.1f} s")
        print(f"{'task':<5} {'mode':<14} {'seconds':>8}  headline")
        worst = 0.0
        for task in ("1", "2", "3", "4", "5", "6a", "6b"):
            for official in (None, 2020, 2019):
                t0 = time.perf_counter()
                ev = evaluate(task, root / "gt", root / f"pred_{task}", official=official,
                              images=root / "images" if task in ("4", "6a") else None)
                dt = time.perf_counter() - t0
                worst = max(worst, dt)
                head = {k: round(v, 4) for k, v in ev.result.items() if isinstance(v, float)}
                print(f"{task:<5} {ev.mode:<14} {dt:8.2f}  {head}")
        print(f"slowest task run: {worst:.2f} s (target < 30 s per task on 1000 charts)")


if __name__ == "__main__":
    main()
