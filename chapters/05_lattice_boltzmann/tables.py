"""Chapter 5's tables (profiling/report.py). For the lesson (README.md): the bound, the taught
steps at a glance on each GPU, the comparison with PyTorch, what 16-bit storage keeps of the flow
against the channel's width, and a small result table in some step sections, from the H200's
profile. For the record (NOTES.md): every size's steps with the PyTorch peers against the copy
ceiling, the targets, the paper's GPU-against-CPU comparison with the CPU schemes on one core and
on all, the profiled traffic and instructions per kernel, the experiments, and what each step's
storage keeps of the physics (results/flow.csv: the Poiseuille start-up, bench_lbm --flow)."""

if __name__ == "__main__":  # profiling/report.py imports this file; on its own it is no program
    raise SystemExit("error: this file holds the README's tables: run profiling/report.py chapters/05_lattice_boltzmann")

# The groups the course README's chapter table takes this chapter's best taught step from
# (profiling/course_table.py): the largest channel.
HEADLINE_GROUPS = r"^8192x8192"

import csv
import math
import pathlib

import cli
import report_tables
import results

# Bytes steps 00-03 move per cell and time step, as their headers count them (their kernels pass
# the state through memory more than once); every other case counted its own bytes in the
# benchmark, the problem's fewest: 72 per update in float32, 36 in 16 bits.
STEP_BYTES = {"00": 276, "01": 276, "02": 204, "03": 204}


def bytes_per_update(case) -> int:
    if case.is_step and case.name[:2] in STEP_BYTES:
        return STEP_BYTES[case.name[:2]]
    return round(case.amounts["GB"] * 1e3 / case.amounts["MLUP"])


def size_table(res, group: str, peers: list, torch_version: str) -> str:
    cases = [c for c in res.taught if c.group == group] + [p for p in peers if p.group == group]
    copy = res.ceilings["copy_GBps"]
    first = next(c for c in cases if c.is_step)
    lines = ["| step | median ms | MLUPS | bytes per update | GB/s at those bytes | of copy | vs 00 |",
             "|---|---:|---:|---:|---:|---:|---:|"]
    for c in cases:
        if c.is_step:
            name = f"`{c.name}`"
        elif c in peers:
            name = f"*{c.name}* (peer, PyTorch {torch_version})"
        else:
            name = f"*{c.name}* (the fused steps' loads and stores, no arithmetic)"
        per_update = bytes_per_update(c)
        gbps = c.rate("MLUP") * 1e6 * per_update / 1e9
        lines.append(f"| {name} | {c.median_ms:.3f} | {c.rate('MLUP'):,.0f} | {per_update} | {gbps:,.0f} | "
                     f"{gbps / copy:.3f} | {first.median_ms / c.median_ms:.2f}x |")
    return "\n".join(lines)


def sizes_tables(res, peers, torch_version) -> str:
    parts = []
    for group in res.groups():
        first = next(c for c in res.cases if c.group == group)
        nx, ny = (int(n) for n in group.split("x"))
        steps = round(first.amounts["MLUP"] * 1e6 / (nx * ny))
        parts.append(f"**{group}** ({steps} time steps a run, median of {first.repetitions} runs)\n\n"
                     + size_table(res, group, peers, torch_version))
    return "\n\n".join(parts)


def best(cases, group, storage_16: bool, which=lambda case: True):
    steps = [c for c in cases if c.group == group and c.is_step and (bytes_per_update(c) == 36) == storage_16 and which(c)]
    return max(steps, key=lambda c: c.rate("MLUP"))


def keeps_the_flow(case) -> bool:
    """fp16 rounded stochastically, the storage that keeps the profile within 1% of the parabola at
    every width measured (the width tables under "What the storage costs"); to nearest no 16-bit
    storage does, and bf16 stochastic keeps it within 2%."""
    return "stochastic_fp16" in case.name


