"""Markdown tables that any chapter's README can carry, from its results (results.py). A chapter
that wants other tables writes them in its own chapters/NN_name/tables.py, with these as parts."""
import csv
import pathlib

import results as results_module

UTILISATION = ("DRAM %", "shared %", "FMA pipe %", "occupancy %")


def traffic_table(traffic_csv: pathlib.Path, array: str) -> str:
    """The profiler's traffic per kernel (profiling/traffic.py) as ratios to the problem's array."""
    with traffic_csv.open() as f:
        rows = list(csv.DictReader(f))
    utilisation = [c for c in UTILISATION if c in rows[0]]
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


def units_of(cases: list) -> list:
    """Every unit the cases counted, bytes first, in order of appearance."""
    return list(dict.fromkeys(["GB"] + [u for c in cases for u in c.amounts]))


def group_table(res: results_module.ChapterResults, group: str) -> str:
    """One benchmark group: median and spread, every rate with its fraction of its ceiling, the
    fraction of the roofline bound where the group has work against a compute ceiling, and the
    speedup over the group's first step."""
    cases = [c for c in res.cases if c.group == group]
    units = units_of(cases)
    roofline = any(u in results_module.CEILINGS for u in units[1:])
    baseline = next((c for c in cases if c.is_step), None)
    header = ["step", "median ms", "min–max ms"]
    for unit in units:
        header.append(f"{unit}/s")
        if unit in results_module.CEILINGS:
            header.append(results_module.CEILINGS[unit][1])
    header += (["of roofline"] if roofline else []) + ["vs first step"]
    lines = ["| " + " | ".join(header) + " |", "|---|" + "---:|" * (len(header) - 1)]
    for c in cases:
        cells = [f"`{c.name}`" if c.is_step else f"*{c.name}* (peer)", f"{c.median_ms:.4f}",
                 f"{c.min_ms:.4f}–{c.max_ms:.4f}"]
        for unit in units:
            cells.append(f"{c.rate(unit):.1f}" if unit in c.amounts else "")
            if unit in results_module.CEILINGS:
                fraction = c.of_ceiling(unit, res.ceilings)
                cells.append("" if fraction is None else f"{fraction:.3f}")
        if roofline:
            cells.append(f"{c.roofline_ms(res.ceilings)[0] / c.median_ms:.3f}")
        cells.append(f"{baseline.median_ms / c.median_ms:.2f}x" if baseline else "")
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def roofline_table(res: results_module.ChapterResults) -> str:
    """Per group and per amount of arithmetic (steps that compute the same result with different
    flops, e.g. another formulation, get a row each): arithmetic intensity against the ridge
    point, the roofline bound and which ceiling sets it, and how close the fastest such step comes."""
    ridge = res.ceilings["fma_GFLOPs"] / res.ceilings["copy_GBps"]
    lines = ["| group | FLOP / byte | bound by | roofline ms | best step | its ms | of roofline |",
             "|---|---:|---|---:|---|---:|---:|"]
    for group in res.groups():
        steps = [c for c in res.cases if c.group == group and c.is_step and "GFLOP" in c.amounts]
        forms = list(dict.fromkeys(round(c.amounts["GFLOP"], 3) for c in steps))
        for form in forms:
            best = min((c for c in steps if round(c.amounts["GFLOP"], 3) == form), key=lambda c: c.median_ms)
            bound_ms, unit = best.roofline_ms(res.ceilings)
            intensity = best.amounts["GFLOP"] / best.amounts["GB"]
            lines.append(f"| {group} | {intensity:.2f} | {'FMA' if unit == 'GFLOP' else 'copy'} | {bound_ms:.3f} | "
                         f"`{best.name}` | {best.median_ms:.3f} | {bound_ms / best.median_ms:.3f} |")
    lines.append("")
    lines.append(f"Ridge point: {ridge:.1f} FLOP per byte (FMA {res.ceilings['fma_GFLOPs'] / 1e3:.1f} TFLOP/s over copy "
                 f"{res.ceilings['copy_GBps']:.0f} GB/s). Below it a kernel is bound by bytes, above it by FMAs; the "
                 "roofline bound is the longer of bytes / copy bandwidth and flops / FMA rate.")
    return "\n".join(lines)


def default_tables(res: results_module.ChapterResults) -> dict:
    """What a chapter without its own tables.py gets: a table per group, the roofline where there
    are flops, and the traffic profile when there is one."""
    tables = {"steps": "\n\n".join(f"**{group}**\n\n{group_table(res, group)}" for group in res.groups())}
    if any("GFLOP" in c.amounts for c in res.cases):
        tables["roofline"] = roofline_table(res)
    if (res.folder / "traffic.csv").exists():
        tables["traffic"] = traffic_table(res.folder / "traffic.csv", "problem's array")
    return tables
