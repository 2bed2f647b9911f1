#!/usr/bin/env python3
"""Chapter 6's scaling tables, in Markdown, from bench_multi_gpu's JSON (one run, every GPU count):

  scaling   per group (strong, weak) and step: the time per time step on 1, 2, 4, ... GPUs and
            the parallel efficiency T1 / (N TN), T1 being step 00 on one GPU (for weak scaling
            the problem grows with N, so that is T1 / TN);
  exchange  per group and GPU count: the exchange alone (step 03's NCCL exchange, no compute),
            its rate per GPU (bytes sent and received) and, with --ceilings, its fraction of the
            peer copy's rate; the compute alone; steps 03, 04, 05; and the share of the exchange
            that steps 04 and 05 hide, (compute + exchange - step) / exchange.

    chapters/06_multi_gpu/scaling.py BENCH.json [--ceilings CEILINGS.json] [--out FILE.md]
"""
import argparse
import json
import pathlib
import re
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "profiling"))
import cli  # noqa: E402

CASE = re.compile(r"^(?P<group>[^/]+)/(?P<step>.+) x(?P<gpus>\d+)$")
BASELINE = "00_one_gpu"
COMPUTE, EXCHANGE = "compute only", "exchange only (NCCL)"


def read_runs(path: pathlib.Path) -> tuple:
    """({group: {step: {gpus: (ms per time step, GB/s)}}}, steps a run) from the benchmark's JSON."""
    try:
        data = json.loads(cli.read_text(path, "bench_multi_gpu's JSON"))
        steps = int(data["context"]["steps"])
        runs = {}
        for entry in data["benchmarks"]:
            if entry.get("aggregate_name") != "median":
                continue
            match = CASE.match(entry["run_name"].split("/iterations:")[0])
            if match is None:
                continue
            if entry["time_unit"] != "ms":
                raise cli.ToolError(f"times in {entry['time_unit']}, not ms", path)
            runs.setdefault(match["group"], {}).setdefault(match["step"], {})[int(match["gpus"])] = (
                entry["real_time"] / steps, entry.get("GB/s"))
    except (KeyError, ValueError, TypeError) as error:
        raise cli.ToolError(f"not bench_multi_gpu's JSON ({type(error).__name__}: {error})", path) from None
    if not runs:
        raise cli.ToolError("has no case of bench_multi_gpu (group/step xN)", path)
    return runs, steps


def counts_of(group: dict) -> list:
    return sorted({n for by_count in group.values() for n in by_count})


def scaling_table(name: str, group: dict) -> str:
    counts = counts_of(group)
    weak = name.startswith("weak")
    t1 = group.get(BASELINE, {}).get(1, (None,))[0]
    lines = [f"**{name}**: ms per time step (parallel efficiency {'T1 / TN' if weak else 'T1 / (N TN)'}, "
             f"T1 = `{BASELINE}` on 1 GPU)", "",
             "| step | " + " | ".join(f"{n} GPU{'s' if n > 1 else ''}" for n in counts) + " |",
             "|---|" + "---:|" * len(counts)]
    for step, by_count in group.items():
        cells = []
        for n in counts:
            if n not in by_count:
                cells.append("")
                continue
            ms = by_count[n][0]
            efficiency = "" if t1 is None or step in (EXCHANGE,) else f" ({t1 / ms / (1 if weak else n):.2f})"
            cells.append(f"{ms:.4f}{efficiency}")
        label = f"*{step}* (peer)" if step in (COMPUTE, EXCHANGE) else f"`{step}`"
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def exchange_table(name: str, group: dict, peer_GBps) -> str:
    counts = counts_of(group)
    lines = [f"**{name}**: ms per time step; hidden = (compute + exchange - step) / exchange", "",
             "| GPUs | exchange | GB/s per GPU | of peer copy | compute | `03` | `04` | hidden by 04 | `05` | hidden by 05 |",
             "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]

    def time(prefix: str, n: int):
        step = next((s for s in group if s.startswith(prefix)), None)
        return group.get(step, {}).get(n, (None,))[0]

    for n in counts:
        exchange, rate = group.get(EXCHANGE, {}).get(n, (None, None))
        compute = group.get(COMPUTE, {}).get(n, (None,))[0]
        cells = [str(n), f"{exchange:.4f}" if exchange else "", f"{rate:.1f}" if rate else "",
                 f"{rate / peer_GBps:.2f}" if rate and peer_GBps else "", f"{compute:.4f}" if compute else ""]
        cells.append(f"{time('03_', n):.4f}" if time("03_", n) else "")
        for prefix in ("04_", "05_"):
            step_ms = time(prefix, n)
            cells.append(f"{step_ms:.4f}" if step_ms else "")
            cells.append(f"{(compute + exchange - step_ms) / exchange:.2f}" if step_ms and compute and exchange else "")
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main() -> int:
    parser = cli.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("bench", type=pathlib.Path, help="bench_multi_gpu --benchmark_out=FILE.json")
    parser.add_argument("--ceilings", type=pathlib.Path, help="course_ceilings --out=FILE (for peer_GBps)")
    parser.add_argument("--out", type=pathlib.Path, help="write the tables here instead of printing them")
    args = parser.parse_args()
    runs, _ = read_runs(args.bench)
    peer_GBps = None
    if args.ceilings:
        try:
            peer_GBps = json.loads(cli.read_text(args.ceilings, "course_ceilings' JSON")).get("peer_GBps")
        except ValueError as error:
            raise cli.ToolError(f"not JSON ({error})", args.ceilings) from None
    if args.out:
        cli.check_output_file(args.out)
    parts = ["<!-- scaling -->"] + [scaling_table(name, group) for name, group in runs.items()]
    parts += ["<!-- exchange -->"] + [exchange_table(name, group, peer_GBps) for name, group in runs.items()]
    text = "\n\n".join(parts) + "\n"
    if args.out:
        with cli.atomic_output(args.out) as f:
            f.write(text)
        print(f"wrote {args.out}")
    else:
        print(text, end="")
    return 0


if __name__ == "__main__":
    cli.run(main)
