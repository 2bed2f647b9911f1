#!/usr/bin/env python3
"""Draws a chapter's benchmark results as PNG: effective bandwidth per step for each group, with
the measured copy ceiling and the peers (the runtime's copy, vendor libraries, peers measured
apart) as lines; a line plot for sweeps (groups named "LABEL, N UNIT", e.g. "A^T x, 4 passes");
and, when the steps count flops, a roofline: achieved GFLOP/s against arithmetic intensity,
under the copy and FMA ceilings (and the rsqrt ceiling, for steps that count roots).

    profiling/plot.py BENCH.json --ceilings CEILINGS.json --out BENCH.png [--peers PEERS.json]...

Each group's panel shows the rate whose ceiling bounds its fastest step: bandwidth for most,
reciprocal square roots per second for a chapter bound by the rsqrt rate. A peers JSON (a
chapter's peer_*.py output, results.load_peers) is drawn on the groups whose name starts with
each peer's "group".
"""
import argparse
import itertools
import pathlib
import re
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import cli  # noqa: E402
import results  # noqa: E402

SWEEP = re.compile(r"^(?P<label>.+), (?P<n>\d+) (?P<unit>\w+)$")


def pyplot():
    """matplotlib's pyplot, drawing into files only; a ToolError that says how to install it."""
    try:
        import matplotlib
    except ImportError:
        raise cli.ToolError(f"matplotlib is missing for {sys.executable}: `bash cmake/install-deps.sh plots` installs "
                            f"it for the system python (/usr/bin/python3); for another python, run "
                            f"`{sys.executable} -m pip install matplotlib`") from None
    matplotlib.use("Agg")
    import matplotlib.pyplot
    return matplotlib.pyplot


def image_types() -> dict:
    """The image formats matplotlib writes, by file extension."""
    from matplotlib.backend_bases import FigureCanvasBase
    return FigureCanvasBase.get_supported_filetypes()


def binding_unit(group: str, cases: list, ceilings: dict | None) -> str:
    """The rate a group's panel shows: the one whose ceiling bounds the group's fastest step."""
    steps = [c for c in cases if c.group == group and c.is_step]
    if not ceilings or not steps:
        return "GB"
    return min(steps, key=lambda c: c.median_ms).roofline_ms(ceilings)[1]


def rate_panel(axis, group: str, unit: str, cases: list, ceilings: dict | None, extra_peers: list) -> None:
    steps = [c for c in cases if c.group == group and c.is_step and unit in c.amounts]
    peers = [c for c in cases if c.group == group and not c.is_step and unit in c.amounts]
    peers += [p for p in extra_peers if group.startswith(p.group) and unit in p.amounts]
    label = {"GB": "effective bandwidth, GB/s (minimum bytes / median time)"}.get(unit, f"{unit}/s at the median time")
    names = [c.name for c in steps]
    values = [c.rate(unit) for c in steps]
    bars = axis.barh(names, values, color="#4C72B0")
    axis.invert_yaxis()
    top = max(values + [p.rate(unit) for p in peers] + [0])
    for bar, value in zip(bars, values):
        axis.text(value + top * 0.007, bar.get_y() + bar.get_height() / 2, f"{value:.0f}", va="center", fontsize=8)
    styles = itertools.cycle(["--", ":", "-.", (0, (5, 1)), (0, (3, 1, 1, 1, 1, 1))])  # as many as there are peers
    for peer, style in zip(peers, styles):
        axis.axvline(peer.rate(unit), color="#C44E52", linestyle=style, label=f"{peer.name}: {peer.rate(unit):.0f} {unit}/s")
    ceiling = ceilings[results.CEILINGS[unit][0]] if ceilings and unit in results.CEILINGS else None
    if ceiling:
        axis.axvline(ceiling, color="black", linewidth=1,
                     label=f"measured {results.CEILINGS[unit][1][3:]} ceiling: {ceiling:.0f} {unit}/s")
    axis.set_xlim(0, max(top, ceiling or 0) * 1.1)
    axis.set_xlabel(label)
    axis.set_title(group)
    axis.legend(loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=2, fontsize=8, frameon=False)


def sweep_panel(axis, label: str, cases: list) -> None:
    series, unit = {}, ""
    for c in cases:
        match = SWEEP.match(c.group)
        if match and match["label"] == label and c.is_step:
            series.setdefault(c.name, []).append((int(match["n"]), c.median_ms))
            unit = match["unit"]
    for name, points in series.items():
        points.sort()
        axis.plot([n for n, _ in points], [ms for _, ms in points], marker="o", label=name)
    axis.set_xscale("log", base=2)
    axis.set_yscale("log")
    axis.set_xlabel(unit)
    axis.set_ylabel("median time, ms")
    axis.set_title(f"{label}: time against {unit}")
    axis.grid(True, which="both", alpha=0.3)
    axis.legend(fontsize=8)


