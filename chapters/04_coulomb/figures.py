#!/usr/bin/env python3
"""Draws chapter 4's pictures into figures/: mapping.png, which thread computes which grid point
in steps 00, 02 and 03 (04 keeps step 03's mapping) over one 16-thread row of a block and 64
points; blocking.png, the 8 x 4 points of a thread in step 05 over a block's stretch of
the slice; constant_surprise.png, why step 01's constant reads stall; issue_budget.png, step
06's cost model, the XU's and the issue slots' cycles as roots move to the FMA pipe;
instructions.png, the instructions an evaluation and the XU's busy share of every taught step
(results/h200/traffic.csv); pipes.png, how step 06 splits the roots between the XU and the FMA
pipe, beside what the profile measured for steps 05 and 06; scheduler.png, which warps of a
scheduler take which role, and the fraction of the rsqrt ceiling either way (results/*/bench.json);
taught.png, each taught step's fraction of the rsqrt ceiling at both sizes on both GPUs.

    chapters/04_coulomb/figures.py [--out-dir chapters/04_coulomb/figures]
"""
import argparse
import pathlib
import random
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "profiling"))
import cli  # noqa: E402
import plot  # noqa: E402
import results  # noqa: E402

plt = None  # matplotlib's pyplot: main() takes it once the options are known to be good

