"""Chapter 2's tables (profiling/report.py). For the lesson (README.md): the bound of each
operator and form, the taught steps at a glance with their idea and prediction on every GPU, each
step's result beside the step before it with the profile's figure that tells its story, the
peers a user would reach for, and the two GPUs side by side. For the notes (NOTES.md): every step
for every operator with the conv3d peer, each operator and form against its roofline, the
compute-bound compound_r2's steps with every rate, the traffic profile, the L2 reads each step's
tiles predict beside the measured ones, why the best steps stop short of the copy, the stall
reasons, and the experiments.

The lesson's own tables quote one GPU, the lesson's (LESSON_GPU, when it is recorded), except the
glance and the GPUs side by side, which quote every GPU recorded: they are made once, from the
lesson GPU's call, with every GPU's results."""

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
LESSON_GPU = "h200"  # the results folder whose figures the lesson quotes
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


# ---- The lesson's tables ---------------------------------------------------------------------

# Each taught step's idea in about a dozen words, and its prediction (from its file's header), for
# the glance table; the group is the headline's, the 27-point box.
GLANCE_GROUP = "box27"
GLANCE = {
    "00": ("a thread per point in 8x8x8 blocks; every neighbour from global memory",
           "bound by L1 and L2 traffic, well under half the copy"),
    "01": ("32x8 blocks: a warp reads 32 neighbours along one row",
           "fewer sectors a load; re-reads still from L1 and L2"),
    "02": ("the 2rz+1 haloed tiles of each output plane in shared memory",
           "L2 reads as step 01's; L1 reads fall"),
    "03": ("the patent's circular queue: a block walks z, one new plane per output plane",
           "L2 reads fall to about 1.3 cubes"),
    "04": ("the patent's plane load: threads re-folded into whole tile rows",
           "fewer load instructions; shared memory the busiest unit"),
    "05": ("one plane in shared memory; the queue holds partial sums in registers",
           "the box near the copy"),
    "06": ("the next plane's loads in flight in registers; two rows a thread",
           "the box toward 3 TB/s"),
    "07": ("z cut into 64-plane chunks: eight times the blocks",
           "occupancy to the register limit; the box toward 3.5 TB/s"),
    "08": ("two tiles in turn, no bounds tests inside the array, pointers that step",
           "10-20% faster than step 07"),
    "09": ("two planes in flight a thread; registers budgeted for five blocks",
           "the box 10% faster"),
    "10": ("asynchronous 16-byte copies into a ring of three tiles",
           "a third fewer instructions; the box near the copy"),
    "11": ("256-wide tiles read in long runs; 16-plane z-chunks",
           "DRAM busier; the box toward plain tiled copies"),
    "12": ("the operator's separable form, one axis at a time",
           "the box within a few % of step 11 (compound_r2: 2.4x)"),
}

# The kernel profile.sh profiles for each taught step (its template arguments: the taught variant's).
KERNELS = {"00": "naive_kernel<{op}>", "01": "coalesced_kernel<{op}>", "02": "shared_tile_kernel<{op}>",
           "03": "circular_queue_kernel<{op}>", "04": "plane_load_kernel<{op}>", "05": "register_queue_kernel<{op}>",
           "06": "prefetch_kernel<{op}, 2>", "07": "z_chunk_kernel<{op}, 2, 64>",
           "08": "fewer_instructions_kernel<{op}>", "09": "deeper_prefetch_kernel<{op}>",
           "10": "async_copy_kernel<{op}>", "11": "wide_tile_kernel<{op}>", "12": "factored_kernel<{op}>"}
PROFILED = {"star7": "Star7", "box27": "Box27", "compound_r2": "Compound<2>"}  # profile.sh's operators

