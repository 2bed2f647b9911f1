#!/usr/bin/env python3
"""Draws chapter 5's pictures into figures/, from the committed results/h200/ (and the CPU's vortex):
  profile.png   results/flow.csv: the steady velocity profile ux(y) of step 07 in float32, fp16
                and bf16 against the analytic parabola, each with its relative L2 error; and
                step 07 float32's start-up from rest towards the parabola;
  flow.png      results/flow.csv: step 07 float32's ux over time and y (the channel's cross-section
                developing from rest); results/cpu/vortex.csv: a two-dimensional flow, the
                float64 reference's Taylor-Green vortex, its field and its decay against the
                analytic one;
  paper_layout.png  step 00: the paper's layout, a cell's nine values side by side, and the 32
                values one warp touches;
  soa_layout.png  step 03: the structure of arrays, one plane per direction, and one warp's loads
                in each plane;
  fused_pull.png  step 04: one thread's time step: pull the nine values from the neighbours,
                collide in registers, write the nine results once into its own cell;
  aa_pattern.png  step 05: the AA pattern's two kinds of time step (the first and every other: pulling; those between: local)
                along x, in one buffer;
  pairs_words.png  step 09: two cells' 16-bit values packed in one 4-byte word, and the shared
                tile a block stages for the directions that move along x;
  rounding.png  step 10: stochastic rounding on a number line (a value between its two fp16
                neighbours and the chance of each) and on the float32 bits;
  words.png     step 13's reads of one east-moving plane (e_x = 1): a thread's own word and the
                neighbouring word whose top lane it also needs, two cells a thread (4-byte words)
                and four (8-byte words);
  rates.png     results/bench.json, ceilings.json and torch.json: MLUPS of every step at every
                size, against the copy ceiling at 72 and 36 bytes per update and the fastest
                PyTorch peer.

    chapters/05_lattice_boltzmann/figures.py [--results DIR] [--out-dir DIR]
"""
import argparse
import csv
import math
import pathlib
import sys

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1] / "profiling"))
import cli  # noqa: E402
import plot  # noqa: E402
import results  # noqa: E402

PROFILE_STEPS = {"07_lean_f32": ("o", "tab:blue"), "07_lean_fp16": ("s", "tab:orange"), "07_lean_bf16": ("^", "tab:green")}
STARTUP_STEP = "07_lean_f32"
STARTUP_TIMES = (100, 300, 1000, 2000, 4000)
FLOW_COLUMNS = ("step", "time", "y", "ux", "analytic")
VORTEX_COLUMNS = ("time", "x", "y", "ux", "uy", "analytic_ux", "analytic_uy")
# The D2Q9 velocities and opposites of lbm.hpp, for the layout picture.
VELOCITY_X = (0, 1, 0, -1, 0, 1, -1, -1, 1)
VELOCITY_Y = (0, 0, 1, 0, -1, 1, 1, -1, -1)
DIRECTIONS = 9
WARP = 32
WALL = "#8c8c8c"


# ---- reading (everything is read and checked before any picture is written) ----

def read_flow(path: pathlib.Path) -> dict:
    """{step: {time: [(y, ux, analytic), ...] sorted by y}} from flow.csv."""
    rows = csv.DictReader(cli.read_text(path, "the flow CSV (step,time,y,ux,analytic)").splitlines())
    missing = [column for column in FLOW_COLUMNS if column not in (rows.fieldnames or [])]
    if missing:
        raise cli.ToolError(f"lacks the column(s) {', '.join(missing)}: expected {','.join(FLOW_COLUMNS)}", path)
    flow = {}
    for line, row in enumerate(rows, start=2):
        try:
            time, y = int(row["time"]), int(row["y"])
            ux, analytic = float(row["ux"]), float(row["analytic"])
        except (TypeError, ValueError):
            raise cli.ToolError(f"line {line}: time and y need whole numbers, ux and analytic numbers", path) from None
        if not (math.isfinite(ux) and math.isfinite(analytic)):
            raise cli.ToolError(f"line {line}: ux and analytic need finite numbers", path)
        flow.setdefault(row["step"], {}).setdefault(time, []).append((y, ux, analytic))
    for step in PROFILE_STEPS:
        if step not in flow:
            raise cli.ToolError(f"has no rows of step {step}", path)
    for times in flow.values():
        for profile in times.values():
            profile.sort()
    last = max(flow[STARTUP_STEP])
    for step in PROFILE_STEPS:
        if last not in flow[step]:
            raise cli.ToolError(f"has no profile of {step} at time {last}, the last time of {STARTUP_STEP}", path)
    missing_times = [str(t) for t in STARTUP_TIMES if t not in flow[STARTUP_STEP]]
    if missing_times:
        raise cli.ToolError(f"has no profile of {STARTUP_STEP} at time(s) {', '.join(missing_times)}", path)
    rows_across = {len(profile) for profile in flow[STARTUP_STEP].values()}
    if len(rows_across) != 1:
        raise cli.ToolError(f"the profiles of {STARTUP_STEP} do not all have the same rows y", path)
    return flow


def read_vortex(path: pathlib.Path) -> dict:
    """{time: {(x, y): (ux, uy, analytic_ux, analytic_uy)}} from vortex.csv (bench_lbm --vortex),
    every time a whole square box."""
    text = cli.read_text(path, "the vortex CSV (bench_lbm --vortex)")
    rows = csv.DictReader(line for line in text.splitlines() if not line.startswith("#"))
    missing = [column for column in VORTEX_COLUMNS if column not in (rows.fieldnames or [])]
    if missing:
        raise cli.ToolError(f"lacks the column(s) {', '.join(missing)}: expected {','.join(VORTEX_COLUMNS)}", path)
    vortex = {}
    for line, row in enumerate(rows, start=3):
        try:
            time, x, y = int(row["time"]), int(row["x"]), int(row["y"])
            values = tuple(float(row[c]) for c in VORTEX_COLUMNS[3:])
        except (TypeError, ValueError):
            raise cli.ToolError(f"line {line}: time, x and y need whole numbers, the velocities numbers", path) from None
        if not all(math.isfinite(v) for v in values):
            raise cli.ToolError(f"line {line}: the velocities need finite numbers", path)
        vortex.setdefault(time, {})[(x, y)] = values
    if not vortex:
        raise cli.ToolError("has no rows", path)
    for time, field in vortex.items():
        n = math.isqrt(len(field))
        if n < 2 or set(field) != {(x, y) for x in range(n) for y in range(n)}:
            raise cli.ToolError(f"time {time} is not a whole square box of cells", path)
    return vortex


