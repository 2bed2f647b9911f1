#!/usr/bin/env python3
"""Draws chapter 3's pictures into figures/:
  x_window.png   step 03's x register window: the 2R + VEC_LEN floats a thread holds, the vector
                 loads that bring them, and the 9 taps each output lane sums, for VEC_LEN 1, 2, 4;
  y_tile.png     the BLOCK_X x (BLOCK_Y + 2R) tile of steps 04-07 in shared memory (32 float4
                 columns, 8 + 8 rows): which pass of the block's threads stages each row, and the
                 9 rows one thread reads; beside it step 08's tile, one float4 of x-halo wider,
                 staged by cp.async in passes over the block's 256 threads;
  z_window.png   the z direction over the planes: step 02's window of 2R + 1 registers sliding up
                 one plane per iteration, and step 08's ring of 2R + 1 partial sums, where a
                 plane adds its weight to the 9 outputs it belongs to;
  bandwidth.png  results/h200/bench.json and torch.json: the effective bandwidth of every step at
                 512^3 against the copy ceiling, with the copies through steps 07's and 08's loads
                 and the other peers (the FDTD3d design, torch.compile in its two modes).

    chapters/03_seismic/figures.py [--out-dir chapters/03_seismic/figures]
"""
import argparse
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "profiling"))
import cli  # noqa: E402
import plot  # noqa: E402
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


