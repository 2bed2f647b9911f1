"""Chapter 4's tables (profiling/report.py). For the lesson (README.md): the bound, the results at a
glance (each taught step's idea and prediction beside what each GPU measured), the peers beside the
taught steps, and a small result table in each step's section, from the H200's profile and both
GPUs' benchmarks. For the record (NOTES.md): each size's steps against the rsqrt and FMA ceilings
with the PyTorch peers and the host reference, the roofline, the profile and the experiments."""

if __name__ == "__main__":  # profiling/report.py imports this file; on its own it is no program
    raise SystemExit("error: this file holds the README's tables: run profiling/report.py chapters/04_coulomb")

# The groups the course README's chapter table takes this chapter's best taught step from
# (profiling/course_table.py): the production size.
HEADLINE_GROUPS = r"^2048x2048"


import pathlib
import re

import report_tables
import results

PROFILE_EVALUATIONS = 2048 * 2048 * 4096  # profile.sh's problem: one chunk of constant memory


def size_table(res, group: str, peers: list, torch_version: str) -> str:
    cases = [c for c in res.taught if c.group == group] + [p for p in peers if p.group == group]
    first = next(c for c in cases if c.is_step)
    rsqrt, fma = res.ceilings["rsqrt_Gops"], res.ceilings["fma_GFLOPs"]
    lines = ["| step | median ms | min–max ms | G evaluations/s | of rsqrt ceiling | GFLOP/s | of FMA ceiling | vs 00 |",
             "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for c in cases:
        name = f"`{c.name}`" if c.is_step else f"*{c.name}* (peer, PyTorch {torch_version})"
        gflops = f"{c.rate('GFLOP'):.0f} | {c.rate('GFLOP') / fma:.3f}" if "GFLOP" in c.amounts else " | "
        lines.append(f"| {name} | {c.median_ms:.3f} | {c.min_ms:.3f}–{c.max_ms:.3f} | {c.rate('Grsqrt'):.0f} | "
                     f"{c.rate('Grsqrt') / rsqrt:.3f} | {gflops} | {first.median_ms / c.median_ms:.2f}x |")
    host = res.number(f"host_reference_Gevals_per_s {group}")
    best = max((c for c in cases if c.is_step), key=lambda c: c.rate("Grsqrt"))
    lines.append("")
    lines.append(f"{group} on the {res.context['gpu']}, median of {first.repetitions} runs. An evaluation is one atom's "
                 f"term at one point: one reciprocal square root and 5 flops. Ceilings measured by `course_ceilings`: "
                 f"rsqrt {rsqrt / 1e3:.2f} T/s, FMA {fma / 1e3:.1f} TFLOP/s. The float64 reference on one host core: "
                 f"{host:.3f} G evaluations/s; `{best.name}` is {best.rate('Grsqrt') / host:.0f}x that.")
    return "\n".join(lines)


def profile_table(traffic_csv) -> str:
    rows = results.read_csv(traffic_csv)
    lines = ["| kernel | ms | XU pipe % | FMA pipe % | issue % | occupancy % | instructions per evaluation |",
             "|---|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        lines.append(f"| `{r['kernel']}` | {float(r['time ms']):.3f} | {float(r['XU pipe %']):.0f} | "
                     f"{float(r['FMA pipe %']):.0f} | {float(r['issue %']):.0f} | {float(r['occupancy %']):.0f} | "
                     f"{float(r['warp instructions']) * 32 / PROFILE_EVALUATIONS:.2f} |")
    lines.append("")
    lines.append("Nsight Compute, 2048 x 2048 points and 4096 atoms (one launch per step), clocks as found. Pipes and "
                 "issue slots as % of their peak over the kernel's active cycles; instructions per evaluation count "
                 "every thread instruction, the per-atom work and the loop included.")
    return "\n".join(lines)


# --- the lesson's tables ----------------------------------------------------------------------------

LESSON_GPU = "h200"  # the GPU whose profile the lesson's step sections quote; the glance table has every GPU
DOCUMENT, PRODUCTION = "512x512, 10000 atoms", "2048x2048, 100000 atoms"
SIZE = re.compile(r"^(\d+)x(\d+), (\d+) atoms$")
# Each taught step's idea and its prediction, in the lesson's words (README.md's step sections).
LESSON = {
    "00": ("a thread per point; every atom a global load", "well under the ceiling, perhaps half"),
    "01": ("the atoms in constant memory, 4096 a launch", "a little faster than 00"),
    "02": ("8 points a thread: an atom's loads and dy² + dz² once per 8 evaluations",
           "about 4.5 instructions an evaluation: near the ceiling"),
    "03": ("the 8 points 16 apart: each store writes 16 neighbours", "almost no change"),
    "04": ("the root in one instruction, without rsqrtf's denormal handling",
           "about 4.5 instructions an evaluation; XU-bound"),
    "05": ("the atoms through shared tiles; 8 x 4 points a thread", "near the ceiling at 2048²"),
    "06": ("4 of each scheduler's 8 warps compute their roots on the FMA pipe",
           "1.2-1.25 at 2-3 FMA warps of 8 (missed: table below); 4 of 8 chosen after the sweep"),
    "07": ("the write-up's own moves: constant memory, 8 x 4 points a thread", "XU-bound at 2048², near 05"),
}
STEP_06 = "06_split_specialised_4_of_8_xu_priority"


def chapter_runs(res) -> list:
    """Every GPU's results of this chapter, the lesson's GPU first."""
    runs = results.load_chapter(pathlib.Path(res.folder).parents[1])
    return sorted(runs, key=lambda run: run.folder.name != LESSON_GPU)


def short_gpu(run) -> str:
    return run.label.split()[0]


def of_rsqrt(case, run) -> float:
    return case.rate("Grsqrt") / run.ceilings["rsqrt_Gops"]


def taught(run, group: str) -> dict:
    """{step number: the taught case} of one group."""
    return {c.name[:2]: c for c in run.taught if c.group == group and c.is_step}


def case_named(run, group: str, name: str):
    return next(c for c in run.cases if c.group == group and c.name == name)


def bound(res) -> str:
    """The bound, derived: an evaluation's root, its FMA-pipe instructions and the bytes of each size,
    and the time each GPU's measured ceilings allow for them. The FMA pipe is counted in lane
    instructions: the `dx` add takes a lane-cycle as an FMA does, so the FLOP ceiling over 2."""
    runs = chapter_runs(res)
    sizes = []
    for group in (DOCUMENT, PRODUCTION):
        nx, ny, atoms = (int(n) for n in SIZE.match(group).groups())
        sizes.append((f"{nx}² x {atoms:,}", nx * ny * atoms, 16 * atoms + 4 * nx * ny))
    rows = [("reciprocal square roots", "1", "rsqrt_Gops", lambda evaluations, _: evaluations),
            ("FMA-pipe instructions: the `dx` add and two FMAs", "3", "fma_GFLOPs", lambda evaluations, _: 3 * evaluations),
            ("bytes: 16 an atom, 4 a point", "—", "copy_GBps", lambda _, nbytes: nbytes)]
    lines = ["| what | per evaluation | " + " | ".join(
        f"{short_gpu(run)}: ceiling | " + " | ".join(f"{short_gpu(run)}: ms at {label}" for label, _, _ in sizes)
        for run in runs) + " |",
             "|---|---:|" + "---:|" * (len(runs) * (1 + len(sizes)))]
    units = {"rsqrt_Gops": "T roots/s", "fma_GFLOPs": "T instructions/s", "copy_GBps": "TB/s"}
    per_unit = {"fma_GFLOPs": 0.5}  # an FMA is 2 flops in one lane-cycle
    for what, per_evaluation, ceiling, amount in rows:
        cells = [what, per_evaluation]
        for run in runs:
            rate = run.ceilings[ceiling] * 1e9 * per_unit.get(ceiling, 1)  # per second
            cells.append(f"{rate / 1e12:.2f} {units[ceiling]}")
            cells += [f"{amount(evaluations, nbytes) / rate * 1e3:.3g}" for _, evaluations, nbytes in sizes]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def glance(res) -> str:
    """The results at a glance: each taught step's idea and prediction, then on each GPU its time at
    the production size and its fraction of the rsqrt ceiling at both sizes."""
    runs = chapter_runs(res)
    lines = ["| step | idea | predicted | " + " | ".join(
        f"{short_gpu(run)} ms, 2048² | {short_gpu(run)}, of rsqrt, 2048² | {short_gpu(run)}, of rsqrt, 512²" for run in runs) + " |",
             "|---|---|---|" + "---:|---:|---:|" * len(runs)]
    per_run = [(taught(run, PRODUCTION), taught(run, DOCUMENT)) for run in runs]
    for number, (idea, predicted) in LESSON.items():
        cells = [number, idea, predicted]
        for run, (production, document) in zip(runs, per_run):
            if number not in production:
                cells += ["not recorded", "", ""]
                continue
            cells += [f"{production[number].median_ms:.1f}", f"{of_rsqrt(production[number], run):.2f}",
                      f"{of_rsqrt(document[number], run):.2f}" if number in document else ""]
        lines.append("| " + " | ".join(cells) + " |")
    undescribed = sorted(set().union(*(set(p) for p, _ in per_run)) - set(LESSON))
    if undescribed:
        raise ValueError(f"the lesson's glance table does not describe step {', '.join(undescribed)}")
    return "\n".join(lines)


def times(slower_ms: float, faster_ms: float) -> str:
    return f"{slower_ms / faster_ms:.1f}x faster" if slower_ms >= faster_ms else f"{faster_ms / slower_ms:.1f}x slower"


PEER_STEPS = ("04", "05", "06", "07")  # the taught steps set beside the peers
STRONGEST_PEER = "torch.compile max-autotune"


def peers(res) -> str:
    """The document's size, where the peers ran: each peer's and the taught steps 04-07's time and
    fraction of the rsqrt ceiling on each GPU, with how step 06 and the strongest peer compare."""
    runs = chapter_runs(res)
    per_run = []
    for run in runs:
        _, run_peers = results.load_peers(run.folder / "torch.json")
        steps = taught(run, DOCUMENT)
        rows = {p.name: p for p in run_peers if p.group == DOCUMENT}
        rows.update({f"this chapter's step {n}": steps[n] for n in PEER_STEPS})
        per_run.append(rows)
    lines = ["| alternative | " + " | ".join(
        f"{short_gpu(run)} ms | {short_gpu(run)}, of rsqrt | {short_gpu(run)}: step 06 is | {short_gpu(run)}: max-autotune is"
        for run in runs) + " |",
             "|---|" + "---:|---:|---:|---:|" * len(runs)]
    for name in per_run[0]:
        cells = [name]
        for run, rows in zip(runs, per_run):
            case, step_06, strongest = rows[name], rows["this chapter's step 06"], rows[STRONGEST_PEER]
            cells += [f"{case.median_ms:.3g}", f"{of_rsqrt(case, run):.2f}",
                      "" if case is step_06 else times(case.median_ms, step_06.median_ms),
                      "" if case is strongest else times(case.median_ms, strongest.median_ms)]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def speedup(res) -> str:
    """How many times as fast as step 00 the taught step 06 is, each GPU and size."""
    runs = chapter_runs(res)
    lines = ["| | " + " | ".join(f"{short_gpu(run)}, {size}" for run in runs for size in ("2048²", "512²")) + " |",
             "|---|" + "---:|" * (2 * len(runs))]
    cells = ["step 06 over step 00"]
    for run in runs:
        for group in (PRODUCTION, DOCUMENT):
            steps = taught(run, group)
            cells.append(f"{steps['00'].median_ms / steps['06'].median_ms:.2f}x")
    lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def lesson_profile(res) -> dict:
    """{kernel: row} of the lesson GPU's traffic.csv (profile.sh: 2048 x 2048 points, 4096 atoms)."""
    return {r["kernel"]: r for r in results.read_csv(res.folder / "traffic.csv")}


def profile_result(res, kernels: list, quantities: list) -> str:
    """A step's result from the profile: kernels are (column heading, kernel), quantities (row
    heading, function of the kernel's traffic row -> text)."""
    rows = lesson_profile(res)
    lines = ["| | " + " | ".join(heading for heading, _ in kernels) + " |", "|---|" + "---:|" * len(kernels)]
    for heading, value in quantities:
        lines.append(f"| {heading} | " + " | ".join(value(rows[kernel]) if kernel in rows else "—" for _, kernel in kernels) + " |")
    return "\n".join(lines)


def roles_result(res) -> str:
    """Step 06's scheduler finding at the production size, on each GPU: the fraction of the rsqrt
    ceiling with the FMA role given to the first blocks to arrive (the favoured warp slots), and with
    the XU warps in the favoured slots, for 2, 3 and 4 FMA warps of a scheduler's 8."""
    runs = chapter_runs(res)
    lines = ["| FMA warps of a scheduler's 8 | " + " | ".join(
        f"{short_gpu(run)}: FMA warps favoured | {short_gpu(run)}: XU warps favoured" for run in runs) + " |",
             "|---:|" + "---:|---:|" * len(runs)]
    for k in (2, 3, 4):
        cells = [str(k)]
        for run in runs:
            names = {c.name: c for c in run.cases if c.group == PRODUCTION}
            first = names.get(f"06_split_specialised_{k}_of_8")
            favoured = names[f"06_split_specialised_{k}_of_8_xu_priority"]
            cells += [f"{of_rsqrt(first, run):.3f}" if first else "not built", f"{of_rsqrt(favoured, run):.3f}"]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def instructions(row) -> str:
    return f"{float(row['warp instructions']) * 32 / PROFILE_EVALUATIONS:.2f}"


def percent(column: str):
    return lambda row: f"{float(row[column]):.0f}%"


def step_results(res) -> dict:
    """The small result table of each step section that quotes the profile (the lesson's GPU)."""
    per_evaluation = ("instructions an evaluation", instructions)
    xu, fma, issue = ("XU busy", percent("XU pipe %")), ("FMA pipe busy", percent("FMA pipe %")), ("issue slots busy", percent("issue %"))
    ms = ("kernel ms (profile)", lambda row: f"{float(row['time ms']):.2f}")
    warps = ("warps resident", percent("occupancy %"))
    # this one launch's rate (4096 atoms), which differs from the benchmark's at 100,000
    launch = ("of the rsqrt ceiling, this launch",
              lambda row: f"{PROFILE_EVALUATIONS / (float(row['time ms']) * 1e-3) / 1e9 / res.ceilings['rsqrt_Gops']:.2f}")
    return {
        "result_01": profile_result(res, [("step 00", "naive_kernel"), ("step 01", "constant_memory_kernel")],
                                    [ms, per_evaluation, issue]),
        "result_02": profile_result(res, [("step 00", "naive_kernel"), ("step 02", "coarsening_kernel")],
                                    [per_evaluation, xu, launch]),
        "result_04": profile_result(res, [("step 03", "coalesced_coarsening_kernel"), ("step 04", "fast_rsqrt_kernel")],
                                    [per_evaluation, xu, issue, launch]),
        "result_05": profile_result(res, [("step 04", "fast_rsqrt_kernel"), ("step 05", "shared_atoms_kernel<8, 4>")],
                                    [per_evaluation, xu, issue, launch]),
        "result_06": profile_result(res, [("step 05", "shared_atoms_kernel<8, 4>"), ("step 06", "specialised_kernel<4, 8, 1, 2>")],
                                    [xu, fma, issue, launch]),
        "result_07": profile_result(res, [("step 05", "shared_atoms_kernel<8, 4>"),
                                          ("step 07", "constant_coarsening_kernel<8, 4, 0>")], [per_evaluation, xu, warps, launch]),
        "roles_06": roles_result(res),
    }


def lesson_tables(res) -> dict:
    """The lesson's tables, once (from the lesson's GPU, with every GPU's figures where they differ)."""
    if res.folder.name != LESSON_GPU:
        return {}
    return {"bound": bound(res), "glance": glance(res), "peers": peers(res), "speedup": speedup(res), **step_results(res)}


def tables(res) -> dict:
    context, peer_cases = results.load_peers(res.folder / "torch.json")
    groups = res.groups()
    return {
        "document": size_table(res, groups[0], peer_cases, context["torch"]),
        "production": size_table(res, groups[1], peer_cases, context["torch"]),
        "roofline": report_tables.roofline_table(res),
        "profile": profile_table(res.folder / "traffic.csv"),
        "experiments": report_tables.experiments_table(res),
        **lesson_tables(res),
    }
