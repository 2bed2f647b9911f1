#!/usr/bin/env python3
"""Draws chapter 6's pictures into figures/:
  pulse.png     the wave it propagates, from bench_multi_gpu --pulse=FILE.json (by default
                figures/pulse.json, made on the CPU backend: see the README): the slice y = ny/2 of
                a Ricker pulse spreading from the grid's centre at four times (the slabs'
                boundaries dashed: the wave crosses them as if they were not there), and the
                leapfrog's energy, relative to its start, at every sample (conserved to round-off);
  slabs.png     step 01 on: the grid cut into z slabs, each with R halo planes below and above, and
                which planes of which rank fill each halo (periodic: the first and last ranks are
                neighbours);
  exchange.png  step 03: a rank's four messages in one NCCL group, and the same calls outside a
                group, where each rank's first send waits for a receive its neighbour never posts;
  overlap.png   steps 03 and 04: one time step on the most GPUs recorded at strong 1024^3, to scale
                from the H200's measured times (results/h200/bench.json): step 03's compute then
                exchange on one stream; step 04's boundary and exchange on a high-priority stream
                beside the interior, as planned (the boundary's time is its share of the planes),
                and the times step 04 and its copy-engine experiment measured;
  timeline.png  step 04's time step as it ran on four H200s at strong 1024^3 and weak 512^3, from
                events on its two streams (results/h200/overlap-timeline-2026-11-27/timeline.json, a
                probe): without the exchange, with NCCL's, and with the copy engines';
  graph.png     step 05: the graph of one time step as its capture records it, its nodes and
                their dependencies, the boundary's branch at high priority.

    /usr/bin/python3 chapters/06_multi_gpu/figures.py [--pulse FILE.json] [--out-dir DIR]
"""
import argparse
import json
import pathlib
import sys

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1] / "profiling"))
import cli  # noqa: E402
import plot  # noqa: E402
import results  # noqa: E402

PANELS = 4  # the samples that carry a slice


def read_pulse(path: pathlib.Path) -> dict:
    try:
        pulse = json.loads(cli.read_text(path, "bench_multi_gpu --pulse's JSON"))
        for sample in pulse["samples"]:
            float(sample["energy"])
            if "slice" in sample and (len(sample["slice"]) != pulse["edge"]
                                      or any(len(row) != pulse["edge"] for row in sample["slice"])):
                raise ValueError(f"the slice at step {sample['step']} is not {pulse['edge']} x {pulse['edge']}")
    except (KeyError, ValueError, TypeError) as error:
        raise cli.ToolError(f"not bench_multi_gpu --pulse's JSON ({type(error).__name__}: {error})", path) from None
    if sum("slice" in sample for sample in pulse["samples"]) != PANELS:
        raise cli.ToolError(f"has no {PANELS} slices to show", path)
    return pulse


R = 4  # the halo's planes
COLOURS = ["#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#b07aa1"]
HALO = "#d9d9d9"
RECORDING = HERE / "results" / "h200"  # the lesson's GPU, recorded on two of them


