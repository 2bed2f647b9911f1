"""Markdown tables that any chapter's README can carry, from its results (results.py). A chapter
that wants other tables writes them in its own chapters/NN_name/tables.py, with these as parts."""
import pathlib

import results as results_module

UTILISATION = ("DRAM %", "shared %", "FMA pipe %", "XU pipe %", "issue %", "occupancy %")
UNIT_NAMES = {"DRAM %": "DRAM throughput", "shared %": "shared-memory wavefronts", "FMA pipe %": "the FMA pipe",
              "XU pipe %": "the multi-function unit (XU)", "issue %": "issue slots", "occupancy %": "achieved occupancy"}


def traffic_table(traffic_csv: pathlib.Path, array: str) -> str:
    """The profiler's traffic per kernel (profiling/traffic.py) as ratios to the problem's array."""
    rows = results_module.read_csv(traffic_csv)
    utilisation = [c for c in UTILISATION if c in rows[0]]
    lines = ["| kernel | L1 | L2 read | L2 write | HBM | ms | HBM GB/s | bank conflicts | " + " | ".join(utilisation) + " |",
             "|---|" + "---:|" * (7 + len(utilisation))]
    for r in rows:
        lines.append(f"| `{r['kernel']}` | {r.number('L1 ratio'):.2f} | {r.number('L2 read ratio'):.2f} | "
                     f"{r.number('L2 write ratio'):.2f} | {r.number('HBM ratio'):.2f} | {r.number('time ms'):.3f} | "
                     f"{r.number('achieved GB/s'):.0f} | {r.number('bank conflicts'):.3g} | "
                     + " | ".join(f"{r.number(c):.0f}" for c in utilisation) + " |")
    lines.append("")
    lines.append(f"Traffic as a ratio to the {array}: 1.00 is one pass over it. The last columns are % of each "
                 "unit's peak: " + ", ".join(UNIT_NAMES[c] for c in utilisation) + ".")
    return "\n".join(lines)


def units_of(cases: list) -> list:
    """Every unit the cases counted, bytes first, in order of appearance."""
    return list(dict.fromkeys(["GB"] + [u for c in cases for u in c.amounts]))


def group_table(res: results_module.ChapterResults, group: str) -> str:
    """One benchmark group's taught steps and peers (experiments_table has the rest): median and
    spread, every rate with its fraction of its ceiling, the fraction of the roofline bound where
    the group has work against a compute ceiling, and the speedup over the group's first step."""
    cases = [c for c in res.taught if c.group == group]
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


def binding(case: results_module.Case, ceilings: dict) -> tuple:
    """(fraction, "of copy") of the ceiling that binds the case's work: the roofline's."""
    bound_ms, unit = case.roofline_ms(ceilings)
    return bound_ms / case.median_ms, results_module.CEILINGS[unit][1]


def experiments_table(res: results_module.ChapterResults) -> str:
    """Every experiment (a variant its step file does not teach, timed with --all) beside the
    taught variant of its file in the same group: its time, the fraction of the ceiling that binds
    it, and its speed against the taught one."""
    if not res.experiments:
        return ("No experiment in this recording: the benchmark ran without --all "
                f"(its context says: {res.context.get('selection', 'the taught steps')}).")
    lines = ["| group | taught variant | experiment | median ms | of the binding ceiling | vs the taught variant |",
             "|---|---|---|---:|---:|---:|"]
    for c in res.experiments:
        taught = next((t for t in res.taught if t.group == c.group and t.is_step and t.name[:2] == c.name[:2]), None)
        fraction, ceiling = binding(c, res.ceilings)
        lines.append(f"| {c.group} | " + (f"`{taught.name}`" if taught else "—") + f" | `{c.name}` | "
                     f"{c.median_ms:.4f} | {fraction:.3f} {ceiling} | " +
                     (f"{taught.median_ms / c.median_ms:.2f}x" if taught else "") + " |")
    lines += ["", "Experiments are the knobs a step file was tried with, measured and kept; the lesson teaches the "
              "taught variant. `vs the taught variant` above 1 is faster than it."]
    return "\n".join(lines)