def targets_table(res, peers) -> str:
    """Per size, like against like: the best float32 step against the copy ceiling and the fastest
    float32 PyTorch form; the best 16-bit step that keeps the flow against the best float32 step and
    PyTorch's 16-bit form; the fastest 16-bit step rounding to nearest; and the best step against
    eager PyTorch, the peer the issue names."""
    copy = res.ceilings["copy_GBps"]
    lines = ["| size | best float32 step | MLUPS | of copy (72 B) | vs fastest float32 PyTorch | best 16-bit step keeping the flow | "
             "MLUPS | vs best float32 | vs PyTorch fp16 storage | fastest 16-bit step rounding to nearest, vs best float32 | "
             "best step vs PyTorch eager |",
             "|---|---|---:|---:|---:|---|---:|---:|---:|---|---:|"]
    for group in res.groups():
        f32 = best(res.taught, group, False)
        kept = best(res.taught, group, True, keeps_the_flow)
        nearest = best(res.taught, group, True, lambda case: "stochastic" not in case.name)
        torch32 = [p for p in peers if p.group == group and bytes_per_update(p) == 72]
        torch16 = [p for p in peers if p.group == group and bytes_per_update(p) == 36]
        eager = next((p for p in torch32 if "eager" in p.name), None)
        fastest32 = max(torch32, key=lambda p: p.rate("MLUP"), default=None)
        fastest16 = max(torch16, key=lambda p: p.rate("MLUP"), default=None)
        ratio = lambda step, peer: f"{step.rate('MLUP') / peer.rate('MLUP'):.2f}x" if peer else ""  # noqa: E731
        overall = max((f32, kept, nearest), key=lambda c: c.rate("MLUP"))
        lines.append(f"| {group} | `{f32.name}` | {f32.rate('MLUP'):,.0f} | {f32.rate('MLUP') * 72e6 / 1e9 / copy:.3f} | "
                     f"{ratio(f32, fastest32)} | `{kept.name}` | {kept.rate('MLUP'):,.0f} | "
                     f"{kept.rate('MLUP') / f32.rate('MLUP'):.2f}x | {ratio(kept, fastest16)} | "
                     f"`{nearest.name}` {nearest.rate('MLUP') / f32.rate('MLUP'):.2f}x | {ratio(overall, eager)} |")
    lines.append("")
    lines.append(f"Copy ceiling measured by `course_ceilings`: {copy:,.0f} GB/s (bytes read + written), "
                 f"{copy * 1e9 / 72 / 1e6:,.0f} MLUPS at 72 bytes an update. The fastest float32 PyTorch form is "
                 "the step written plane by plane through `torch.compile`, in a CUDA graph or not, whichever is faster "
                 "at that size; PyTorch's 16-bit form is that step storing `f - w` in float16, rounded to nearest, in a "
                 "CUDA graph. Keeping the flow: fp16 with stochastic rounding (steps 10, 12, 13), within 1% of the "
                 "parabola at every width measured; rounded to nearest, no 16-bit storage keeps it at any width "
                 "(\"What the storage costs\"). Targets (issue): the best float32 step at 0.95 of copy at 8192² and "
                 "0.90 from 2048² up; the 16-bit step at 1.85x the best float32, in a storage that keeps the profile "
                 "within 1% at every width; the best step at 25x the PyTorch peer. Below 2048² a state fits in the L2 "
                 "cache (one float32 state is 37.7 MB at 1024², the L2 60 MiB on the H200 and 50 MiB on the H100), so "
                 "\"of copy\" there can pass 1.")
    return "\n".join(lines)


def cpu_table(res) -> str:
    """The paper's comparison: its CPU schemes on the host against the GPU at the same size."""
    entries = {key.split(" ", 1)[1]: float(value) for key, value in res.context.items() if key.startswith("cpu_MLUPS ")}
    size = next(iter(entries)).rsplit(" ", 1)[1]
    gpu = [c for c in res.taught if c.group == size and c.is_step]
    paper, fastest = gpu[0], max(gpu, key=lambda c: c.rate("MLUP"))
    lines = ["| CPU scheme | threads | MLUPS | `00_paper` on the GPU is | the fastest step is |",
             "|---|---:|---:|---:|---:|"]
    for key, rate in entries.items():
        addressing, threads = key.split(" ")[0], key.split(" ")[1]
        lines.append(f"| {addressing} addressing | {threads} | {rate:,.1f} | {paper.rate('MLUP') / rate:,.0f}x faster | "
                     f"{fastest.rate('MLUP') / rate:,.0f}x faster (`{fastest.name}`) |")
    lines.append("")
    lines.append(f"{size} channel, float32, the host of the {res.context['gpu']} "
                 f"({res.context['host_cpu']}); the paper's four loops as `cpu_schemes.cpp` writes them.")
    return "\n".join(lines)


