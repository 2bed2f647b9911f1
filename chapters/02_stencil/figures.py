#!/usr/bin/env python3
"""Draws chapter 2's pictures into figures/ (the lesson places each in the step it explains):
  warp_footprint.png  steps 00-01: the 32-byte sectors one warp's load of a neighbour touches, in
                      8x8x8 blocks (a warp spans 4 rows) and in 32x8 blocks (one row);
  covering_loops.png  step 02: which pass of the covering loops loads each cell of the 34x10
                      haloed tile, and how many threads of a warp each pass keeps busy;
  queue_rotation.png  step 03's circular queue of 5 planes (radius 2) over z: the slot pointers
                      rotate, the planes stay where they were loaded;
  plane_load.png      the patent's reshaped plane load (step 04): which pass reads each cell of the
                      haloed tile, and which threads idle; for 32x8 threads, and for 32x2 threads,
                      where the patent's pass count w leaves the last row unread;
  register_queue.png  step 05's queue in registers: which plane feeds which output, with which z
                      weight, and when each output is written;
  prefetch.png        steps 05-06 in time: load, barrier, compute, barrier, against the next
                      plane's loads in flight while this one is used;
  z_chunks.png        step 07: a block's column of planes cut into chunks, each reading the 2rz
                      planes around it, and the blocks that gives against the machine's slots;
  two_tiles.png       steps 07-08 in time: one tile and two barriers a plane, against two tiles
                      used in turn and one barrier;
  deeper_prefetch.png steps 08-09 in time: one plane in flight a thread, against two;
  async_ring.png      step 10 in time: the ring of three tiles, copies landing without registers,
                      one wait and one barrier a plane;
  x_halo.png          the 32-byte sectors of one tile row: 32-wide (steps 03-09), 64-wide with
                      16-byte copies (10), 256-wide (11-12);
  separable.png       step 12: one term of the radius-2 compound, its 5x5 weights the product of
                      two 1D filters, applied along x and then along y;
  size_sweep.png      results/h200/size_sweep.csv: the copy and step 11 from 2^20 to 2^30 bytes.

The pictures of time (prefetch, two_tiles, deeper_prefetch, async_ring) are schedules drawn from a
model with round numbers (a plane's loads take 4 units from issue to arrival, its arithmetic 2;
bandwidth and the cost of a barrier are not modelled), not measurements: they show the order of
events, not their durations on a GPU, and each says so in a banner at its top. Their time axis
has no numbers, so that no one reads a speed-up off them.

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


def outline_halo(axis, width: int, height: int, r: int) -> None:
    """The haloed tile's interior (the block's outputs) inside a thick black line, the tile's edge
    in a thin one: the halo is the ring between them."""
    axis.add_patch(plt.Rectangle((r, r), width - 2 * r, height - 2 * r, fill=False, edgecolor="black", linewidth=2.0))
    axis.add_patch(plt.Rectangle((0, 0), width, height, fill=False, edgecolor="black", linewidth=0.8))


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
    figure, axes = plt.subplots(2, 2, figsize=(13, 5.4), gridspec_kw={"width_ratios": [3, 2], "height_ratios": [10, 4]})
    row_colours = plt.get_cmap("Pastel1")
    for (bx, by, r, title), (tile_axis, thread_axis) in zip(cases, axes):
        width, height = bx + 2 * r, by + 2 * r
        rows_per_pass = bx * by // width
        w = math.ceil(width * height / (bx * by))
        cell, idle = plane_load(bx, by, r, w)
        for y in range(height):
            for x in range(width):
                p = cell[y][x]
                tile_axis.add_patch(plt.Rectangle((x, y), 1, 1, facecolor=UNREAD if p is None else PASS_COLOURS[p],
                                                  edgecolor="#999999" if p is None else "white", linewidth=0.4,
                                                  hatch="xxx" if p is None else None))
        outline_halo(tile_axis, width, height, r)
        tile_axis.set_xlim(0, width)
        tile_axis.set_ylim(height, 0)
        tile_axis.set_aspect("equal")
        tile_axis.set_xticks([0, r, width - r, width])
        tile_axis.set_yticks(range(0, height + 1, max(1, height // 5)))
        tile_axis.set_title(title, fontsize=8, loc="left")
        missing = sum(c is None for row in cell for c in row)
        tile_axis.set_xlabel(f"the {width} x {height} haloed tile; thick line: the block's outputs, the halo outside it; "
                             "colour: the pass that reads a cell"
                             + (f"; hatched: {missing} cells w passes never read" if missing else ""), fontsize=7)
        for p in range(w):
            tile_axis.plot([], [], "s", color=PASS_COLOURS[p], label=f"pass {p + 1}")
        tile_axis.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize=7, frameon=False, handlelength=1)
        # The threads: Ind along x, coloured and numbered by the tile row they read in pass 1, idle ones grey.
        per_row = 32
        for ind in range(bx * by):
            row_read = ind // width
            colour = IDLE if ind in idle else row_colours(row_read % 9)
            thread_axis.add_patch(plt.Rectangle((ind % per_row, ind // per_row), 1, 1, facecolor=colour,
                                                edgecolor="white", linewidth=0.3))
            if ind not in idle and (ind % width == 0 or ind % per_row == 0):
                thread_axis.text(ind % per_row + 0.5, ind // per_row + 0.5, str(row_read), ha="center", va="center",
                                 fontsize=6)
        thread_axis.set_xlim(0, per_row)
        thread_axis.set_ylim(bx * by // per_row, 0)
        thread_axis.set_aspect("equal")
        thread_axis.set_yticks([])
        thread_axis.set_xticks([0, 16, 32])
        thread_axis.set_title(f"the {bx * by} threads in order of Ind = tx + ty*{bx}, 32 a line; colour and number:\n"
                              f"the tile row Ind // {width} each reads in pass 1 ({rows_per_pass} row{'s' if rows_per_pass > 1 else ''} a pass); "
                              f"grey: {len(idle)} idle", fontsize=7, loc="left")
    figure.tight_layout()
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
            # The tile that plane was loaded into: priming puts planes -rz .. rz-1 into tiles 1 .. 2rz,
            # and each advance loads the next plane into the tile of the oldest, so plane p is in
            # tile (p + rz + 1) % (2rz + 1), as in 03_circular_queue.cu.
            tile = (plane + rz + 1) % (2 * rz + 1)
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


def draw_warp_footprint(out: pathlib.Path) -> None:
    """One warp's load of the neighbour (x-1, y, z) of its points: the sectors it touches in an
    x-y plane (rows start on 128-byte boundaries, a sector is 8 floats)."""
    figure, axes = plt.subplots(2, 1, figsize=(11, 4.4))
    cases = [("8x8x8 blocks (step 00): a warp is 8 points of x in 4 rows", 8, 4),
             ("32x8 blocks (step 01): a warp is 32 points of x in one row", 32, 1)]
    width, height, first = 48, 4, 8
    for axis, (title, wx, rows) in zip(axes, cases):
        touched = sorted({(y, (first + x - 1) // 8) for y in range(rows) for x in range(wx)})
        for y in range(height):
            for x in range(width):
                warp = y < rows and first <= x < first + wx
                axis.add_patch(plt.Rectangle((x, y), 1, 1, facecolor="#a0c4e8" if warp else "white",
                                             edgecolor="#cccccc", linewidth=0.3))
                if y < rows and first - 1 <= x < first - 1 + wx:  # the neighbours the load reads
                    axis.add_patch(plt.Rectangle((x, y), 1, 1, facecolor="none", edgecolor="#f28e2b", hatch="////",
                                                 linewidth=0))
        for y, s in touched:
            axis.add_patch(plt.Rectangle((8 * s, y), 8, 1, facecolor="none", edgecolor="#e15759", linewidth=2.2))
        axis.set_xlim(0, width)
        axis.set_ylim(height, 0)
        axis.set_aspect("equal")
        axis.set_xticks(range(0, width + 1, 8))
        axis.set_yticks([y + 0.5 for y in range(height)], [f"y+{y}" for y in range(height)], fontsize=7)
        axis.set_title(f"{title}: its load of the points' left neighbours touches {len(touched)} sectors "
                       f"({len(touched) * 32} bytes) for {wx * rows * 4} useful bytes", fontsize=8, loc="left")
    handles = [plt.Rectangle((0, 0), 1, 1, facecolor="#a0c4e8"),
               plt.Rectangle((0, 0), 1, 1, facecolor="none", edgecolor="#f28e2b", hatch="////"),
               plt.Rectangle((0, 0), 1, 1, facecolor="none", edgecolor="#e15759", linewidth=2)]
    figure.legend(handles, ["the warp's 32 points", "the floats one warp-wide load reads (each point's x-1)",
                            "the 32-byte sectors it touches"], loc="lower center", ncol=3, fontsize=8, frameon=False)
    axes[1].set_xlabel("x, floats along a row that starts on a 128-byte boundary (8 floats a sector)")
    figure.tight_layout(rect=(0, 0.06, 1, 1))
    figure.savefig(out, dpi=120)
    print(f"wrote {out}")


def draw_covering_loops(out: pathlib.Path) -> None:
    """Step 02's tile load: 32x8 threads cover the 34x10 haloed tile in loops that step by the
    block, so the halo strips are loaded by passes in which most lanes or warps have nothing to do."""
    bx, by, r = 32, 8, 1
    width, height = bx + 2 * r, by + 2 * r
    figure, axis = plt.subplots(figsize=(11, 3.8))
    names = {(0, 0): "pass 1: every thread", (0, 1): f"pass 2: 2 of {bx} lanes a warp",
             (1, 0): "pass 3: 2 of 8 warps", (1, 1): "pass 4: 2 lanes of 2 warps"}
    colours = {(0, 0): PASS_COLOURS[0], (0, 1): PASS_COLOURS[1], (1, 0): PASS_COLOURS[2], (1, 1): PASS_COLOURS[3]}
    for y in range(height):
        for x in range(width):
            key = (y // by, x // bx)
            axis.add_patch(plt.Rectangle((x, y), 1, 1, facecolor=colours[key], edgecolor="white", linewidth=0.5))
    outline_halo(axis, width, height, r)
    for key, name in names.items():
        axis.plot([], [], "s", color=colours[key], label=name)
    axis.set_xlim(0, width)
    axis.set_ylim(height, 0)
    axis.set_aspect("equal")
    axis.set_xticks([0, r, bx, width - r, width])
    axis.set_yticks([0, r, by, height - r, height])
    axis.legend(loc="upper left", bbox_to_anchor=(1.01, 1), fontsize=8, frameon=False)
    axis.set_title(f"Step 02: thread (tx, ty) loads cells (tx + {bx}i, ty + {by}j) of the {width} x {height} haloed tile "
                   "(thick line: the block's outputs; the halo outside it);\ncolour: the pass of the covering loops that "
                   "loads each cell. The tile is loaded "
                   f"this way for each of the {2 * r + 1} planes of every output plane", fontsize=8, loc="left")
    figure.tight_layout()
    figure.savefig(out, dpi=120)
    print(f"wrote {out}")


# The schedules' model: a plane's loads take LOAD units from issue to arrival, its arithmetic
# COMPUTE units, storing a staged plane into the tile STORE units.
LOAD, COMPUTE, STORE = 4.0, 2.0, 0.4
KINDS = {"load": ("#f28e2b", "loads in flight"), "store": ("#76b7b2", "registers into the tile"),
         "compute": ("#4e79a7", "arithmetic on the tile"), "copy": ("#f28e2b", "copies in flight (no registers)"),
         "use": ("#a0c4e8", "the tile the arithmetic reads"), "wait": ("#d0d0d0", "waiting")}


def schedule(kind: str, planes: int) -> tuple:
    """(bars, barriers) of one block over `planes` planes: bars (row, start, end, kind, plane)."""
    bars, barriers, t = [], [], 0.0
    if kind == "serial":  # step 05: load, barrier, compute, barrier
        for p in range(planes):
            bars.append(("memory", t, t + LOAD, "load", p))
            t += LOAD
            barriers.append(t)
            bars.append(("threads", t, t + COMPUTE, "compute", p))
            t += COMPUTE
            barriers.append(t)
    elif kind in ("prefetch", "depth2"):  # steps 06-09: planes staged in registers, `depth` in flight
        depth = 2 if kind == "depth2" else 1
        arrival = {}
        for p in range(depth):
            arrival[p] = LOAD
            bars.append((f"register set {p % depth}" if depth > 1 else "memory", 0.0, LOAD, "load", p))
        for p in range(planes):
            if arrival[p] > t:
                bars.append(("threads", t, arrival[p], "wait", p))
                t = arrival[p]
            bars.append(("threads", t, t + STORE, "store", p))
            t += STORE
            barriers.append(t)
            if p + depth < planes:
                arrival[p + depth] = t + LOAD
                bars.append((f"register set {p % depth}" if depth > 1 else "memory", t, t + LOAD, "load", p + depth))
            bars.append(("threads", t, t + COMPUTE, "compute", p))
            t += COMPUTE
            if kind == "prefetch" and depth == 1 and schedule.trailing_barrier:
                barriers.append(t)
    elif kind == "ring":  # step 10: copies straight into a ring of 3 tiles, 2 planes in flight
        arrival = {0: LOAD, 1: LOAD}
        for p in (0, 1):
            bars.append((f"tile {p}", 0.0, LOAD, "copy", p))
        for p in range(planes):
            if arrival[p] > t:
                bars.append(("threads", t, arrival[p], "wait", p))
                t = arrival[p]
            barriers.append(t)
            if p + 2 < planes:
                arrival[p + 2] = t + LOAD
                bars.append((f"tile {(p + 2) % 3}", t, t + LOAD, "copy", p + 2))
            bars.append(("threads", t, t + COMPUTE, "compute", p))
            bars.append((f"tile {p % 3}", t, t + COMPUTE, "use", p))
            t += COMPUTE
    return bars, barriers


schedule.trailing_barrier = True


MODEL_BANNER = ["A schedule drawn from a model, not a measurement: a plane's loads take {load:.0f} units, its arithmetic "
                "{compute:.0f}.",
                "Bandwidth and barriers cost nothing here: it shows the order of events, not their durations on a GPU."]


def draw_schedules(out: pathlib.Path, panels: list, extra: str = "") -> None:
    """Panels of (title, bars, barriers, rows), one above the other, on one time axis without
    numbers, under a banner that says the schedule is a model's."""
    span = max(end for _, bars, _, _ in panels for _, _, end, _, _ in bars)
    heights = [len(rows) + 1.2 for *_, rows in panels]
    banner = [line.format(load=LOAD, compute=COMPUTE) for line in MODEL_BANNER] + ([extra] if extra else [])
    top, bottom = 0.3 + 0.2 * len(banner), 0.45  # inches kept for the banner and for the legend
    height = 0.55 * sum(heights) + top + bottom + 0.3
    figure, axes = plt.subplots(len(panels), 1, figsize=(12, height), gridspec_kw={"height_ratios": heights},
                                sharex=True, squeeze=False)
    axes = axes[:, 0]
    used = {}
    for axis, (title, bars, barriers, rows) in zip(axes, panels):
        for row, start, end, kind, plane in bars:
            y = rows.index(row)
            colour, label = KINDS[kind]
            used[kind] = (colour, label)
            axis.add_patch(plt.Rectangle((start, y + 0.12), end - start, 0.76, facecolor=colour, edgecolor="white",
                                         linewidth=0.8, hatch="///" if kind in ("load", "copy") else None))
            if kind != "wait" and end - start >= 0.9:
                axis.text((start + end) / 2, y + 0.5, f"{plane}", ha="center", va="center", fontsize=7,
                          color="white" if kind == "compute" else "black")
        for b in barriers:
            axis.axvline(b, color="#e15759", linewidth=1.2)
        axis.set_ylim(len(rows), 0)
        axis.set_yticks([y + 0.5 for y in range(len(rows))], rows, fontsize=8)
        axis.set_xlim(0, span)
        axis.set_xticks([])
        axis.set_title(f"{title} ({len(barriers)} barriers, red)", fontsize=8.5, loc="left")
    axes[-1].set_xlabel("time in the model (no scale); the numbers in the bars are planes", fontsize=8)
    handles = [plt.Rectangle((0, 0), 1, 1, facecolor=colour, hatch="///" if kind in ("load", "copy") else None,
                             edgecolor="white") for kind, (colour, _) in used.items()]
    handles.append(plt.Line2D([], [], color="#e15759"))
    figure.legend(handles, [label for _, label in used.values()] + ["barrier"], loc="lower center", ncol=6, fontsize=8,
                  frameon=False)
    figure.text(0.01, 1 - 0.08 / height, "\n".join(banner), ha="left",
                va="top", fontsize=9.5, bbox={"facecolor": "#fff3cd", "edgecolor": "#c9a227", "boxstyle": "round,pad=0.4"})
    figure.tight_layout(rect=(0, bottom / height, 1, 1 - top / height))
    figure.savefig(out, dpi=120)
    print(f"wrote {out}")


