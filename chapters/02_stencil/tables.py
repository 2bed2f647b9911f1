"""Chapter 2's README tables (profiling/report.py): every step for every operator with the
conv3d peer, each operator and form against its roofline, the compute-bound compound_r2's steps
with every rate, the traffic profile, the L2 reads each step's tiles predict beside the measured
ones, the stall reasons, and the size sweep."""

if __name__ == "__main__":  # profiling/report.py imports this file; on its own it is no program
    raise SystemExit("error: this file holds the README's tables: run profiling/report.py chapters/02_stencil")

# The groups the course README's chapter table takes this chapter's best taught step from
# (profiling/course_table.py): the 27-point box, the stencil the patent's queue is for.
HEADLINE_GROUPS = r"^box27"

import csv
import io
import math
import re

import cli
import report_tables
import results
import traffic

PROFILE_SIZE = 512  # profile.sh's cube edge
SECTOR_FLOATS = 8   # a 32-byte sector


def fmas_per_point(case) -> int:
    """FMAs a point of the form the case computed: 2 flops each, 8 bytes a point."""
    return round(case.gflop_per_run * 1e9 / 2 / (case.bytes_per_run / 8))


def steps_table(res, conv3d: tuple) -> str:
    cases = res.taught
    operators = res.groups()
    by = {(c.group, c.name): c for c in cases}
    steps = list(dict.fromkeys(c.name for c in cases if c.is_step))
    copy = next(c for c in cases if c.name.startswith("device copy"))
    names = [g.split()[0] for g in operators]
    lines = [f"Interior {operators[0].split()[1]} floats on the {res.context['gpu']}, median of {copy.repetitions} runs, L2 "
             f"flushed before each; GB/s = 2 x {copy.bytes_per_run / 2 / 1e6:.1f} MB (the cube read and written once) / time.",
             "", "| step | " + " | ".join(f"{n} GB/s" for n in names) +
             " | box27 of copy | compound_r2 GFLOP/s | of FMA ceiling |",
             "|---|" + "---:|" * (len(names) + 3)]
    box = next(g for g in operators if g.startswith("box27"))
    r2 = next(g for g in operators if g.startswith("compound_r2"))
    for name in [copy.name] + steps:
        cells = []
        for g in operators:
            c = by.get((g, name))
            cells.append(f"{c.gbps:.0f}" if c else "")
        b = by.get((box, name))
        c2 = by.get((r2, name))
        peer = not name[:2].isdigit()
        # The flops of the form the step computes, as the benchmark counts them: a fraction of the FMA
        # ceiling is then a fraction of what the FMA pipe could do, never above 1.
        gflops = c2.gflop_per_run / (c2.median_ms / 1e3) if c2 and not peer else None
        lines.append(f"| {'*' + name + '* (peer)' if peer else '`' + name + '`'} | " + " | ".join(cells) +
                     f" | {b.gbps / res.ceilings['copy_GBps']:.3f} | " +
                     (f"{gflops:.0f} | {gflops / res.ceilings['fma_GFLOPs']:.3f} |" if gflops else " | |"))
    context, peers = conv3d
    for peer in peers:
        cells = [f"{peer.gbps:.0f}" if g.startswith(peer.group) else "" for g in operators]
        lines.append(f"| *{peer.name}* (peer, PyTorch {context['torch']}) | " + " | ".join(cells) + " | | | |")
    lines.append("")
    lines.append(f"Ceilings measured by `course_ceilings` on the same machine: copy {res.ceilings['copy_GBps']:.0f} GB/s, "
                 f"FMA {res.ceilings['fma_GFLOPs'] / 1e3:.1f} TFLOP/s. GFLOP/s counts 2 flops per FMA of the form the "
                 f"step computes, over the step's time: the weight table's {fmas_per_point(by[(r2, steps[0])])} a point "
                 "for compound_r2"
                 + "".join(f"; `{name}` computes the separable form, {fmas_per_point(by[(r2, name)])} FMAs a point, so "
                           "its GFLOP/s is lower although its time is shorter (its bound is the copy's: the roofline "
                           "table below)" for name in steps
                           if fmas_per_point(by[(r2, name)]) != fmas_per_point(by[(r2, steps[0])])) + ".")
    return "\n".join(lines)