# What each step's result table shows: its operators (at most three rows) and the profile's
# figures that tell its story, as (column, source, key, digits): source "traffic" is a column of
# traffic.csv, "stalls" a metric of stalls.csv ("per point": warp instructions x 32 / points).
L1 = ("L1 traffic, cubes", "traffic", "L1 ratio", 1)
L2 = ("L2 reads, cubes", "traffic", "L2 read ratio", 2)
INSTRUCTIONS = ("instructions a point", "stalls", "per point", 0)
SHARED = ("shared memory busy %", "traffic", "shared %", 0)
LOAD_WAIT = ("load-wait cycles per instruction", "stalls", "smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio", 1)
OCCUPANCY = ("occupancy %", "traffic", "occupancy %", 0)
DRAM = ("DRAM busy %", "traffic", "DRAM %", 0)
DRAM_BYTES = ("DRAM traffic, cubes", "traffic", "HBM ratio", 2)
FMA_PIPE = ("FMA pipe busy %", "traffic", "FMA pipe %", 0)
STEP_RESULTS = {
    "00": (["star7", "box27", "compound_r2"], [L1]),
    "01": (["star7", "box27", "compound_r2"], [L1]),
    "02": (["star7", "box27", "compound_r2"], [INSTRUCTIONS]),
    "03": (["box27", "compound_r2"], [L2, INSTRUCTIONS]),
    "04": (["box27", "compound_r2"], [INSTRUCTIONS, SHARED]),
    "05": (["star7", "box27", "compound_r2"], [SHARED]),
    "06": (["star7", "box27", "compound_r2"], [LOAD_WAIT]),
    "07": (["star7", "box27", "compound_r2"], [OCCUPANCY]),
    "08": (["star7", "box27", "compound_r2"], [INSTRUCTIONS]),
    "09": (["star7", "box27", "compound_r2"], [DRAM]),
    "10": (["star7", "box27", "compound_r2"], [INSTRUCTIONS, L2]),
    "11": (["star7", "box27", "compound_r2"], [L2, DRAM_BYTES, DRAM]),
    "12": (["star7", "box27", "compound_r2"], [INSTRUCTIONS, FMA_PIPE]),
}

# The kernels the GPUs are compared on (operator, step), and why each is there.
BETWEEN = [("box27", "11", "bound by DRAM on both"), ("compound_r2", "11", "bound by the FMA pipe on both"),
           ("compound_r2", "12", "between the two"), ("star7", "09", "nearer the copy on the H100 (why: not measured)")]

# A step whose result is compared with a variant of the step before rather than with its taught
# variant, because the step takes over that variant's shape: the step, (the variant, its profiled
# kernel, its label in the table). Like for like: step 08 keeps 07_z_chunks_4_rows' 4 rows a
# thread and 32-plane chunks, where the taught step 07 has 2 rows and 64-plane chunks.
BASELINE = {"08": ("07_z_chunks_4_rows", "z_chunk_kernel<{op}, 4, 32>", "07, 4 rows")}


def lesson_gpu(res) -> bool:
    """Whether `res` is the GPU the lesson quotes: LESSON_GPU when it is recorded, else the first."""
    folders = sorted(f.name for f in res.folder.parent.iterdir() if (f / "bench.json").exists())
    return res.folder.name == (LESSON_GPU if LESSON_GPU in folders else folders[0])


def every_gpu(res) -> list:
    """Every GPU's results of the chapter, the lesson's first."""
    runs = results.load_chapter(res.folder.parent.parent)
    return sorted(runs, key=lambda r: r.folder.name != res.folder.name)


def group_named(res, operator: str) -> str:
    return next(g for g in res.groups() if g.split()[0] == operator)


def step_case(res, operator: str, number: str):
    """The taught step `number` ("05") of an operator, or None where the recording lacks it."""
    group = group_named(res, operator)
    return next((c for c in res.taught if c.group == group and c.is_step and c.name[:2] == number), None)


def named_case(res, operator: str, name: str):
    """The case `name` (a taught step or an experiment) of an operator, or None where it is not recorded."""
    group = group_named(res, operator)
    return next((c for c in res.cases if c.group == group and c.name == name), None)


def profile_figures(res) -> dict:
    """{kernel: {key: value}} from traffic.csv and stalls.csv, where recorded."""
    figures = {}
    if (res.folder / "traffic.csv").exists():
        for row in results.read_csv(res.folder / "traffic.csv"):
            figures.setdefault(row["kernel"], {}).update(
                {key: row.number(key) for key in row if key != "kernel"})
    if (res.folder / "stalls.csv").exists():
        for k in read_stalls(res.folder / "stalls.csv"):
            values = figures.setdefault(k["kernel"], {})
            values.update({key: value for key, value in k.items() if key != "kernel"})
            values["per point"] = k["smsp__inst_executed.sum"] * 32 / PROFILE_SIZE ** 3
    return figures