def accuracy_table(flow_csv) -> str:
    """Per step, at the last recorded time: the profile's relative L2 distance from the parabola
    and the centre velocity against the parabola's."""
    rows = results.read_csv(flow_csv)
    last = max(int(r["time"]) for r in rows)
    steps = list(dict.fromkeys(r["step"] for r in rows))
    lines = ["| step | profile's relative L2 distance from the parabola | centre velocity | of the parabola's |",
             "|---|---:|---:|---:|"]
    for step in steps:
        profile = [r for r in rows if r["step"] == step and int(r["time"]) == last]
        distance = math.sqrt(sum((float(r["ux"]) - float(r["analytic"])) ** 2 for r in profile) /
                             sum(float(r["analytic"]) ** 2 for r in profile))
        centre = max(profile, key=lambda r: float(r["analytic"]))
        lines.append(f"| `{step}` | {100 * distance:.2f}% | {float(centre['ux']):.5f} | "
                     f"{float(centre['ux']) / float(centre['analytic']):.3f} |")
    lines.append("")
    lines.append(f"The tests' channel (4 x 24 cells, tau 0.8, centre velocity 0.05 at steady state) after {last} "
                 "time steps from rest, on the GPU (`bench_lbm --flow`); the parabola is the steady profile for walls "
                 "half a cell outside the first and last rows.")
    return "\n".join(lines)


PROFILE_CELLS = 4096 * 4096  # profile.sh's channel


def instructions_table(traffic_csv) -> str:
    """The one-kernel steps and the copies from the profile: instructions issued per cell update
    beside the units that could be the limit."""
    rows = [r for r in results.read_csv(traffic_csv)
            if r["kernel"].startswith(("fused", "aa_", "lean", "fma", "pairs", "stochastic", "in_place", "quads", "stream_copy"))]
    lines = ["| kernel | ms | instructions per cell | issue % | DRAM % | occupancy % |", "|---|---:|---:|---:|---:|---:|"]
    for r in rows:
        lines.append(f"| `{r['kernel']}` | {float(r['time ms']):.3f} | {per_cell(r):.0f} | {float(r['issue %']):.0f} | "
                     f"{float(r['DRAM %']):.0f} | {float(r['occupancy %']):.0f} |")
    lines.append("")
    lines.append("Nsight Compute, one time step on 4096 x 4096 cells; instructions per cell count every thread "
                 "instruction (a warp instruction is 32, one per thread; a thread of step 09, of step 13 or of the paired "
                 "and quad copies covers two or four cells).")
    return "\n".join(lines)


# ---- The lesson's tables ----------------------------------------------------------------------