def glance_table(res: results_module.ChapterResults, group: str, lesson: dict) -> str:
    """The lesson's results at a glance: each taught step of `group`, in the lesson's order, with
    its idea and its prediction in the chapter's words (`lesson`: {"06": ("one pass over the
    planes", "2.5x step 05")}, by step number; the lesson's step sections name the taught
    variant), its measured median time and the fraction of the
    ceiling that binds it; "not recorded" where this GPU's recording lacks the step. A taught step
    of the recording that the lesson does not describe is an error: the table and the lesson must
    agree."""
    steps = {c.name[:2]: c for c in res.taught if c.group == group and c.is_step}
    undescribed = sorted(set(steps) - set(lesson))
    if undescribed:
        raise ValueError(f"the lesson's glance table does not describe step {', '.join(undescribed)} of {group}")
    lines = ["| step | idea | predicted | median ms | of the binding ceiling |", "|---|---|---|---:|---:|"]
    for number, (idea, predicted) in lesson.items():
        c = steps.get(number)
        if c is None:
            lines.append(f"| {number} | {idea} | {predicted} | not recorded | |")
            continue
        fraction, ceiling = binding(c, res.ceilings)
        lines.append(f"| {number} | {idea} | {predicted} | {c.median_ms:.4f} | {fraction:.2f} {ceiling} |")
    return "\n".join(lines)


def step_numbers(cases: list) -> str:
    """The steps' numbers, runs of consecutive ones joined: "00–11", "12", "03, 05–06"."""
    numbers = sorted({int(c.name[:2]) for c in cases})
    runs, start = [], numbers[0]
    for previous, number in zip(numbers, numbers[1:] + [None]):
        if number != previous + 1:
            runs.append(f"{start:02d}" if start == previous else f"{start:02d}–{previous:02d}")
            start = number
    return ", ".join(runs)


def roofline_table(res: results_module.ChapterResults) -> str:
    """Per group and per form of its work (taught steps that do different work for the same result,
    e.g. another formulation, get a row each): the work per byte of the minimum traffic, which
    ceiling binds (the roofline bound: the longest of bytes / copy bandwidth and each kind of
    work / its ceiling), and how close the fastest such step comes to it."""
    compute = [u for u in results_module.CEILINGS if u != "GB" and any(u in c.amounts for c in res.cases)]
    lines = ["| group | steps | " + " | ".join(f"{u[1:] if u.startswith('G') else u} / byte" for u in compute) +
             " | bound by | roofline ms | best step | its ms | of roofline |",
             "|---|---|" + "---:|" * len(compute) + "---|---:|---|---:|---:|"]
    for group in res.groups():
        steps = [c for c in res.taught if c.group == group and c.is_step and any(u in c.amounts for u in compute)]
        forms = []  # (work per byte, steps): within 1%, above the noise of amounts recovered from rates
        for c in steps:
            work = [c.amounts.get(u, 0.0) / c.amounts["GB"] for u in compute]
            same = next((members for key, members in forms
                         if all(abs(a - b) <= 0.01 * max(a, b) for a, b in zip(key, work))), None)
            if same is None:
                forms.append((work, [c]))
            else:
                same.append(c)
        for _, members in forms:
            best = min(members, key=lambda c: c.median_ms)
            bound_ms, unit = best.roofline_ms(res.ceilings)
            intensity = [f"{best.amounts[u] / best.amounts['GB']:.2f}" if u in best.amounts else "" for u in compute]
            lines.append(f"| {group} | {step_numbers(members)} | " + " | ".join(intensity) +
                         f" | {results_module.CEILINGS[unit][1][3:]} | {bound_ms:.3f} | `{best.name}` | "
                         f"{best.median_ms:.3f} | {bound_ms / best.median_ms:.3f} |")
    lines.append("")
    ridges = [f"{res.ceilings[results_module.CEILINGS[u][0]] / res.ceilings['copy_GBps']:.1f} "
              f"{u[1:] if u.startswith('G') else u} per byte ({results_module.CEILINGS[u][1][3:]} "
              f"{res.ceilings[results_module.CEILINGS[u][0]] / 1e3:.1f} T/s over copy {res.ceilings['copy_GBps']:.0f} GB/s)"
              for u in compute]
    lines.append("Ridge point: " + "; ".join(ridges) + ". Below it a step is bound by its bytes, above it by its "
                 "arithmetic; the roofline bound is the longest of the times each ceiling allows for the step's work.")
    return "\n".join(lines)


def default_tables(res: results_module.ChapterResults) -> dict:
    """What a chapter without its own tables.py gets: a table per group, the roofline where there
    are flops, and the traffic profile when there is one."""
    tables = {"steps": "\n\n".join(f"**{group}**\n\n{group_table(res, group)}" for group in res.groups())}
    if any(u in c.amounts for c in res.cases for u in results_module.CEILINGS if u != "GB"):
        tables["roofline"] = roofline_table(res)
    tables["experiments"] = experiments_table(res)
    if (res.folder / "traffic.csv").exists():
        tables["traffic"] = traffic_table(res.folder / "traffic.csv", "problem's array")
    return tables
