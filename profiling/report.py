#!/usr/bin/env python3
"""Writes the measured tables into a chapter README from its committed results, between
markers `<!-- BEGIN GENERATED: NAME -->` and `<!-- END GENERATED: NAME -->`.

    profiling/report.py chapters/01_transpose          rewrite the README's generated tables
    profiling/report.py --check chapters/01_transpose  exit 1 if they differ from the results

Each chapter folder holds results/bench.json, results/ceilings.json and results/traffic.csv;
TABLES below says which tables each chapter's README has.
"""
import argparse
import csv
import json
import pathlib
import re
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import results  # noqa: E402


def transpose_table(context: dict, cases: list, ceilings: dict) -> str:
    group = next(c.group for c in cases if c.group.startswith("transpose"))
    rows = [c for c in cases if c.group == group]
    memcpy = next(c for c in rows if c.name.startswith("device copy"))
    baseline = next(c for c in rows if c.name.startswith("00_"))
    lines = [f"{group} floats on the {context['gpu']}, median of {memcpy.repetitions} runs, L2 flushed before each; "
             f"GB/s = 2 x {memcpy.bytes_per_run / 2 / 1e6:.1f} MB / time.", "",
             "| step | median ms | min–max ms | GB/s | of memcpy | of ceiling | vs 00 |", "|---|---:|---:|---:|---:|---:|---:|"]
    for c in rows:
        name = f"*{c.name}* (peer)" if c in (memcpy,) or not c.name[:2].isdigit() else f"`{c.name}`"
        lines.append(f"| {name} | {c.median_ms:.4f} | {c.min_ms:.4f}–{c.max_ms:.4f} | {c.gbps:.0f} | "
                     f"{c.gbps / memcpy.gbps:.3f} | {c.gbps / ceilings['copy_GBps']:.3f} | {baseline.median_ms / c.median_ms:.2f}x |")
    lines.append("")
    lines.append(f"Ceiling: {ceilings['copy_GBps']:.0f} GB/s, the best device-to-device copy `course_ceilings` measured "
                 f"(memcpy {ceilings['memcpy_GBps']:.0f}, copy kernel {ceilings['copy_kernel_GBps']:.0f}); "
                 f"'of memcpy' compares with the copy measured in the same run.")
    return "\n".join(lines)


def passes_table(cases: list) -> str:
    by_k = {}
    for c in cases:
        match = re.match(r"A\^T x, (\d+) passes", c.group)
        if match:
            by_k.setdefault(int(match.group(1)), {})[c.name] = c
    lines = ["| passes k | 00_naive ms | 01_coalesced ms | 03_flagged ms | flagged vs naive | flagged vs coalesced |",
             "|---:|---:|---:|---:|---:|---:|"]
    break_even = None
    for k in sorted(by_k):
        naive, coalesced, flagged = (by_k[k][n] for n in ("00_naive", "01_coalesced", "03_flagged"))
        if break_even is None and flagged.median_ms < naive.median_ms:
            break_even = k
        lines.append(f"| {k} | {naive.median_ms:.3f} | {coalesced.median_ms:.3f} | {flagged.median_ms:.3f} | "
                     f"{naive.median_ms / flagged.median_ms:.2f}x | {coalesced.median_ms / flagged.median_ms:.2f}x |")
    lines.append("")
    lines.append(f"Break-even against the naive consumer: k = {break_even} (the smallest k measured at which the "
                 f"flagged matrix, its transpose included, is faster)." if break_even else
                 "The flagged matrix was never faster than the naive consumer at the k measured.")
    return "\n".join(lines)


def traffic_table(traffic_csv: pathlib.Path, array: str) -> str:
    rows = list(csv.DictReader(traffic_csv.open()))
    utilisation = [c for c in ("DRAM %", "shared %", "FMA pipe %", "occupancy %") if c in rows[0]]
    lines = ["| kernel | L1 | L2 read | L2 write | HBM | ms | HBM GB/s | bank conflicts | " + " | ".join(utilisation) + " |",
             "|---|" + "---:|" * (7 + len(utilisation))]
    for r in rows:
        lines.append(f"| `{r['kernel']}` | {float(r['L1 ratio']):.2f} | {float(r['L2 read ratio']):.2f} | "
                     f"{float(r['L2 write ratio']):.2f} | {float(r['HBM ratio']):.2f} | {float(r['time ms']):.3f} | "
                     f"{float(r['achieved GB/s']):.0f} | {float(r['bank conflicts']):.3g} | "
                     + " | ".join(f"{float(r[c]):.0f}" for c in utilisation) + " |")
    lines.append("")
    lines.append(f"Traffic as a ratio to the {array}: 1.00 is one pass over it. The last columns are % of each "
                 "unit's peak: DRAM throughput, shared-memory wavefronts, the FMA pipe, achieved occupancy.")
    return "\n".join(lines)


