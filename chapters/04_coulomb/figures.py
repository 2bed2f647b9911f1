#!/usr/bin/env python3
"""Draws chapter 4's pictures: which thread computes which grid point in steps 00, 02 and 03
(and 04-06, which keep step 03's mapping), over one 16-thread row of a block and 64 points.

    chapters/04_coulomb/figures.py [--out chapters/04_coulomb/figures/mapping.png]
"""
import argparse
import pathlib
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

BLOCK, POINTS, SHOWN = 16, 8, 64  # threads in a block row, points per thread, points drawn


def owner(step: str, i: int) -> tuple[int, int]:
    """(thread, the thread's point number) that computes point i of a block's row."""
    if step == "00":
        return i % BLOCK, 0
    if step == "02":
        return i // POINTS, i % POINTS
    return i % BLOCK, i // BLOCK  # 03 on: point p of thread t is t + 16 p


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=pathlib.Path, default=pathlib.Path(__file__).parent / "figures" / "mapping.png")
    args = parser.parse_args()
    titles = {
        "00": "00 naive: a thread per point (16 threads cover 16 points, then the next block)",
        "02": "02 coarsening: thread t computes points 8t .. 8t+7; one store writes 16 places 32 B apart",
        "03": "03 on, 8 points a thread: thread t computes t, t+16, ..., t+112; one store writes 16 neighbours",
    }
    colours = plt.get_cmap("tab20")
    figure, axes = plt.subplots(len(titles), 1, figsize=(12, 4.2))
    for axis, (step, title) in zip(axes, titles.items()):
        for i in range(SHOWN):
            thread, point = owner(step, i)
            block_offset = 1 if step == "00" and i >= BLOCK else 0
            axis.add_patch(plt.Rectangle((i, 0), 1, 1, facecolor=colours(thread % 20), alpha=0.35 + 0.65 * (block_offset == 0),
                                         edgecolor="white"))
            axis.text(i + 0.5, 0.62, f"t{thread}", ha="center", va="center", fontsize=5.5)
            if step != "00":
                axis.text(i + 0.5, 0.28, f"p{point}", ha="center", va="center", fontsize=5.5, color="#444444")
        if step == "00":
            axis.text(SHOWN / 2, -0.35, "points 16-63 belong to the next blocks (faded)", ha="center", fontsize=7)
        axis.set_xlim(0, SHOWN)
        axis.set_ylim(-0.5, 1)
        axis.set_yticks([])
        axis.set_xticks(range(0, SHOWN + 1, 8))
        axis.set_title(title, fontsize=8, loc="left")
    axes[-1].set_xlabel("grid point i along a row (x); colour and label: the thread of the block row that computes it")
    figure.tight_layout()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(args.out, dpi=130)
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