LESSON_GPU = "h200"  # the GPU whose profile and accuracy runs the lesson's step sections quote
GLANCE_GROUP = "8192x8192"
FLOPS_PER_UPDATE = 150  # lbm.hpp's formulas: the moments, nine equilibria, nine relaxations (about)
# Each taught step's idea and prediction, in the lesson's words, by step number.
LESSON = {
    "00": ("the paper's four kernels, a thread per distribution", "at most 0.26 of copy, less"),
    "01": ("the same through the paper's tables of pointers", "no faster than 00"),
    "02": ("two buffers swapped: the copy kernel goes", "1.35x step 00"),
    "03": ("one array per direction, a thread per cell", "10-20% over 02"),
    "04": ("one kernel: pull, collide, write once", "2.8x step 03, 0.90-0.95 of copy"),
    "05": ("one buffer, the AA pattern's two kinds of step", "step 04's rate, half the memory"),
    "06": ("store f - w in fp16, compute in float32", "up to 2x step 04"),
    "07": ("neighbours by compares, 32-bit offsets", "a third fewer instructions: up to 1.9x step 04"),
    "08": ("the collision as multiply-adds", "faster by the issue slots saved"),
    "09": ("two cells a thread, 4-byte words, a shared tile", "1.8-1.9x the float32 steps"),
    "10": ("round each stored value stochastically", "0.85-0.95x step 08, the flow kept"),
    "11": ("step 05 with step 07's lean addressing", "1.08x step 05"),
    "12": ("in place and fp16 rounded stochastically: 18 B a cell", "0.97x step 10"),
    "13": ("four cells a thread in 8-byte words, no barrier", "fewer instructions a cell: faster than two a thread"),
}
# The most of the copy a step's own bytes allow (72 over the bytes it moves; 1 from step 04 on).
STEP_BOUND = {"00": "0.26", "01": "0.26", "02": "0.35", "03": "0.35"}


def chapter_runs(res) -> list:
    """Every GPU's results of this chapter, the lesson's GPU first."""
    runs = results.load_chapter(pathlib.Path(res.folder).parents[1])
    return sorted(runs, key=lambda run: run.folder.name != LESSON_GPU)


def short_gpu(run) -> str:
    return run.label.split()[0]


def of_copy(case, copy_gbps) -> float:
    """The case's rate at the problem's fewest bytes (72 or 36 an update) over the copy."""
    return case.rate("MLUP") * case.amounts["GB"] / case.amounts["MLUP"] / copy_gbps  # MLUP/s x GB/MLUP = GB/s


SCHEDULERS_PER_SM = 4  # Hopper: four warp schedulers a multiprocessor, each issuing one warp instruction a cycle


def issue_rate(run) -> float:
    """Thread instructions a second the GPU can issue at most: multiprocessors x schedulers x the
    clock the recording's context reports x 32 threads a warp instruction."""
    return (int(run.context["multiprocessors"]) * SCHEDULERS_PER_SM * float(run.context["sm_clock_max_MHz"]) * 1e6 * 32)


def per_cell(row) -> float:
    """Thread instructions a cell update from one kernel's profile row."""
    return float(row["warp instructions"]) * 32 / PROFILE_CELLS


def profile_rows(run) -> dict:
    return {r["kernel"]: r for r in results.read_csv(run.folder / "traffic.csv")}


def bound(res) -> str:
    """What an update must move and compute, and the MLUPS each GPU's measured ceilings allow; the
    issue row uses step 06's profiled instructions a cell, where the instructions first bind."""
    runs = chapter_runs(res)
    rows = [("bytes, float32: 9 values read, 9 written", "72 B", 72, "copy_GBps"),
            ("bytes, 16 bits: the same values in 2 bytes", "36 B", 36, "copy_GBps"),
            ("bytes, steps 02-03: three kernels", "204 B", 204, "copy_GBps"),
            ("bytes, steps 00-01: four kernels", "276 B", 276, "copy_GBps"),
            (f"arithmetic: about {FLOPS_PER_UPDATE} flops", f"{FLOPS_PER_UPDATE} FLOP", FLOPS_PER_UPDATE, "fma_GFLOPs")]
    lines = ["| what | per update | " + " | ".join(f"{short_gpu(run)}: ceiling | {short_gpu(run)}: MLUPS at most" for run in runs) + " |",
             "|---|---:|" + "---:|---:|" * len(runs)]
    for what, per_update, amount, ceiling in rows:
        cells = [what, per_update]
        for run in runs:
            rate = run.ceilings[ceiling]
            unit = "TB/s" if ceiling == "copy_GBps" else "TFLOP/s"
            cells += [f"{rate / 1e3:.2f} {unit}", f"{rate * 1e3 / amount:,.0f}"]
        lines.append("| " + " | ".join(cells) + " |")
    count = round(per_cell(profile_rows(runs[0])[ISSUE_BOUND_KERNEL]))
    cells = [f"instructions: step 06's {count} a cell (its profile)", f"{count} instr."]
    for run in runs:
        cells += [f"{issue_rate(run) / 1e12:.1f} T instr./s",
                  f"{issue_rate(run) / per_cell(profile_rows(run)[ISSUE_BOUND_KERNEL]) / 1e6:,.0f}"]
    lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


