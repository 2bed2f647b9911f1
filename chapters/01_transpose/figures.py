#!/usr/bin/env python3
"""Draws chapter 1's pictures into figures/, one for each step of the lesson (README.md):
  sectors.png        (step 00) the 32-byte sectors one warp's load touches when its lanes walk
                     along a row and down a column;
  l1_reuse.png       (step 01) the re-mapped transpose's 32 x 8 block: each warp reads down a
                     column, but the block's eight warps read the eight floats of the same sectors,
                     and each warp writes along a row;
  banks.png          (step 02) the shared-memory bank of each lane when a warp reads a column of a
                     32 x 32 tile, without and with one float of padding;
  flag_decision.png  (step 03) what the flagged matrix does on each access, and the cost of k
                     passes against the other consumers on each GPU recorded, from results/;
  rows_per_thread.png (step 04) which thread moves which element of the 32 x 32 tile in steps 02
                     and 04;
  vector_tile.png    (step 05) the float4s one warp loads along the 64 x 64 tile's rows and
                     gathers down its columns;
  block_order.png    (step 06) which tiles the first blocks of steps 05 and 06 read and write;
  split_rows.png     (step 07) how step 07 cuts A into blocks of 128 columns and a split of the
                     rows, and adds the splits' partial sums in a fixed order.

    chapters/01_transpose/figures.py [--out-dir chapters/01_transpose/figures]

It needs matplotlib (the system python, /usr/bin/python3, has it).
"""
import argparse
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "profiling"))
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import cli  # noqa: E402
import plot  # noqa: E402
import results  # noqa: E402
import tables  # noqa: E402  (the cost model of the flagged matrix, as the README's tables fit it)

plt = None  # matplotlib's pyplot: main() takes it once the options are known to be good

LANES = 32
FLOATS_PER_SECTOR = 8  # 32-byte sectors of 4-byte floats
BANKS = 32