def roofline_panel(axis, groups: list, cases: list, ceilings: dict) -> None:
    copy, fma = ceilings["copy_GBps"], ceilings["fma_GFLOPs"]
    points = [c for c in cases if c.is_step and "GFLOP" in c.amounts and c.group in groups]
    intensities = [c.amounts["GFLOP"] / c.amounts["GB"] for c in points]
    low, high = min(intensities + [fma / copy]) / 4, max(intensities + [fma / copy]) * 4
    x = [low * (high / low) ** (i / 100) for i in range(101)]
    axis.plot(x, [min(fma, copy * i) for i in x], color="black", linewidth=1,
              label=f"roofline: copy {copy:.0f} GB/s, FMA {fma / 1e3:.1f} TFLOP/s (ridge {fma / copy:.1f} FLOP/B)")
    # A chapter bound by reciprocal square roots has a third roof: the rsqrt rate times the flops
    # its steps do per root (one line per ratio, the same for every step of chapter 4).
    per_root = sorted({round(c.amounts["GFLOP"] / c.amounts["Grsqrt"], 6) for c in points
                       if c.amounts.get("Grsqrt") and ceilings.get("rsqrt_Gops")})
    for flops, style in zip(per_root, ["--", ":", "-."]):
        rsqrt = ceilings["rsqrt_Gops"]
        axis.axhline(rsqrt * flops, color="black", linestyle=style, linewidth=1,
                     label=f"rsqrt roof: {rsqrt:.0f} G roots/s x {flops:g} FLOP a root (steps that move roots to "
                           "the FMA pipe can pass it)")
    for group, marker in zip(groups, "osD^v<>p"):
        mine = [c for c in points if c.group == group]
        axis.scatter([c.amounts["GFLOP"] / c.amounts["GB"] for c in mine], [c.rate("GFLOP") for c in mine],
                     marker=marker, s=18, label=group, alpha=0.8)
    axis.set_xscale("log")
    axis.set_yscale("log")
    axis.set_xlabel("arithmetic intensity, FLOP per byte (of the minimum bytes)")
    axis.set_ylabel("GFLOP/s")
    axis.set_title("roofline: every step of every group")
    axis.grid(True, which="both", alpha=0.3)
    axis.legend(fontsize=7, loc="lower right")


def main() -> int:
    parser = cli.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("bench_json", type=pathlib.Path)
    parser.add_argument("--ceilings", type=pathlib.Path)
    parser.add_argument("--out", type=pathlib.Path, required=True)
    parser.add_argument("--peers", type=pathlib.Path, action="append", default=[],
                        help="JSON of peers measured apart (e.g. conv3d.json); may be repeated")
    args = parser.parse_args()
    context, cases = results.load(args.bench_json)
    ceilings = results.load_ceilings(args.ceilings, cases) if args.ceilings else None
    extra_peers = [peer for path in args.peers for peer in results.load_peers(path)[1]]
    cli.check_output_file(args.out)
    plt = pyplot()
    if args.out.suffix[1:].lower() not in image_types():
        raise cli.ToolError((f"unknown image type '{args.out.suffix}'" if args.out.suffix else "no image type") +
                            ": give a name ending in " + ", ".join(f".{t}" for t in sorted(image_types())), args.out)
    # A sweep is a label that comes with several numbers ("A^T x, 1 passes", "A^T x, 2 passes");
    # "512x512, 10000 atoms" alone is a group like any other.
    groups = list(dict.fromkeys(c.group for c in cases))
    labels = [SWEEP.match(g)["label"] for g in groups if SWEEP.match(g)]
    sweeps = list(dict.fromkeys(label for label in labels if labels.count(label) > 1))
    bandwidth_groups = [g for g in groups if not (SWEEP.match(g) and SWEEP.match(g)["label"] in sweeps)]
    flop_groups = [g for g in bandwidth_groups if any(c.group == g and "GFLOP" in c.amounts for c in cases)]
    roofline = bool(flop_groups and ceilings)
    panels = len(bandwidth_groups) + len(sweeps) + roofline
    rows = max((len([c for c in cases if c.group == g]) for g in bandwidth_groups), default=0)
    heights = [1.8 + 0.3 * rows] * len(bandwidth_groups) + [4.0] * (len(sweeps) + roofline)
    height = 0.6 + sum(heights)
    figure, axes = plt.subplots(panels, 1, figsize=(9, height), squeeze=False, gridspec_kw={"height_ratios": heights})
    panel = iter(axes[:, 0])
    for group in bandwidth_groups:
        rate_panel(next(panel), group, binding_unit(group, cases, ceilings), cases, ceilings, extra_peers)
    for label in sweeps:
        sweep_panel(next(panel), label, cases)
    if roofline:
        roofline_panel(next(panel), flop_groups, cases, ceilings)
    figure.suptitle(f"{context['gpu']} ({context['backend']}), commit {context['commit']}, {context['date'][:10]}", fontsize=10)
    figure.tight_layout(rect=(0, 0, 1, 1 - 0.4 / height))  # room for the title
    with cli.atomic_output(args.out, binary=True) as f:
        figure.savefig(f, format=args.out.suffix[1:].lower(), dpi=110)
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    cli.run(main)