def relative_l2(profile: list) -> float:
    """sqrt(sum (ux - analytic)^2 / sum analytic^2) over the rows of one profile."""
    return math.sqrt(sum((ux - a) ** 2 for _, ux, a in profile) / sum(a * a for _, _, a in profile))


def parabola(profile: list):
    """The analytic profile as a function of a continuous y: the CSV's analytic column samples
    A (y + 1/2)(ny - 1/2 - y) at the cell centres, with the walls half a cell outside the rows;
    A is recovered from it, so the curve can be drawn down to zero at the walls."""
    ny = len(profile)
    shape = [(y + 0.5) * (ny - 0.5 - y) for y, _, _ in profile]
    scale = sum(a * s for (_, _, a), s in zip(profile, shape)) / sum(s * s for s in shape)
    return ny, lambda y: scale * (y + 0.5) * (ny - 0.5 - y)


def read_rates(folder: pathlib.Path):
    """(context, step cases, ceilings, PyTorch peer cases) of the recorded benchmark."""
    run = results.load_gpu(folder)  # marks the experiments, which the figure leaves out
    context, cases, ceilings = run.context, run.cases, run.ceilings
    _, peers = results.load_peers(folder / "torch.json")
    for case in cases + peers:
        if "MLUP" not in case.amounts:
            raise cli.ToolError(f"{case.group}/{case.name} counts no MLUP", folder)
    return context, [c for c in cases if c.is_step and c.is_taught], ceilings, peers


# ---- drawing ----

def save(figure, path: pathlib.Path, plt) -> None:
    with cli.atomic_output(path, binary=True) as f:
        figure.savefig(f, format="png", dpi=120, bbox_inches="tight")
    plt.close(figure)
    print(f"wrote {path}")


def draw_walls(axis, ny: int) -> None:
    """The walls half a cell outside the first and last rows (y vertical), shaded beyond."""
    for inside, outside in ((-0.5, -1.5), (ny - 0.5, ny + 0.5)):
        axis.axhspan(min(inside, outside), max(inside, outside), color=WALL, alpha=0.35, hatch="///", linewidth=0)
        axis.axhline(inside, color="black", linewidth=1.2)


def draw_profile(flow: dict, out: pathlib.Path, plt) -> None:
    last = max(flow[STARTUP_STEP])
    ny, analytic = parabola(flow[STARTUP_STEP][last])
    fine = [-0.5 + (ny * i) / 200 for i in range(201)]
    figure, (steady, startup) = plt.subplots(1, 2, figsize=(12, 5.6), sharey=True)
    steady.plot([analytic(y) for y in fine], fine, color="black", linewidth=1.2, label="analytic parabola")
    for step, (marker, colour) in PROFILE_STEPS.items():
        profile = flow[step][last]
        size = {"o": 9, "s": 6, "^": 4}[marker]  # decreasing, so the three overlapping markers stay visible
        steady.plot([ux for _, ux, _ in profile], [y for y, _, _ in profile], marker, markersize=size, color=colour,
                    markerfacecolor="none" if marker != "^" else colour, label=f"{step}: relative L2 error {relative_l2(profile):.2e}")
    steady.set_title(f"Steady profile at time step {last}: step 07 in its three storage types", fontsize=10, loc="left")
    steady.legend(loc="upper left", bbox_to_anchor=(0.0, -0.12), fontsize=8, frameon=False)
    colours = plt.get_cmap("viridis")
    for i, time in enumerate(STARTUP_TIMES):
        profile = flow[STARTUP_STEP][time]
        startup.plot([ux for _, ux, _ in profile], [y for y, _, _ in profile], "o-", markersize=3, linewidth=1,
                     color=colours(0.9 * i / (len(STARTUP_TIMES) - 1)), label=f"t = {time}")  # viridis ends too pale on white
    startup.plot([analytic(y) for y in fine], fine, "--", color="black", linewidth=1.2, label="analytic (steady)")
    startup.set_title(f"Start-up from rest of {STARTUP_STEP}: the profile at time step t", fontsize=10, loc="left")
    startup.legend(loc="upper left", bbox_to_anchor=(0.0, -0.12), fontsize=8, frameon=False, ncol=3)
    for axis in (steady, startup):
        draw_walls(axis, ny)
        axis.set_ylim(-1.5, ny + 0.5)
        axis.set_xlim(left=0)
        axis.set_xlabel("ux, velocity along the channel (lattice units: cells per time step)")
        axis.grid(alpha=0.3)
    steady.set_ylabel(f"y, row across the channel (cells; walls, shaded, at -0.5 and {ny - 0.5})")
    figure.suptitle(f"D2Q9 Poiseuille flow, {ny} cells across, driven by a body force from rest", fontsize=11)
    figure.tight_layout()
    save(figure, out, plt)


def rms_speed(field: dict, column: int) -> float:
    """The root-mean-square speed of a field (column 0: the simulated one, 2: the analytic one)."""
    return math.sqrt(sum(v[column] ** 2 + v[column + 1] ** 2 for v in field.values()) / len(field))