def roofline_table(res) -> str:
    """Per operator and form: FMAs a point, flops per byte of the fewest bytes, the time the bytes
    take at the copy bandwidth and the FMAs at the FMA rate, the bound (the longer), and how close
    the form's fastest step comes. The problem's ceiling is the lowest bound over its forms."""
    copy, fma = res.ceilings["copy_GBps"], res.ceilings["fma_GFLOPs"]
    ridge = fma / copy
    lines = [f"Ridge point {ridge:.1f} FLOP per byte: FMA {fma / 1e3:.1f} TFLOP/s over copy {copy:.0f} GB/s (`course_ceilings`).",
             "",
             "| operator | form (steps) | FMAs / point | FLOP / byte | bytes at copy ms | FMAs at FMA rate ms | bound ms "
             "| bound by | best step | its ms | of bound |",
             "|---|---|---:|---:|---:|---:|---:|---|---|---:|---:|"]
    notes = []
    for group in res.groups():
        steps = [c for c in res.taught if c.group == group and c.is_step]
        forms = {}
        for c in steps:
            forms.setdefault(fmas_per_point(c), []).append(c)
        bounds = {}
        for fmas, members in forms.items():
            best = min(members, key=lambda c: c.median_ms)
            bytes_ms = best.bytes_per_run / 1e9 / copy * 1e3
            flops_ms = best.gflop_per_run / fma * 1e3
            bound = max(bytes_ms, flops_ms)
            bounds[fmas] = (bound, "FMA" if flops_ms > bytes_ms else "copy")
            form = "weight table" if fmas == fmas_per_point(steps[0]) else "separable"
            lines.append(f"| {group.split()[0]} | {form} ({report_tables.step_numbers(members)}) | {fmas} | "
                         f"{2 * fmas / 8:.2f} | {bytes_ms:.3f} | {flops_ms:.3f} | {bound:.3f} | {bounds[fmas][1]} | "
                         f"`{best.name}` | {best.median_ms:.3f} | {bound / best.median_ms:.3f} |")
        problem = min(bounds.values())
        for fmas, (bound, unit) in bounds.items():
            if bound > problem[0] * 1.001:
                notes.append(f"{group.split()[0]}'s {fmas}-FMA form is bound by {unit} at {bound:.3f} ms, "
                             f"{bound / problem[0]:.2f}x the problem's bound ({problem[1]}, {problem[0]:.3f} ms): "
                             "that ceiling is the formulation's, not the problem's")
    lines.append("")
    lines.append("A point costs 8 bytes (read once, written once) and 2 flops per FMA of the form the step computes. "
                 "The bound is the longer of the two times; the problem's ceiling is the lowest bound over its "
                 "forms. " + ("; ".join(notes) + "." if notes else "Every form here is bound by its bytes."))
    return "\n".join(lines)


def kernel_radius(kernel: str) -> int:
    """The operator's radius from a profiled kernel's name: Star7, Box27, Compound<1> are 1, Compound<2> is 2."""
    match = re.search(r"Compound<(\d)>", kernel)
    return int(match.group(1)) if match else 1


def block_geometry(kernel: str):
    """What a block of this kernel reads, from its file's constants: the outputs it computes
    (x, y, z), its x-halo in floats, and whether it reads its outputs' neighbourhoods through
    the caches ("stencil": the union of their stencils) or as whole haloed tiles ("tile")."""
    base, _, arguments = kernel.partition("<")
    numbers = [int(n) for n in re.findall(r"\b\d+\b", arguments.split(">")[-2] if ">" in arguments else "")]
    r = kernel_radius(kernel)
    whole_column = PROFILE_SIZE  # steps 03-06 walk the whole z-range
    table = {
        "naive_kernel": (8, 8, 8, r, "stencil"),                           # 00: 8x8x8 blocks
        "coalesced_kernel": (32, 8, 1, r, "stencil"),                      # 01: 32x8, one plane
        "shared_tile_kernel": (32, 8, 1, r, "tile"),                       # 02: 2rz+1 tiles per plane
        "circular_queue_kernel": (32, 8, whole_column, r, "tile"),         # 03
        "plane_load_kernel": (32, 8, whole_column, r, "tile"),             # 04
        "register_queue_kernel": (32, 8, whole_column, r, "tile"),         # 05
        "fewer_instructions_kernel": (32, 32, 32, r, "tile"),              # 08: kRows 4, kChunk 32
        "deeper_prefetch_kernel": (32, 32, 32, r, "tile"),                 # 09
        "async_copy_kernel": (64, 4 * (8 if r == 1 else 4), 32, 4, "tile"),  # 10: 64x4 x kRows, 16-byte x-halo
        "wide_tile_kernel": (256, 8, 16, 4, "tile") if r == 1 else (64, 16, 32, 4, "tile"),  # 11: Shape<>
        "factored_kernel": (256, 8 if r == 1 else 4, 16 * r, 4, "tile"),   # 12: Shape<>
    }
    if base == "prefetch_kernel":        # 06: <Op, kRows>, the whole column
        return 32, 8 * numbers[-1], whole_column, r, "tile"
    if base == "z_chunk_kernel":         # 07: <Op, kRows, kChunk>
        return 32, 8 * numbers[-2], numbers[-1], r, "tile"
    return table.get(base)