ISSUE_BOUND_KERNEL = "fused_16bit_kernel<Fp16>"
# The steps whose instructions the lesson sets against the issue rate: (step, case at 8192^2, kernel).
ISSUE_STEPS = [("04", "04_fused", "fused_kernel"), ("06", "06_fp16_storage", "fused_16bit_kernel<Fp16>"),
               ("07", "07_lean_fp16", "lean_kernel<Fp16>"), ("08", "08_fma_fp16", "fma_kernel<Fp16>"),
               ("10", "10_stochastic_fp16", "stochastic_kernel<Fp16Bits>"), ("13", "13_quads_stochastic_fp16", "quads_stochastic_kernel")]


def issue_table(res) -> str:
    """Each step's issue ceiling (the issue rate over its profiled instructions a cell, 4096^2)
    beside its bytes' ceiling and its measured rate at 8192^2, on the lesson's GPU."""
    rows = profile_rows(res)
    cases = {c.name: c for c in res.taught if c.group == GLANCE_GROUP}
    copy = res.ceilings["copy_GBps"]
    lines = ["| step | instructions a cell | issue ceiling, MLUPS | bytes' ceiling, MLUPS | measured MLUPS | of the lower ceiling |",
             "|---|---:|---:|---:|---:|---:|"]
    for number, name, kernel in ISSUE_STEPS:
        count = per_cell(rows[kernel])
        by_issue = issue_rate(res) / count / 1e6
        by_bytes = copy * 1e3 / bytes_per_update(cases[name])
        measured = cases[name].rate("MLUP")
        lines.append(f"| {number} | {count:.0f} | {by_issue:,.0f} | {by_bytes:,.0f} | {measured:,.0f} | "
                     f"{measured / min(by_issue, by_bytes):.2f} |")
    return "\n".join(lines)


def headline(res) -> str:
    """The chapter in a few numbers at 8192^2, on each GPU: the best float32 step and step 13, their
    time a time step, fraction of the copy and speed-up over step 00."""
    runs = chapter_runs(res)
    lines = ["| at 8192² | " + " | ".join(f"{short_gpu(run)}: ms a time step | {short_gpu(run)}: MLUPS | "
                                          f"{short_gpu(run)}: of copy | {short_gpu(run)}: vs step 00" for run in runs) + " |",
             "|---|" + "---:|---:|---:|---:|" * len(runs)]
    for label, name in (("step 00, the paper's scheme", "00_paper"), ("step 04, best float32", "04_fused"),
                        ("step 13, fp16 rounded stochastically", "13_quads_stochastic_fp16")):
        cells = [label]
        for run in runs:
            cases = {c.name: c for c in run.taught if c.group == GLANCE_GROUP}
            c, first = cases[name], cases["00_paper"]
            steps = c.amounts["MLUP"] * 1e6 / (8192 * 8192)
            cells += [f"{c.median_ms / steps:.3f}", f"{c.rate('MLUP'):,.0f}", f"{of_copy(c, run.ceilings['copy_GBps']):.2f}",
                      f"{c.rate('MLUP') / first.rate('MLUP'):.1f}x"]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def glance(res) -> str:
    """Each taught step at 8192^2: its idea and prediction, then each GPU's MLUPS and fraction of the
    copy at the problem's fewest bytes, beside the most of the copy the step's own bytes allow."""
    runs = chapter_runs(res)
    header = ("| step | idea | predicted | its bound, of copy | "
              + " | ".join(f"{short_gpu(run)} MLUPS | {short_gpu(run)}, of copy" for run in runs) + " |")
    lines = [header, "|---|---|---|---:|" + "---:|---:|" * len(runs)]
    steps = [{c.name[:2]: c for c in run.taught if c.group == GLANCE_GROUP and c.is_step} for run in runs]
    undescribed = sorted(set().union(*steps) - set(LESSON))
    if undescribed:
        raise ValueError(f"the lesson's glance table does not describe step {', '.join(undescribed)}")
    for number, (idea, predicted) in LESSON.items():
        cells = [number, idea, predicted, STEP_BOUND.get(number, "1")]
        for run, cases in zip(runs, steps):
            c = cases.get(number)
            cells += [f"{c.rate('MLUP'):,.0f}", f"{of_copy(c, run.ceilings['copy_GBps']):.2f}"] if c else ["not recorded", ""]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