def draw_prefetch(out: pathlib.Path) -> None:
    planes = 6
    serial = schedule("serial", planes)
    schedule.trailing_barrier = True
    prefetch = schedule("prefetch", planes)
    draw_schedules(out, [("Step 05: load plane p, barrier, compute, barrier", *serial, ["memory", "threads"]),
                         ("Step 06: plane p+1's loads issued into registers right after plane p is published",
                          *prefetch, ["memory", "threads"])])


def draw_two_tiles(out: pathlib.Path) -> None:
    """Steps 07 and 08: which tile holds which plane while it is read, and the barriers."""
    planes = 6
    panels = []
    for title, tiles in (("Step 07: one tile; a second barrier keeps the next plane's store off it until all have read it", 1),
                         ("Step 08: two tiles in turn; plane p+1 goes into the other tile, one barrier a plane", 2)):
        schedule.trailing_barrier = tiles == 1
        bars, barriers = schedule("prefetch", planes)
        rows = ["memory", "threads"] + [f"tile {k}" for k in range(tiles)]
        bars = bars + [(f"tile {plane % tiles}", start, end, "use", plane) for row, start, end, kind, plane in bars
                       if kind == "compute"]
        panels.append((title, bars, barriers, rows))
    schedule.trailing_barrier = True
    draw_schedules(out, panels, "So step 08 gains nothing in this picture; on a GPU each barrier makes every warp wait for "
                                "the slowest, and costs instructions.")


