#!/usr/bin/env python3
"""Draws chapter 1's pictures into figures/: sectors.png, the 32-byte sectors one warp's load
touches when its lanes walk along a row and down a column; banks.png, the shared-memory bank of
each lane when a warp reads a column of a 32 x 32 tile, without and with one float of padding;
block_order.png, which tiles the first blocks of steps 05 and 06 read and write.

    chapters/01_transpose/figures.py [--out-dir chapters/01_transpose/figures]
"""
import argparse
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "profiling"))
import cli  # noqa: E402
import plot  # noqa: E402

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
        axis.set_title(f"{title}\n{len(touched)} sectors of 32 B moved, {useful:.0%} of their bytes used", fontsize=9)
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
                       f"{len(banks)} distinct bank(s): {conflict}-way conflict, {conflict} shared-memory "
                       f"{'wavefronts' if conflict > 1 else 'wavefront'}", fontsize=9)
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


def main() -> int:
    parser = cli.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out-dir", type=pathlib.Path, default=pathlib.Path(__file__).resolve().parent / "figures")
    args = parser.parse_args()
    global plt
    plt = plot.pyplot()
    cli.output_folder(args.out_dir)
    draw_sectors(args.out_dir / "sectors.png")
    draw_banks(args.out_dir / "banks.png")
    draw_block_order(args.out_dir / "block_order.png")
    return 0


if __name__ == "__main__":
    cli.run(main)
