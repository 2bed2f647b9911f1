#!/usr/bin/env python3
"""Draws chapter 4's pictures into figures/: mapping.png, which thread computes which grid point
in steps 00, 02 and 03 (04 keeps step 03's mapping) over one 16-thread row of a block and 64
points; blocking.png, the 8 x 4 points of a thread in steps 05 and 06 over a block's stretch of
the slice.

    chapters/04_coulomb/figures.py [--out-dir chapters/04_coulomb/figures]
"""
import argparse
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "profiling"))
import cli  # noqa: E402
import plot  # noqa: E402

plt = None  # matplotlib's pyplot: main() takes it once the options are known to be good

BLOCK, POINTS, SHOWN = 16, 8, 64  # threads in a block row, points per thread, points drawn
ROWS = 4  # rows a thread covers in steps 05-06's 8 x 4 shape


def owner(step: str, i: int) -> tuple[int, int]:
    """(thread, the thread's point number) that computes point i of a block's row."""
    if step == "00":
        return i % BLOCK, 0
    if step == "02":
        return i // POINTS, i % POINTS
    return i % BLOCK, i // BLOCK  # 03 on: point p of thread t is t + 16 p


def draw_mapping(out: pathlib.Path) -> None:
    titles = {
        "00": "00 naive: a thread per point (16 threads cover 16 points, then the next block)",
        "02": "02 coarsening: thread t computes points 8t .. 8t+7; one store writes 16 places 32 B apart",
        "03": "03 on, 8 points along a row: thread t computes t, t+16, ..., t+112; one store writes 16 neighbours",
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
    figure.savefig(out, dpi=130)
    print(f"wrote {out}")


def draw_blocking(out: pathlib.Path) -> None:
    """A 16 x 16 block's 128 x 64 points in the 8 x 4 shape; three threads' points coloured, and
    which of one thread's points take the FMA pipe's root in step 06's 6 of 32."""
    width, height = BLOCK * POINTS, BLOCK * ROWS
    shown = {(0, 0): "tab:blue", (5, 0): "tab:orange", (3, 2): "tab:green"}
    software = 6  # step 06's best split: points r * 8 + p < 6 of each thread on the FMA pipe
    figure, axis = plt.subplots(figsize=(12, 6.8))
    for (tx, ty), colour in shown.items():
        for r in range(ROWS):
            for p in range(POINTS):
                on_fma_pipe = (tx, ty) == (0, 0) and r * POINTS + p < software
                axis.add_patch(plt.Rectangle((tx + BLOCK * p - 0.5, ty + BLOCK * r - 0.5), 2, 2, facecolor=colour,
                                             edgecolor="black" if on_fma_pipe else colour, hatch="////" if on_fma_pipe else None))
        axis.plot([], [], "s", color=colour, label=f"thread ({tx}, {ty}): columns {tx} + 16 p, rows {ty} + 16 r")
    axis.add_patch(plt.Rectangle((0, 0), 0, 0, facecolor="white", edgecolor="black", hatch="////",
                                 label="06, 6 of 32: every thread's first 6 points (marked for thread (0, 0)) take the FMA pipe's root"))
    for x in range(0, width + 1, BLOCK):
        axis.axvline(x, color="#999999", linewidth=0.6)
    for y in range(0, height + 1, BLOCK):
        axis.axhline(y, color="#999999", linewidth=0.6)
    axis.set_xlim(-1, width)
    axis.set_ylim(height, -1)
    axis.set_aspect("equal")
    axis.set_xticks(range(0, width + 1, BLOCK))
    axis.set_yticks(range(0, height + 1, BLOCK))
    axis.set_xlabel("i (x) within the block's 128 x 64 points; each grey square is one pass of the block's 16 x 16 threads")
    axis.set_ylabel("j (y)")
    axis.set_title("05-06, 8 x 4 points a thread: per atom, dx once for each of its 8 columns and dy\u00b2 + dz\u00b2 once for each of\n"
                   "its 4 rows, then 32 squared distances, roots and terms (points drawn enlarged)", fontsize=9, loc="left")
    axis.legend(loc="upper left", bbox_to_anchor=(0, -0.12), ncol=2, fontsize=8, frameon=False)
    figure.savefig(out, dpi=110, bbox_inches="tight")
    print(f"wrote {out}")


def main() -> int:
    parser = cli.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out-dir", type=pathlib.Path, default=pathlib.Path(__file__).parent / "figures")
    args = parser.parse_args()
    global plt
    plt = plot.pyplot()
    cli.output_folder(args.out_dir)
    draw_mapping(args.out_dir / "mapping.png")
    draw_blocking(args.out_dir / "blocking.png")
    return 0


if __name__ == "__main__":
    cli.run(main)
