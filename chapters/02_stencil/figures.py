#!/usr/bin/env python3
"""Draws chapter 2's pictures into figures/:
  plane_load.png      the patent's reshaped plane load (step 04): which pass reads each cell of the
                      haloed tile, and which threads idle; for 32x8 threads, and for 32x2 threads,
                      where the patent's pass count w leaves the last row unread;
  queue_rotation.png  step 03's circular queue of 5 planes (radius 2) over z: the slot pointers
                      rotate, the planes stay where they were loaded;
  register_queue.png  step 05's queue in registers: which plane feeds which output, with which z
                      weight, and when each output is written;
  x_halo.png          the 32-byte sectors of one tile row: 32-wide (steps 03-09), 64-wide with
                      16-byte copies (10), 256-wide (11-12);
  size_sweep.png      results/h200/size_sweep.csv: the copy and step 11 from 2^20 to 2^30 bytes.

    chapters/02_stencil/figures.py [--out-dir chapters/02_stencil/figures]
"""
import argparse
import csv
import json
import math
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "profiling"))
import cli  # noqa: E402
import plot  # noqa: E402

plt = None  # matplotlib's pyplot: main() takes it once the options are known to be good

HERE = pathlib.Path(__file__).resolve().parent
PASS_COLOURS = ["#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#b07aa1", "#76b7b2"]
IDLE, UNREAD = "#d0d0d0", "white"