def stencil_table(context: dict, cases: list, ceilings: dict, conv3d: dict) -> str:
    stencils = list(dict.fromkeys(c.group for c in cases))
    by = {(c.group, c.name): c for c in cases}
    steps = list(dict.fromkeys(c.name for c in cases if c.name[:2].isdigit()))
    copy = next(c for c in cases if c.name.startswith("device copy"))
    names = [g.split()[0] for g in stencils]
    lines = [f"Interior {stencils[0].split()[1]} floats on the {context['gpu']}, median of {copy.repetitions} runs, L2 "
             f"flushed before each; GB/s = 2 x {copy.bytes_per_run / 2 / 1e6:.1f} MB (the cube read and written once) / time.",
             "", "| step | " + " | ".join(f"{n} GB/s" for n in names) + " | box27 of copy | compound_r2 GFLOP/s | of FMA ceiling |",
             "|---|" + "---:|" * (len(names) + 3)]
    flops = {}
    for g in stencils:  # GFLOP per run, from a step's rate counter: the same for every step of a stencil
        step = next(c for c in cases if c.group == g and c.name[:2].isdigit())
        flops[g] = step.gflop_per_run
    box = next(g for g in stencils if g.startswith("box27"))
    r2 = next(g for g in stencils if g.startswith("compound_r2"))
    for name in [copy.name] + steps:
        cells = []
        for g in stencils:
            c = by.get((g, name))
            cells.append(f"{c.gbps:.0f}" if c else "")
        b = by.get((box, name))
        c2 = by.get((r2, name))
        peer = not name[:2].isdigit()
        gflops = flops[r2] / (c2.median_ms / 1e3) if c2 and not peer else None
        lines.append(f"| {'*' + name + '* (peer)' if peer else '`' + name + '`'} | " + " | ".join(cells) +
                     f" | {b.gbps / ceilings['copy_GBps']:.3f} | " +
                     (f"{gflops:.0f} | {gflops / ceilings['fma_GFLOPs']:.3f} |" if gflops else " | |"))
    for peer in conv3d["cases"]:
        cells = [f"{peer['GBps']:.0f}" if g.startswith(peer["stencil"]) else "" for g in stencils]
        lines.append(f"| *{peer['name']}* (peer, PyTorch {conv3d['torch']}) | " + " | ".join(cells) + " | | | |")
    lines.append("")
    lines.append(f"Ceilings measured by `course_ceilings` on the same machine: copy {ceilings['copy_GBps']:.0f} GB/s, "
                 f"FMA {ceilings['fma_GFLOPs'] / 1e3:.1f} TFLOP/s. GFLOP/s counts 2 flops per nonzero weight per point "
                 f"({flops[r2] * 1e9 / 2 / (copy.bytes_per_run / 8):.0f} nonzero weights for compound_r2).")
    return "\n".join(lines)


# Which generated tables each chapter's README carries.
TABLES = {
    "01_transpose": lambda folder, context, cases, ceilings: {
        "transpose": transpose_table(context, cases, ceilings),
        "passes": passes_table(cases),
        "traffic": traffic_table(folder / "traffic.csv", "matrix size (1073.7 MB)"),
    },
    "02_stencil": lambda folder, context, cases, ceilings: {
        "steps": stencil_table(context, cases, ceilings, json.loads((folder / "conv3d.json").read_text())),
        "traffic": traffic_table(folder / "traffic.csv", "cube size (536.9 MB)"),
    },
}


def generated(chapter: pathlib.Path) -> dict:
    folder = chapter / "results"
    context, cases = results.load(folder / "bench.json")
    ceilings = json.loads((folder / "ceilings.json").read_text())
    tables = TABLES[chapter.resolve().name](folder, context, cases, ceilings)
    source = f"<!-- generated by profiling/report.py from results/ (commit {context['commit']}, {context['date'][:10]}) -->"
    return {name: f"{source}\n{table}" for name, table in tables.items()}


def fill(readme: str, tables: dict) -> str:
    for name, table in tables.items():
        pattern = re.compile(rf"(<!-- BEGIN GENERATED: {name} -->\n).*?(<!-- END GENERATED: {name} -->)", re.S)
        if not pattern.search(readme):
            raise SystemExit(f"error: the README has no markers for the '{name}' table")
        readme = pattern.sub(lambda m: m.group(1) + table + "\n" + m.group(2), readme)
    return readme


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("chapter", type=pathlib.Path)
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args()
    readme_path = args.chapter / "README.md"
    readme = readme_path.read_text()
    updated = fill(readme, generated(args.chapter))
    if args.check:
        if updated != readme:
            print(f"{readme_path}: generated tables are out of date; run profiling/report.py {args.chapter}")
            return 1
        print(f"{readme_path}: generated tables match results/")
        return 0
    if updated != readme:
        readme_path.write_text(updated)
        print(f"updated {readme_path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