def draw_deeper_prefetch(out: pathlib.Path) -> None:
    planes = 8
    schedule.trailing_barrier = False
    one = schedule("prefetch", planes)
    two = schedule("depth2", planes)
    schedule.trailing_barrier = True
    draw_schedules(out, [("Step 08: one plane in flight a thread", *one, ["memory", "threads"]),
                         ("Step 09: two planes in flight, in two register sets used in turn", *two,
                          ["register set 0", "register set 1", "threads"])])


def draw_async_ring(out: pathlib.Path) -> None:
    planes = 8
    bars, barriers = schedule("ring", planes)
    draw_schedules(out, [("Step 10: planes copied straight into a ring of 3 tiles; at each barrier plane p has landed "
                          "and tile (p-1) % 3 is free for plane p+2", bars, barriers, ["tile 0", "tile 1", "tile 2", "threads"])],
                   "A plane's copies go straight into a tile: no store from registers.")


def draw_z_chunks(out: pathlib.Path) -> None:
    """A block's column of 512 planes: step 06 walks it whole; step 07 cuts it into 64-plane chunks,
    each a block that also reads the rz planes on either side."""
    dz, chunk, rz = 512, 64, 1
    figure, (axis, bars) = plt.subplots(1, 2, figsize=(12, 3.6), gridspec_kw={"width_ratios": [3, 2]})
    axis.add_patch(plt.Rectangle((0, 0), dz, 0.8, facecolor=PASS_COLOURS[0]))
    axis.text(dz / 2, 0.4, "step 06: one block walks all 512 planes of its column", ha="center", va="center",
              fontsize=8, color="white")
    for c in range(dz // chunk):
        start = c * chunk
        axis.add_patch(plt.Rectangle((start, 1.2), chunk, 0.8, facecolor=PASS_COLOURS[c % 2 + 1], edgecolor="white"))
        axis.add_patch(plt.Rectangle((max(start - rz * 6, 0), 2.1), chunk + 12 * rz - (6 * rz if c == 0 else 0)
                                     - (6 * rz if c == dz // chunk - 1 else 0), 0.3, facecolor="none",
                                     edgecolor=PASS_COLOURS[c % 2 + 1], hatch="////"))
        axis.text(start + chunk / 2, 1.6, f"chunk {c}", ha="center", va="center", fontsize=7)
    axis.set_title(f"A column of the grid. Step 07: {dz // chunk} chunks of {chunk} planes, each a block of its own; "
                   f"hatched: the planes\neach chunk reads, its own and {rz} plane on each side (drawn wider than 1 in "
                   f"{chunk}: {2 * rz} planes re-read a chunk)", fontsize=8, loc="left")
    axis.set_xlim(-5, dz + 5)
    axis.set_ylim(2.6, -0.1)
    axis.set_yticks([])
    axis.set_xlabel("z (planes)")
    # Blocks against the machine: 132 multiprocessors, 8 blocks of 256 threads each by threads.
    slots = 132 * 8
    for i, (label, blocks) in enumerate((("step 06\n(32x16 columns)", 512), ("step 07\n(x 8 chunks)", 4096))):
        bars.bar(i, blocks, color=PASS_COLOURS[i], width=0.6)
        bars.text(i, blocks * 1.02, f"{blocks} blocks", ha="center", fontsize=8)
    bars.axhline(slots, color="#e15759", linewidth=1)
    bars.text(-0.4, slots + 120, f"{slots} = 132 multiprocessors x 8 blocks of 256 threads", ha="left", fontsize=7,
              color="#e15759")
    bars.set_xticks([0, 1], ["step 06\n(32x16 columns)", "step 07\n(x 8 chunks)"], fontsize=8)
    bars.set_ylabel("blocks at 512^3")
    bars.set_ylim(0, 4600)
    bars.set_title("Blocks at 512^3, against the blocks the H200 or H100\nholds at once (at most 2048 threads a multiprocessor)",
                   fontsize=8, loc="left")
    figure.tight_layout()
    figure.savefig(out, dpi=120)
    print(f"wrote {out}")


def draw_separable(out: pathlib.Path) -> None:
    """The radius-2 compound's term d1x d1y: its 5x5 weights are the outer product of two 1D
    first differences, so filtering each window row along x (4 taps) and combining the rows along
    y (4 taps) gives the same sum as 25 products, of which 16 are not zero."""
    d1 = [1 / 12, -8 / 12, 0, 8 / 12, -1 / 12]  # first_derivative(2, i), i = -2 .. 2
    weights = [[d1[j] * d1[i] for i in range(5)] for j in range(5)]
    figure, axes = plt.subplots(1, 3, figsize=(11, 3.9), gridspec_kw={"width_ratios": [4, 1, 5]})
    table, column, steps = axes
    table.imshow(weights, cmap="coolwarm", vmin=-0.5, vmax=0.5)
    for j in range(5):
        for i in range(5):
            table.text(i, j, f"{weights[j][i]:+.3f}" if weights[j][i] else "0", ha="center", va="center", fontsize=7)
    table.set_xticks(range(5), [str(i) for i in range(-2, 3)])
    table.set_yticks(range(5), [str(j) for j in range(-2, 3)])
    table.set_xlabel("i (x)")
    table.set_ylabel("j (y)")
    table.set_title("weight table: weight(i, j) = d1(i) d1(j),\n16 products a point that are not zero", fontsize=8)
    column.imshow([[v] for v in d1], cmap="coolwarm", vmin=-0.8, vmax=0.8)
    for j, v in enumerate(d1):
        column.text(0, j, f"{v:+.3f}" if v else "0", ha="center", va="center", fontsize=7)
    column.set_xticks([])
    column.set_yticks(range(5), [str(j) for j in range(-2, 3)])
    column.set_title("d1 along y", fontsize=8)
    steps.axis("off")
    steps.text(0, 0.95, "one axis at a time (step 12):", fontsize=9, weight="bold", va="top")
    steps.text(0, 0.78, "1. along x: each window row w is filtered once,\n"
                        "    x_filtered[w] = sum_i d1(i) tile[w][x + i]   (4 taps)", fontsize=8, va="top", family="monospace")
    steps.text(0, 0.52, "2. along y: each output row combines them,\n"
                        "    along_y = sum_j d1(j) x_filtered[r + j]      (4 taps)", fontsize=8, va="top", family="monospace")
    steps.text(0, 0.26, "3. along z: along_y goes into the register\n"
                        "    queue with the term's z taps (here 1)", fontsize=8, va="top", family="monospace")
    steps.text(0, 0.02, "a thread's 4 output rows share step 1's 8 rows, so a point\ncosts 8 taps along x and 4 along y: "
                        "12 FMAs, not 16", fontsize=8, va="top")
    figure.suptitle("The radius-2 compound's term d2/dxdy: a product of two 1D filters", fontsize=9, x=0.01, ha="left")
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
    draw_warp_footprint(args.out_dir / "warp_footprint.png")
    draw_covering_loops(args.out_dir / "covering_loops.png")
    draw_queue_rotation(args.out_dir / "queue_rotation.png")
    draw_plane_load(args.out_dir / "plane_load.png")
    draw_register_queue(args.out_dir / "register_queue.png")
    draw_prefetch(args.out_dir / "prefetch.png")
    draw_z_chunks(args.out_dir / "z_chunks.png")
    draw_two_tiles(args.out_dir / "two_tiles.png")
    draw_deeper_prefetch(args.out_dir / "deeper_prefetch.png")
    draw_async_ring(args.out_dir / "async_ring.png")
    draw_x_halo(args.out_dir / "x_halo.png")
    draw_separable(args.out_dir / "separable.png")
    draw_size_sweep(args.out_dir / "size_sweep.png", HERE / "results" / "h200")
    return 0


if __name__ == "__main__":
    cli.run(main)