def draw_y_tile(out: pathlib.Path) -> None:
    block_x, block_y = 32, 8  # threads, one float4 each
    height = block_y + 2 * R
    figure, (left, right) = plt.subplots(1, 2, figsize=(13, 5.2), gridspec_kw={"width_ratios": [32, 34]})
    # Steps 04-07: thread (tx, ty) stages rows ty and ty + 8; no x-halo (the x neighbours come from
    # global memory, L1 hits).
    for row in range(height):
        stage = row // block_y
        for column in range(block_x):
            halo = row < R or row >= R + block_y
            left.add_patch(plt.Rectangle((column, row), 1, 1, facecolor=COLOURS[stage], alpha=0.35 if halo else 0.8,
                                         edgecolor="white", linewidth=0.5))
    thread_x, thread_y = 20, 2
    for r in range(2 * R + 1):
        left.add_patch(plt.Rectangle((thread_x, thread_y + r), 1, 1, fill=False, edgecolor="black", linewidth=1.4))
    left.add_patch(plt.Rectangle((thread_x, thread_y + R), 1, 1, facecolor="#e15759", edgecolor="black", linewidth=1.4))
    left.text(thread_x + 1.4, thread_y + R + 0.5, f"thread ({thread_x}, {thread_y}): its output row, and the 9 rows "
              "it reads", va="center", fontsize=7)
    left.set_title("Steps 04-07: BLOCK_X x (BLOCK_Y + 2R) = 32 x 16 float4 (128 x 16 floats, 8 KB)\n"
                   "blue: rows 0-7, staged by threadIdx.y = 0-7;\norange: rows 8-15, the second pass; pale: y-halo",
                   fontsize=8, loc="left")
    # Step 08: one float4 of x-halo each side, 34 x 16 = 544 copies over 256 threads: 3 passes.
    width = block_x + 2
    threads = block_x * block_y
    for row in range(height):
        for column in range(width):
            copy = row * width + column
            halo = row < R or row >= R + block_y or column in (0, width - 1)
            right.add_patch(plt.Rectangle((column, row), 1, 1, facecolor=COLOURS[copy // threads],
                                          alpha=0.35 if halo else 0.8, edgecolor="white", linewidth=0.5))
    right.add_patch(plt.Rectangle((1, R), block_x, block_y, fill=False, edgecolor="black", linewidth=1.2))
    right.set_title("Step 08: 34 x 16 float4, one float4 of x-halo each side, 3 such tiles in a ring\n"
                    "colour: the cp.async pass (thread t copies t, t + 256, t + 512)\n"
                    "framed: the centres, all that a z-halo plane copies", fontsize=8, loc="left")
    for axis, columns in ((left, block_x), (right, width)):
        axis.set_xlim(0, columns)
        axis.set_ylim(height, 0)
        axis.set_aspect("equal")
        axis.set_xticks([0, columns // 2, columns])
        axis.set_yticks([0, R, R + block_y, height])
        axis.set_xlabel("float4 column (x)", fontsize=8)
        axis.set_ylabel("tile row (y)", fontsize=8)
    figure.tight_layout()
    figure.savefig(out, dpi=130)
    print(f"wrote {out}")


def draw_z_window(out: pathlib.Path) -> None:
    figure, (top, bottom) = plt.subplots(2, 1, figsize=(12, 6.4))
    planes = 14
    iterations = 4
    # Step 02: at iteration z the window holds planes z - 4 .. z + 4; plane z + 4 is the one load.
    for it in range(iterations):
        z = R + it
        for p in range(planes):
            in_window = z - R <= p <= z + R
            colour = "#e15759" if p == z + R else ("#4e79a7" if in_window else OWN)
            top.add_patch(plt.Rectangle((p, -it), 1, 0.8, facecolor=colour, alpha=0.8 if in_window else 1,
                                        edgecolor="#999999", linewidth=0.5))
            if in_window:
                top.text(p + 0.5, -it + 0.4, f"w[{p - z + R}]", ha="center", va="center", fontsize=6.5, color="white")
        top.text(planes + 0.2, -it + 0.4, f"iteration z = {z}: out(z) = sum of w[r] weight(r - 4)", va="center", fontsize=7)
    top.set_title("Step 02: a window of 2R + 1 = 9 registers slides up the z axis; red: the only load of the "
                  "iteration, plane z + 4 (w[8]); then every w[r] = w[r + 1]", fontsize=8, loc="left")
    # Step 08: plane p adds weight(p - q) x centre(p) to the partial sums of outputs q = p - 4 .. p + 4,
    # and its 16 x and y neighbours to out(p)'s; out(p - 4) is then complete and stored.
    for it in range(iterations):
        p = R + it
        for q in range(planes):
            if q < p - R or q > p + R:
                continue
            colour = "#59a14f" if q == p - R else ("#f28e2b" if q == p else "#76b7b2")
            bottom.add_patch(plt.Rectangle((q, -it), 1, 0.8, facecolor=colour, alpha=0.85, edgecolor="#999999", linewidth=0.5))
            bottom.text(q + 0.5, -it + 0.4, f"{p - q:+d}" if q != p else "xy", ha="center", va="center", fontsize=6.5)
        bottom.add_patch(plt.Rectangle((p, -it), 1, 0.8, fill=False, edgecolor="black", linewidth=1.6))
        bottom.text(planes + 0.2, -it + 0.4, f"plane p = {p} arrives; out({p - R}) complete, stored", va="center", fontsize=7)
    bottom.set_title("Step 08: 9 partial sums (a ring in registers, its positions fixed by unrolling the loop by 9); "
                     "plane p (framed) adds weight(p - q) x centre(p) to out(q), the offset p - q written;\n"
                     "orange: out(p) also takes xy(p), its 16 x and y neighbours; green: out(p - 4) has all 25 terms",
                     fontsize=8, loc="left")
    for axis in (top, bottom):
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


def draw_bandwidth(out: pathlib.Path) -> None:
    chapter = results.load_gpu(HERE / "results" / "h200")
    copy = chapter.ceilings["copy_GBps"]
    # torch.json's torch.compile cases join the peers, ahead of the steps (the conv3d routes, 40 and
    # more times slower, would not show as bars).
    _, peers = results.load_peers(chapter.folder / "torch.json")
    torch_cases = [case for case in peers if case.name.startswith("torch.compile")]
    first_step = next(i for i, c in enumerate(chapter.cases) if c.is_step)
    cases = chapter.cases[:first_step] + torch_cases + chapter.cases[first_step:]
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
    # The bytes each form must move bound it: three passes 28 bytes a point, x and y fused 20, one pass 8.
    for fraction, label, colour, side in ((8 / 28, "three passes' ceiling, 8/28 ", "#7f7f7f", "right"),
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


def main() -> int:
    parser = cli.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out-dir", type=pathlib.Path, default=HERE / "figures")
    args = parser.parse_args()
    global plt
    plt = plot.pyplot()
    cli.output_folder(args.out_dir)
    draw_x_window(args.out_dir / "x_window.png")
    draw_y_tile(args.out_dir / "y_tile.png")
    draw_z_window(args.out_dir / "z_window.png")
    draw_bandwidth(args.out_dir / "bandwidth.png")
    return 0


if __name__ == "__main__":
    cli.run(main)