def plane_load(bx: int, by: int, r: int, passes: int):
    """(pass that reads each tile cell or None, threads that idle) for `passes` passes of the
    reshaped load: thread Ind reads column Ind % Rx of row Ind / Rx + pass * Ry while Ind / Rx < Ry."""
    width, height = bx + 2 * r, by + 2 * r
    rows_per_pass = bx * by // width
    cell = [[None] * width for _ in range(height)]
    for p in range(passes):
        for ind in range(bx * by):
            row = ind // width + p * rows_per_pass
            if ind // width < rows_per_pass and row < height and cell[row][ind % width] is None:
                cell[row][ind % width] = p
    idle = [ind for ind in range(bx * by) if ind // width >= rows_per_pass]
    return cell, idle


def draw_plane_load(out: pathlib.Path) -> None:
    cases = [(32, 8, 1, "32x8 threads, radius 1 (step 04): Ry = 256 // 34 = 7 rows a pass, 2 passes = the patent's w"),
             (32, 2, 1, "32x2 threads, radius 1: Ry = 64 // 34 = 1 row a pass; the tile has 4 rows, the patent's "
                        "w = ceil(34*4/64) = 3 passes")]
    figure, axes = plt.subplots(2, 2, figsize=(13, 6.4), gridspec_kw={"width_ratios": [3, 2], "height_ratios": [10, 4]})
    for (bx, by, r, title), (tile_axis, thread_axis) in zip(cases, axes):
        width, height = bx + 2 * r, by + 2 * r
        rows_per_pass = bx * by // width
        w = math.ceil(width * height / (bx * by))
        cell, idle = plane_load(bx, by, r, w)
        for y in range(height):
            for x in range(width):
                p = cell[y][x]
                halo = x < r or x >= width - r or y < r or y >= height - r
                tile_axis.add_patch(plt.Rectangle((x, y), 1, 1, facecolor=UNREAD if p is None else PASS_COLOURS[p],
                                                  edgecolor="black" if halo else "white", linewidth=0.4,
                                                  hatch="xxx" if p is None else None))
        tile_axis.set_xlim(0, width)
        tile_axis.set_ylim(height, 0)
        tile_axis.set_aspect("equal")
        tile_axis.set_xticks([0, r, width - r, width])
        tile_axis.set_yticks(range(0, height + 1, max(1, height // 5)))
        tile_axis.set_title(title, fontsize=8, loc="left")
        missing = sum(c is None for row in cell for c in row)
        tile_axis.set_xlabel(f"the {width} x {height} haloed tile (halo cells outlined); colour: the pass that reads it"
                             + (f"; hatched: {missing} cells w passes never read" if missing else ""), fontsize=7)
        # The threads: Ind along x, coloured by the tile row they read in pass 0, idle ones grey.
        per_row = 32
        for ind in range(bx * by):
            row_read = ind // width
            colour = IDLE if ind in idle else plt.get_cmap("tab10")(row_read % 10)
            thread_axis.add_patch(plt.Rectangle((ind % per_row, ind // per_row), 1, 1, facecolor=colour,
                                                edgecolor="white", linewidth=0.3))
        thread_axis.set_xlim(0, per_row)
        thread_axis.set_ylim(bx * by // per_row, 0)
        thread_axis.set_aspect("equal")
        thread_axis.set_yticks([])
        thread_axis.set_xticks([0, 16, 32])
        thread_axis.set_title(f"{bx * by} threads by Ind = tx + ty*{bx}: colour = the tile row Ind // {width}\n"
                              f"they read ({rows_per_pass} a pass); grey: {len(idle)} idle", fontsize=7, loc="left")
    for p in range(4):
        axes[0][0].plot([], [], "s", color=PASS_COLOURS[p], label=f"pass {p}")
    figure.legend(loc="lower right", ncol=4, fontsize=7, frameon=False)
    figure.tight_layout(rect=(0, 0.04, 1, 1))
    figure.savefig(out, dpi=120)
    print(f"wrote {out}")


def draw_queue_rotation(out: pathlib.Path) -> None:
    """Radius 2: five tiles in shared memory; at output plane z the slots s_mm .. s_pp point to
    planes z-2 .. z+2. Each step loads plane z+2 into the tile that held z-3 (the oldest)."""
    rz, shown = 2, 6
    names = ["s_mm", "s_m", "s_c", "s_p", "s_pp"]
    figure, axis = plt.subplots(figsize=(11, 3.6))
    colours = plt.get_cmap("Set2")
    for z in range(shown):
        for slot in range(2 * rz + 1):
            plane = z - rz + slot
            tile = (plane + rz) % (2 * rz + 1)  # the tile that plane was loaded into
            new = slot == 2 * rz
            axis.add_patch(plt.Rectangle((z, slot), 0.9, 0.9, facecolor=colours(tile), edgecolor="black" if new else "white",
                                         linewidth=1.6 if new else 0.5))
            axis.text(z + 0.45, slot + 0.45, f"plane {plane}\ntile {tile}", ha="center", va="center", fontsize=7)
    axis.set_xlim(-0.1, shown)
    axis.set_ylim(2 * rz + 1, -0.1)
    axis.set_yticks([s + 0.45 for s in range(2 * rz + 1)], names)
    axis.set_xticks([z + 0.45 for z in range(shown)], [f"output z = {z}" for z in range(shown)])
    axis.set_title("Step 03, radius 2: the slot pointers rotate (s_mm <- s_m <- ... <- s_pp), the planes stay in the tile "
                   "they were loaded into (colour).\nOutlined: the one plane loaded at this z, into the tile of the plane "
                   "no output needs any more", fontsize=8, loc="left")
    figure.tight_layout()
    figure.savefig(out, dpi=120)
    print(f"wrote {out}")


def draw_register_queue(out: pathlib.Path) -> None:
    """Radius 1 and 2: plane p (columns) is read from shared memory once and added, with weight
    k = p - z, into the running sums of outputs z = p - rz .. p + rz (rows); output z is written
    when plane z + rz has arrived."""
    figure, axes = plt.subplots(1, 2, figsize=(12, 4.2))
    for axis, rz in zip(axes, (1, 2)):
        planes = range(-rz, 6 + rz)
        outputs = range(0, 6)
        for z in outputs:
            for p in planes:
                k = p - z
                if abs(k) <= rz:
                    last = k == rz
                    axis.add_patch(plt.Rectangle((p, z), 0.9, 0.9, facecolor=plt.get_cmap("coolwarm")((k + rz) / (2 * rz)),
                                                 edgecolor="black" if last else "white", linewidth=1.5 if last else 0.4))
                    axis.text(p + 0.45, z + 0.45, f"k={k:+d}" + ("\nwrite" if last else ""), ha="center", va="center", fontsize=6.5)
        p = 2
        axis.add_patch(plt.Rectangle((p - 0.05, 2 - rz - 0.05), 1.0, 2 * rz + 1, fill=False, edgecolor="green", linewidth=2))
        axis.text(p + 0.9, 2 + rz + 1.05, f"plane {p} in shared memory:\n{2 * rz + 1} sums in registers", ha="right",
                  va="top", fontsize=7, color="green")  # below the outline, left of the next rows' boxes
        axis.set_xlim(-rz - 0.2, 6 + rz)
        axis.set_ylim(6 + 1.6, -0.2)
        axis.set_xticks([q + 0.45 for q in planes], [str(q) for q in planes])
        axis.set_yticks([z + 0.45 for z in outputs], [str(z) for z in outputs])
        axis.set_xlabel("plane p, as it arrives (one tile in shared memory)")
        axis.set_ylabel("output plane z (a running sum)")
        axis.set_title(f"radius {rz}: each plane's window is read once and feeds {2 * rz + 1} outputs;\n"
                       f"output z is complete (outlined) when plane z+{rz} has arrived", fontsize=8, loc="left")
    figure.tight_layout()
    figure.savefig(out, dpi=120)
    print(f"wrote {out}")


def draw_x_halo(out: pathlib.Path) -> None:
    """The 32-byte sectors one tile row touches: interior sectors start on 128-byte boundaries, so
    any x-halo up to 8 floats costs one sector each side."""
    rows = [("steps 03-09: 32 floats, radius 1 (34 floats)", 32, 1),
            ("step 10: 64 floats, a 16-byte copy each side", 64, 4),
            ("steps 11-12: 256 floats, a 16-byte copy each side", 256, 4)]
    figure, axes = plt.subplots(len(rows), 1, figsize=(12, 3.6))
    for axis, (title, width, halo) in zip(axes, rows):
        sectors = width // 8
        for s in range(-1, sectors + 1):
            is_halo = s < 0 or s >= sectors
            axis.add_patch(plt.Rectangle((s * 8, 0), 8, 1, facecolor="#f28e2b" if is_halo else "#4e79a7",
                                         edgecolor="white", linewidth=1))
        for x in (-halo, width):  # the floats the row needs from each halo sector
            axis.add_patch(plt.Rectangle((x, 0), halo, 1, facecolor="none", edgecolor="black", hatch="////", linewidth=0.6))
        axis.set_xlim(-12, 264)
        axis.set_ylim(0, 1)
        axis.set_yticks([])
        axis.set_title(f"{title}: {sectors + 2} sectors for {sectors} of outputs, x-halo adds "
                       f"{2 / sectors:.0%}", fontsize=8, loc="left")
    axes[-1].set_xlabel("floats along a row (x); blue: interior sectors, orange: halo sectors, hatched: the halo floats used")
    figure.tight_layout()
    figure.savefig(out, dpi=120)
    print(f"wrote {out}")


def draw_size_sweep(out: pathlib.Path, results: pathlib.Path) -> None:
    with (results / "size_sweep.csv").open() as f:
        rows = list(csv.DictReader(f))
    context = json.loads((results / "bench.json").read_text())["context"]
    ceilings = json.loads((results / "ceilings.json").read_text())
    figure, axis = plt.subplots(figsize=(9, 4.8))
    styles = {"device copy (CUDA memcpy)": "tab:gray", "11_wide_tiles": "tab:blue"}
    for case, colour in styles.items():
        for l2, line in (("flushed", "-"), ("warm", ":")):
            points = sorted((float(r["cube bytes"]), float(r["GB/s"])) for r in rows if r["case"] == case and r["L2"] == l2)
            if points:
                axis.plot(*zip(*points), line, marker="o", color=colour, label=f"{case}, L2 {l2}")
    axis.axvline(float(context["l2_bytes"]) / 2, color="black", linewidth=0.8)  # input and output both in L2
    axis.text(float(context["l2_bytes"]) / 2 * 0.95, 300, "input + output = L2 size", fontsize=8, ha="right")
    axis.axhline(ceilings["copy_GBps"], color="tab:red", linewidth=0.8, linestyle="--")
    axis.text(2 ** 20, ceilings["copy_GBps"] * 1.02, f"copy ceiling {ceilings['copy_GBps']:.0f} GB/s", fontsize=8, color="tab:red")
    axis.set_xscale("log", base=2)
    axis.set_xlabel("cube bytes (the input; the output is as large)")
    axis.set_ylabel("effective GB/s (2 x cube / median time)")
    axis.set_title(f"box27: step 11 and the copy by cube size, {context['gpu']} (results/h200/size_sweep.csv)", fontsize=9, loc="left")
    axis.legend(fontsize=8, loc="lower right")
    figure.tight_layout()
    figure.savefig(out, dpi=120)
    print(f"wrote {out}")


def main() -> int:
    parser = cli.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out-dir", type=pathlib.Path, default=HERE / "figures")
    args = parser.parse_args()
    global plt
    plt = plot.pyplot()
    cli.output_folder(args.out_dir)
    draw_plane_load(args.out_dir / "plane_load.png")
    draw_queue_rotation(args.out_dir / "queue_rotation.png")
    draw_register_queue(args.out_dir / "register_queue.png")
    draw_x_halo(args.out_dir / "x_halo.png")
    draw_size_sweep(args.out_dir / "size_sweep.png", HERE / "results" / "h200")
    return 0


if __name__ == "__main__":
    cli.run(main)