# Like against like at 8192^2: (row, case name, storage and rounding).
PEER_ROWS = [
    ("PyTorch eager, the plain way", "torch eager, roll + where", "float32"),
    ("best float32 step (04)", "04_fused", "float32"),
    ("PyTorch compiled plane by plane, in a CUDA graph", "torch.compile, plane by plane, CUDA graph", "float32"),
    ("best step rounding to nearest (08)", "08_fma_fp16", "fp16, to nearest"),
    ("PyTorch compiled, storing fp16", "torch.compile, plane by plane, fp16 storage, CUDA graph", "fp16, to nearest"),
    ("step 13", "13_quads_stochastic_fp16", "fp16, stochastic"),
]


def peers_table(res) -> str:
    """The steps beside the strongest PyTorch a user can write, at 8192^2."""
    _, peers = results.load_peers(res.folder / "torch.json")
    cases = {c.name: c for c in list(res.taught) + peers if c.group == GLANCE_GROUP}
    lines = ["| at 8192² | storage | MLUPS |", "|---|---|---:|"]
    for row, name, storage in PEER_ROWS:
        lines.append(f"| {row} | {storage} | {cases[name].rate('MLUP'):,.0f} |")
    return "\n".join(lines)


# The width run the lesson quotes: bench_lbm --accuracy on the H200 (results/h200/accuracy.csv,
# added to the H200's folder after the recording; its README says at which commit). One run: runs of
# the same storage differ by a few tenths of a percent (NOTES.md).
WIDTH_ROWS = [("float64 reference", "reference"),
              ("float32 (step 04)", "04_fused"),
              ("fp16 to nearest (step 08)", "08_fma_fp16"),
              ("bf16 to nearest (step 08)", "08_fma_bf16"),
              ("fp16 stochastic (steps 10, 12, 13)", "10_stochastic_fp16")]


def width_table(res) -> str:
    """The steady profile's relative L2 distance from the parabola against the channel's width."""
    text = cli.read_text(res.folder / "accuracy.csv", "bench_lbm --accuracy's CSV")
    lines = [line for line in text.splitlines() if not line.startswith("#")]  # its first line says how it was made
    rows = {(r["step"], int(r["width"])): float(r["profile_error"]) for r in csv.DictReader(lines)}
    widths = sorted({w for (_, w) in rows})
    table = ["| storage | " + " | ".join(f"{w} cells" for w in widths) + " |", "|---|" + "---:|" * len(widths)]
    for label, step in WIDTH_ROWS:
        cells = [f"{100 * rows[(step, w)]:.2g}%" if (step, w) in rows else "" for w in widths]
        table.append(f"| {label} | " + " | ".join(cells) + " |")
    return "\n".join(table)


def profile_table(res, kernels: list, quantities: list) -> str:
    """A step's result from the lesson GPU's profile (4096^2, one time step). kernels: (column
    heading, [kernel names], summed); quantities: (row heading, function of [traffic rows] -> text)."""
    rows = {r["kernel"]: r for r in results.read_csv(res.folder / "traffic.csv")}
    lines = ["| | " + " | ".join(heading for heading, _ in kernels) + " |", "|---|" + "---:|" * len(kernels)]
    for heading, value in quantities:
        lines.append(f"| {heading} | " + " | ".join(value([rows[k] for k in names]) for _, names in kernels) + " |")
    return "\n".join(lines)


