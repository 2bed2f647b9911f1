#!/usr/bin/env python3
"""Draws chapter 6's picture of the wave it propagates into figures/pulse.png, from
bench_multi_gpu --pulse=FILE.json (by default figures/pulse.json, made on the CPU backend: see the
README): the slice y = ny/2 of a Ricker pulse spreading from the grid's centre at four times (the
slabs' boundaries dashed: the wave crosses them as if they were not there), and the leapfrog's
energy, relative to its start, at every sample (conserved to round-off).

    chapters/06_multi_gpu/figures.py [--pulse FILE.json] [--out-dir DIR]
"""
import argparse
import json
import pathlib
import sys

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1] / "profiling"))
import cli  # noqa: E402
import plot  # noqa: E402

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


def main() -> int:
    parser = cli.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pulse", type=pathlib.Path, default=HERE / "figures" / "pulse.json",
                        help="bench_multi_gpu --pulse's JSON (default: %(default)s)")
    parser.add_argument("--out-dir", type=pathlib.Path, default=HERE / "figures", help="where pulse.png goes")
    args = parser.parse_args()
    pulse = read_pulse(args.pulse)
    plt = plot.pyplot()
    out = cli.output_folder(args.out_dir) / "pulse.png"

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
    return 0


if __name__ == "__main__":
    cli.run(main)