BLOCK, POINTS, SHOWN = 16, 8, 64  # threads in a block row, points per thread, points drawn
ROWS = 4  # rows a thread covers in steps 05-06's 8 x 4 shape
HERE = pathlib.Path(__file__).resolve().parent
PROFILE_EVALUATIONS = 2048 * 2048 * 4096  # profile.sh's problem (tables.py)
PRODUCTION = "2048x2048, 100000 atoms"
# The taught steps' kernels as profile.sh names them, in step order.
TAUGHT_KERNELS = (("00", "naive_kernel"), ("01", "constant_memory_kernel"), ("02", "coarsening_kernel"),
                  ("03", "coalesced_coarsening_kernel"), ("04", "fast_rsqrt_kernel"), ("05", "shared_atoms_kernel<8, 4>"),
                  ("06", "specialised_kernel<4, 8, 1, 2>"), ("07", "constant_coarsening_kernel<8, 4, 0>"))


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
    """Step 05: a 16 x 16 block's 128 x 64 points in the 8 x 4 shape; three threads' points
    coloured. (Step 06's taught kernel uses 16 x 8 blocks, rows 8 apart: the lesson says so.)"""
    width, height = BLOCK * POINTS, BLOCK * ROWS
    shown = {(0, 0): "tab:blue", (5, 0): "tab:orange", (3, 2): "tab:green"}
    figure, axis = plt.subplots(figsize=(12, 6.8))
    for (tx, ty), colour in shown.items():
        for r in range(ROWS):
            for p in range(POINTS):
                axis.add_patch(plt.Rectangle((tx + BLOCK * p - 0.5, ty + BLOCK * r - 0.5), 2, 2, facecolor=colour,
                                             edgecolor=colour))
        axis.plot([], [], "s", color=colour, label=f"thread ({tx}, {ty}): columns {tx} + 16 p, rows {ty} + 16 r")
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
    axis.set_title("05, 8 x 4 points a thread: per atom, dx once for each of its 8 columns and dy\u00b2 + dz\u00b2 once for each of\n"
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
    axis.set_title("01, an illustration (positions drawn at random, not measured): the resident warps stand at different\n"
                   "atoms of the chunk. Measured: the constant path delivered one warp's atom every 30-35 cycles per\n"
                   "multiprocessor in steps 01-04; chunks of 128 atoms still gave 0.11 of the ceiling, so the cause is not isolated",
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
    rows, _ = profile_rows()
    # instructions per evaluation with every root on the XU: step 05's 8 x 4 kernel in the recording's profile
    i = round(float(rows["shared_atoms_kernel<8, 4>"]["warp instructions"]) * 32 / PROFILE_EVALUATIONS, 2)
    shares = [n / 100 for n in range(0, 41)]
    figure, axis = plt.subplots(figsize=(9, 5))
    axis.plot(shares, [8 * (1 - f) for f in shares], color="tab:red", linewidth=2.5, label="XU: 8 (1 - f) cycles")
    # c = 9.05: the minimax root's instructions as counted in the compiled code; u = 1 (every slot) and
    # 0.67 (the splits' measured issue rate), the two crossings the lesson explains
    for c, u, style, label_at in ((9.05, 1.0, "--", (12, -32)), (9.05, 0.67, ":", (12, -26))):
        best = (8 * u - i) / (8 * u + c - 1)
        axis.plot(shares, [(i + (c - 1) * f) / u for f in shares], style, color="tab:blue",
                  label=f"issue: (i + {c - 1:g} f) / {u} cycles (a root of c = {c:g} instructions, u = {u})")
        axis.plot([best], [8 * (1 - best)], "o", color="black")
        axis.annotate(f"u = {u}: f* = {best:.0%}, {1 / (1 - best):.2f}x the paper rate", (best, 8 * (1 - best)), textcoords="offset points",
                      xytext=label_at, fontsize=8, bbox={"facecolor": "white", "edgecolor": "none", "alpha": 0.9})
    axis.set_xlabel("f, share of the roots computed on the FMA pipe")
    axis.set_ylabel("cycles per warp's 32 evaluations, one scheduler")
    axis.set_ylim(0, 9)
    axis.set_title(f"06: the 8-cycle budget (i = {i} instructions per evaluation with the hardware root: step 05's 8 x 4,\n"
                   "results/h200/traffic.csv); "
                   "the slower of the two sets the time, so the best split is where they cross", fontsize=9, loc="left")
    axis.legend(fontsize=8, loc="lower left")
    axis.grid(alpha=0.3)
    figure.tight_layout()
    figure.savefig(out, dpi=120)
    print(f"wrote {out}")


def profile_rows(gpu: str = "h200") -> tuple:
    """({kernel: row} of a recording's traffic.csv, its context)."""
    chapter = results.load_gpu(HERE / "results" / gpu)
    return {row["kernel"]: row for row in results.read_csv(chapter.folder / "traffic.csv")}, chapter.context


def draw_instructions(out: pathlib.Path) -> None:
    """Every taught step's instructions an evaluation, and how busy that keeps the XU (profile.sh:
    2048 x 2048 points, 4096 atoms, the H200)."""
    rows, context = profile_rows()
    steps = [(step, rows[kernel]) for step, kernel in TAUGHT_KERNELS if kernel in rows]
    per_evaluation = [float(row["warp instructions"]) * 32 / PROFILE_EVALUATIONS for _, row in steps]
    busy = [float(row["XU pipe %"]) for _, row in steps]
    figure, (left, right) = plt.subplots(1, 2, figsize=(11, 3.8))
    labels = [step for step, _ in steps]
    bars = left.bar(labels, per_evaluation, color=["tab:orange" if s == "04" else "tab:blue" for s in labels])
    for bar, value in zip(bars, per_evaluation):
        left.text(bar.get_x() + bar.get_width() / 2, value + 0.2, f"{value:.1f}", ha="center", fontsize=8)
    left.axhline(1, color="tab:red", linestyle=":", linewidth=1)
    left.text(len(labels) - 0.5, 1.15, "the root itself: 1", color="tab:red", fontsize=7, ha="right")
    left.set_ylabel("instructions an evaluation")
    left.set_xlabel("step")
    left.set_title("what the issue slots must carry for each root", fontsize=9, loc="left")
    bars = right.bar(labels, busy, color=["tab:orange" if s == "04" else "tab:blue" for s in labels])
    for bar, value in zip(bars, busy):
        right.text(bar.get_x() + bar.get_width() / 2, value + 1.5, f"{value:.0f}", ha="center", fontsize=8)
    right.set_ylim(0, 110)
    right.set_ylabel("XU busy, % of its peak")
    right.set_xlabel("step")
    right.set_title("how busy that keeps the unit that computes roots", fontsize=9, loc="left")
    figure.suptitle(f"The profile of every taught step: 2048 x 2048 points, 4096 atoms, {context['gpu']} "
                    "(results/h200/traffic.csv). Step 04 (orange) has few instructions but starves on constant loads.",
                    fontsize=8.5, x=0.01, ha="left")
    figure.tight_layout()
    figure.savefig(out, dpi=120)
    print(f"wrote {out}")


def warp_box(axis, x: float, y: float, role: str, label: str) -> None:
    colour = {"XU": "tab:red", "FMA": "tab:blue"}[role]
    axis.add_patch(plt.Rectangle((x, y), 1.6, 0.7, facecolor=colour, alpha=0.25, edgecolor=colour))
    axis.text(x + 0.8, y + 0.35, label, ha="center", va="center", fontsize=7)


def draw_pipes(out: pathlib.Path) -> None:
    """Step 06's split: a scheduler's 8 warps, 4 sending every root to the XU (one MUFU.RSQ each) and
    4 computing every root on the FMA pipe (a bit trick and a fitted polynomial, 9 instructions);
    beside it, how busy the profile found the two pipes and the issue slots in steps 05 and 06."""
    rows, context = profile_rows()
    figure, (left, right) = plt.subplots(1, 2, figsize=(11.5, 4.2), gridspec_kw={"width_ratios": [1.25, 1]})
    for slot in range(8):
        role = "XU" if slot < 4 else "FMA"
        y = 7 - slot
        warp_box(left, 0, y, role, f"warp {slot}: {'every root on the XU' if role == 'XU' else 'every root on FMAs'}")
        target = (3.2, 5.6) if role == "XU" else (3.2, 1.6)
        left.annotate("", xy=target, xytext=(1.6, y + 0.35), arrowprops={"arrowstyle": "->", "color": "#888888", "lw": 0.7})
    left.add_patch(plt.Rectangle((3.2, 4.6), 2.6, 2.0, facecolor="tab:red", alpha=0.15, edgecolor="tab:red"))
    left.text(4.5, 5.6, "XU (multi-function unit)\none root instruction; 4 lanes a\nscheduler: a warp's 32 roots in 8 cycles", ha="center",
              va="center", fontsize=7.5)
    left.add_patch(plt.Rectangle((3.2, 0.6), 2.6, 2.0, facecolor="tab:blue", alpha=0.15, edgecolor="tab:blue"))
    left.text(4.5, 1.6, "FMA pipe\nbit trick + polynomial:\n9 instructions a root", ha="center", va="center",
              fontsize=7.5)
    left.set_xlim(-0.1, 6)
    left.set_ylim(-0.2, 8)
    left.axis("off")
    left.set_title("06: one scheduler's 8 warps, 4 in each role; the scheduler interleaves them", fontsize=9, loc="left")
    kernels = (("step 05: every root on the XU", "shared_atoms_kernel<8, 4>"),
               ("step 06: half the warps on FMAs", "specialised_kernel<4, 8, 1, 2>"))
    columns = (("XU busy", "XU pipe %", "tab:red"), ("FMA pipe busy", "FMA pipe %", "tab:blue"),
               ("issue slots busy", "issue %", "tab:gray"))
    width = 0.25
    for index, (label, column, colour) in enumerate(columns):
        values = [float(rows[kernel][column]) for _, kernel in kernels]
        bars = right.bar([k + (index - 1) * width for k in range(len(kernels))], values, width, color=colour, alpha=0.7, label=label)
        for bar, value in zip(bars, values):
            right.text(bar.get_x() + bar.get_width() / 2, value + 1.5, f"{value:.0f}", ha="center", fontsize=8)
    right.set_xticks(range(len(kernels)), [label for label, _ in kernels], fontsize=8)
    right.set_ylim(0, 110)
    right.set_ylabel("% of peak (profile)")
    right.legend(fontsize=7.5, loc="upper left", ncol=3, frameon=False)
    right.set_title(f"measured: the FMA pipe and the issue slots fill; the XU gives up a little\n"
                    f"(one launch: 2048 x 2048 points, 4096 atoms, {context['gpu']}, results/h200/traffic.csv)", fontsize=8.5, loc="left")
    figure.tight_layout()
    figure.savefig(out, dpi=120)
    print(f"wrote {out}")


def draw_scheduler(out: pathlib.Path) -> None:
    """Which warps the scheduler favours: a scheduler's 8 warp slots with the roles as first built
    (the first blocks to arrive, in the low slots, on the FMA pipe) and as kept (the XU warps in
    the low slots); beside it, the fraction of the rsqrt ceiling for k FMA warps of 8 either way, on
    both GPUs (results/*/bench.json, the production size)."""
    figure, (left, right) = plt.subplots(1, 2, figsize=(11.5, 4.4), gridspec_kw={"width_ratios": [1, 1.2]})
    for column, (title, fma_slots) in enumerate((("as first built:\nFMA role to the first blocks;\nlow slots inferred, not recorded", range(0, 3)),
                                                  ("as kept:\nXU role to the\nlow slots", range(4, 8)))):
        x = column * 2.4
        left.text(x + 0.8, 8.3, title, ha="center", va="bottom", fontsize=7.5)
        for slot in range(8):
            role = "FMA" if slot in fma_slots else "XU"
            warp_box(left, x, 7 - slot, role, f"slot {slot}: {role}")
    left.annotate("low slots:\nXU role here\nmeasured\nfaster", xy=(-0.1, 7.3), xytext=(-1.6, 6.8), fontsize=7,
                  arrowprops={"arrowstyle": "->"}, va="center")
    left.annotate("high slots\n(%warpid;\nscheduler\nassumed s % 4)", xy=(-0.1, 0.3), xytext=(-1.6, 0.8), fontsize=7,
                  arrowprops={"arrowstyle": "->"}, va="center")
    left.set_xlim(-1.7, 4.2)
    left.set_ylim(-0.3, 9.6)
    left.axis("off")
    left.set_title("one scheduler's warp slots (3 FMA warps shown first, 4 kept)", fontsize=9, loc="left")
    styles = {"h200": "-", "h100-80gb-hbm3": "--"}
    for gpu, style in styles.items():
        chapter = results.load_gpu(HERE / "results" / gpu)
        rsqrt = chapter.ceilings["rsqrt_Gops"]
        cases = {c.name: c for c in chapter.cases if c.group == PRODUCTION}
        short = chapter.context["gpu"].replace("NVIDIA ", "").split()[0]
        for label, name, ks, colour in (("FMA role to the first arrivals (first built)", "06_split_specialised_{k}_of_8", range(0, 4), "tab:blue"),
                                        ("XU role to the low slots (kept)", "06_split_specialised_{k}_of_8_xu_priority", range(2, 6), "tab:red")):
            points = [(k, cases[name.format(k=k)].rate("Grsqrt") / rsqrt) for k in ks if name.format(k=k) in cases]
            right.plot([k for k, _ in points], [f for _, f in points], style, marker="o", color=colour,
                       label=f"{label}, {short}")
    right.axhline(1, color="black", linewidth=0.8)
    right.text(0, 1.005, "the rsqrt ceiling: every root on the XU", fontsize=7, va="bottom")
    right.set_xlabel("FMA warps of a scheduler's 8")
    right.set_ylabel("fraction of the rsqrt ceiling")
    right.set_title("measured at 2048 x 2048 points, 100,000 atoms (results/*/bench.json)", fontsize=8.5, loc="left")
    right.legend(fontsize=7, loc="center right")
    right.grid(alpha=0.3)
    figure.tight_layout()
    figure.savefig(out, dpi=120)
    print(f"wrote {out}")


def draw_taught(out: pathlib.Path) -> None:
    """Each taught step's fraction of the rsqrt ceiling at both sizes, on both GPUs
    (results/*/bench.json), the experiments left out."""
    figure, axis = plt.subplots(figsize=(10, 4.2))
    sizes = (("512x512, 10000 atoms", "512 x 512, 10,000 atoms", "tab:gray"), (PRODUCTION, "2048 x 2048, 100,000 atoms", "tab:blue"))
    bars = [(gpu, size) for gpu in ("h200", "h100-80gb-hbm3") for size in sizes]
    width = 0.8 / len(bars)
    for index, (gpu, (group, label, colour)) in enumerate(bars):
        chapter = results.load_gpu(HERE / "results" / gpu)
        steps = {c.name[:2]: c for c in chapter.taught if c.group == group and c.is_step}
        numbers = sorted(steps)
        values = [steps[n].rate("Grsqrt") / chapter.ceilings["rsqrt_Gops"] for n in numbers]
        short = chapter.context["gpu"].replace("NVIDIA ", "").split()[0]
        axis.bar([k + (index - 1.5) * width for k in range(len(numbers))], values, width, color=colour,
                 alpha=1.0 if gpu == "h200" else 0.5, label=f"{short}, {label}")
    axis.set_xticks(range(len(numbers)), numbers)
    axis.axhline(1, color="tab:red", linewidth=1)
    axis.text(-0.4, 1.02, "the rsqrt ceiling (measured)", color="tab:red", fontsize=7.5, va="bottom")
    axis.set_xlabel("taught step")
    axis.set_ylabel("fraction of the rsqrt ceiling")
    axis.set_ylim(0, 1.4)
    axis.set_title("every taught step, median of 20 runs (results/*/bench.json; the experiments are in NOTES.md)",
                   fontsize=9, loc="left")
    axis.legend(fontsize=7.5, loc="upper left", ncol=2)
    axis.grid(axis="y", alpha=0.3)
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
    draw_instructions(args.out_dir / "instructions.png")
    draw_pipes(args.out_dir / "pipes.png")
    draw_scheduler(args.out_dir / "scheduler.png")
    draw_taught(args.out_dir / "taught.png")
    return 0


if __name__ == "__main__":
    cli.run(main)
