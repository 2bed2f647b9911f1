"""Chapter 5's README tables (profiling/report.py): every size's steps with the PyTorch peers
against the copy ceiling, the targets at a glance, the paper's GPU-against-CPU comparison with
the CPU schemes on one core and on all, the profiled traffic per kernel, and what each step's
storage keeps of the physics (results/flow.csv: the Poiseuille start-up, bench_lbm --flow)."""

if __name__ == "__main__":  # profiling/report.py imports this file; on its own it is no program
    raise SystemExit("error: this file holds the README's tables: run profiling/report.py chapters/05_lattice_boltzmann")

# The groups the course README's chapter table takes this chapter's best taught step from
# (profiling/course_table.py): the largest channel.
HEADLINE_GROUPS = r"^8192x8192"

import math

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
        per_cell = float(r["warp instructions"]) * 32 / PROFILE_CELLS
        lines.append(f"| `{r['kernel']}` | {float(r['time ms']):.3f} | {per_cell:.0f} | {float(r['issue %']):.0f} | "
                     f"{float(r['DRAM %']):.0f} | {float(r['occupancy %']):.0f} |")
    lines.append("")
    lines.append("Nsight Compute, one time step on 4096 x 4096 cells; instructions per cell count every thread "
                 "instruction (a warp instruction is 32, one per thread; a thread of step 09, of step 13 or of the paired "
                 "and quad copies covers two or four cells).")
    return "\n".join(lines)


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
    return made
