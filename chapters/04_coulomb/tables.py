"""Chapter 4's README tables (profiling/report.py): each size's steps against the rsqrt and FMA
ceilings with the PyTorch peers and the host reference, the roofline, and the profile."""

if __name__ == "__main__":  # profiling/report.py imports this file; on its own it is no program
    raise SystemExit("error: this file holds the README's tables: run profiling/report.py chapters/04_coulomb")

# The groups the course README's chapter table takes this chapter's best taught step from
# (profiling/course_table.py): the production size.
HEADLINE_GROUPS = r"^2048x2048"


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


def tables(res) -> dict:
    context, peers = results.load_peers(res.folder / "torch.json")
    groups = res.groups()
    return {
        "document": size_table(res, groups[0], peers, context["torch"]),
        "production": size_table(res, groups[1], peers, context["torch"]),
        "roofline": report_tables.roofline_table(res),
        "profile": profile_table(res.folder / "traffic.csv"),
        "experiments": report_tables.experiments_table(res),
    }