def glance(res) -> str:
    """The taught steps at a glance, on every GPU recorded: report_tables.glance_table's median and
    fraction of the binding ceiling, a pair of columns per GPU beside the idea and prediction."""
    runs = every_gpu(res)
    per_gpu = [[line for line in report_tables.glance_table(run, group_named(run, GLANCE_GROUP), GLANCE).splitlines()
                if line.startswith("|")][2:] for run in runs]
    labels = [run.label.split()[0] for run in runs]
    lines = ["| step | idea | predicted | " + " | ".join(f"{label} ms | {label}: of the binding ceiling" for label in labels) + " |",
             "|---|---|---|" + "---:|---:|" * len(runs)]
    for rows in zip(*per_gpu):
        cells = [[cell.strip() for cell in row.strip().strip("|").split("|")] for row in rows]
        lines.append("| " + " | ".join(cells[0][:3] + [value for c in cells for value in c[3:5]]) + " |")
    lines.append("")
    lines.append(f"{GLANCE_GROUP}, {res.groups()[0].split()[1]} floats, median of each step's timed runs; the binding "
                 "ceiling is each GPU's own copy bandwidth (`course_ceilings`)." +
                 (" \"not recorded\": that GPU's recording lacks the step (not recorded yet)."
                  if any("not recorded" in line for line in lines) else ""))
    return "\n".join(lines)


def step_result(res, number: str) -> str:
    """Step `number` beside the step before it, for the operators STEP_RESULTS names: median times,
    the speed-up, the fraction of the binding ceiling, and the profile's figures before and after."""
    operators, metrics = STEP_RESULTS[number]
    before = f"{int(number) - 1:02d}" if number != "00" else None
    variant, variant_kernel, label = BASELINE.get(number, (None, None, before))
    figures = profile_figures(res)
    header = ["operator"] + ([f"step {label} ms"] if before else []) + [f"step {number} ms"] + \
             (["speed-up"] if before else []) + ["of the binding ceiling"] + \
             [f"{column} ({label} → {number})" if before else column for column, *_ in metrics]
    lines = ["| " + " | ".join(header) + " |", "|---|" + "---:|" * (len(header) - 1)]
    for operator in operators:
        now = step_case(res, operator, number)
        then = (named_case(res, operator, variant) if variant else step_case(res, operator, before)) if before else None
        if now is None:
            lines.append(f"| {operator} | " + " | ".join(["not recorded"] + [""] * (len(header) - 2)) + " |")
            continue
        fraction, ceiling = report_tables.binding(now, res.ceilings)
        cells = [operator] + ([f"{then.median_ms:.3f}"] if before else []) + [f"{now.median_ms:.3f}"]
        cells += [f"{then.median_ms / now.median_ms:.2f}x"] if before else []
        cells.append(f"{fraction:.2f} {ceiling}")
        for _, source, key, digits in metrics:
            def figure(kernel):
                value = figures.get(kernel.format(op=PROFILED[operator]), {}).get(key)
                return "—" if value is None else f"{value:.{digits}f}"
            cells.append(f"{figure(variant_kernel or KERNELS[before])} → {figure(KERNELS[number])}" if before
                         else figure(KERNELS[number]))
        lines.append("| " + " | ".join(cells) + " |")
    lines.append("")
    lines.append(f"{res.label}, {res.groups()[0].split()[1]}; the profile's figures from Nsight Compute (`profile.sh`)." +
                 (f" Step {label} is the variant `{variant}`, timed in the same recording, whose shape step {number} keeps."
                  if variant else ""))
    return "\n".join(lines)


def bound_table(res) -> str:
    """The lesson's bound: each operator and form, its minimum bytes and its FMAs, the time each
    takes at its ceiling, and the longer, which binds."""
    copy, fma = res.ceilings["copy_GBps"], res.ceilings["fma_GFLOPs"]
    lines = ["| operator | form | FMAs a point | FLOP per byte | the bytes at copy, ms | the FMAs at the FMA rate, ms "
             "| bound, ms | bound by |", "|---|---|---:|---:|---:|---:|---:|---|"]
    for group in res.groups():
        forms = {}
        for c in res.taught:
            if c.group == group and c.is_step:
                forms.setdefault(fmas_per_point(c), c)
        for index, (fmas, c) in enumerate(forms.items()):
            bytes_ms, flops_ms = c.bytes_per_run / 1e9 / copy * 1e3, c.gflop_per_run / fma * 1e3
            lines.append(f"| {group.split()[0]} | {'weight table' if index == 0 else 'separable'} | {fmas} | "
                         f"{2 * fmas / 8:.2f} | {bytes_ms:.3f} | {flops_ms:.3f} | {max(bytes_ms, flops_ms):.3f} | "
                         f"{'FMA' if flops_ms > bytes_ms else 'copy'} |")
    lines.append("")
    lines.append(f"{res.label}: copy {copy:.0f} GB/s, FMA {fma / 1e3:.1f} TFLOP/s (`course_ceilings`), ridge point "
                 f"{fma / copy:.1f} FLOP per byte. A point costs 8 bytes (read once, written once) and 2 flops an FMA.")
    return "\n".join(lines)