def draw_pulse(plt, pulse: dict, out: pathlib.Path) -> None:
    samples = pulse["samples"]
    shown = [sample for sample in samples if "slice" in sample]
    edge, ranks = pulse["edge"], pulse["ranks"]
    boundaries = [sum((edge // ranks + (r < edge % ranks)) for r in range(k)) - 0.5 for k in range(1, ranks)]
    scale = max(abs(v) for row in samples[0]["slice"] for v in row)
    figure, axes = plt.subplots(1, PANELS + 1, figsize=(4 * (PANELS + 1), 4.2),
                                gridspec_kw={"width_ratios": [1] * PANELS + [1.3]})
    for ax, sample in zip(axes, shown):
        ax.imshow(sample["slice"], origin="lower", cmap="RdBu_r", vmin=-scale / 4, vmax=scale / 4)
        for z in boundaries:
            ax.axhline(z, color="black", linestyle="--", linewidth=0.8)
        ax.set_title(f"step {sample['step']}")
        ax.set_xlabel("x")
        ax.set_ylabel("z")
    energy0 = samples[0]["energy"]
    ax = axes[-1]
    ax.plot([s["step"] for s in samples], [(s["energy"] - energy0) / energy0 for s in samples], "o-")
    ax.set_title("energy, relative change")
    ax.set_xlabel("step")
    ax.ticklabel_format(axis="y", style="sci", scilimits=(0, 0))
    figure.suptitle(f"A Ricker pulse (sigma {pulse['sigma']:g} points) on {edge}^3 points, K = {pulse['courant2']:g}, "
                    f"{ranks} slabs ({pulse['step']}, {pulse.get('backend', 'a')} backend); colour range 1/4 of the start's peak")
    figure.tight_layout()
    with cli.atomic_output(out, binary=True) as f:
        figure.savefig(f, format="png", dpi=110)
    print(f"wrote {out}")


def save(figure, out: pathlib.Path) -> None:
    with cli.atomic_output(out, binary=True) as f:
        figure.savefig(f, format="png", dpi=110)
    print(f"wrote {out}")


def draw_slabs(plt, out: pathlib.Path) -> None:
    """Three ranks' slabs side by side, as each holds it: its own planes, R halo planes below and
    above, and arrows from the planes that fill each halo."""
    ranks, own = 3, 10
    figure, ax = plt.subplots(figsize=(10, 5.2))
    width, gap = 3.0, 1.6
    for r in range(ranks):
        x = r * (width + gap)
        ax.add_patch(plt.Rectangle((x, 0), width, R, facecolor=HALO, edgecolor="black"))
        ax.add_patch(plt.Rectangle((x, R), width, own, facecolor=COLOURS[r], alpha=0.35, edgecolor="black"))
        ax.add_patch(plt.Rectangle((x, R + own), width, R, facecolor=HALO, edgecolor="black"))
        for z, text in ((R + own + R / 2, "halo from above"), (R + own / 2, f"rank {r}'s planes"), (R / 2, "halo from below")):
            ax.text(x + width / 2, z, text, ha="center", va="center", fontsize=9)
        for z in (R, R + own - R):  # the R planes at each end that the neighbours need
            ax.add_patch(plt.Rectangle((x, z), width, R, fill=False, edgecolor=COLOURS[r], linewidth=2, linestyle="--"))
        ax.text(x + width / 2, -1.2, f"GPU {r}", ha="center", fontsize=10, weight="bold")
    for r in range(ranks - 1):  # top planes up into the lower halo above; the bottom planes above into this upper halo
        x, x_up = r * (width + gap), (r + 1) * (width + gap)
        ax.annotate("", xy=(x_up + 0.15 * width, R / 2), xytext=(x + width * 0.85, R + own - R / 2),
                    arrowprops=dict(arrowstyle="->", color=COLOURS[r], lw=1.8))
        ax.annotate("", xy=(x + 0.85 * width, R + own + R / 2), xytext=(x_up + 0.15 * width, R + R / 2),
                    arrowprops=dict(arrowstyle="->", color=COLOURS[r + 1], lw=1.8))
    last = (ranks - 1) * (width + gap)
    ax.text(-0.3, R / 2, f"from GPU {ranks - 1}'s\ntop planes", ha="right", va="center", fontsize=8, color=COLOURS[ranks - 1])
    ax.text(-0.3, R + own + R / 2, f"from GPU {ranks - 1}'s\nbottom planes", ha="right", va="center", fontsize=8,
            color=COLOURS[ranks - 1])
    ax.text(last + width + 0.3, R + own + R / 2, "from GPU 0's\nbottom planes", ha="left", va="center", fontsize=8, color=COLOURS[0])
    ax.text(last + width + 0.3, R / 2, "from GPU 0's\ntop planes", ha="left", va="center", fontsize=8, color=COLOURS[0])
    ax.set_xlim(-2.2, ranks * (width + gap) - gap + 2.2)
    ax.set_ylim(-2, 2 * R + own + 1)
    ax.set_yticks([0, R, R + own, 2 * R + own])
    ax.set_yticklabels(["", "z0", "z0 + dz", ""])
    ax.set_xticks([])
    ax.set_title(f"z slabs, one a GPU: each keeps R = {R} halo planes below and above (grey), filled every step\n"
                 "from its neighbours' R planes nearest to it (dashed); periodic in z: the first and the last GPU are neighbours", fontsize=10)
    figure.tight_layout()
    save(figure, out)


def draw_exchange(plt, out: pathlib.Path) -> None:
    """Two ranks' calls in time: in one group (all four start at its end), and outside a group."""
    figure, axes = plt.subplots(1, 2, figsize=(12, 3.8), sharey=True)
    calls = ["send top planes up", "send bottom planes down", "receive below halo", "receive above halo"]
    for ax, grouped in zip(axes, (True, False)):
        for rank, y in ((0, 1), (1, 0)):
            if grouped:
                for k, call in enumerate(calls):
                    ax.barh(y + 0.3 - 0.2 * k, 1.0, left=1.2, height=0.16, color=COLOURS[k], edgecolor="black")
                    ax.text(2.3, y + 0.3 - 0.2 * k, call, va="center", fontsize=8)
                ax.axvline(1.2, color="black", linestyle=":", linewidth=1)
            else:
                ax.barh(y, 3.6, left=0.2, height=0.35, color=COLOURS[0], edgecolor="black", hatch="//", alpha=0.6)
                ax.text(2.0, y, "send top planes up: waits for a receive that the other\nrank queued on its stream behind its own send",
                        ha="center", va="center", fontsize=8)
        ax.set_yticks([0, 1])
        ax.set_yticklabels(["rank 1", "rank 0"])
        ax.set_xlim(0, 4)
        ax.set_xticks([])
        ax.set_xlabel("time")
    axes[0].set_title("in one group (ncclGroupStart ... ncclGroupEnd):\nthe four calls start together at the group's end", fontsize=10)
    axes[1].set_title("outside a group: each call returns on the host but runs on the stream in order:\nthe receives queue "
                      "behind the first send, so both sends wait for ever (a deadlock)", fontsize=10)
    figure.tight_layout()
    save(figure, out)


def measured_step_ms(group_prefix: str, name: str, gpus: int) -> float:
    """ms a time step of one case of the recording (bench.json)."""
    context, cases = results.load(RECORDING / "bench.json", "bench_multi_gpu")
    steps = results.context_number(context, "steps", RECORDING / "bench.json", whole=True)
    return next(c.median_ms for c in cases if c.group.startswith(group_prefix) and c.name == f"{name} x{gpus}") / steps


def draw_overlap(plt, out: pathlib.Path) -> None:
    """One time step of steps 03 and 04 on the most GPUs recorded, strong 1024^3, to scale from the
    measured times, with the time of the experiment that moves step 04's exchange by copy engines."""
    context, _ = results.load(RECORDING / "bench.json", "bench_multi_gpu")
    gpus = results.context_number(context, "gpus", RECORDING / "bench.json", whole=True)
    edge = results.context_number(context, "strong", RECORDING / "bench.json", whole=True)
    ms = {name: measured_step_ms("strong", name, gpus)
          for name in ("compute only", "split compute only", "exchange only (NCCL)", "03_nccl", "04_overlap", "overlap by peer copies")}
    compute, split, exchange = ms["compute only"], ms["split compute only"], ms["exchange only (NCCL)"]
    planes = edge // gpus
    boundary = split * 2 * R / planes  # assumed: the boundary's share of the slab's planes
    interior = split - boundary
    us = 1e3
    figure, ax = plt.subplots(figsize=(11, 3.8))
    rows = [("step 03: one stream", [(0, compute, COLOURS[0], "leapfrog, all planes"), (compute, exchange, COLOURS[1], "exchange")],
             [(ms["03_nccl"], "03 measured")]),
            ("step 04: high priority", [(0, boundary, COLOURS[3], ""), (boundary, exchange, COLOURS[1], "exchange")],
             [(ms["04_overlap"], "04 measured"), (ms["overlap by peer copies"], "copy engines measured")]),
            ("step 04: low priority", [(0, interior, COLOURS[2], "interior planes")], [])]
    for y, (name, bars, measured) in zip((2, 1, 0), rows):
        for start, length, colour, text in bars:
            ax.barh(y, length * us, left=start * us, height=0.5, color=colour, edgecolor="black")
            if text:
                ax.text((start + length / 2) * us, y, text, ha="center", va="center", fontsize=8)
        for k, (time, text) in enumerate(measured):  # step 04's times span both of its streams
            low = y - 0.35 if y == 2 else -0.35
            style = "-" if k == 0 else "--"
            ax.plot([time * us] * 2, [low, y + 0.35], color="black", linewidth=2, linestyle=style)
            left = k > 0  # the second label beside its line's other side, clear of the first
            ax.text(time * us + (-4 if left else 4), y + 0.3 - 0.45 * k, f"{text}: {time * us:.0f} us", fontsize=8,
                    va="bottom", ha="right" if left else "left")
    ax.annotate("boundary planes", xy=(boundary * us / 2, 1.25), xytext=(20, 1.55), fontsize=8, arrowprops=dict(arrowstyle="->"))
    ax.set_yticks([2, 1, 0])
    ax.set_yticklabels([name for name, _, _ in rows])
    ax.set_xlabel("microseconds into the time step")
    ax.set_xlim(0, max(ms["03_nccl"], ms["04_overlap"]) * us * 1.25)
    ax.set_ylim(-0.6, 2.75)
    ax.set_title(f"Step 04 as planned, one time step on {gpus} H200s, strong {edge}^3: bars to scale from the compute and the\n"
                 f"exchange measured alone, the boundary its share of the planes ({2 * R} of {planes}). Planned, step 04 ends "
                 "with its interior;\nmeasured, it ends later with NCCL, and nearly with its interior with copy engines "
                 "(an experiment).", fontsize=9)
    figure.tight_layout()
    save(figure, out)


TIMELINE = RECORDING / "overlap-timeline-2026-11-27" / "timeline.json"  # a probe's (its README)


def draw_timeline(plt, out: pathlib.Path) -> None:
    """Step 04's time step as it ran on 4 GPUs (events on its two streams), at strong 1024^3 and weak
    512^3: each stream's work from one event to the next, without an exchange, with NCCL's and with
    the copy engines'; and the boundary alone, on an idle GPU."""
    recorded = json.loads(TIMELINE.read_text())["default"]
    cases = [("split compute only: no exchange", "split compute only", None),
             ("04_overlap: NCCL's exchange", "04_overlap", "exchange only (NCCL)"),
             ("overlap by peer copies: the copy engines'", "overlap by peer copies", "exchange only (peer copies)")]
    us = 1e3

    def bar(ax, y, begin, end, colour, text):  # from one event to the next, in ms, labelled inside
        ax.barh(y, (end - begin) * us, left=begin * us, height=0.5, color=colour, edgecolor="black", hatch="//", alpha=0.9)
        ax.text((begin + end) / 2 * us, y, text, ha="center", va="center", fontsize=8,
                bbox=dict(facecolor="white", edgecolor="none", pad=1, alpha=0.8))

    figure, axes = plt.subplots(2, 1, figsize=(11, 8.2))
    for ax, group in zip(axes, ("strong 1024^3", "weak 512^3 per GPU")):
        runs = recorded[group]
        alone = runs["overlap, interior after the boundary"]["boundary"]  # that experiment's boundary runs on an idle GPU
        ticks, labels = [], []
        for k, (title, case, exchange_alone) in enumerate(cases):
            run = runs[case]
            high, low = 5.2 - 2.2 * k, 4.6 - 2.2 * k
            pieces = [(0.0, run["leapfrog"], COLOURS[3], "leapfrog"), (run["leapfrog"], run["boundary"], "#f4a6a7", "images")]
            if exchange_alone:
                pieces.append((run["boundary"], run["exchange_end"], COLOURS[1],
                               f"exchange (alone: {runs[exchange_alone]['ms_per_step'] * us:.0f} us)"))
            for begin, end, colour, text in pieces:
                bar(ax, high, begin, end, colour, text)
            # The interior starts before the boundary where it runs ahead (a negative start).
            bar(ax, low, run["interior_start"], run["interior_end"], COLOURS[2], "interior")
            ax.plot([run["next"] * us] * 2, [low - 0.3, high + 0.3], color="black", linewidth=2)
            ax.text(run["next"] * us + 6, (high + low) / 2, f"next step's start:\n{run['next'] * us:.0f} us", fontsize=8,
                    va="center")
            ax.text(0, high + 0.32, title, fontsize=8, va="bottom", style="italic")
            ticks += [high, low]
            labels += ["high-priority stream", "low-priority stream"]
        ax.plot([alone * us] * 2, [0.2, 6.1], color="black", linestyle=":", linewidth=1)
        ax.text(alone * us + 4, 6.0, f"the boundary alone, on an idle GPU: {alone * us:.0f} us", fontsize=8)
        ax.set_yticks(ticks)
        ax.set_yticklabels(labels, fontsize=8)
        ax.set_ylim(0, 6.45)
        earliest = min(0.0, *(runs[case]["interior_start"] for _, case, _ in cases))
        ax.set_xlim(earliest * us - 10, max(r["next"] for r in runs.values() if "next" in r) * us * 1.22)
        ax.axvline(0, color="grey", linewidth=0.8)
        ax.set_title(f"{group}, 4 H200s", fontsize=9)
        ax.set_xlabel("microseconds from the boundary's start (once the last interior, and on its stream the last exchange, "
                      "were done);\neach bar runs from the event before it on its stream to its own, waiting included", fontsize=8)
    figure.suptitle("Step 04's time step as it ran, from events on its two streams (a probe; means over steps, ranks and runs).\n"
                    "At 1024^3 the boundary's images end about 0.2 ms after its leapfrog, and the interior takes longer beside "
                    "NCCL's exchange;\nat 512^3 the interior is done first, and the next step starts after the exchange.",
                    fontsize=9)
    figure.tight_layout()
    save(figure, out)


def draw_graph(plt, out: pathlib.Path) -> None:
    """Step 05's graph of one time step, as its capture records it: the nodes and their dependencies."""
    figure, ax = plt.subplots(figsize=(11, 3.4))
    nodes = {"start": (0.5, 1, "graph launch", HALO),
             "b1": (2.5, 2, "leapfrog,\nboundary planes", COLOURS[3]), "b2": (4.5, 2, "images,\nboundary planes", COLOURS[3]),
             "x": (6.5, 2, "NCCL exchange:\n2 sends, 2 receives", COLOURS[1]),
             "i1": (3.5, 0, "leapfrog,\ninterior planes", COLOURS[2]), "i2": (5.5, 0, "images,\ninterior planes", COLOURS[2]),
             "end": (8.5, 1, "graph done:\nnext step's graph", HALO)}
    for x, y, text, colour in nodes.values():
        ax.add_patch(plt.Rectangle((x - 0.8, y - 0.38), 1.6, 0.76, facecolor=colour, edgecolor="black", alpha=0.85))
        ax.text(x, y, text, ha="center", va="center", fontsize=8)
    for a, b in (("start", "b1"), ("b1", "b2"), ("b2", "x"), ("start", "i1"), ("i1", "i2"), ("x", "end"), ("i2", "end")):
        (xa, ya, _, _), (xb, yb, _, _) = nodes[a], nodes[b]
        ax.annotate("", xy=(xb - 0.8, yb), xytext=(xa + 0.8, ya), arrowprops=dict(arrowstyle="->", lw=1.2))
    ax.text(0.0, 2.55, "high priority (kept in the graph: instantiated with node priorities)", fontsize=8)
    ax.text(0.0, -0.75, "low priority", fontsize=8)
    ax.set_xlim(-0.4, 9.5)
    ax.set_ylim(-0.9, 2.8)
    ax.axis("off")
    ax.set_title("Step 05: one time step of step 04, captured once for each of the two buffers and launched as one graph "
                 "(one launch instead of about ten);\nthe graph ends when both branches have, so the next step starts "
                 "after this step's exchange", fontsize=9)
    figure.tight_layout()
    save(figure, out)


def main() -> int:
    parser = cli.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pulse", type=pathlib.Path, default=HERE / "figures" / "pulse.json",
                        help="bench_multi_gpu --pulse's JSON (default: %(default)s)")
    parser.add_argument("--out-dir", type=pathlib.Path, default=HERE / "figures", help="where the pictures go")
    args = parser.parse_args()
    pulse = read_pulse(args.pulse)
    plt = plot.pyplot()
    out_dir = cli.output_folder(args.out_dir)
    draw_pulse(plt, pulse, out_dir / "pulse.png")
    draw_slabs(plt, out_dir / "slabs.png")
    draw_exchange(plt, out_dir / "exchange.png")
    draw_overlap(plt, out_dir / "overlap.png")
    draw_timeline(plt, out_dir / "timeline.png")
    draw_graph(plt, out_dir / "graph.png")
    return 0


if __name__ == "__main__":
    cli.run(main)