def draw_sectors(out: pathlib.Path) -> None:
    """One warp's load of a row-major 32 x 32 block: lane l reads A[0][l] (row) or A[l][0] (column)."""
    colours = plt.get_cmap("tab20")
    figure, axes = plt.subplots(1, 2, figsize=(12, 5.2))
    for axis, (title, column) in zip(axes, [("along a row: lane l reads A[0][l]", False),
                                            ("down a column: lane l reads A[l][0]", True)]):
        touched = set()
        for lane in range(LANES):
            row, col = (lane, 0) if column else (0, lane)
            touched.add((row, col // FLOATS_PER_SECTOR))
            axis.add_patch(plt.Rectangle((col, row), 1, 1, facecolor=colours(lane % 20)))
            axis.text(col + 0.5, row + 0.5, str(lane), ha="center", va="center", fontsize=5)
        for row, sector in touched:  # outline every sector the warp makes the memory system move
            axis.add_patch(plt.Rectangle((sector * FLOATS_PER_SECTOR, row), FLOATS_PER_SECTOR, 1, fill=False,
                                         edgecolor="black", linewidth=1.2))
        useful = LANES * 4 / (len(touched) * 32)
        axis.set_title(f"{title}\n{len(touched)} sectors of 32 B moved, {100 * useful:g}% of their bytes used", fontsize=9)
        axis.set_xlim(0, 32)
        axis.set_ylim(32, 0)
        axis.set_aspect("equal")
        axis.set_xticks(range(0, 33, FLOATS_PER_SECTOR))
        axis.set_yticks(range(0, 33, 8))
        axis.set_xlabel("column (a black box is one 32-byte sector: 8 floats)")
        axis.set_ylabel("row")
    figure.suptitle("Coalescing: the elements one warp loads (numbered by lane) and the sectors that carry them",
                    fontsize=10)
    figure.tight_layout()
    figure.savefig(out, dpi=130)
    print(f"wrote {out}")


def draw_banks(out: pathlib.Path) -> None:
    """Bank of tile[i][c] = (i * (32 + pad) + c) mod 32: a warp reads column c = 0, lane i = row i."""
    figure, axes = plt.subplots(1, 2, figsize=(12, 5.6))
    for axis, pad in zip(axes, (0, 1)):
        width = LANES + pad
        for i in range(LANES):
            for c in range(width):
                bank = (i * width + c) % BANKS
                read = c == 0
                axis.add_patch(plt.Rectangle((c, i), 1, 1, facecolor=plt.get_cmap("hsv")(bank / BANKS),
                                             alpha=0.85 if read else 0.18, edgecolor="white", linewidth=0.3))
                if read or c < 4:
                    axis.text(c + 0.5, i + 0.5, str(bank), ha="center", va="center", fontsize=4.5)
        banks = {(i * width) % BANKS for i in range(LANES)}
        conflict = LANES // len(banks)
        axis.set_title(f"float tile[32][{width}]: a warp reads column 0 (bright)\n"
                       f"{len(banks)} distinct bank(s): " +
                       (f"a {conflict}-way conflict, {conflict} passes through the banks one after another"
                        if conflict > 1 else "no conflict, one pass through the banks"), fontsize=9)
        axis.set_xlim(0, 33)
        axis.set_ylim(32, 0)
        axis.set_aspect("equal")
        axis.set_xlabel("column of the shared tile (the padding column, if any, is never used)")
        axis.set_ylabel("row of the tile = lane")
    figure.suptitle("Shared-memory banks (number in each cell) of step 02's tile, without and with one float of padding",
                    fontsize=10)
    figure.tight_layout()
    figure.savefig(out, dpi=130)
    print(f"wrote {out}")


def draw_block_order(out: pathlib.Path) -> None:
    """A 12 x 12-tile matrix: the tiles of the first 16 blocks (running at once) in each step's
    numbering, in the input and in the output (the transposed tile)."""
    tiles, running = 12, 16
    figure, axes = plt.subplots(2, 2, figsize=(10, 10))
    for column, (step, down) in enumerate([("05: blockIdx.x along the input's rows", False),
                                           ("06: blockIdx.x down the input's columns", True)]):
        for row, side in enumerate(("input (read)", "output (written)")):
            axis = axes[row][column]
            for b in range(tiles * tiles):
                tile_row, tile_col = (b % tiles, b // tiles) if down else (b // tiles, b % tiles)
                if side.startswith("output"):
                    tile_row, tile_col = tile_col, tile_row
                shade = plt.get_cmap("viridis")(b / running) if b < running else "#eeeeee"
                axis.add_patch(plt.Rectangle((tile_col, tile_row), 1, 1, facecolor=shade, edgecolor="white"))
                if b < running:
                    axis.text(tile_col + 0.5, tile_row + 0.5, str(b), ha="center", va="center", fontsize=7, color="white")
            axis.set_xlim(0, tiles)
            axis.set_ylim(tiles, 0)
            axis.set_aspect("equal")
            axis.set_xticks([])
            axis.set_yticks([])
            axis.set_title(f"{step}\n{side}", fontsize=9)
    figure.suptitle(f"The first {running} blocks (numbered in launch order) of a {tiles} x {tiles}-tile transpose: "
                    "06's blocks write neighbouring tiles of the same output rows", fontsize=10)
    figure.tight_layout()
    figure.savefig(out, dpi=110)
    print(f"wrote {out}")


def draw_l1_reuse(out: pathlib.Path) -> None:
    """Step 01's transpose, block (0, 0) of 32 x 8 threads: warp w (threadIdx.y = w) reads
    in[0..31][w] (lane l: row l) and writes out[w][0..31]."""
    warps = 8
    colours = plt.get_cmap("tab10")
    figure, (left, right) = plt.subplots(1, 2, figsize=(11.5, 6.0), gridspec_kw={"width_ratios": [1, 3.2]})
    for w in range(warps):
        for lane in range(LANES):
            left.add_patch(plt.Rectangle((w, lane), 1, 1, facecolor=colours(w), alpha=0.9 if w == 0 else 0.45,
                                         edgecolor="white", linewidth=0.3))
            right.add_patch(plt.Rectangle((lane, w), 1, 1, facecolor=colours(w), alpha=0.9 if w == 0 else 0.45,
                                          edgecolor="white", linewidth=0.3))
    for lane in range(0, LANES, 4):
        left.text(0.5, lane + 0.5, str(lane), ha="center", va="center", fontsize=6, color="white")
    for row in range(LANES):  # one sector per input row holds the 8 floats the 8 warps read
        left.add_patch(plt.Rectangle((0, row), FLOATS_PER_SECTOR, 1, fill=False, edgecolor="black", linewidth=0.8))
    for w in range(warps):
        for sector in range(LANES // FLOATS_PER_SECTOR):
            right.add_patch(plt.Rectangle((sector * FLOATS_PER_SECTOR, w), FLOATS_PER_SECTOR, 1, fill=False,
                                          edgecolor="black", linewidth=0.8))
        right.text(-0.4, w + 0.5, f"w{w}", ha="right", va="center", fontsize=8)
    left.set_xlim(0, warps)
    left.set_ylim(LANES, 0)
    left.set_aspect("equal")
    left.set_xticks([w + 0.5 for w in range(warps)], [str(w) for w in range(warps)], fontsize=8)
    left.set_xlabel("warp w reads column w")
    left.set_ylabel("row of the input: lane l reads row l")
    left.set_title("read: a warp walks down a column\n(32 sectors, 4 bytes of each used);\nthe 8 warps share those sectors,\n"
                   "which come from L2 once", fontsize=9)
    right.set_xlim(-1.5, LANES)
    right.set_ylim(warps, 0)
    right.set_aspect("equal")
    right.set_yticks([])
    right.set_xlabel("column of the output: lane l writes column l (a black box is one 32-byte sector)")
    right.set_title("write: warp w writes 32 consecutive floats of output row w (4 sectors, every byte used)", fontsize=9)
    figure.suptitle("Step 01's transpose, one block of 32 x 8 threads (warp w in colour w): "
                    "strided reads that the block's warps share, coalesced writes", fontsize=10)
    figure.tight_layout()
    figure.savefig(out, dpi=120)
    print(f"wrote {out}")


def flow_box(axis, x, y, text, colour):
    return axis.text(x, y, text, ha="center", va="center", fontsize=8.5,
                     bbox=dict(boxstyle="round,pad=0.5", facecolor=colour, edgecolor="black", linewidth=0.8))


def flow_arrow(axis, start, end, start_at, end_at) -> None:
    """An arrow from the point start_at (fractions of its box) of box `start` to end_at of `end`."""
    axis.annotate("", xy=end_at, xycoords=end, xytext=start_at, textcoords=start,
                  arrowprops=dict(arrowstyle="->", linewidth=1.1, shrinkA=2, shrinkB=2))


def draw_flag_decision(out: pathlib.Path, runs: list) -> None:
    """Top: what the flagged matrix does on an access. Below, one panel per recorded GPU (the
    H200 first, the lesson's): the time of k passes over the matrix, each consumer at its measured
    time per pass, the flagged matrix by the cost model T(k) = T_first + (k - 1) t_copy
    (tables.cost_model), the measured k marked, and the transpose-then-read consumer (step 06's
    transpose once, then passes over the copy, computed from the recorded cases). Past the largest
    k recorded the lines are the model's, shaded as extrapolated."""
    gpus = sorted((res for res in runs if tables.cost_model(res) is not None), key=lambda res: res.folder.name != "h200")
    figure = plt.figure(figsize=(12, 11))
    grid = figure.add_gridspec(2, max(1, len(gpus)), height_ratios=[0.8, 1.4])
    flow = figure.add_subplot(grid[0, :])
    flow.axis("off")
    flow.set_xlim(0, 1)
    flow.set_ylim(0, 1)
    access = flow_box(flow, 0.07, 0.55, "an access to\nthe read-only\nmatrix A", "#eeeeee")
    column = flow_box(flow, 0.26, 0.55, "column by column?\n(multiply_transposed:\ny = A$^T$x)", "#fff2cc")
    rows = flow_box(flow, 0.26, 0.08, "no (multiply: y = A x):\nread A itself, along its rows", "#dddddd")
    flag = flow_box(flow, 0.46, 0.55, "is the\nflag set?", "#fff2cc")
    first = flow_box(flow, 0.77, 0.84, "no: the first column pass transposes while it reads.\n"
                                       "Each block walks down 32 columns of A, tile by tile:\n"
                                       "load a 32 x 32 tile (coalesced) into the padded tile,\n"
                                       "add its products to y (a warp per column, as step 00),\n"
                                       "write it transposed into the copy (coalesced).\nThen set the flag.", "#f4cccc")
    later = flow_box(flow, 0.77, 0.25, "yes: read the copy, where column c of A is row c:\n"
                                       "the same warp-per-column sum, now coalesced", "#d9ead3")
    flow_arrow(flow, access, column, (1, 0.5), (0, 0.5))
    flow_arrow(flow, column, rows, (0.5, 0), (0.5, 1))
    flow_arrow(flow, column, flag, (1, 0.5), (0, 0.5))
    flow_arrow(flow, flag, first, (1, 0.7), (0, 0.5))
    flow_arrow(flow, flag, later, (1, 0.3), (0, 0.5))
    flow.text(0.355, 0.58, "yes", fontsize=8.5, style="italic")
    flow.text(0.27, 0.33, "no", fontsize=8.5, style="italic")
    flow.text(0.53, 0.74, "no", fontsize=8.5, style="italic")
    flow.text(0.53, 0.36, "yes", fontsize=8.5, style="italic")
    flow.set_title("The flagged column transpose: what each access does", fontsize=10)
    colours = {"00_naive": "#d62728", "01_coalesced": "#1f77b4", "07_split_rows": "#2ca02c"}
    peer = tables.peer_name(tables.passes_by_k(gpus[0])) if gpus else None
    if peer:
        colours[peer] = "#7f7f7f"  # the library's answer: cublasSgemv
    top_k = 40
    ks = list(range(1, top_k + 1))
    for index, res in enumerate(gpus):
        axis = figure.add_subplot(grid[1, index])
        t_first, t_copy, last_k = tables.cost_model(res)
        by_k = tables.passes_by_k(res)
        measured_k = sorted(by_k)
        axis_top = 1.05 * top_k * by_k[last_k]["01_coalesced"].median_ms / last_k
        axis.plot(ks, [t_first + (k - 1) * t_copy for k in ks], color="black", linewidth=2,
                  label=f"03 flagged: {t_first:.2f} ms, then {t_copy:.2f} ms a pass")
        axis.plot(measured_k, [by_k[k][tables.FLAGGED].median_ms for k in measured_k], "o", color="black", markersize=4)
        for name, colour in colours.items():
            if name not in by_k[last_k]:
                continue
            per_pass = by_k[last_k][name].median_ms / last_k
            k_even = tables.break_even(t_first, t_copy, per_pass)
            pays = "flag never pays" if k_even is None else f"flag pays from {first_pass_words(k_even, last_k)}"
            axis.plot(ks, [k * per_pass for k in ks], color=colour, linewidth=1.3, linestyle="--" if name == peer else "-",
                      label=f"{name}: {per_pass:.2f} ms a pass; {pays}")
            axis.plot(measured_k, [by_k[k][name].median_ms for k in measured_k], "o", color=colour, markersize=3)
            if k_even is not None and k_even <= top_k:
                axis.axvline(k_even, color=colour, linestyle=":", linewidth=1.2)
        best = tables.transpose_case(res, tables.BEST_TRANSPOSE)
        if best is not None:
            then_first = best.median_ms + t_copy
            pays = "flag pays from the first pass" if t_first < then_first else "flag never pays"
            axis.plot(ks, [best.median_ms + k * t_copy for k in ks], color="#9467bd", linewidth=1.8, linestyle=(0, (6, 3)),
                      label=f"{best.name[:2]}'s transpose, then the copy (computed): {best.median_ms:.2f} ms once, "
                            f"{t_copy:.2f} a pass;\n   {pays}")
        axis.axvspan(last_k, top_k, color="#eeeeee", zorder=0)
        axis.text((last_k + top_k) / 2, 0.04 * axis_top, f"past k = {last_k}: no runs,\nthe lines extrapolated",
                  ha="center", fontsize=8, style="italic", color="#555555")
        axis.set_xlim(0, top_k)
        axis.set_ylim(0, axis_top)
        axis.set_xlabel("passes k over the same matrix (dots: measured)")
        axis.set_ylabel("ms for k passes")
        axis.set_title(f"{res.label}: time of k passes, the flagged matrix's first pass included", fontsize=9)
        axis.grid(alpha=0.3)
        axis.legend(fontsize=7.5, loc="upper center", bbox_to_anchor=(0.5, -0.13), frameon=False)
    figure.tight_layout()
    figure.savefig(out, dpi=110)
    print(f"wrote {out}")


def first_pass_words(k_even: float, last_k: int) -> str:
    """"the first pass", "pass 14", or "pass 34 (extrapolated)": the first whole pass past k_even."""
    first = int(k_even) + 1
    return "the first pass" if first == 1 else f"pass {first}" + (" (extrapolated)" if first > last_k else "")


def draw_rows_per_thread(out: pathlib.Path) -> None:
    """The 32 x 32 tile: which row of threads (threadIdx.y) loads each element, in step 02 (a
    32 x 32 block, one element each) and step 04 (a 32 x 8 block, rows ty, ty+8, ty+16, ty+24)."""
    figure, axes = plt.subplots(1, 2, figsize=(11, 5.8))
    for axis, (title, block_rows) in zip(axes, [("step 02: 32 x 32 threads, one element each:\n"
                                                 "1024 threads, 32 warps, one load each, then all wait at the barrier", 32),
                                                ("step 04: 32 x 8 threads, four elements each:\n"
                                                 "256 threads, 8 warps, each thread issues 4 loads before it needs one", 8)]):
        colours = plt.get_cmap("viridis") if block_rows == 32 else plt.get_cmap("tab10")
        for i in range(LANES):
            ty = i % block_rows
            colour = colours(ty / (block_rows - 1)) if block_rows == 32 else colours(ty)
            for c in range(LANES):
                axis.add_patch(plt.Rectangle((c, i), 1, 1, facecolor=colour, alpha=0.85, edgecolor="white", linewidth=0.3))
            label = f"ty {ty}" + (f", load {i // block_rows}" if block_rows < 32 else "")
            axis.text(LANES + 0.4, i + 0.5, label, ha="left", va="center", fontsize=5.5)
        axis.set_xlim(0, LANES + 6)
        axis.set_ylim(LANES, 0)
        axis.set_aspect("equal")
        axis.set_xticks(range(0, 33, 8))
        axis.set_yticks(range(0, 33, 8))
        axis.set_xlabel("column of the tile = threadIdx.x")
        axis.set_ylabel("row of the tile")
        axis.set_title(title, fontsize=9)
    figure.suptitle("Who loads what: the same padded 32 x 32 tile, moved by a row of threads per tile row (step 02) "
                    "or by 8 rows of threads, 4 tile rows each (step 04)", fontsize=10)
    figure.tight_layout()
    figure.savefig(out, dpi=120)
    print(f"wrote {out}")


def draw_vector_tile(out: pathlib.Path) -> None:
    """Step 05's 64 x 64 tile and 16 x 16 block: warp 0 (threads (tx, ty), tx < 16, ty < 2) loads
    float4s along tile rows 0 and 1 (and 16, 17, 32, 33, 48, 49 in its next loads), and stores
    float4s gathered down tile columns 0 and 1 (output rows); thread (0, 0)'s outlined."""
    tile, vector = 64, 4
    hues = plt.get_cmap("hsv")
    colours = lambda tx: hues(tx / 18)  # noqa: E731  (16 saturated hues, one per tx, no pale ones; hsv wraps at 1)
    figure, axes = plt.subplots(1, 2, figsize=(12, 6.4))
    for axis, store in zip(axes, (False, True)):
        axis.add_patch(plt.Rectangle((0, 0), tile, tile, facecolor="#f4f4f4", edgecolor="grey"))
        for j in range(4):
            for ty in range(2):
                for tx in range(16):
                    line = ty + 16 * j
                    # the first access filled, the next three hatched in the same hue; ty = 1 darker
                    style = dict(facecolor=colours(tx), alpha=0.9, edgecolor="black" if ty else "white", linewidth=0.3) \
                        if j == 0 else dict(facecolor="white", hatch="////", edgecolor=colours(tx), linewidth=0.0)
                    box = ((line, vector * tx), 1, vector) if store else ((vector * tx, line), vector, 1)
                    axis.add_patch(plt.Rectangle(*box, **style))
        for j in range(4):  # thread (0, 0)'s four float4s
            line = 16 * j
            box = (line, 0, 1, vector) if store else (0, line, vector, 1)
            axis.add_patch(plt.Rectangle(box[:2], box[2], box[3], fill=False, edgecolor="black", linewidth=1.6))
        axis.set_xlim(0, tile)
        axis.set_ylim(tile, 0)
        axis.set_aspect("equal")
        axis.set_xticks(range(0, 65, 16))
        axis.set_yticks(range(0, 65, 16))
        axis.set_xlabel("column of the shared tile")
        axis.set_ylabel("row of the shared tile")
        axis.set_title("store: each thread gathers 4 floats down a tile column into one float4,\n"
                       "a 16-byte piece of an output row (columns ty, ty+16, ty+32, ty+48)" if store else
                       "load: each thread loads one float4 (16 bytes) from each of tile rows\n"
                       "ty, ty+16, ty+32, ty+48, all four before it stores any", fontsize=9)
    figure.suptitle("Step 05: the float4s of warp 0, two rows of 16 threads (tx = 0..15 one hue each; ty = 0 and 1), "
                    "in its first access (filled) and next three (hatched); thread (0, 0)'s outlined", fontsize=10)
    figure.tight_layout()
    figure.savefig(out, dpi=120)
    print(f"wrote {out}")


def draw_split_rows(out: pathlib.Path) -> None:
    """Step 07's plan on a small picture: A cut into 4 groups of 128 columns and 4 splits of the
    rows, a block for each; each block's 128 sums go to its split's row of the partial sums, and a
    second kernel adds each column's partial sums in order."""
    groups, splits = 4, 4
    colours = plt.get_cmap("Pastel1")
    figure, axis = plt.subplots(figsize=(12, 5.4))
    axis.axis("off")
    axis.set_xlim(-0.2, 15.8)
    axis.set_ylim(-1.4, 5.4)
    for s in range(splits):
        y = splits - 1 - s
        for g in range(groups):
            axis.add_patch(plt.Rectangle((g, y), 1, 1, facecolor=colours(s), edgecolor="black", linewidth=0.8))
            axis.text(g + 0.5, y + 0.5, f"block\n({g}, {s})", ha="center", va="center", fontsize=7.5)
            axis.add_patch(plt.Rectangle((6.5 + g, y + 0.25), 1, 0.5, facecolor=colours(s), edgecolor="black",
                                         linewidth=0.8))
        axis.text(6.4, y + 0.5, f"split {s}", ha="right", va="center", fontsize=8)
    axis.text(2, 4.15, "A, cut into groups of 128 columns (blockIdx.x)\nand splits of the rows (blockIdx.y)",
              ha="center", va="bottom", fontsize=9)
    axis.text(8.5, 4.15, "partial sums: a row per split,\na column per column of A", ha="center", va="bottom", fontsize=9)
    axis.annotate("", xy=(6.0, 1.5), xytext=(4.05, 1.5), arrowprops=dict(arrowstyle="->", linewidth=1.2))
    axis.text(5.0, 1.62, "block (3, 2):\nits 128 sums", ha="center", va="bottom", fontsize=7.5)
    axis.add_patch(plt.Rectangle((9.5, 1.25), 1, 0.5, fill=False, edgecolor="black", linewidth=2.2))
    axis.add_patch(plt.Rectangle((3, 1), 1, 1, fill=False, edgecolor="black", linewidth=2.2))
    for g in range(groups):
        axis.add_patch(plt.Rectangle((12 + g * 0.75, 1.75), 0.75, 0.5, facecolor="#cfe2f3", edgecolor="black", linewidth=0.8))
    axis.annotate("", xy=(11.9, 2.0), xytext=(10.6, 2.0), arrowprops=dict(arrowstyle="->", linewidth=1.1))
    axis.text(11.25, 2.25, "sum_splits", ha="center", va="bottom", fontsize=8.5)
    axis.text(13.5, 2.45, "y = A$^T$x", ha="center", va="bottom", fontsize=9)
    axis.text(13.5, 1.6, "y[c] = partials[0][c]\n + partials[1][c] + ...,\nin that order: the same\nbits on every run",
              ha="center", va="top", fontsize=8)
    axis.text(-0.1, -0.75, "Inside a block, 32 x 8 threads: thread (tx, ty) reads columns 4tx .. 4tx+3 of its group as one "
                           "float4, on rows ty, ty+8, ... of its split, eight loads in flight;\nshared memory then adds "
                           "the 8 rows of threads. A 16384 x 16384 matrix makes 128 groups x 32 splits = 4096 blocks.",
              ha="left", va="center", fontsize=8, bbox=dict(boxstyle="round,pad=0.4", facecolor="#fff2cc", edgecolor="black"))
    axis.set_title("Step 07: A$^T$x without a copy. Each block sums 128 columns over one split of the rows; "
                   "a second kernel adds the splits in a fixed order", fontsize=10)
    figure.tight_layout()
    figure.savefig(out, dpi=120)
    print(f"wrote {out}")

def main() -> int:
    parser = cli.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out-dir", type=pathlib.Path, default=pathlib.Path(__file__).resolve().parent / "figures")
    args = parser.parse_args()
    global plt
    plt = plot.pyplot()
    cli.output_folder(args.out_dir)
    draw_sectors(args.out_dir / "sectors.png")
    draw_l1_reuse(args.out_dir / "l1_reuse.png")
    draw_banks(args.out_dir / "banks.png")
    draw_flag_decision(args.out_dir / "flag_decision.png", results.load_chapter(pathlib.Path(__file__).resolve().parent))
    draw_rows_per_thread(args.out_dir / "rows_per_thread.png")
    draw_vector_tile(args.out_dir / "vector_tile.png")
    draw_block_order(args.out_dir / "block_order.png")
    draw_split_rows(args.out_dir / "split_rows.png")
    return 0


if __name__ == "__main__":
    cli.run(main)