def peers_table(res) -> str:
    """What a PyTorch user would run instead, beside the chapter's best taught step for the same
    operator in the same form (the weight table, every weight an FMA, as the peers compute it: like
    for like) and, where a step of another form (step 12's separable one) is faster, beside that too."""
    context, peers = results.load_peers(res.folder / "conv3d.json")
    lines = ["| operator | what a user runs | ms | the chapter's step | its form | its ms | the step's speed-up |",
             "|---|---|---:|---|---|---:|---:|"]
    for peer in sorted(peers, key=lambda p: (p.group, p.median_ms)):
        group = group_named(res, peer.group)
        steps = [c for c in res.taught if c.group == group and c.is_step]
        table_fmas = fmas_per_point(steps[0])  # the weight table's, as steps 00-11 compute it
        same_form = min((c for c in steps if fmas_per_point(c) == table_fmas), key=lambda c: c.median_ms)
        best = min(steps, key=lambda c: c.median_ms)
        for step in [same_form] + ([best] if best is not same_form else []):
            form = "weight table" if fmas_per_point(step) == table_fmas else f"separable, {fmas_per_point(step)} FMAs"
            lines.append(f"| {peer.group} | {peer.name} | {peer.median_ms:.3f} | `{step.name}` | {form} | "
                         f"{step.median_ms:.3f} | {peer.median_ms / step.median_ms:.1f}x |")
    lines.append("")
    lines.append(f"{res.label}, PyTorch {context['torch']} (`peer_conv3d.py`), the same interior, L2 flushed before each run; "
                 "recorded in a later call than the steps (the results folder's README says which). conv3d and "
                 "torch.compile used random weights of the operator's shape, all nonzero like the operator's; "
                 "`torch.compile` ran in its default mode only.")
    return "\n".join(lines)


def between_table(res) -> str:
    """The kernels the GPUs are compared on, each GPU against its own copy ceiling."""
    runs = every_gpu(res)
    labels = [run.label.split()[0] for run in runs]
    lines = ["| operator | step | why it is here | " + " | ".join(f"{label} ms" for label in labels) + " | " +
             " | ".join(f"{label}: of copy" for label in labels) + " |",
             "|---|---|---|" + "---:|" * (2 * len(runs))]
    for operator, number, why in BETWEEN:
        cases = [step_case(run, operator, number) for run in runs]
        lines.append(f"| {operator} | {number} | {why} | " +
                     " | ".join(f"{c.median_ms:.3f}" if c else "not recorded" for c in cases) + " | " +
                     " | ".join(f"{c.gbps / run.ceilings['copy_GBps']:.3f}" if c else "" for c, run in zip(cases, runs)) + " |")
    lines.append("")
    lines.append("Copy ceilings: " + ", ".join(f"{label} {run.ceilings['copy_GBps']:.0f} GB/s" for label, run in zip(labels, runs))
                 + "; FMA: " + ", ".join(f"{label} {run.ceilings['fma_GFLOPs'] / 1e3:.1f} TFLOP/s" for label, run in zip(labels, runs))
                 + " (`course_ceilings`).")
    return "\n".join(lines)


def lesson_tables(res) -> dict:
    """The lesson's tables, made from the lesson GPU's call only (report.py would set every GPU's
    side by side otherwise; the glance and the comparison hold every GPU already)."""
    if not lesson_gpu(res):
        return {}
    tables = {"bound": bound_table(res), "glance": glance(res), "peers": peers_table(res), "between": between_table(res)}
    tables.update({f"step{number}": step_result(res, number) for number in STEP_RESULTS})
    return tables


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
    } | lesson_tables(res)
