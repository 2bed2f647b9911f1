#!/usr/bin/env python3
"""Draws a chapter's benchmark results as PNG: effective bandwidth per step, with the measured
ceiling and the peers (the runtime's copy, the vendor library) as lines; and, where the chapter
has them, the time of k passes of its consumers.

    profiling/plot.py chapters/01_transpose/results/bench.json --ceilings chapters/01_transpose/results/ceilings.json \
        --out chapters/01_transpose/results/bench.png [--peers chapters/02_stencil/results/conv3d.json]
"""
import argparse
import json
import pathlib
import re
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import results  # noqa: E402


def bandwidth_panel(axis, group: str, cases: list, ceiling: float | None, extra_peers: list) -> None:
    steps = [c for c in cases if c.group == group and c.name[:2].isdigit()]
    peers = [(c.name, c.gbps) for c in cases if c.group == group and not c.name[:2].isdigit()]
    peers += [(p["name"], p["GBps"]) for p in extra_peers if group.split()[0] == p.get("stencil")]
    names = [c.name for c in steps]
    values = [c.gbps for c in steps]
    bars = axis.barh(names, values, color="#4C72B0")
    axis.invert_yaxis()
    for bar, value in zip(bars, values):
        axis.text(value + 30, bar.get_y() + bar.get_height() / 2, f"{value:.0f}", va="center", fontsize=8)
    styles = ["--", ":", "-."]
    for (name, gbps), style in zip(peers, styles):
        axis.axvline(gbps, color="#C44E52", linestyle=style, label=f"{name}: {gbps:.0f} GB/s")
    if ceiling:
        axis.axvline(ceiling, color="black", linewidth=1, label=f"measured copy ceiling: {ceiling:.0f} GB/s")
    axis.set_xlim(0, max(values + [gbps for _, gbps in peers] + [ceiling or 0]) * 1.1)
    axis.set_xlabel("effective bandwidth, GB/s (minimum bytes / median time)")
    axis.set_title(group)
    axis.legend(loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=3, fontsize=8, frameon=False)


def passes_panel(axis, cases: list) -> bool:
    series = {}
    for c in cases:
        match = re.match(r"(.+), (\d+) passes", c.group)
        if match:
            series.setdefault(c.name, []).append((int(match.group(2)), c.median_ms))
    if not series:
        return False
    for name, points in series.items():
        points.sort()
        axis.plot([k for k, _ in points], [ms for _, ms in points], marker="o", label=name)
    axis.set_xscale("log", base=2)
    axis.set_yscale("log")
    axis.set_xlabel("passes k over the same matrix")
    axis.set_ylabel("median time of k passes, ms")
    axis.set_title(re.sub(r", \d+ passes", "", next(c.group for c in cases if "passes" in c.group)) + ": k passes")
    axis.grid(True, which="both", alpha=0.3)
    axis.legend(fontsize=8)
    return True


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("bench_json", type=pathlib.Path)
    parser.add_argument("--ceilings", type=pathlib.Path)
    parser.add_argument("--out", type=pathlib.Path, required=True)
    parser.add_argument("--peers", type=pathlib.Path, help="JSON of peers measured apart (e.g. conv3d.json)")
    args = parser.parse_args()
    context, cases = results.load(args.bench_json)
    ceiling = json.loads(args.ceilings.read_text())["copy_GBps"] if args.ceilings else None
    extra_peers = json.loads(args.peers.read_text())["cases"] if args.peers else []
    bandwidth_groups = [g for g in dict.fromkeys(c.group for c in cases) if "passes" not in g]
    has_passes = any("passes" in c.group for c in cases)
    panels = len(bandwidth_groups) + has_passes
    rows = max(len([c for c in cases if c.group == g]) for g in bandwidth_groups)
    height = 0.6 + panels * (1.8 + 0.3 * rows)
    figure, axes = plt.subplots(panels, 1, figsize=(9, height), squeeze=False)
    for axis, group in zip(axes[:, 0], bandwidth_groups):
        bandwidth_panel(axis, group, cases, ceiling, extra_peers)
    if has_passes:
        passes_panel(axes[-1, 0], cases)
    figure.suptitle(f"{context['gpu']} ({context['backend']}), commit {context['commit']}, {context['date'][:10]}", fontsize=10)
    figure.tight_layout(rect=(0, 0, 1, 1 - 0.4 / height))  # room for the title
    figure.savefig(args.out, dpi=110)
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