def draw_flow(flow: dict, vortex: dict, out: pathlib.Path, plt) -> None:
    times = sorted(flow[STARTUP_STEP])
    last = times[-1]
    profile = flow[STARTUP_STEP][last]
    ny = len(profile)
    ys = [y for y, _, _ in profile]
    field = [[flow[STARTUP_STEP][t][row][1] for t in times] for row in range(ny)]  # rows y, columns time
    figure = plt.figure(figsize=(12, 10.5), layout="constrained")
    panels = figure.subplot_mosaic([["history", "history"], ["above", "decay"]], height_ratios=[2, 2.6])
    history, above, decay = panels["history"], panels["above"], panels["decay"]
    mesh = history.pcolormesh(times, ys, field, shading="nearest", cmap="viridis")
    contours = history.contour(times, ys, field, levels=[0.01, 0.02, 0.03, 0.04, 0.045], colors="white", linewidths=0.7)
    history.clabel(contours, fmt="%.3f", fontsize=7)
    figure.colorbar(mesh, ax=history, label="ux (cells per time step)")
    draw_walls(history, ny)
    history.set_ylim(-1.5, ny + 0.5)
    history.set_xlabel(f"time step (sampled every {times[1] - times[0]})")
    history.set_ylabel("y, row across the channel (cells)")
    history.set_title(f"{STARTUP_STEP}: the channel's cross-section ux(y) over time, from rest to the steady parabola\n"
                      "(white: lines of equal ux; shaded: the walls)", fontsize=9.5, loc="left")
    # A flow that varies both ways: the vortex at its middle sample, its vorticity as colour
    # (central differences, periodic both ways) and its streamlines.
    samples = sorted(vortex)
    shown = samples[len(samples) // 2]
    cells = vortex[shown]
    n = math.isqrt(len(cells))
    ux = [[cells[(x, y)][0] for x in range(n)] for y in range(n)]
    uy = [[cells[(x, y)][1] for x in range(n)] for y in range(n)]
    vorticity = [[(uy[y][(x + 1) % n] - uy[y][x - 1]) / 2 - (ux[(y + 1) % n][x] - ux[y - 1][x]) / 2 for x in range(n)]
                 for y in range(n)]
    top = max(abs(w) for row in vorticity for w in row)
    spin = above.pcolormesh(range(n), range(n), vorticity, shading="nearest", cmap="RdBu_r", vmin=-top, vmax=top)
    figure.colorbar(spin, ax=above, label="vorticity (per time step)", shrink=0.8)
    import numpy  # matplotlib's own dependency: streamplot takes arrays
    above.streamplot(numpy.arange(n), numpy.arange(n), numpy.array(ux), numpy.array(uy), color="black", linewidth=0.8,
                     density=1.1, arrowsize=0.9)
    above.set_xlim(-0.5, n - 0.5)
    above.set_ylim(-0.5, n - 0.5)
    above.set_aspect("equal")
    above.set_xlabel("x (cells; periodic)")
    above.set_ylabel("y (cells; periodic)")
    above.set_title(f"A Taylor-Green vortex, {n} x {n} cells, at t = {shown} (float64 reference):\n"
                    "streamlines over the vorticity; the tests' flow that needs the\nequilibrium's quadratic terms",
                    fontsize=9.5, loc="left")
    simulated = [rms_speed(vortex[t], 0) for t in samples]
    exact = [rms_speed(vortex[t], 2) for t in samples]
    # The analytic field decays as exp(-2 nu k^2 t) exactly: the line through its samples.
    rate = math.log(exact[0] / exact[-1]) / (samples[-1] - samples[0])
    span = list(range(0, samples[-1] + 1, 5))
    decay.plot(span, [exact[0] * math.exp(-rate * (t - samples[0])) for t in span], "-", color="black", linewidth=1,
               label=f"analytic: exp(-2 nu k^2 t), 2 nu k^2 = {rate:.5f} per step")
    worst = max(abs(s_ / e - 1) for s_, e in zip(simulated, exact))
    decay.plot(samples, simulated, "o", color="tab:blue", label=f"the reference (within {100 * worst:.2f}% of it)")
    decay.set_yscale("log")
    decay.set_xlabel("time step")
    decay.set_ylabel("root-mean-square speed (cells per time step)")
    decay.legend(loc="upper left", bbox_to_anchor=(0.0, -0.14), fontsize=8, frameon=False)  # below: clear of the line
    decay.set_title("The vortex's decay", fontsize=9.5, loc="left")
    save(figure, out, plt)


def box(axis, x: float, y: float, width: float, face, edge, linewidth: float) -> None:
    """A rectangle one unit high: a float in memory, a register, or the outline of a cell."""
    from matplotlib.patches import Rectangle  # here: main() has checked, through plot.pyplot(), that matplotlib is there
    axis.add_patch(Rectangle((x, y), width, 1, facecolor=face, edgecolor=edge, linewidth=linewidth))


def slot(axis, x: float, y: float, k: int, colours, text: str = "") -> None:
    box(axis, x, y, 1, colours(k), "white", 0.5)
    if text:
        axis.text(x + 0.5, y + 0.5, text, ha="center", va="center", fontsize=6.5)


def draw_paper_layout(axis, colours) -> None:
    """Steps 00-02: id = k + (y + x ny) 9 ; the block is threads (k, row) = (threadIdx.x, threadIdx.y),
    9 x 32, so its threads in launch order are the consecutive ids of 32 cells of one column."""
    cells = 8
    for cell in range(cells):
        for k in range(DIRECTIONS):
            i = cell * DIRECTIONS + k
            slot(axis, i, 0, k, colours, str(k))
        box(axis, cell * DIRECTIONS, 0, DIRECTIONS, "none", "black", 1.2)
        axis.text(cell * DIRECTIONS + 4.5, 1.25, f"cell (x, y = {cell})", ha="center", fontsize=7)
    for warp, (colour, where) in enumerate((("tab:red", -0.55), ("tab:purple", -1.35))):
        first, last = warp * WARP, warp * WARP + WARP - 1
        axis.annotate("", xy=(first, where), xytext=(last + 1, where),
                      arrowprops={"arrowstyle": "|-|", "color": colour, "linewidth": 1.5, "mutation_scale": 3})
        # The warp's 32 ids, cut at cell boundaries: the rest of a cell begun by the previous
        # warp, whole cells, and the start of the next cell.
        head = (DIRECTIONS - first % DIRECTIONS) % DIRECTIONS
        whole, tail = divmod(WARP - head, DIRECTIONS)
        parts = ([f"directions {first % DIRECTIONS}-8 of cell y = {first // DIRECTIONS}"] if head else []) + \
            [f"cells y = {(first + head) // DIRECTIONS}-{(first + head) // DIRECTIONS + whole - 1} whole"] + \
            ([f"direction{'s 0-' if tail > 1 else ' '}{tail - 1} of cell y = {(last // DIRECTIONS)}"] if tail else [])
        axis.text(first, where - 0.3, f"warp {warp}: threads {first}-{last} of the block = ids {first}-{last}, 128 contiguous "
                  f"bytes: {', '.join(parts)}", ha="left", va="top", fontsize=7, color=colour)
    axis.text(cells * DIRECTIONS + 0.5, 0.5, "... cell y = ny - 1,\nthen column x + 1", va="center", fontsize=7)
    axis.set_xlim(-0.5, cells * DIRECTIONS + 9)
    axis.set_ylim(-2.6, 2.0)
    axis.set_xticks(range(0, cells * DIRECTIONS + 1, DIRECTIONS))
    axis.set_yticks([])
    axis.set_xlabel("float offset in memory within column x (id = k + 9 (y + x ny)); number and colour: direction k", fontsize=8)
    axis.set_title("Steps 00-02, the paper's layout: a cell's 9 directions side by side. A block is 9 x 32 threads "
                   "(k = threadIdx.x fastest): each warp touches 32 consecutive floats,\nspread over parts of 4 cells, "
                   "so a cell's work (its moments, its collision) is split between threads and sometimes between warps",
                   fontsize=8.5, loc="left")


def draw_soa_layout(axis, colours) -> None:
    """Steps 03 on: f[k][y][x], a thread per cell; a warp = 32 cells of a row. Its pull of
    direction k reads column x - e_kx of row y - e_ky: 32 consecutive floats of plane k."""
    shown, x0 = 48, 8
    for k in range(DIRECTIONS):
        row = DIRECTIONS - 1 - k
        shift = -VELOCITY_X[k]
        for x in range(shown):
            read = x0 + shift <= x < x0 + shift + WARP
            box(axis, x, row, 1, colours(k) if read else "#f2f2f2", "white", 0.4)
        for sector in range(0, shown + 1, 8):  # 32-byte sectors: 8 floats
            axis.plot([sector, sector], [row, row + 1], color="black", linewidth=0.8)
        touched = (x0 + shift + WARP - 1) // 8 - (x0 + shift) // 8 + 1
        row_read = "y" if not VELOCITY_Y[k] else f"y{-VELOCITY_Y[k]:+d}"
        columns = f"x0{shift:+d}" if shift else "x0"
        axis.text(shown + 0.5, row + 0.5, f"plane k = {k}: row {row_read}, from column {columns}: {touched} sectors",
                  va="center", fontsize=7)
    axis.set_xlim(-0.5, shown + 24)
    axis.set_ylim(-0.3, DIRECTIONS + 0.2)
    axis.set_xticks(range(0, shown + 1, 8), [f"x0{x - x0:+d}" if x != x0 else "x0" for x in range(0, shown + 1, 8)], fontsize=7)
    axis.set_yticks([])
    axis.set_xlabel("column within a row of each plane (black ticks: 32-byte sector boundaries, 8 floats); coloured: "
                    "the 32 floats one warp (cells x0 .. x0+31 of row y) pulls", fontsize=8)
    axis.set_title("Steps 03 on, structure of arrays f[k][y][x]: 9 planes of nx ny floats. A thread per cell; a warp's "
                   "load of direction k is 32 consecutive floats of plane k,\n128 bytes: 4 sectors, or 5 where the pull "
                   "along x shifts it by one float", fontsize=8.5, loc="left")


def draw_aa_pattern(axes, colours) -> None:
    """Step 05 in a 1D slice along x: directions 3 (west), 0 (rest), 1 (east) of cells x-1, x, x+1,
    and the thread of cell x. Pulling step: read A[opp k][x - e_k], write A[k][x + e_k]; local
    step: read A[k][x], write A[opp k][x]."""
    order = (3, 0, 1)  # slots drawn left to right within a cell
    arrow_of = {3: "\u2190", 0: "\u00b7", 1: "\u2192"}
    opposite = {0: 0, 1: 3, 3: 1}
    cell_width, gap = 3, 1
    origin = {dx: (dx + 1) * (cell_width + gap) for dx in (-1, 0, 1)}

    def slot_x(dx, k):
        return origin[dx] + order.index(k)

    kinds = {
        "pulling step": {k: (-VELOCITY_X[k], opposite[k], VELOCITY_X[k], k) for k in order},  # read cell, read k, write cell, write k
        "local step": {k: (0, k, 0, opposite[k]) for k in order},
    }
    for axis, (kind, moves) in zip(axes, kinds.items()):
        for dx in (-1, 0, 1):
            for k in order:
                slot(axis, slot_x(dx, k), 2, k, colours, f"A[{k}]\n{arrow_of[k]}")
            box(axis, origin[dx], 2, cell_width, "none", "black", 1.2)
            axis.text(origin[dx] + cell_width / 2, 3.25, ["cell x-1", "cell x", "cell x+1"][dx + 1], ha="center", fontsize=8)
        # The thread of cell x: its nine values in registers (three drawn), below the memory row.
        for k in order:
            box(axis, slot_x(0, k), -1, 1, "white", "black", 0.8)
            axis.text(slot_x(0, k) + 0.5, -0.5, f"f{k}", ha="center", va="center", fontsize=7)
        axis.text(origin[0] + cell_width / 2, -1.45, "thread of cell x (registers)", ha="center", va="top", fontsize=7)
        for k, (read_dx, read_k, write_dx, write_k) in moves.items():
            register = (slot_x(0, k) + 0.5, 0.0)
            axis.annotate("", xy=register, xytext=(slot_x(read_dx, read_k) + 0.35, 2.0),
                          arrowprops={"arrowstyle": "->", "color": "tab:blue", "linewidth": 1.3, "connectionstyle": "arc3,rad=0.15"})
            axis.annotate("", xy=(slot_x(write_dx, write_k) + 0.65, 2.0), xytext=(register[0] + 0.15, 0.0),
                          arrowprops={"arrowstyle": "->", "color": "tab:red", "linewidth": 1.3, "linestyle": "--",
                                      "connectionstyle": "arc3,rad=0.15"})
        if kind == "pulling step":
            rule = ("time steps 1, 3, 5, ... (the first, and every other one), pulling: f_k = A[opp k][x - e_k], then A[k][x + e_k] = f*_k\n"
                    "from each neighbour the cell reads the slot that points back at it, and later writes into that same slot")
        else:
            rule = ("time steps 2, 4, 6, ... (those between), local: f_k = A[k][x], then A[opp k][x] = f*_k\n"
                    "the cell reads and writes only its own slots, each value into the opposite one (swapped)")
        axis.set_title(rule, fontsize=8, loc="left")
        axis.set_xlim(origin[-1] - 0.5, origin[1] + cell_width + 0.5)
        axis.set_ylim(-2.2, 3.8)
        axis.set_aspect("equal")
        axis.axis("off")
    axes[0].plot([], [], "-", color="tab:blue", label="read into register f_k")
    axes[0].plot([], [], "--", color="tab:red", label="write of the collided f*_k")
    axes[0].legend(loc="lower left", fontsize=7, frameon=False, bbox_to_anchor=(-0.02, -0.12))


def draw_layouts(out: pathlib.Path, plt) -> None:
    """The three access patterns, each a picture of its own: the paper's layout (step 00), the
    structure of arrays (step 03) and the AA pattern's two kinds of time step (step 05)."""
    colours = plt.get_cmap("tab10")
    figure, axis = plt.subplots(figsize=(14, 2.6), layout="constrained")
    draw_paper_layout(axis, colours)
    save(figure, out / "paper_layout.png", plt)
    figure, axis = plt.subplots(figsize=(14, 4.2), layout="constrained")
    draw_soa_layout(axis, colours)
    save(figure, out / "soa_layout.png", plt)
    figure = plt.figure(figsize=(14, 3.8), layout="constrained")
    draw_aa_pattern(figure.subplots(1, 2), colours)
    figure.suptitle("Step 05, the AA pattern in one buffer A[k][y][x], along x (directions 3 west, 0 rest, 1 east; the "
                    "other six alike). Each kind of step reads and writes the same slots,\nso no thread touches a slot "
                    "another thread uses in the same step; the two kinds alternate", fontsize=8.5, x=0.01, ha="left")
    save(figure, out / "aa_pattern.png", plt)


def draw_cell(axis, x0: float, y0: float, colour_of, outline="black", linewidth=1.2, labels=True) -> None:
    """A cell as a 3 x 3 square of its nine slots, slot k at the place its velocity e_k points to;
    colour_of(k) gives a slot's colour (None: blank)."""
    for k in range(DIRECTIONS):
        colour = colour_of(k)
        box(axis, x0 + 1 + VELOCITY_X[k], y0 + 1 + VELOCITY_Y[k], 1, colour or "#f2f2f2", "white", 0.5)
        if labels and colour:
            axis.text(x0 + 1.5 + VELOCITY_X[k], y0 + 1.5 + VELOCITY_Y[k], str(k), ha="center", va="center", fontsize=7)
    from matplotlib.patches import Rectangle
    axis.add_patch(Rectangle((x0, y0), 3, 3, facecolor="none", edgecolor=outline, linewidth=linewidth))


def draw_fused_pull(out: pathlib.Path, plt) -> None:
    """Step 04, one thread's time step: (1) pull: value k of the cell comes from slot k of the
    neighbour at x - e_k in src (a 3 x 3 block of cells, the thread's cell in the middle);
    (2) moments and collision in registers; (3) the nine results written once into the cell's own
    slots of dst."""
    colours = plt.get_cmap("tab10")
    figure, axes = plt.subplots(1, 3, figsize=(13, 4.6), layout="constrained", width_ratios=[1.25, 0.8, 1.0])
    pitch = 4  # a cell is 3 wide, with a gap of 1
    pull, collide, write = axes
    for dx in (-1, 0, 1):
        for dy in (-1, 0, 1):
            # The neighbour at offset (dx, dy) = -e_k gives the centre its direction k: the k with e_k = (-dx, -dy).
            given = next(k for k in range(DIRECTIONS) if (VELOCITY_X[k], VELOCITY_Y[k]) == (-dx, -dy))
            draw_cell(pull, dx * pitch, dy * pitch, lambda k, given=given: colours(k) if k == given else None,
                      outline="tab:red" if (dx, dy) == (0, 0) else "black")
            if (dx, dy) != (0, 0):
                start = (dx * pitch + 1.5 + VELOCITY_X[given], dy * pitch + 1.5 + VELOCITY_Y[given])
                end = (1.5 + VELOCITY_X[given], 1.5 + VELOCITY_Y[given])
                pull.annotate("", xy=end, xytext=start, arrowprops={"arrowstyle": "->", "color": "black", "linewidth": 1.2,
                                                                   "shrinkA": 6, "shrinkB": 6})
    pull.set_title("1. pull (src): the thread of the red cell reads value k\nfrom slot k of its neighbour at x - e_k; "
                   "nine loads, one a plane", fontsize=9, loc="left")
    pull.set_xlim(-pitch - 0.5, pitch + 3.5)
    pull.set_ylim(-pitch - 0.5, pitch + 3.5)
    # The registers: the nine pulled values, then the moments and the collided values.
    for k in range(DIRECTIONS):
        box(collide, k, 3, 1, colours(k), "white", 0.5)
        collide.text(k + 0.5, 3.5, f"f{k}", ha="center", va="center", fontsize=7)
        box(collide, k, -0.5, 1, colours(k), "black", 0.5)
        collide.text(k + 0.5, 0.0, f"f*{k}", ha="center", va="center", fontsize=7)
    collide.text(4.5, 1.75, "density and velocity of the nine;\neach relaxes toward its equilibrium",
                 ha="center", va="center", fontsize=8)
    collide.annotate("", xy=(4.5, 0.6), xytext=(4.5, 2.9), arrowprops={"arrowstyle": "->", "linewidth": 1.2})
    collide.set_title("2. collide, in the thread's registers:\nnothing goes to memory in between", fontsize=9, loc="left")
    collide.set_xlim(-0.5, 9.5)
    collide.set_ylim(-4.0, 6.0)
    for dx in (-1, 0, 1):
        for dy in (-1, 0, 1):
            mine = (dx, dy) == (0, 0)
            draw_cell(write, dx * pitch, dy * pitch, lambda k, mine=mine: colours(k) if mine else None,
                      outline="tab:red" if mine else "#bbbbbb", linewidth=1.6 if mine else 0.8)
    write.set_title("3. write (dst): all nine results into the cell's own\nslots, once; the neighbours' threads do the same",
                    fontsize=9, loc="left")
    write.set_xlim(-pitch - 0.5, pitch + 3.5)
    write.set_ylim(-pitch - 0.5, pitch + 3.5)
    for axis in axes:
        axis.set_aspect("equal")
        axis.axis("off")
    figure.suptitle("Step 04, one thread's time step. A cell's slot k holds the value moving along e_k (slot 1 east, "
                    "2 north, 5 north-east, 0 at rest); src and dst swap after the step", fontsize=9, x=0.01, ha="left")
    save(figure, out, plt)


def draw_pairs_words(out: pathlib.Path, plt) -> None:
    """Step 09 along one row of plane k = 1 (e_x = 1): two cells' 16-bit values in one 4-byte word
    (the even cell in the low half); the block stages its words and one value either side in a
    shared tile, waits once, and each thread picks the two values it pulls from there."""
    colours = plt.get_cmap("tab10")
    figure, axes = plt.subplots(2, 1, figsize=(12, 4.8), layout="constrained")
    memory, tile = axes
    cells = 12
    for x in range(cells):
        box(memory, x, 1, 1, colours(x // 2 % 2 * 2), "white", 0.5)
        memory.text(x + 0.5, 1.5, f"x={x}", ha="center", va="center", fontsize=7)
        memory.text(x + 0.5, 0.75, "bits 0-15" if x % 2 == 0 else "bits 16-31", ha="center", va="top", fontsize=6)
    for word in range(cells // 2):
        box(memory, 2 * word, 1, 2, "none", "black", 1.4)
        memory.text(2 * word + 1, 2.3, f"word {word}: thread {word}", ha="center", fontsize=7.5)
    memory.set_title("A row of plane k in memory: fp16 values, two cells to a 4-byte word (outlined). Thread t loads and "
                     "stores word t: cells 2t and 2t + 1 at once", fontsize=8.5, loc="left")
    memory.set_xlim(-1.5, cells + 1.5)
    memory.set_ylim(-0.2, 2.9)
    # The tile: the block's cells 0-11 and one more either side; thread 2 pulls cells 3 and 4 for e_x = 1.
    for x in range(-1, cells + 1):
        halo = x < 0 or x >= cells
        box(tile, x, 1, 1, "#dddddd" if halo else colours(x // 2 % 2 * 2), "white", 0.5)
        tile.text(x + 0.5, 1.5, f"x={x}" if not halo else ("x=-1" if x < 0 else f"x={x}"), ha="center", va="center", fontsize=7)
    box(tile, -1, 1, cells + 2, "none", "black", 1.4)
    thread, pulled = 2, (3, 4)
    for lane, x in enumerate(pulled):
        box(tile, 2 * thread + lane, -0.8, 1, "tab:orange", "black", 0.6)
        tile.text(2 * thread + lane + 0.5, -0.3, f"x={x}", ha="center", va="center", fontsize=7)
        tile.annotate("", xy=(2 * thread + lane + 0.5, 0.2), xytext=(x + 0.5, 1.0),
                      arrowprops={"arrowstyle": "->", "color": "tab:blue", "linewidth": 1.0})
    tile.text(2 * thread + 2.3, -0.3, "thread 2 (cells 4, 5) pulls cells 3 and 4 for e_x = 1: two halves of two words",
              va="center", fontsize=7.5)
    tile.set_title("The block's shared tile for a direction that moves along x: its words plus one cell either side "
                   "(grey, scalar loads by the edge threads), then one barrier", fontsize=8.5, loc="left")
    tile.set_xlim(-1.5, cells + 1.5)
    tile.set_ylim(-1.2, 2.4)
    for axis in axes:
        axis.set_aspect("equal")
        axis.axis("off")
    save(figure, out, plt)


def draw_rounding(out: pathlib.Path, plt) -> None:
    """Step 10: a value v between its two fp16 neighbours lo and hi, stored as hi with probability
    (v - lo) / (hi - lo), else lo; and the same on the float32 bits: 13 low bits, a random integer
    below 2^13 added, the 13 bits cleared."""
    figure, (line, bits) = plt.subplots(2, 1, figsize=(11, 5.2), layout="constrained", height_ratios=[1.3, 1])
    spacing = 2.0 ** -16  # fp16's spacing between 2^-6 and 2^-5, where direction 1's stored value lies
    lo = 1147 * spacing   # 0.01750..., a stored value of direction 1 near the channel's centre
    fraction = 0.3
    v = lo + fraction * spacing
    line.axhline(0, color="black", linewidth=1)
    for x, name in ((lo, "lo"), (lo + spacing, "hi")):
        line.plot([x, x], [-0.08, 0.08], color="black", linewidth=2)
        line.text(x, -0.2, f"{name} = {x:.7f}", ha="center", va="top", fontsize=8.5)
    line.plot([v], [0], "o", color="tab:red", markersize=8)
    line.text(v, 0.17, f"v = {v:.7f}", ha="center", fontsize=8.5, color="tab:red")
    for x, p, colour in ((lo, 1 - fraction, "tab:blue"), (lo + spacing, fraction, "tab:orange")):
        line.bar([x], [p], width=spacing * 0.06, bottom=0.35, color=colour)
        line.text(x, 0.4 + p, f"stored with probability {p:.1f}", ha="center", fontsize=8.5, color=colour)
    line.annotate("", xy=(lo, -0.5), xytext=(v, -0.5), arrowprops={"arrowstyle": "<->", "color": "grey"})
    line.text((lo + v) / 2, -0.58, "0.3 of the spacing", ha="center", va="top", fontsize=8, color="grey")
    line.set_xlim(lo - 0.25 * spacing, lo + 1.25 * spacing)
    line.set_ylim(-0.8, 1.35)
    line.axis("off")
    line.set_title("Two neighbouring fp16 numbers, 2^-16 apart. Rounding to nearest always stores lo: the same error "
                   "every step. Stochastic rounding stores hi with probability\n(v - lo) / (hi - lo) = 0.3, else lo: "
                   "on average exactly v", fontsize=9, loc="left")
    # The float32 bits: sign, 8 exponent bits, 10 fraction bits kept, 13 cleared.
    fields = [("sign", 1, "#dddddd"), ("exponent: 8 bits", 8, "#c6dbef"), ("fraction kept by fp16: 10 bits", 10, "#9ecae1"),
              ("13 bits dropped", 13, "#fdae6b")]
    x = 0
    for name, width, colour in fields:
        box(bits, x, 1, width, colour, "black", 0.8)
        bits.text(x + width / 2, 1.5, name, ha="center", va="center", fontsize=8)
        x += width
    box(bits, 19, -0.4, 13, "#fdd0a2", "black", 0.8)
    bits.text(25.5, 0.1, "+ a random integer r below 2^13", ha="center", va="center", fontsize=8)
    bits.text(32.5, 1.5, "float32 bits of v", va="center", fontsize=8)
    bits.text(32.5, 0.1, "then clear the 13 low bits: the add carries into\nthe kept bits (v rounds up to hi) with probability "
              "(low 13 bits) / 2^13", va="center", fontsize=8)
    bits.set_xlim(-0.5, 46)
    bits.set_ylim(-0.8, 2.4)
    bits.set_aspect("equal")
    bits.axis("off")
    bits.set_title("The same on the bits, in integer arithmetic: four instructions a value, and the fp16 conversion "
                   "after it is exact", fontsize=9, loc="left")
    save(figure, out, plt)


def draw_words(out: pathlib.Path, plt) -> None:
    """Step 13 along one row of plane k = 1 (e_x = 1): thread t owns cells x0 .. x0 + n - 1 (one word)
    and pulls cells x0 - 1 .. x0 + n - 2: its own word shifted by one lane, plus the top lane of the
    word before, which is the neighbouring thread's own word (an L1 hit)."""
    colours = plt.get_cmap("tab10")
    cell_name = lambda offset: f"x0{offset:+d}" if offset else "x0"  # noqa: E731
    figure, axes = plt.subplots(2, 1, figsize=(12, 4.6), layout="constrained")
    for axis, (lanes, name) in zip(axes, ((2, "two cells a thread, 4-byte words"), (4, "four cells a thread, 8-byte words"))):
        words, mine = 4, 1  # words drawn; the thread's own word
        for word in range(words):
            for lane in range(lanes):
                x = word * lanes + lane
                pulled = mine * lanes - 1 <= x <= mine * lanes + lanes - 2
                box(axis, x, 1, 1, colours(1) if pulled else "#f2f2f2", "white", 0.5)
                axis.text(x + 0.5, 1.5, cell_name(x - mine * lanes), ha="center", va="center", fontsize=7)
            box(axis, word * lanes, 1, lanes, "none", "black", 1.4)
            owner = "own word" if word == mine else ("word before" if word == mine - 1 else "")
            axis.text(word * lanes + lanes / 2, 2.3, owner, ha="center", fontsize=7.5)
        for lane in range(lanes):  # the pulled values as the thread holds them: one word, lanes in order
            box(axis, mine * lanes + lane, -0.8, 1, colours(1), "black", 0.6)
            axis.text(mine * lanes + lane + 0.5, -0.3, cell_name(lane - 1), ha="center", va="center", fontsize=7)
            source = mine * lanes + lane - 1
            axis.annotate("", xy=(mine * lanes + lane + 0.5, 0.2), xytext=(source + 0.5, 1.0),
                          arrowprops={"arrowstyle": "->", "color": "tab:blue", "linewidth": 1.0})
        axis.text(mine * lanes + lanes + 0.3, -0.3, f"in a register: (word before >> {16 * (lanes - 1)}) | (own word << 16)",
                  va="center", fontsize=7.5)
        axis.set_xlim(-0.5, words * lanes + 0.5 + (6 if lanes == 2 else 0))
        axis.set_ylim(-1.2, 2.8)
        axis.set_aspect("equal")
        axis.axis("off")
        axis.set_title(f"Step 13, {name}: plane k = 1 (e_x = 1) pulls cells {cell_name(-1)} .. {cell_name(lanes - 2)} for the "
                       f"thread of x0 .. {cell_name(lanes - 1)}; outlined: {2 * lanes}-byte words", fontsize=8.5, loc="left")
    save(figure, out, plt)


def size_key(group: str):
    """Sizes NXxNY in order of cells; other names last, in the order they came."""
    try:
        nx, ny = (int(n) for n in group.split("x"))
        return nx * ny
    except ValueError:
        return math.inf


def draw_rates(context: dict, steps: list, ceilings: dict, peers: list, out: pathlib.Path, plt) -> None:
    groups = sorted(dict.fromkeys(c.group for c in steps), key=size_key)
    names = list(dict.fromkeys(c.name for c in steps))
    rate = {(c.group, c.name): c.rate("MLUP") for c in steps}
    # The taught steps only; tab10's ten colours, then four more far from them; 16-bit steps hatched
    palette = [plt.get_cmap("tab10")(i) for i in range(10)] + ["black", "gold", "navy", "lime"]
    if len(names) > len(palette):
        raise cli.ToolError(f"{len(names)} steps to draw and {len(palette)} colours: add colours to draw_rates", __file__)
    width = 0.8 / (len(names) + 1)
    figure, axis = plt.subplots(figsize=(14, 6.2))
    strongest = {}
    for group in groups:
        mine = [p for p in peers if group.startswith(p.group)]
        if mine:
            strongest[group] = max(mine, key=lambda p: p.rate("MLUP"))
    for j, name in enumerate(names):
        xs = [i - 0.4 + (j + 0.5) * width for i, g in enumerate(groups) if (g, name) in rate]
        sixteen_bit = any(c.name == name and round(c.amounts["GB"] * 1e3 / c.amounts["MLUP"]) == 36 for c in steps)
        axis.bar(xs, [rate[(g, name)] for g in groups if (g, name) in rate], width, color=palette[j], label=name,
                 hatch="///" if sixteen_bit else None, edgecolor="white" if sixteen_bit else None, linewidth=0)
    peer_names = sorted(set(p.name for p in strongest.values()))
    label = "PyTorch, fastest peer" + (f" ({peer_names[0]})" if len(peer_names) == 1 else " at each size (named)")
    xs = [i - 0.4 + (len(names) + 0.5) * width for i, g in enumerate(groups) if g in strongest]
    axis.bar(xs, [strongest[g].rate("MLUP") for g in groups if g in strongest], width, color="white", edgecolor="black",
             hatch="xxx", label=label)
    if len(peer_names) > 1:
        for x, g in zip(xs, [g for g in groups if g in strongest]):
            axis.text(x, strongest[g].rate("MLUP") * 1.1, strongest[g].name, rotation=90, ha="center", va="bottom", fontsize=6)
    copy = ceilings["copy_GBps"]
    for per_update, style, what in ((72, "-", "float32"), (36, "--", "16-bit storage")):
        mlups = copy * 1e9 / per_update / 1e6
        axis.axhline(mlups, color="black", linestyle=style, linewidth=1.1)
        axis.text(-0.45, mlups * 1.04, f"copy ceiling at {per_update} B per update ({what}): {mlups:,.0f} MLUPS",
                  ha="left", va="bottom", fontsize=8)  # over the smallest size, whose bars stay low
    axis.set_yscale("log")
    axis.set_xticks(range(len(groups)), [f"{g} cells" for g in groups])
    axis.set_xlim(-0.5, len(groups) - 0.4)
    lowest = min([c.rate("MLUP") for c in steps] + [p.rate("MLUP") for p in strongest.values()])
    axis.set_ylim(lowest / 1.5, copy * 1e9 / 36 / 1e6 * 1.6)
    axis.set_xlabel("channel size (nx x ny)")
    axis.set_ylabel("MLUPS: million cell updates per second\n(cells x time steps / median time, log scale)")
    axis.grid(axis="y", which="both", alpha=0.3)
    axis.set_title(f"Every step's lattice updates per second, D2Q9 ({context['gpu']}, {context['backend']}, commit "
                   f"{context['commit']}); the copy ceiling is {copy:,.0f} GB/s", fontsize=10, loc="left")
    axis.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8, frameon=False)
    figure.tight_layout()
    save(figure, out, plt)


def main() -> int:
    parser = cli.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--results", type=pathlib.Path, default=HERE / "results" / "h200",
                        help="the folder holding flow.csv, bench.json, ceilings.json and torch.json (default: %(default)s)")
    parser.add_argument("--vortex", type=pathlib.Path, default=HERE / "results" / "cpu" / "vortex.csv",
                        help="the Taylor-Green vortex's fields, from bench_lbm --vortex (default: %(default)s)")
    parser.add_argument("--out-dir", type=pathlib.Path, default=HERE / "figures",
                        help="where the PNGs go (default: %(default)s)")
    args = parser.parse_args()
    if not args.results.is_dir():
        raise cli.ToolError("no such folder of results" if not args.results.exists() else "is not a folder", args.results)
    flow = read_flow(args.results / "flow.csv")
    vortex = read_vortex(args.vortex)
    context, steps, ceilings, peers = read_rates(args.results)
    plt = plot.pyplot()
    out = cli.output_folder(args.out_dir)
    draw_profile(flow, out / "profile.png", plt)
    draw_flow(flow, vortex, out / "flow.png", plt)
    draw_layouts(out, plt)
    draw_fused_pull(out / "fused_pull.png", plt)
    draw_pairs_words(out / "pairs_words.png", plt)
    draw_rounding(out / "rounding.png", plt)
    draw_words(out / "words.png", plt)
    draw_rates(context, steps, ceilings, peers, out / "rates.png", plt)
    return 0


if __name__ == "__main__":
    cli.run(main)