def step_results(res) -> dict:
    """The small result table of each step section that quotes the profile (the lesson's GPU)."""
    total = lambda rows, column: sum(r.number(column) for r in rows)  # noqa: E731
    ms = ("kernel ms a time step", lambda rows: f"{total(rows, 'time ms'):.3f}")
    hbm = ("DRAM traffic (states)", lambda rows: f"{total(rows, 'HBM ratio'):.2f}")
    l2w = ("L2 writes (states)", lambda rows: f"{total(rows, 'L2 write ratio'):.2f}")
    instructions = ("instructions a cell", lambda rows: f"{sum(per_cell(r) for r in rows):.0f}")
    issue = ("issue slots busy", lambda rows: f"{total(rows, 'issue %'):.0f}%")
    dram = ("DRAM busy", lambda rows: f"{total(rows, 'DRAM %'):.0f}%")
    warps = ("warps resident", lambda rows: f"{total(rows, 'occupancy %'):.0f}%")
    return {
        "result_04": profile_table(res, [("step 03's three kernels", ["soa_stream_kernel", "soa_calculate_kernel", "soa_collide_kernel"]),
                                         ("step 04", ["fused_kernel"])], [ms, hbm]),
        "result_05": profile_table(res, [("step 04", ["fused_kernel"]), ("05, pulling step", ["aa_pulling_kernel"]),
                                         ("05, local step", ["aa_local_kernel"])], [ms, l2w, instructions]),
        "result_06": profile_table(res, [("step 04, float32", ["fused_kernel"]), ("step 06, fp16", ["fused_16bit_kernel<Fp16>"])],
                                   [instructions, issue, dram]),
        "result_07": profile_table(res, [("step 06", ["fused_16bit_kernel<Fp16>"]), ("step 07", ["lean_kernel<Fp16>"])],
                                   [instructions, issue, dram]),
        "result_08": profile_table(res, [("step 07", ["lean_kernel<Fp16>"]), ("step 08", ["fma_kernel<Fp16>"])],
                                   [instructions, issue, dram]),
        "result_09": profile_table(res, [("step 08", ["fma_kernel<Fp16>"]), ("step 09", ["pairs_kernel<Fp16Bits>"])],
                                   [instructions, issue, dram, warps]),
        "result_10": profile_table(res, [("step 08", ["fma_kernel<Fp16>"]), ("step 10", ["stochastic_kernel<Fp16Bits>"])],
                                   [instructions, issue, dram]),
        "result_13": profile_table(res, [("step 10", ["stochastic_kernel<Fp16Bits>"]), ("two cells", ["pairs_stochastic_kernel"]),
                                         ("four cells (step 13)", ["quads_stochastic_kernel"])], [instructions, warps, dram]),
    }


def lesson_tables(res) -> dict:
    """The lesson's tables: the comparison with PyTorch for every GPU (set side by side), the rest
    once, from the lesson's GPU (the bound and the glance carry every GPU)."""
    if res.folder.name != LESSON_GPU:
        return {"peers": peers_table(res)}
    return {"bound": bound(res), "headline": headline(res), "glance": glance(res), "peers": peers_table(res),
            "width": width_table(res), "issue": issue_table(res), **step_results(res)}


def tables(res) -> dict:
    context, peers = results.load_peers(res.folder / "torch.json")
    made = {
        "steps": sizes_tables(res, peers, context["torch"]),
        "targets": targets_table(res, peers),
        "cpu": cpu_table(res),
        "traffic": report_tables.traffic_table(res.folder / "traffic.csv", "state (4096² cells x 9 floats, 604 MB)"),
        "instructions": instructions_table(res.folder / "traffic.csv"),
        "experiments": report_tables.experiments_table(res),
    }
    # The flow's accuracy does not depend on the GPU: a recording may leave `bench_lbm --flow` out.
    if (res.folder / "flow.csv").exists():
        made["accuracy"] = accuracy_table(res.folder / "flow.csv")
    return {**made, **lesson_tables(res)}