def stencil_offsets(kernel: str, r: int) -> list:
    """The (i, j, k) a point reads: the star's 7, or every point of the box (the box and both
    compounds weigh all of theirs)."""
    if "Star7" in kernel:
        return [(0, 0, 0)] + [o for d in range(3) for s in (-1, 1) for o in [tuple(s if a == d else 0 for a in range(3))]]
    return [(i, j, k) for i in range(-r, r + 1) for j in range(-r, r + 1) for k in range(-r, r + 1)]


def predicted_l2_read(kernel: str) -> tuple[float, str] | None:
    """L2 reads per cube if every block fetches what it reads once (L1 and shared memory catch
    its own re-reads) and blocks share nothing: the 32-byte sectors of its footprint over the
    sectors of its outputs. Rows start on 128-byte boundaries, so a block's first column starts
    a sector."""
    geometry = block_geometry(kernel)
    if geometry is None:
        return None
    wx, wy, wz, reach_x, kind = geometry
    r = kernel_radius(kernel)
    outputs = wx // SECTOR_FLOATS * wy * wz
    if kind == "tile":  # whole haloed tiles: sectors x rows x planes
        sectors = wx // SECTOR_FLOATS + 2 * math.ceil(reach_x / SECTOR_FLOATS)
        return sectors * (wy + 2 * r) * (wz + 2 * r) / outputs, f"{wx}x{wy}x{wz} tile"
    footprint = {((x + i) // SECTOR_FLOATS, y + j, z + k) for x in range(wx) for y in range(wy) for z in range(wz)
                 for i, j, k in stencil_offsets(kernel, r)}
    return len(footprint) / outputs, f"{wx}x{wy}x{wz} block"


def l2_model_table(traffic_csv) -> str:
    rows = results.read_csv(traffic_csv)
    lines = ["| kernel | a block reads | predicted L2 read | measured | measured / predicted |",
             "|---|---|---:|---:|---:|"]
    for row in rows:
        prediction = predicted_l2_read(row["kernel"])
        if prediction is None:
            continue
        ratio, shape = prediction
        measured = float(row["L2 read ratio"])
        lines.append(f"| `{row['kernel']}` | {shape} | {ratio:.3f} | {measured:.2f} | {measured / ratio:.2f} |")
    lines.append("")
    lines.append("Predicted: the sectors a block reads over the sectors of its outputs, from the tile sizes in each step's "
                 "file: (interior sectors + x-halo sectors) / interior sectors x (rows + 2ry) / rows x (planes + 2rz) / "
                 "planes for whole tiles (steps 02-12; a 16-byte copy each side for 10-12), the union of the outputs' "
                 "stencils for the blocks of steps 00-01 that read through the caches. Measured: L2 reads as a ratio to "
                 "the cube, from the traffic profile.")
    return "\n".join(lines)


STALL = re.compile(r"^smsp__average_warps_issue_stalled_(\w+)_per_issue_active\.ratio$")
STALL_NAMES = {"long_scoreboard": "global load (long scoreboard)", "barrier": "barrier",
               "short_scoreboard": "shared memory (short scoreboard)", "mio_throttle": "MIO queue full",
               "lg_throttle": "global queue full", "wait": "fixed latency (wait)", "not_selected": "not selected",
               "selected": "issuing (selected)", "math_pipe_throttle": "math pipe busy", "dispatch_stall": "dispatch",
               "branch_resolving": "branch", "no_instruction": "no instruction", "drain": "drain at exit",
               "membar": "memory barrier", "imc_miss": "constant miss", "tex_throttle": "texture queue full",
               "misc": "misc", "sleeping": "sleeping"}
SHOWN_STALLS = 6  # the reasons with the most cycles over all kernels get a column; the rest add up to "other"


def read_stalls(stalls_csv) -> list:
    """Rows of profile.sh's stall run (Nsight Compute --page raw): the last launch of each kernel."""
    rows = list(csv.reader(io.StringIO(cli.read_text(stalls_csv, "Nsight Compute's raw page"))))
    header_at = next((i for i, row in enumerate(rows) if "Kernel Name" in row and "ID" in row), None)
    if header_at is None:
        raise cli.ToolError("has no 'ID', 'Kernel Name' header: not Nsight Compute's raw page", stalls_csv)
    header = rows[header_at]
    kernels = {}
    for row in rows[header_at + 1:]:
        if len(row) != len(header) or not row[header.index("ID")].strip().isdigit():
            continue  # the units row
        values = {name: traffic.number(value) for name, value in zip(header, row) if name.startswith(("smsp__", "sm__", "gpu__"))}
        kernels[traffic.short_name(row[header.index("Kernel Name")])] = values
    if not kernels:
        raise cli.ToolError("has no kernel's row", stalls_csv)
    return [{"kernel": k} | v for k, v in kernels.items()]


def stalls_table(stalls_csv) -> str:
    kernels = read_stalls(stalls_csv)
    reasons = {STALL.match(m).group(1): m for m in kernels[0] if STALL.match(m)}
    # math.fsum, not sum: exact, so every Python prints the same digits (3.12 changed how sum rounds).
    totals = {reason: math.fsum(k[metric] for k in kernels) for reason, metric in reasons.items()}
    shown = sorted(totals, key=totals.get, reverse=True)[:SHOWN_STALLS]
    points = PROFILE_SIZE ** 3
    lines = ["| kernel | ms | instructions / point | issue % | occupancy % | cycles between instructions | "
             + " | ".join(STALL_NAMES.get(r, r) for r in shown) + " | other |",
             "|---|" + "---:|" * (6 + len(shown))]
    for k in kernels:
        cpi = k["smsp__average_warp_latency_per_inst_issued.ratio"]
        other = math.fsum(k[m] for r, m in reasons.items() if r not in shown)
        lines.append(f"| `{k['kernel']}` | {k['gpu__time_duration.sum'] / 1e6:.3f} | "
                     f"{k['smsp__inst_executed.sum'] * 32 / points:.1f} | "
                     f"{k['smsp__issue_active.avg.pct_of_peak_sustained_active']:.0f} | "
                     f"{k['sm__warps_active.avg.pct_of_peak_sustained_active']:.0f} | {cpi:.1f} | "
                     + " | ".join(f"{k[reasons[r]]:.1f}" for r in shown) + f" | {other:.1f} |")
    lines.append("")
    lines.append(f"Nsight Compute at {PROFILE_SIZE}^3, clocks as found (`profile.sh`, stalls). Instructions per point: warp "
                 "instructions x 32 / output points (the whole kernel: loads, barriers, addresses and the arithmetic). "
                 "Cycles between instructions: how long a warp waits, on average, from one instruction it issues to "
                 "the next; the reasons split those cycles by what the warp waited for (they add up to it). Issue %: "
                 "the share of cycles in which a scheduler issued an instruction.")
    return "\n".join(lines)


def dram_gap_table(res, traffic_csv) -> str:
    """Why the best steps stop short of the copy: their bytes (DRAM traffic in cubes, against
    the copy's 2) and the rate DRAM delivered them at (against the copy's), whose product
    predicts the fraction of the copy bandwidth the benchmark measures."""
    rows = {r["kernel"]: r for r in results.read_csv(traffic_csv)}
    copy = res.ceilings["copy_GBps"]
    names = {"deeper_prefetch_kernel": "09_deeper_prefetch", "async_copy_kernel": "10_async_copy",
             "wide_tile_kernel": "11_wide_tiles", "factored_kernel": "12_factored"}
    lines = ["| kernel | DRAM cubes | bytes factor 2 / cubes | DRAM GB/s (profile) | rate factor (of copy) | predicted of copy "
             "| measured of copy (benchmark) |",
             "|---|---:|---:|---:|---:|---:|---:|"]
    for kernel, row in rows.items():
        base, _, op = kernel.partition("<")
        if base not in names or ("Compound<2>" in kernel and base != "factored_kernel"):  # its weight table is FMA-bound
            continue
        group = next(g for g in res.groups() if g.startswith({"Box27>": "box27", "Compound<2>>": "compound_r2",
                                                              "Star7>": "star7", "Compound<1>>": "compound_r1"}[op]))
        case = next(c for c in res.cases if c.group == group and c.name == names[base])
        cubes, rate = float(row["HBM ratio"]), float(row["achieved GB/s"])
        lines.append(f"| `{kernel}` | {cubes:.2f} | {2 / cubes:.3f} | {rate:.0f} | {rate / copy:.3f} | "
                     f"{2 / cubes * rate / copy:.3f} | {case.gbps / copy:.3f} |")
    lines.append("")
    lines.append("The benchmark's effective bandwidth counts 2 cubes; a kernel that moves more, at a rate below the copy's, "
                 "reaches (2 / cubes) x (its DRAM rate / copy) of the copy bandwidth. The profile's single run and the "
                 "benchmark's median differ by a few percent.")
    return "\n".join(lines)


def tables(res) -> dict:
    r2 = next(g for g in res.groups() if g.startswith("compound_r2"))
    traffic_csv = res.folder / "traffic.csv"
    return {
        "steps": steps_table(res, results.load_peers(res.folder / "conv3d.json")),
        "roofline": roofline_table(res),
        "compound_r2": report_tables.group_table(res, r2),
        "traffic": report_tables.traffic_table(traffic_csv, "cube size (536.9 MB)"),
        "l2_model": l2_model_table(traffic_csv),
        "dram_gap": dram_gap_table(res, traffic_csv),
        "stalls": stalls_table(res.folder / "stalls.csv"),
        "experiments": report_tables.experiments_table(res),
    }
