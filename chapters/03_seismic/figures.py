#!/usr/bin/env python3
"""Draws chapter 3's pictures into figures/, one or two for each step whose mechanism is spatial or
unfolds in time (the lesson places each in its step), and the chapter's bandwidth and in-flight
pictures:
  sectors.png       step 01: a warp's 32 floats of a row over 32-byte sectors, on packed rows
                    (a row starts anywhere in a 128-byte line: 5 sectors) and on rows aligned to
                    64 floats (4 sectors, one line);
  z_window.png      step 02: the window of 2R + 1 registers sliding up the z axis, one load an
                    iteration;
  x_window.png      step 03's x register window: the 2R + VEC_LEN floats a thread holds, the vector
                    loads that bring them, and the 9 taps each output lane sums, for VEC_LEN 1, 2, 4;
  y_tile.png        step 04: the BLOCK_X x (BLOCK_Y + 2R) tile in shared memory (32 float4
                    columns, 8 + 8 rows): which pass of the block's threads stages each row, and
                    the 9 rows one thread reads;
  passes.png        step 05 (and 06): the bytes a point costs in three passes, in x and y fused
                    plus z, and in one pass: what each kernel reads and writes;
  one_pass.png      step 06: a block walking up the planes: the tile of plane p, the z window of
                    centres, the queue of xy, and out(p - R) stored;
  prefetch.png      step 07: steps 06 and 07, a model to scale from the H200 profile: when a plane's
                    loads are issued, when they land at an assumed latency (and, dashed, at the
                    latency that fits the measured rate), the barriers and the compute;
  ring.png          step 08: the haloed tile and its cp.async passes; the ring of 3 tiles, the same
                    model: which plane is landing in which tile, which is computed, where the one
                    barrier a plane sits, beside step 07's register prefetch;
  partial_sums.png  step 08's z sum: 9 partial sums in a ring, each plane adding its weight to the
                    9 outputs it belongs to;
  tensor_boxes.png  step 10: the tile of two output rows a thread, its centre box on 128-byte
                    lines and its two side boxes, beside step 08's one haloed box;
  bandwidth.png     results/h200/bench.json and torch.json: the effective bandwidth of every
                    taught step at 512^3 against the copy ceiling, with the copies through steps
                    07's and 08's loads and the other peers (the FDTD3d design, torch.compile);
  in_flight.png     steps 06, 07 and 08 on the H200 (results/h200/traffic.csv, 64 planes a block),
                    the same model over a few planes: when a thread issues each plane's loads, when
                    they land (590 ns later, a latency assumed from chapter 1, not measured here;
                    dashed, at the latency that fits the measured rate), where it waits and
                    computes; below each, the KB of DRAM traffic a multiprocessor has in flight over
                    time and on average, its blocks assumed in step, against the Little's-law knee
                    (tables.py's). Every picture drawn from a model says so in its title.

    /usr/bin/python3 chapters/03_seismic/figures.py [--out-dir chapters/03_seismic/figures]
"""
import argparse
import math
import pathlib
import sys
import textwrap

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "profiling"))
import cli  # noqa: E402
import plot  # noqa: E402
import report  # noqa: E402
import results  # noqa: E402

plt = None  # matplotlib's pyplot: main() takes it once the options are known to be good

HERE = pathlib.Path(__file__).resolve().parent

R = 4  # the stencil's radius
COLOURS = ["#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#b07aa1", "#76b7b2", "#edc948", "#ff9da7", "#9c755f"]
HALO, OWN = "#d9d9d9", "#ffffff"


def draw_x_window(out: pathlib.Path) -> None:
    figure, axes = plt.subplots(3, 1, figsize=(11, 5.4))
    for axis, vec in zip(axes, (1, 2, 4)):
        width = 2 * R + vec
        for i in range(width):
            load = i // vec
            axis.add_patch(plt.Rectangle((i, 0), 1, 1, facecolor=COLOURS[load % len(COLOURS)], alpha=0.55,
                                         edgecolor="black", linewidth=0.6))
            offset = i - R
            axis.text(i + 0.5, 0.5, f"x0{offset:+d}" if offset else "x0", ha="center", va="center", fontsize=7)
        for lane in range(vec):  # output lane `lane` sums window[lane .. lane + 2R]
            level = -0.35 - 0.3 * lane
            axis.plot([lane + 0.15, lane + 2 * R + 0.85], [level, level], color="black", linewidth=1.2)
            axis.plot([lane + R + 0.5], [level], marker="o", color="#e15759", markersize=4)
            axis.text(lane + 2 * R + 1.1, level, f"out(x0{lane:+d})" if lane else "out(x0)", va="center", fontsize=7)
        loads = width // vec
        axis.set_title(f"VEC_LEN = {vec}: a window of 2R + VEC_LEN = {width} floats, {loads} loads of "
                       f"{'float' if vec == 1 else f'float{vec}'} (colours) for {vec} output{'s' if vec > 1 else ''}",
                       fontsize=8, loc="left")
        axis.set_xlim(-0.2, 17)
        axis.set_ylim(-0.4 - 0.3 * vec, 1.1)
        axis.axis("off")
    figure.suptitle("Step 03's x register window (R = 4): output lane i sums window[i .. i + 8], its centre marked",
                    fontsize=9, x=0.01, ha="left")
    figure.tight_layout()
    figure.savefig(out, dpi=130)
    print(f"wrote {out}")


