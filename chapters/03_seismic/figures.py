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
                 and the other peers (the FDTD3d design, torch.compile in its two modes);
  in_flight.png  steps 06, 07 and 08 on the H200 (results/h200/traffic.csv, 64 planes a block),
                 to scale over a few planes: when a thread issues each plane's loads, when they
                 land (590 ns later, the loaded latency of the README's "Bytes in flight"), where
                 it waits and computes; below each, the KB of DRAM traffic a multiprocessor has in
                 flight over time and on average, against the Little's-law knee (tables.py's).

    chapters/03_seismic/figures.py [--out-dir chapters/03_seismic/figures]
"""
import argparse
import math
import pathlib
import sys

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


# Steps 06-08 as profiled (64 planes a block): the kernel, how many planes before its use a plane's
# loads are issued (06: in the plane that uses them), and how many planes tables.IN_FLIGHT counts
# in flight for it (the ring of step 08 has room for 2).
TIMELINE_STEPS = (("06", "one_pass_kernel<64>", 0, 1), ("07", "prefetch_kernel<4>", 1, 1),
                  ("08", "async_ring_kernel<3, 2, 64, 1>", 2, 2))
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
        for k in planes:
            issued, used, plane = k * period, (k + ahead) * period, k + ahead
            colour, label = COLOURS[plane % len(COLOURS)], f"p{plane:+d}" if plane else "p"
            schedule.add_patch(plt.Rectangle((issued, 1.1), latency, 0.7, facecolor=colour, alpha=0.8, edgecolor="black",
                                             linewidth=0.5))
            schedule.text(issued + latency / 2, 1.45, label, ha="center", va="center", fontsize=6.5, clip_on=True)
            if used > issued + latency:  # landed, held in shared memory (or registers) until its plane
                schedule.plot([issued + latency, used], [1.45, 1.45], color=colour, linewidth=1, linestyle=":")
            # The thread: step 06 waits for its rows before the tile's barrier; 07 and 08 find the
            # plane landed, publish it behind a barrier and compute.
            start = used + (latency if ahead == 0 else 0)
            if ahead == 0:
                schedule.add_patch(plt.Rectangle((used, 0.1), latency, 0.7, facecolor=OWN, hatch="///",
                                                 edgecolor="#7f7f7f", linewidth=0.5))
            schedule.add_patch(plt.Rectangle((start, 0.1), used + period - start, 0.7, facecolor=HALO, edgecolor="black",
                                             linewidth=0.5))
            schedule.text((start + used + period) / 2, 0.45, label, ha="center", va="center", fontsize=6.5, clip_on=True)
            schedule.axvline(start, ymin=0.0, ymax=0.5, color="#e15759", linewidth=1.4)
        schedule.set_ylim(0, 2)
        schedule.set_yticks([0.45, 1.45])
        schedule.set_yticklabels(["the thread", "its loads"], fontsize=7)
        waits = ("hatched: waiting for its own rows; red: the barrier after which the tile is read; grey: computing"
                 if ahead == 0 else f"plane p's loads issued {ahead} plane{'s' if ahead > 1 else ''} ahead, held (dotted) "
                 "until used; red: the barrier that publishes the plane; grey: computing")
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
        kb_axis.set_ylabel("KB per SM", fontsize=7)
    axes[-1].set_xlim(0, window)
    axes[-1].set_xlabel("time, µs (0: the start of a plane p in the middle of a block's 64)", fontsize=8)
    figure.suptitle(f"What an H200 multiprocessor keeps in flight, to scale (results/h200/traffic.csv, commit "
                    f"{chapter.context['commit']}):\nthe DRAM bytes of each plane's loads while they travel, "
                    f"{latency * 1e3:.0f} ns (the loaded latency); a multiprocessor's blocks drawn in step", fontsize=8.5, x=0.01, ha="left")
    figure.tight_layout(rect=(0, 0, 0.8, 1))
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
    draw_in_flight(args.out_dir / "in_flight.png")
    return 0


if __name__ == "__main__":
    cli.run(main)
