#!/usr/bin/env python3
"""Draws chapter 4's pictures into figures/: mapping.png, which thread computes which grid point
in steps 00, 02 and 03 (04 keeps step 03's mapping) over one 16-thread row of a block and 64
points; blocking.png, the 8 x 4 points of a thread in steps 05 and 06 over a block's stretch of
the slice; constant_surprise.png, why step 01's constant reads stall; issue_budget.png, step
06's cost model, the XU's and the issue slots' cycles as roots move to the FMA pipe.

    chapters/04_coulomb/figures.py [--out-dir chapters/04_coulomb/figures]
"""
import argparse
import pathlib
import random
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


def draw_constant_surprise(out: pathlib.Path) -> None:
    """Step 01's surprise: the warps of one multiprocessor walk the same chunk of atoms, each at its
    own place, so at any moment they ask the constant path for many different atoms; step 00's
    loads of the same atoms go through L1, and from step 02 on each read feeds 8-32 evaluations."""
    rng = random.Random(4)
    warps, chunk = 48, 4096
    positions = sorted(rng.randrange(chunk) for _ in range(warps))
    figure, axes = plt.subplots(2, 1, figsize=(11, 4.6), gridspec_kw={"height_ratios": [3, 1]})
    axis = axes[0]
    axis.scatter(positions, range(warps), s=12, color="tab:red")
    axis.set_xlim(0, chunk)
    axis.set_ylim(-1, warps)
    axis.set_xlabel("atom k of the 4096-atom chunk in constant memory")
    axis.set_ylabel("warp of one multiprocessor")
    axis.set_title("01: 48 resident warps, each at its own atom (blocks start at different times): the constant path is asked\n"
                   "for dozens of different atoms at once, and a warp whose atom misses waits (step 01 issues a warp's\n"
                   "instruction every ~33 cycles, 26-28 of them in that stall: README, results/h200/stalls.csv)",
                   fontsize=8.5, loc="left")
    axis = axes[1]
    steps = ["00: L1 loads", "01: constant", "02-04: constant,\n8 points a read", "07: constant,\n32 points a read"]
    axis.barh(range(len(steps)), [1, 1, 8, 32], color=["tab:gray", "tab:red", "tab:orange", "tab:green"])
    axis.set_yticks(range(len(steps)), steps, fontsize=7)
    axis.set_xlabel("evaluations a thread gets from one atom read: the work that hides one read")
    axis.invert_yaxis()
    figure.tight_layout()
    figure.savefig(out, dpi=120)
    print(f"wrote {out}")


def draw_issue_budget(out: pathlib.Path) -> None:
    """Step 06's cost model over one warp's 32 evaluations on one sub-partition: the XU needs 8
    cycles for the roots it keeps, 8 (1 - f); the issue slots need i + (c - 1) f cycles at one
    instruction a cycle, divided by the share u the scheduler fills. Where the two lines cross is
    f* = (8u - i) / (8u + c - 1), and the gain over the XU's rate on paper 1 / (1 - f*)."""
    i = 3.63  # instructions per evaluation, 0 of 32 roots moved on the balanced grid (results/h200/ncu.csv)
    shares = [n / 100 for n in range(0, 41)]
    figure, axis = plt.subplots(figsize=(9, 5))
    axis.plot(shares, [8 * (1 - f) for f in shares], color="tab:red", linewidth=2.5, label="XU: 8 (1 - f) cycles")
    # 9.05: the minimax root, measured; each crossing labelled where it leaves the others' labels clear
    for c, u, style, label_at in ((10, 1.0, "-", (-95, 8)), (9.05, 1.0, "--", (6, -14)), (9.05, 0.67, ":", (6, -14))):
        best = (8 * u - i) / (8 * u + c - 1)
        axis.plot(shares, [(i + (c - 1) * f) / u for f in shares], style, color="tab:blue",
                  label=f"issue: (i + {c - 1:g} f) / {u} cycles (a root of c = {c:g} instructions, u = {u})")
        axis.plot([best], [8 * (1 - best)], "o", color="black")
        axis.annotate(f"f* = {best:.0%}: {1 / (1 - best):.2f}x", (best, 8 * (1 - best)), textcoords="offset points",
                      xytext=label_at, fontsize=8)
    axis.set_xlabel("f, share of the roots computed on the FMA pipe")
    axis.set_ylabel("cycles per warp's 32 evaluations, one sub-partition")
    axis.set_ylim(0, 9)
    axis.set_title(f"06: the 8-cycle budget (i = {i} instructions per evaluation with the hardware root, 8 x 4 points);\n"
                   "the slower of the two sets the time, so the best split is where they cross", fontsize=9, loc="left")
    axis.legend(fontsize=8, loc="lower left")
    axis.grid(alpha=0.3)
    figure.tight_layout()
    figure.savefig(out, dpi=120)
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
    draw_constant_surprise(args.out_dir / "constant_surprise.png")
    draw_issue_budget(args.out_dir / "issue_budget.png")
    return 0


if __name__ == "__main__":
    cli.run(main)