def draw_sectors(out: pathlib.Path) -> None:
    """Step 01: a warp's 32 floats of a row over 32-byte sectors, packed and aligned."""
    figure, axes = plt.subplots(2, 1, figsize=(11, 3.4))
    # Packed rows at 512^3: pitch 520 and lead 4, so every row's interior starts 4 floats (16 bytes)
    # into a sector; aligned rows start on a 64-float boundary.
    for axis, start, title in ((axes[0], 4, "packed rows (step 00): the interior starts 16 bytes into a sector"),
                               (axes[1], 0, "rows aligned to 64 floats (step 01): the interior starts a line")):
        touched = set()
        for f in range(64):
            warp = start <= f < start + 32
            if warp:
                touched.add(f // 8)
            axis.add_patch(plt.Rectangle((f, 0), 1, 1, facecolor=COLOURS[0] if warp else OWN, alpha=0.8 if warp else 1,
                                         edgecolor="#bbbbbb", linewidth=0.3))
        for sector in range(8):
            hit = sector in touched
            axis.add_patch(plt.Rectangle((8 * sector, -0.55), 8, 0.45, facecolor=COLOURS[1] if hit else OWN,
                                         alpha=0.8 if hit else 1, edgecolor="black", linewidth=0.6))
            axis.text(8 * sector + 4, -0.33, f"sector {sector}", ha="center", va="center", fontsize=6.5)
        for line in (0, 32, 64):
            axis.plot([line, line], [-0.7, 1.25], color="black", linewidth=1.6)
        axis.text(16, 1.4, "128-byte line", ha="center", fontsize=7)
        axis.text(48, 1.4, "next 128-byte line", ha="center", fontsize=7)
        axis.text(65, 0.2, f"{len(touched)} sectors\nfor 32 floats", va="center", fontsize=8,
                  color="#e15759" if len(touched) > 4 else "black")
        axis.set_title(title, fontsize=8, loc="left")
        axis.set_xlim(-0.5, 72)
        axis.set_ylim(-0.8, 1.7)
        axis.axis("off")
    figure.suptitle("A warp reads 32 consecutive floats of a row (blue); the memory system moves whole 32-byte sectors (orange)",
                    fontsize=8.5, x=0.01, ha="left")
    figure.tight_layout()
    figure.savefig(out, dpi=130)
    print(f"wrote {out}")


def draw_z_window(out: pathlib.Path) -> None:
    """Step 02: the window of 2R + 1 registers sliding up a column."""
    figure, axis = plt.subplots(figsize=(12, 3.4))
    planes, iterations = 14, 4
    # At iteration z the window holds planes z - 4 .. z + 4; plane z + 4 is the one load.
    for it in range(iterations):
        z = R + it
        for p in range(planes):
            in_window = z - R <= p <= z + R
            colour = "#e15759" if p == z + R else ("#4e79a7" if in_window else OWN)
            axis.add_patch(plt.Rectangle((p, -it), 1, 0.8, facecolor=colour, alpha=0.8 if in_window else 1,
                                         edgecolor="#999999", linewidth=0.5))
            if in_window:
                axis.text(p + 0.5, -it + 0.4, f"w[{p - z + R}]", ha="center", va="center", fontsize=6.5, color="white")
        axis.text(planes + 0.2, -it + 0.4, f"plane z = {z}: out(z) += sum of weight(r - 4) w[r]", va="center", fontsize=7)
    axis.set_title("Step 02: a thread's window of 2R + 1 = 9 registers slides up its column; red: the only load of the "
                   "iteration, plane z + 4 (into w[8]); then every w[r] = w[r + 1]", fontsize=8, loc="left")
    axis.set_xlim(0, planes + 9)
    axis.set_ylim(-iterations + 0.6, 1)
    axis.set_yticks([])
    axis.set_xticks([p + 0.5 for p in range(planes)])
    axis.set_xticklabels([str(p) for p in range(planes)], fontsize=7)
    axis.set_xlabel("z-plane", fontsize=8)
    for side in ("top", "right", "left"):
        axis.spines[side].set_visible(False)
    figure.tight_layout()
    figure.savefig(out, dpi=130)
    print(f"wrote {out}")


def draw_y_tile(out: pathlib.Path) -> None:
    """Step 04: the tile of 16 rows of 32 float4, who stages which row, and one thread's 9 rows."""
    block_x, block_y = 32, 8  # threads, one float4 each
    height = block_y + 2 * R
    figure, axis = plt.subplots(figsize=(9, 4.6))
    # Thread (tx, ty) stages rows ty and ty + 8; no x-halo (the x neighbours come from global memory, L1 hits).
    for row in range(height):
        stage = row // block_y
        for column in range(block_x):
            halo = row < R or row >= R + block_y
            axis.add_patch(plt.Rectangle((column, row), 1, 1, facecolor=COLOURS[stage], alpha=0.35 if halo else 0.8,
                                         edgecolor="white", linewidth=0.5))
    thread_x, thread_y = 20, 2
    for r in range(2 * R + 1):
        axis.add_patch(plt.Rectangle((thread_x, thread_y + r), 1, 1, fill=False, edgecolor="black", linewidth=1.4))
    axis.add_patch(plt.Rectangle((thread_x, thread_y + R), 1, 1, facecolor="#e15759", edgecolor="black", linewidth=1.4))
    axis.annotate(f"thread ({thread_x}, {thread_y}): its output (red)\nand the 9 rows it reads", (thread_x + 1, thread_y + R + 0.5),
                  (thread_x + 3.5, thread_y + R + 0.5), va="center", fontsize=7.5, arrowprops={"arrowstyle": "->"})
    axis.text(-0.6, R / 2, "y-halo", rotation=90, ha="right", va="center", fontsize=7)
    axis.text(-0.6, height - R / 2, "y-halo", rotation=90, ha="right", va="center", fontsize=7)
    axis.text(-0.6, R + block_y / 2, "the block's\n8 rows", rotation=90, ha="right", va="center", fontsize=7)
    axis.set_title("Step 04: the y tile, BLOCK_X x (BLOCK_Y + 2R) = 32 x 16 float4 (128 x 16 floats, 8 KB)\n"
                   "blue: rows 0-7, staged by threadIdx.y = 0-7; orange: rows 8-15, the same threads' second row; "
                   "pale: the y-halo", fontsize=8, loc="left")
    axis.set_xlim(-2.5, block_x)
    axis.set_ylim(height, 0)
    axis.set_aspect("equal")
    axis.set_xticks([0, block_x // 2, block_x])
    axis.set_yticks([0, R, R + block_y, height])
    axis.set_xlabel("float4 column (x)", fontsize=8)
    axis.set_ylabel("tile row (y)", fontsize=8)
    figure.tight_layout()
    figure.savefig(out, dpi=130)
    print(f"wrote {out}")


def draw_passes(out: pathlib.Path) -> None:
    """Steps 00-06: the bytes a point costs in three passes, two, and one."""
    kinds = {"read in": "#4e79a7", "read out back": "#f28e2b", "write out": "#59a14f"}
    forms = (("steps 00-04: three passes", (("x", ("read in", "write out")), ("y", ("read in", "read out back", "write out")),
                                            ("z", ("read in", "read out back", "write out"))), "8/32 = 0.25"),
             ("step 05: x and y fused, then z", (("xy", ("read in", "write out")), ("z", ("read in", "read out back", "write out"))),
              "8/20 = 0.40"),
             ("steps 06-10: one pass", (("xyz", ("read in", "write out")),), "8/8 = 1"))
    figure, axis = plt.subplots(figsize=(11, 3.0))
    for row, (label, passes, ceiling) in enumerate(forms):
        x = 0
        for name, moves in passes:
            start = x
            for move in moves:
                axis.add_patch(plt.Rectangle((x, -row), 4, 0.7, facecolor=kinds[move], alpha=0.85, edgecolor="white", linewidth=1))
                x += 4
            axis.add_patch(plt.Rectangle((start, -row), x - start, 0.7, fill=False, edgecolor="black", linewidth=1.2))
            axis.text((start + x) / 2, -row + 0.35, f"{name} pass" if name != "xyz" else "one pass", ha="center", va="center",
                      fontsize=7.5, color="white", fontweight="bold")
        axis.text(-0.5, -row + 0.35, label, ha="right", va="center", fontsize=8)
        axis.text(x + 0.5, -row + 0.35, f"{x} bytes a point: at best {ceiling} of the copy", va="center", fontsize=8)
    for index, (move, colour) in enumerate(kinds.items()):
        axis.add_patch(plt.Rectangle((index * 12, 1.0), 1.2, 0.35, facecolor=colour, alpha=0.85))
        axis.text(index * 12 + 1.6, 1.17, f"{move}: 4 bytes", va="center", fontsize=7.5)
    axis.set_xlim(-19, 48)
    axis.set_ylim(-2.2, 1.6)
    axis.axis("off")
    axis.set_title("The bytes a point must move: a pass that adds to out reads it back; fusing passes removes the "
                   "round trips of out", fontsize=8.5, loc="left")
    figure.tight_layout()
    figure.savefig(out, dpi=130)
    print(f"wrote {out}")


def draw_one_pass(out: pathlib.Path) -> None:
    """Step 06: a block walking up the planes, its z window of centres and its queue of xy."""
    figure, axis = plt.subplots(figsize=(12, 4.2))
    planes = 16
    rows = (("the tile (shared memory)", lambda p, q: q == p, "#bab0ac"),
            ("z window: centres (registers)", lambda p, q: p - 2 * R <= q <= p, "#4e79a7"),
            ("queue: xy (registers)", lambda p, q: p - R <= q <= p, "#f28e2b"),
            ("stored: out(p - R)", lambda p, q: q == p - R, "#59a14f"))
    for it, p in enumerate((10, 11)):
        base = -it * (len(rows) + 1.2)
        axis.text(-0.3, base + 0.9, f"iteration p = {p}", ha="right", va="center", fontsize=8, fontweight="bold")
        for index, (label, member, colour) in enumerate(rows):
            y = base - index
            for q in range(planes):
                on = member(p, q)
                axis.add_patch(plt.Rectangle((q, y), 1, 0.8, facecolor=colour if on else OWN, alpha=0.85 if on else 1,
                                             edgecolor="#999999", linewidth=0.4))
            axis.text(-0.3, y + 0.4, label, ha="right", va="center", fontsize=7.5)
        axis.text(planes + 0.3, base - 3 + 0.4, f"out({p - R}) = xy({p - R}) + the z sum of centres {p - 2 * R} .. {p}",
                  va="center", fontsize=7.5)
        axis.text(planes + 0.3, base + 0.4, f"plane {p} staged between two barriers", va="center", fontsize=7.5)
    axis.set_xlim(-9, planes + 10)
    axis.set_ylim(-2 * (len(rows) + 1.2) + 1, 1.6)
    axis.set_yticks([])
    axis.set_xticks([q + 0.5 for q in range(planes)])
    axis.set_xticklabels([str(q) for q in range(planes)], fontsize=7)
    axis.set_xlabel("z-plane", fontsize=8)
    for side in ("top", "right", "left"):
        axis.spines[side].set_visible(False)
    axis.set_title("Step 06: one kernel walks up the planes. Plane p's tile gives xy(p); xy(p) waits in a queue until "
                   "planes p + 1 .. p + 4 have come,\nand out(p - 4) is stored when plane p arrives. Then the window and the "
                   "queue shift by one plane.", fontsize=8, loc="left")
    figure.tight_layout()
    figure.savefig(out, dpi=130)
    print(f"wrote {out}")


def draw_schedule(axis, timeline: dict, latency: float, window: float, barriers: int = 1) -> None:
    """One step's plane schedule to scale, a model: each plane's loads from issue to landing at the
    assumed latency (top row; dashed outline: landing at the latency that fits the measured rate,
    for the steps that load ahead), and what the thread does (bottom row): waiting for its own
    loads (hatched), computing (grey), the barriers (red). A step that loads the plane it uses
    (step 06) has its first barrier before the loads and its second after them; a step that
    loads ahead has its barriers together where the plane is published."""
    period, ahead = timeline["period_us"], timeline["ahead"]
    fitted = timeline.get("fitted_us") if ahead > 0 else None
    planes = range(-ahead - 2, math.ceil(window / period) + 1)  # issued at k x period, used at (k + ahead) x period
    for k in planes:
        issued, used, plane = k * period, (k + ahead) * period, k + ahead
        colour, label = COLOURS[plane % len(COLOURS)], f"p{plane:+d}" if plane else "p"
        if fitted:
            axis.add_patch(plt.Rectangle((issued, 1.05), fitted, 0.8, fill=False, edgecolor=colour, linestyle="--", linewidth=0.9))
        axis.add_patch(plt.Rectangle((issued, 1.1), latency, 0.7, facecolor=colour, alpha=0.8, edgecolor="black", linewidth=0.5))
        axis.text(issued + latency / 2, 1.45, label, ha="center", va="center", fontsize=6.5, clip_on=True)
        if used > issued + latency:  # landed, held in shared memory (or registers) until its plane
            axis.plot([issued + latency, used], [1.45, 1.45], color=colour, linewidth=1, linestyle=":")
        start = used + (latency if ahead == 0 else 0)
        if ahead == 0:
            axis.add_patch(plt.Rectangle((used, 0.1), latency, 0.7, facecolor=OWN, hatch="///", edgecolor="#7f7f7f", linewidth=0.5))
        axis.add_patch(plt.Rectangle((start, 0.1), used + period - start, 0.7, facecolor=HALO, edgecolor="black", linewidth=0.5))
        axis.text((start + used + period) / 2, 0.45, label, ha="center", va="center", fontsize=6.5, clip_on=True)
        if ahead == 0 and barriers == 2:  # barrier (the previous tile is free), stage the tile, barrier
            at = [used, start]
        else:
            at = [start + b * 0.03 * period for b in range(barriers)]
        for x in at:
            axis.axvline(x, ymin=0.0, ymax=0.5, color="#e15759", linewidth=1.4)
    axis.set_ylim(0, 2)
    axis.set_yticks([0.45, 1.45])
    axis.set_yticklabels(["the thread", "its loads"], fontsize=7)


# What the schedule pictures assume, in their own words (the lesson's captions say the same).
MODEL_NOTE = ("A model, not a measurement: each plane's period is the profiled time over the waves and the 64 planes; "
              "a load lands {latency:.0f} ns after issue, a latency assumed from chapter 1's kernel (the latencies that "
              "fit the measured rates are {fits}); the blocks of a multiprocessor are drawn in step.")


def model_note(data: dict, width: int) -> str:
    """MODEL_NOTE for this profile, wrapped to `width` characters."""
    fits = [t["fitted_us"] for t in data["steps"] if t["ahead"] > 0]
    note = MODEL_NOTE.format(latency=data["latency_us"] * 1e3,
                             fits=f"{min(fits) * 1e3:.0f}-{max(fits) * 1e3:.0f} ns for steps 07 and 08, dashed")
    return textwrap.fill(note, width)


def draw_prefetch(out: pathlib.Path) -> None:
    """Step 07 beside step 06, a model to scale from the H200 profile."""
    chapter = results.load_gpu(HERE / "results" / "h200")
    data = in_flight_timelines(chapter)
    steps = {t["step"]: t for t in data["steps"]}
    latency = data["latency_us"]
    window = 3 * steps["06"]["period_us"]
    figure, axes = plt.subplots(2, 1, figsize=(12, 4.8), sharex=True)
    notes = {"06": "A barrier (the last tile is free), the plane's loads, which the thread waits for (hatched), a barrier, "
                   "then the compute with nothing in flight.",
             "07": "Plane p + 1's loads are issued before plane p is computed and travel during it (dotted: held in "
                   "registers); two barriers publish each plane."}
    for axis, step in zip(axes, ("06", "07")):
        timeline = steps[step]
        draw_schedule(axis, timeline, latency, window, barriers=2)
        axis.set_title(f"Step {step}: a plane every {timeline['period_us']:.2f} µs. {notes[step]}", fontsize=7.5, loc="left")
    axes[-1].set_xlim(0, window)
    axes[-1].set_xlabel("time, µs (red: a barrier; solid boxes: loads landing at the assumed latency; dashed: at the "
                        "latency that fits the measured rate)", fontsize=8)
    figure.suptitle(f"A model of one plane after another on an H200 multiprocessor (results/h200/traffic.csv, commit "
                    f"{chapter.context['commit']}).\n" + model_note(data, 190),
                    fontsize=8, x=0.01, ha="left")
    figure.tight_layout()
    figure.savefig(out, dpi=130)
    print(f"wrote {out}")


def draw_ring(out: pathlib.Path) -> None:
    """Step 08: the haloed tile and its copy passes; the ring of 3 tiles to scale, beside step 07."""
    chapter = results.load_gpu(HERE / "results" / "h200")
    data = in_flight_timelines(chapter)
    steps = {t["step"]: t for t in data["steps"]}
    latency = data["latency_us"]
    figure = plt.figure(figsize=(13, 7.2))
    grid = figure.add_gridspec(3, 2, width_ratios=[1, 1.9], height_ratios=[1, 1.0, 1.6])
    tile_axis = figure.add_subplot(grid[:, 0])
    # The tile: 34 x 16 float4, one float4 of x-halo each side, 544 copies over 256 threads: 3 passes.
    block_x, block_y = 32, 8
    width, height, threads = block_x + 2, block_y + 2 * R, block_x * block_y
    for row in range(height):
        for column in range(width):
            copy = row * width + column
            halo = row < R or row >= R + block_y or column in (0, width - 1)
            tile_axis.add_patch(plt.Rectangle((column, row), 1, 1, facecolor=COLOURS[copy // threads],
                                              alpha=0.35 if halo else 0.8, edgecolor="white", linewidth=0.5))
    tile_axis.add_patch(plt.Rectangle((1, R), block_x, block_y, fill=False, edgecolor="black", linewidth=1.2))
    tile_axis.set_xlim(0, width)
    tile_axis.set_ylim(height, 0)
    tile_axis.set_aspect("equal")
    tile_axis.set_xticks([0, 1, 17, width - 1])
    tile_axis.set_yticks([0, R, R + block_y, height])
    tile_axis.tick_params(labelsize=7)
    tile_axis.set_xlabel("float4 column (x)", fontsize=8)
    tile_axis.set_ylabel("tile row (y)", fontsize=8)
    tile_axis.set_title("One tile of the ring: 34 x 16 float4 (8.5 KB),\none float4 of x-halo each side; pale: halo.\n"
                        "Colour: the copy's pass (thread t copies\nfloat4 t, t + 256 and t + 512 of the tile).\n"
                        "Framed: the block's own float4s. A plane of\nthe z-halo copies only these (its centres).",
                        fontsize=8, loc="left")
    # Step 07 for comparison, then step 08's three tiles, to scale.
    period7, period8 = steps["07"]["period_us"], steps["08"]["period_us"]
    window = 5 * period7
    s07 = figure.add_subplot(grid[0, 1])
    draw_schedule(s07, steps["07"], latency, window, barriers=2)
    s07.set_title(f"Step 07: plane p + 1 fetched into registers; a plane every {period7:.2f} µs, two barriers a plane "
                  "(the stores into the tile between them)", fontsize=7.5, loc="left")
    s07.set_xlim(0, window)
    s08 = figure.add_subplot(grid[1, 1], sharex=s07)
    draw_schedule(s08, steps["08"], latency, window)
    s08.set_title(f"Step 08: plane p + 2 copied straight into the ring; a plane every {period8:.2f} µs, one barrier a plane",
                  fontsize=7.5, loc="left")
    ring = figure.add_subplot(grid[2, 1], sharex=s07)
    stages = 3
    for k in range(-2, math.ceil(window / period8) + 1):
        slot, issued, used = k % stages, (k - 2) * period8, k * period8
        colour, label = COLOURS[k % len(COLOURS)], f"p{k:+d}" if k else "p"
        y = stages - 1 - slot
        ring.add_patch(plt.Rectangle((issued, y + 0.15), latency, 0.7, facecolor=colour, alpha=0.45, hatch="....",
                                     edgecolor="black", linewidth=0.5))
        ring.text(issued + latency / 2, y + 0.5, f"{label} landing", ha="center", va="center", fontsize=6.5, clip_on=True)
        ring.plot([issued + latency, used], [y + 0.5, y + 0.5], color=colour, linewidth=1, linestyle=":")
        ring.add_patch(plt.Rectangle((used, y + 0.15), period8, 0.7, facecolor=colour, alpha=0.9, edgecolor="black", linewidth=0.5))
        ring.text(used + period8 / 2, y + 0.5, f"{label} computed", ha="center", va="center", fontsize=6.5, clip_on=True)
    for k in range(0, math.ceil(window / period8) + 1):
        ring.axvline(k * period8, color="#e15759", linewidth=1.4)
    ring.text(0.02, stages + 0.05, "red: wait for plane p, then the one barrier; right after it the tile that held p - 1 "
              "takes plane p + 2", fontsize=7, va="bottom")
    ring.set_ylim(0, stages + 0.5)
    ring.set_yticks([stages - 1 - s + 0.5 for s in range(stages)])
    ring.set_yticklabels([f"tile {s}" for s in range(stages)], fontsize=7)
    ring.set_title("Step 08's ring of 3 tiles (the same model): in each, a plane lands (dotted: waits), is computed, "
                   "and the tile is refilled",
                   fontsize=7.5, loc="left")
    ring.set_xlim(0, window)
    ring.set_xlabel(f"time, µs (a model to scale from the H200 profile; a copy lands {latency * 1e3:.0f} ns after it "
                    "starts, an assumed latency)", fontsize=8)
    figure.suptitle(f"Step 08: a ring of tiles filled by asynchronous copies (results/h200/traffic.csv, commit "
                    f"{chapter.context['commit']}).\n" + model_note(data, 200),
                    fontsize=8.5, x=0.01, ha="left")
    figure.tight_layout()
    figure.savefig(out, dpi=130)
    print(f"wrote {out}")


def draw_partial_sums(out: pathlib.Path) -> None:
    """Step 08's z sum: plane p adds weight(p - q) x centre(p) to the partial sums of outputs
    q = p - 4 .. p + 4, and its 16 x and y neighbours to out(p)'s; out(p - 4) is then complete."""
    figure, axis = plt.subplots(figsize=(12, 3.6))
    planes, iterations = 14, 4
    for it in range(iterations):
        p = R + it
        for q in range(planes):
            if q < p - R or q > p + R:
                continue
            colour = "#59a14f" if q == p - R else ("#f28e2b" if q == p else "#76b7b2")
            axis.add_patch(plt.Rectangle((q, -it), 1, 0.8, facecolor=colour, alpha=0.85, edgecolor="#999999", linewidth=0.5))
            axis.text(q + 0.5, -it + 0.4, f"{p - q:+d}" if q != p else "xy", ha="center", va="center", fontsize=6.5)
        axis.add_patch(plt.Rectangle((p, -it), 1, 0.8, fill=False, edgecolor="black", linewidth=1.6))
        axis.text(planes + 0.2, -it + 0.4, f"plane p = {p} arrives: sums[(s + k) % 9] += ...; out({p - R}) complete, stored",
                  va="center", fontsize=7)
    axis.set_title("Step 08: 9 partial sums in a ring of registers, one per output in flight. Plane p (framed) adds "
                   "weight(p - q) x centre(p) to out(q), the offset p - q written;\norange: out(p) also takes xy(p), its 16 x and "
                   "y neighbours; green: out(p - 4) has all 25 terms and is stored, its slot free for out(p + 5)",
                   fontsize=8, loc="left")
    axis.set_xlim(0, planes + 10)
    axis.set_ylim(-iterations + 0.6, 1)
    axis.set_yticks([])
    axis.set_xticks([q + 0.5 for q in range(planes)])
    axis.set_xticklabels([str(q) for q in range(planes)], fontsize=7)
    axis.set_xlabel("z-plane (of the output q)", fontsize=8)
    for side in ("top", "right", "left"):
        axis.spines[side].set_visible(False)
    figure.tight_layout()
    figure.savefig(out, dpi=130)
    print(f"wrote {out}")


def draw_tensor_boxes(out: pathlib.Path) -> None:
    """Step 10: the tile of two output rows a thread as three boxes, beside step 08's one box."""
    figure, (left, right) = plt.subplots(1, 2, figsize=(13, 6.4), gridspec_kw={"width_ratios": [34, 34]})
    block_x, rows_out = 32, 16
    height = rows_out + 2 * R
    width = block_x + 2
    # Step 10: the centre box (columns 1-32 here, 512 bytes a row from a 128-byte line) and the two
    # side boxes (columns 0 and 33, 16 bytes a row, kept apart in their own buffers).
    for row in range(height):
        halo = row < R or row >= R + rows_out
        for column in range(width):
            side = column in (0, width - 1)
            colour = COLOURS[4] if side else COLOURS[0]
            left.add_patch(plt.Rectangle((column, row), 1, 1, facecolor=colour, alpha=0.35 if halo else 0.75,
                                         edgecolor="white", linewidth=0.5))
    left.add_patch(plt.Rectangle((1, 0), block_x, height, fill=False, edgecolor="black", linewidth=1.6))
    for column in (0, width - 1):
        left.add_patch(plt.Rectangle((column, 0), 1, height, fill=False, edgecolor=COLOURS[4], linewidth=1.6))
    for line in range(1, width, 8):  # 128-byte lines: 8 float4
        left.plot([line, line], [-0.8, height], color="black", linewidth=0.8, linestyle="--")
    thread_x, thread_y = 12, 3
    for r in range(2 + 2 * R):
        left.add_patch(plt.Rectangle((1 + thread_x, 2 * thread_y + r), 1, 1, fill=False, edgecolor="black", linewidth=1.3))
    for q in range(2):
        left.add_patch(plt.Rectangle((1 + thread_x, 2 * thread_y + R + q), 1, 1, facecolor="#e15759", edgecolor="black",
                                     linewidth=1.3))
    left.annotate(f"thread ({thread_x}, {thread_y}): its two outputs (red)\nand the 10 rows it loads once for both",
                  (2 + thread_x, 2 * thread_y + R + 1), (6 + thread_x, 2 * thread_y + R + 1), fontsize=7.5, va="center",
                  arrowprops={"arrowstyle": "->"}, bbox={"facecolor": "white", "edgecolor": "none", "alpha": 0.85})
    left.set_title("Step 10: 32 x 8 threads, two output rows each: a tile of 24 rows for 16 outputs.\n"
                   "Blue: the centre box, 128 floats a row from a 128-byte line (dashed: lines);\n"
                   "purple: the two side boxes of x-halo, 4 floats each. One thread starts the three\n"
                   "copies; the tile's barrier counts their bytes; every thread waits on it.", fontsize=8, loc="left")
    # Step 08's tile as one box: 34 float4 a row from 16 bytes before a line.
    height8 = 8 + 2 * R
    for row in range(height8):
        halo = row < R or row >= R + 8
        for column in range(width):
            right.add_patch(plt.Rectangle((column, row), 1, 1, facecolor=COLOURS[2], alpha=0.35 if halo else 0.75,
                                          edgecolor="white", linewidth=0.5))
    right.add_patch(plt.Rectangle((0, 0), width, height8, fill=False, edgecolor="black", linewidth=1.6))
    for line in range(1, width, 8):
        right.plot([line, line], [-0.8, height8], color="black", linewidth=0.8, linestyle="--")
    right.set_title("Step 08's tile, as cp.async fills it (and as step 10's one-box experiment\ncopies it): "
                    "34 float4 a row, 16 rows for 8 outputs; each row starts\n16 bytes before a 128-byte line "
                    "(dashed), so it touches 6 lines, 2 of them in part.", fontsize=8, loc="left")
    for axis, rows in ((left, height), (right, height8)):
        axis.set_xlim(-0.5, width + 0.5)
        axis.set_ylim(rows, -1)
        axis.set_aspect("equal")
        axis.set_xticks([0, 1, 9, 17, 25, 33, width])
        axis.set_yticks([0, R, rows - R, rows])
        axis.tick_params(labelsize=7)
        axis.set_xlabel("float4 column (x)", fontsize=8)
        axis.set_ylabel("tile row (y)", fontsize=8)
    figure.tight_layout()
    figure.savefig(out, dpi=130)
    print(f"wrote {out}")


def draw_bandwidth(out: pathlib.Path) -> None:
    chapter = results.load_gpu(HERE / "results" / "h200")
    copy = chapter.ceilings["copy_GBps"]
    # torch.json's torch.compile cases join the peers, ahead of the steps (the conv3d routes, 40 and
    # more times slower, would not show as bars).
    _, peers = results.load_peers(chapter.folder / "torch.json")
    torch_cases = [case for case in peers if case.name.startswith("torch.compile")]
    taught = chapter.taught  # the peers and the taught steps; the experiments are in NOTES.md's table
    first_step = next(i for i, c in enumerate(taught) if c.is_step)
    cases = taught[:first_step] + torch_cases + taught[first_step:]
    figure, axis = plt.subplots(figsize=(12, 5.6))
    names = [c.name for c in cases]
    rates = [c.gbps for c in cases]
    def colour(case):
        if case.is_step:
            return "#4e79a7"
        if "device copy" in case.name:
            return "#bab0ac"
        return "#f28e2b" if case.name.startswith("copy through") else "#b07aa1"
    colours = [colour(c) for c in cases]
    bars = axis.barh(range(len(cases)), rates, color=colours)
    for bar, rate in zip(bars, rates):
        axis.text(bar.get_width() + 30, bar.get_y() + bar.get_height() / 2, f"{rate:.0f} ({rate / copy:.2f})",
                  va="center", fontsize=7)
    axis.axvline(copy, color="black", linestyle="--", linewidth=1)
    axis.text(copy, len(cases) - 0.3, f" copy ceiling {copy:.0f} GB/s", fontsize=7, va="bottom")
    # The bytes each form must move bound it: three passes 32 bytes a point, x and y fused 20, one pass 8.
    for fraction, label, colour, side in ((8 / 32, "three passes' ceiling, 8/32 ", "#7f7f7f", "right"),
                                          (8 / 20, " xy + z's ceiling, 8/20", "#7f7f7f", "left"),
                                          (0.85, "the target for one pass: 0.85 of the copy ", "#e15759", "right")):
        axis.axvline(fraction * copy, color=colour, linestyle=":", linewidth=1)
        axis.text(fraction * copy, -0.8, label, fontsize=6.5, color=colour, ha=side)
    axis.set_yticks(range(len(cases)))
    axis.set_yticklabels(names, fontsize=7)
    axis.invert_yaxis()
    axis.set_xlim(0, copy * 1.18)
    axis.set_xlabel("effective bandwidth, GB/s (8 bytes per point over the median time; in brackets: of the copy)",
                    fontsize=8)
    context = chapter.context
    axis.set_title(f"{cases[0].group} on {context['gpu']}, commit {context['commit']} (results/h200/bench.json, torch.json)\n"
                   "blue: the steps; orange: copies through the loads of steps 07 and 08; purple: the other peers",
                   fontsize=8, loc="left")
    figure.tight_layout()
    figure.savefig(out, dpi=130)
    print(f"wrote {out}")


# Steps 06-08 as profiled (64 planes a block): the kernel, how many planes before its use a plane's
# loads are issued (06: in the plane that uses them), and how many planes tables.IN_FLIGHT counts
# in flight for it (the ring of step 08 has room for 2).
TIMELINE_STEPS = (("06", "one_pass_kernel<64>", 0, 1), ("07", "prefetch_kernel<4>", 1, 1),
                  ("08", "async_ring_kernel<3, 2, 64, 1>", 2, 2))
BARRIERS = {"06": 2, "07": 2, "08": 1}  # block barriers a plane: 06 and 07 around the tile's stores, 08 one
TILE_POINTS = (128, 8)  # a block's tile in steps 06-08: 32 x 8 threads of a float4
BLOCK_THREADS = 256
PLANES_PER_BLOCK = 64


def in_flight_timelines(chapter) -> dict:
    """What the picture draws, from one GPU's profile: per step its plane period (a block's time
    per plane: the profiled time over the waves of blocks and the 64 planes of each), the KB of
    DRAM traffic a multiprocessor issues per plane, the measured fraction of the copy; and the
    loaded latency and the knees (tables.py's Little's law)."""
    tables = report.load_tables_module(HERE)
    law = tables.littles_law(chapter)
    if law is None:
        raise cli.ToolError("no memory latency for this GPU: chapter 1's results for it are not recorded", chapter.folder)
    idle_ns, sms, knees = law
    rows = {row["kernel"]: row for row in results.read_csv(chapter.folder / "traffic.csv")}
    n = tables.PROFILE_N
    blocks = (n // TILE_POINTS[0]) * (n // TILE_POINTS[1]) * (n // PLANES_PER_BLOCK)
    steps = []
    for step, kernel, ahead, counted in TIMELINE_STEPS:
        if kernel not in rows:
            raise cli.ToolError(f"has no row for {kernel} (step {step}): not profile.sh's traffic run of this chapter",
                                chapter.folder / "traffic.csv")
        _, _, per_thread, dram_per_loaded = tables.IN_FLIGHT[kernel]
        threads, kb = tables.in_flight_per_sm(rows[kernel], per_thread, dram_per_loaded)
        waves = math.ceil(blocks / (sms * round(threads / BLOCK_THREADS)))
        steps.append({"step": step, "kernel": kernel, "ahead": ahead, "waves": waves,
                      "period_us": rows[kernel].number("time ms") * 1e3 / (waves * PLANES_PER_BLOCK),
                      "kb_per_plane": kb / counted, "kb_counted": kb, "planes_counted": counted,
                      # the latency at which the KB the code keeps in flight would give the measured rate (tables.py)
                      "fitted_us": kb * 1e3 * sms / rows[kernel].number("achieved GB/s") / 1e3,
                      "measured": rows[kernel].number("achieved GB/s") / chapter.ceilings["copy_GBps"]})
    return {"latency_us": tables.LOADED_LATENCY_NS / 1e3, "knee": knees[tables.LOADED_LATENCY_NS],
            "idle_knee": knees[idle_ns], "steps": steps}


def draw_in_flight(out: pathlib.Path) -> None:
    chapter = results.load_gpu(HERE / "results" / "h200")
    data = in_flight_timelines(chapter)
    latency, knee, idle_knee = data["latency_us"], data["knee"], data["idle_knee"]
    window = 3 * max(timeline["period_us"] for timeline in data["steps"])  # three planes of the slowest step
    figure, axes = plt.subplots(2 * len(data["steps"]), 1, figsize=(13, 10.5), sharex=True,
                                gridspec_kw={"height_ratios": [1.1, 1] * len(data["steps"])})
    for index, timeline in enumerate(data["steps"]):
        schedule, kb_axis = axes[2 * index], axes[2 * index + 1]
        period, ahead = timeline["period_us"], timeline["ahead"]
        planes = range(-ahead, math.ceil(window / period) + 1)  # issued at k x period, used at (k + ahead) x period
        draw_schedule(schedule, timeline, latency, window, barriers=BARRIERS[timeline["step"]])
        barriers = BARRIERS[timeline["step"]]
        waits = ("red: a barrier, the plane's loads (hatched: waiting for them), a barrier; grey: computing"
                 if ahead == 0 else f"plane p's loads issued {ahead} plane{'s' if ahead > 1 else ''} ahead, held (dotted) "
                 f"until used; red: the {'two barriers' if barriers == 2 else 'barrier'} that publish the plane; grey: "
                 f"computing; dashed: landing at the latency that fits, {timeline['fitted_us']:.2f} µs")
        schedule.set_title(f"Step {timeline['step']} ({timeline['kernel']}): a plane every {period:.2f} µs (profiled "
                           f"time / {timeline['waves']} waves / {PLANES_PER_BLOCK} planes); loads land {latency:.2f} µs "
                           f"after issue.\n{waits}", fontsize=7.5, loc="left")
        # KB in flight per multiprocessor (its blocks drawn in step): each plane's for `latency`.
        kb_per_plane, kb_counted = timeline["kb_per_plane"], timeline["kb_counted"]
        times = sorted({t for k in planes for t in (k * period, k * period + latency)} | {0.0, window})
        level = [kb_per_plane * sum(k * period <= t < k * period + latency for k in planes) for t in times]
        kb_axis.step(times, level, where="post", color="#4e79a7", linewidth=1.4)
        average = kb_per_plane * latency / period
        lines = [(knee, "-", "#e15759", f"the knee under load, {knee:.1f} KB"),
                 (idle_knee, ":", "#7f7f7f", f"the knee idle, {idle_knee:.1f} KB"),
                 (average, "--", "#4e79a7", f"average {average:.1f} KB: {average / knee:.2f} of the knee\n"
                                            f"(measured: {timeline['measured']:.2f} of the copy)")]
        if kb_counted > kb_per_plane:
            lines.append((kb_counted, "-.", "#b07aa1", f"the ring's room, {timeline['planes_counted']} planes: "
                                                         f"{kb_counted:.1f} KB"))
        for value, style, colour, label in lines:
            kb_axis.axhline(value, color=colour, linestyle=style, linewidth=1, label=label)
        kb_axis.legend(fontsize=6.5, loc="center left", bbox_to_anchor=(1.01, 0.5), frameon=False)
        kb_axis.set_ylim(0, max(knee, kb_counted) * 1.25)
        kb_axis.set_ylabel(f"KB per SM\n(at {latency * 1e3:.0f} ns)", fontsize=7)
    axes[-1].set_xlim(0, window)
    axes[-1].set_xlabel("time, µs (0: the start of a plane p in the middle of a block's 64)", fontsize=8)
    figure.suptitle(f"A model of what an H200 multiprocessor keeps in flight (results/h200/traffic.csv, commit "
                    f"{chapter.context['commit']}): the DRAM traffic of each plane's loads while they travel.\n"
                    + model_note(data, 150)
                    + "\nIn step, both blocks' loads travel at once: offset, the level would be half as high and twice as "
                    "often; the averages are the same.", fontsize=8, x=0.01, ha="left")
    figure.tight_layout(rect=(0, 0, 0.8, 0.955))
    figure.savefig(out, dpi=130)
    print(f"wrote {out}")


def main() -> int:
    parser = cli.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out-dir", type=pathlib.Path, default=HERE / "figures")
    args = parser.parse_args()
    global plt
    plt = plot.pyplot()
    cli.output_folder(args.out_dir)
    draw_sectors(args.out_dir / "sectors.png")
    draw_z_window(args.out_dir / "z_window.png")
    draw_x_window(args.out_dir / "x_window.png")
    draw_y_tile(args.out_dir / "y_tile.png")
    draw_passes(args.out_dir / "passes.png")
    draw_one_pass(args.out_dir / "one_pass.png")
    draw_prefetch(args.out_dir / "prefetch.png")
    draw_ring(args.out_dir / "ring.png")
    draw_partial_sums(args.out_dir / "partial_sums.png")
    draw_tensor_boxes(args.out_dir / "tensor_boxes.png")
    draw_bandwidth(args.out_dir / "bandwidth.png")
    draw_in_flight(args.out_dir / "in_flight.png")
    return 0


if __name__ == "__main__":
    cli.run(main)
