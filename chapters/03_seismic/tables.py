"""Chapter 3's tables (profiling/report.py). For the lesson (README.md): the bound, the results at a
glance (report_tables.glance_table: each taught step's idea and prediction beside what each GPU
measured), and a small result table in each step's section, from the H200's profile. For the
record (NOTES.md): the default ones (the steps, the roofline, the experiments, the traffic per
kernel), the compiler's and the profiler's resources per kernel, the source document's speed-up
model measured with the profiled kernel times, the bytes each one-pass structure keeps in flight
against what Little's law asks of the GPU, what the warps wait for beside what the L2 and DRAM
carry (profile.sh's stalls run), and each profiled kernel's effective and achieved bandwidth as the
source document reports them."""

if __name__ == "__main__":  # profiling/report.py imports this file; on its own it is no program
    raise SystemExit("error: this file holds the README's tables: run profiling/report.py chapters/03_seismic")

# The groups the course README's chapter table takes this chapter's best taught step from
# (profiling/course_table.py): the fused radius-4 Laplacian.
HEADLINE_GROUPS = r"^laplacian8"

import csv
import io
import math
import pathlib
import re

import cli
import report_tables
import results
import traffic


def profiled_kernels(path) -> dict:
    """resources.csv or stalls.csv (Nsight Compute's raw page): the last launch of each kernel, by short name."""
    rows = list(csv.reader(io.StringIO(cli.read_text(path, "Nsight Compute's raw page"))))
    header_at = next((i for i, row in enumerate(rows) if "Kernel Name" in row), None)
    if header_at is None:
        raise cli.ToolError("has no 'Kernel Name' header: not Nsight Compute's raw page", path)
    header = rows[header_at]
    kernels = {}
    for row in rows[header_at + 2:]:  # the row after the header holds the units
        if len(row) == len(header):
            record = dict(zip(header, row))
            name = traffic.short_name(record["Kernel Name"])  # as traffic.csv names it: templates keep their arguments
            kernels[name] = {key: value.replace(",", "") for key, value in record.items()}
    if not kernels:
        raise cli.ToolError("has no kernel's row", path)
    return kernels


def resources_table(res) -> str:
    lines = ["| kernel | registers per thread | static shared memory per block (bytes) | warps resident (% of the SM's) | shared-memory instructions per warp |",
             "|---|---:|---:|---:|---:|"]
    for name, k in profiled_kernels(res.folder / "resources.csv").items():
        warps = float(k["launch__grid_size"]) * float(k["launch__block_size"]) / 32
        shared = (float(k["smsp__inst_executed_op_shared_ld.sum"]) + float(k["smsp__inst_executed_op_shared_st.sum"])) / warps
        lines.append(f"| `{name}` | {k['launch__registers_per_thread']} | {k['launch__shared_mem_per_block_static']} | "
                     f"{float(k['sm__warps_active.avg.pct_of_peak_sustained_active']):.1f} | {shared:.0f} |")
    return "\n".join(lines)


def speedup_table(res) -> str:
    """(T_x + T_y + T_z) / T_xyz and (T_xy + T_z) / T_xyz with the fastest profiled kernel of each
    kind (profile.sh's traffic run, one launch each); T_xyz is the fastest one-pass kernel, of
    steps 06-10."""
    times = {row["kernel"]: row.number("time ms") for row in results.read_csv(res.folder / "traffic.csv")}

    def fastest(*prefixes):
        name = min((k for k in times if k.startswith(prefixes)), key=times.get)
        return name, times[name]

    (x, t_x), (y, t_y), (z, t_z) = fastest("x_kernel"), fastest("y_"), fastest("z_window_kernel", "z_vector_kernel")
    (xy, t_xy), (xyz, t_xyz) = fastest("xy_kernel"), fastest("one_pass_kernel", "prefetch_kernel", "async_ring_kernel", "prefetched_sums_kernel",
                                                              "tensor_ring_kernel")
    return "\n".join([
        "| model | kernels | ms | ratio (document, MI250X) |",
        "|---|---|---:|---:|",
        f"| `T_x + T_y + T_z` | `{x}`, `{y}`, `{z}` | {t_x + t_y + t_z:.3f} | |",
        f"| `T_xy + T_z` | `{xy}`, `{z}` | {t_xy + t_z:.3f} | |",
        f"| `T_xyz` | `{xyz}` | {t_xyz:.3f} | |",
        f"| `(T_x + T_y + T_z) / T_xyz` | | | {(t_x + t_y + t_z) / t_xyz:.2f} (2.42) |",
        f"| `(T_xy + T_z) / T_xyz` | | | {(t_xy + t_z) / t_xyz:.2f} (1.63) |",
    ])


# A haloed tile of step 08 and its copies: 16 rows of 34 float4 (128 + 8 floats x 8 + 8 rows) per
# plane, 8704 bytes for a block of 256 threads (34 a thread) and 1024 output points (8.5 a point).
RING_TILE_BYTES_PER_THREAD = (8 + 2 * 4) * (32 + 2) * 16 / 256
RING_DRAM_PER_LOADED = 8 / 8.5  # DRAM moves 8 bytes a point (read once, write once)
# Per kernel: its step, what a thread keeps in flight (from the code), those bytes, and the DRAM
# bytes the kernel moves per byte it loads (to turn loads in flight into DRAM traffic). Step 08's
# and the copies' kernels under both names Nsight Compute has recorded (results/h100-80gb-hbm3/ has
# the older ones, results/h200/ the template arguments as it prints them: 1 for true).
RING = ("2 planes of the haloed tile, 34 B each", 2 * RING_TILE_BYTES_PER_THREAD, RING_DRAM_PER_LOADED)
PREFETCH = ("plane p + 1: 2 tile rows and 2 x neighbours (float4)", 64, 8 / 16)
IN_FLIGHT = {
    "z_window_kernel": ("02", "in(p + R) and out(p): 2 loads of 4 B", 8, 12 / 8),
    "one_pass_kernel<64>": ("06", "2 tile rows (float4), only until the barrier", 32, 8 / 8),
    "prefetch_kernel<4>": ("07", *PREFETCH),
    "async_ring_kernel<3, 2>": ("08", *RING),
    "async_ring_kernel<3, 2, 64, 1>": ("08", *RING),
    "async_ring_kernel<5, 2>": ("08 deep", "4 planes of the haloed tile, 34 B each", 4 * RING_TILE_BYTES_PER_THREAD, RING_DRAM_PER_LOADED),
    "async_ring_kernel<5, 2, 64, 1>": ("08 deep", "4 planes of the haloed tile, 34 B each", 4 * RING_TILE_BYTES_PER_THREAD, RING_DRAM_PER_LOADED),
    "async_ring_kernel<3, 3, 64, 1>": ("08, 3 blocks", *RING),
    "copy_prefetch_kernel": ("copy 07", *PREFETCH),
    "copy_prefetch_kernel<0>": ("copy 07", *PREFETCH),
    "copy_prefetch_kernel<2>": ("copy 07, 2 blocks", *PREFETCH),
    "copy_async_ring_kernel": ("copy 08", *RING),
    "copy_async_ring_kernel<0>": ("copy 08", *RING),
    "copy_async_ring_kernel<2>": ("copy 08, 2 blocks", *RING),
}
# The latency under load, an assumption: what chapter 1's step 01 consumer implies on the H200 (its
# README, "Bytes in flight"), not measured in this chapter; the idle latency is the pointer chase's.
# Used for every GPU. The latencies that fit this chapter's fused steps are 0.8-1.9 µs (the table).
LOADED_LATENCY_NS = 590


def littles_law(res):
    """What Little's law needs on this GPU: (idle latency ns, multiprocessors, {latency ns: knee
    in KB per multiprocessor}) at the idle latency and under load, the knee being copy x latency /
    multiprocessors; None when chapter 1 has no recording for it."""
    transpose = pathlib.Path(res.folder).parents[2] / "01_transpose" / "results" / res.folder.name / "bench.json"
    if not transpose.exists():
        return None
    context, _ = results.load(transpose, "bench_transpose")
    latency_ns, sms = (results.context_number(context, key, transpose) for key in ("memory_latency_ns", "multiprocessors"))
    knees = {ns: res.ceilings["copy_GBps"] * ns / sms / 1e3 for ns in (latency_ns, LOADED_LATENCY_NS)}  # GB/s x ns = bytes
    return latency_ns, sms, knees


def in_flight_per_sm(row, per_thread, dram_per_loaded) -> tuple:
    """(threads resident per multiprocessor, from the profile's occupancy; the KB of DRAM traffic
    they keep in flight at `per_thread` bytes loaded each)."""
    threads = row.number("occupancy %") / 100 * 2048
    return threads, threads * per_thread * dram_per_loaded / 1e3


def in_flight_table(res) -> str:
    """Little's law per one-pass structure: the KB in flight per multiprocessor (threads resident,
    from the profile's occupancy, x bytes in flight a thread, from the code, in DRAM bytes) against
    the knee (copy x latency / multiprocessors), at the idle latency and under load."""
    law = littles_law(res)
    if law is None:
        return f"No memory latency for this GPU: chapter 1's results/{res.folder.name}/bench.json is not recorded."
    latency_ns, sms, knees = law
    copy = res.ceilings["copy_GBps"]
    rows = {r["kernel"]: r for r in results.read_csv(res.folder / "traffic.csv")}
    lines = [f"Copy {copy:.0f} GB/s over {sms:.0f} multiprocessors: at the idle latency ({latency_ns:.0f} ns, chapter 1's "
             f"pointer chase on this GPU) each must keep {knees[latency_ns]:.1f} KB of DRAM traffic in flight, at "
             f"{LOADED_LATENCY_NS} ns under load (an assumed latency, inferred from chapter 1's kernel, not measured here) "
             f"{knees[LOADED_LATENCY_NS]:.1f} KB. KB loaded: the loads a thread has issued and not yet used (the code) "
             "times the threads resident (the profile's occupancy). KB as DRAM traffic: the same, times the DRAM bytes "
             "(reads and the writes that go with them) the kernel moves per byte it loads, so that it compares with the "
             "knee, which counts the copy's reads and writes. The writes are not in flight with the loads: the ratio is "
             "the one of the DRAM reads in flight to the reads' share of the knee, counted this way so that one knee "
             "serves every kernel. Predicted = min(1, KB in flight / knee); measured = the profile's HBM GB/s over the "
             "copy; the last column is the latency at which the KB in flight would deliver exactly the measured rate.", "",
             "| step | kernel | in flight per thread (the code) | threads per SM | KB loaded per SM | KB per SM as DRAM traffic | "
             "predicted, idle | "
             f"predicted, {LOADED_LATENCY_NS} ns | measured (HBM) | latency that fits (ns) |",
             "|---|---|---|---:|---:|---:|---:|---:|---:|---:|"]
    for kernel, (step, what, per_thread, dram_per_loaded) in IN_FLIGHT.items():
        if kernel not in rows:
            continue
        threads, kb = in_flight_per_sm(rows[kernel], per_thread, dram_per_loaded)
        measured = rows[kernel].number("achieved GB/s")
        predicted = [f"{min(1.0, kb / knee):.2f}" for knee in knees.values()]
        lines.append(f"| {step} | `{kernel}` | {what} | {threads:.0f} | {threads * per_thread / 1e3:.1f} | {kb:.1f} | "
                     f"{' | '.join(predicted)} | "
                     f"{measured / copy:.2f} | {kb * 1e3 * sms / measured:.0f} |")
    return "\n".join(lines)


PROFILE_N = 512  # profile.sh's size
CUBE_BYTES = PROFILE_N ** 3 * 4


def cubes_to_move(kernel: str) -> int:
    """The fewest cubes a kernel's pass must move, counted as the source document counts its
    effective bandwidth: every array it reads once, every array it writes once. A pass that adds
    to `out` (the y and z passes of steps 00-04) reads it back: 3; every other kernel 2."""
    base, _, argument = kernel.partition("<")
    if base in ("naive_kernel", "axis_kernel"):  # the template argument is the axis: 0 writes out, 1 and 2 add to it
        return 2 if argument.rstrip(">") == "0" else 3
    return 3 if base.startswith(("y_", "z_")) else 2


def bandwidth_table(res) -> str:
    """The source document's two figures of merit per profiled kernel: effective bandwidth (the
    fewest bytes of the kernel's pass over its time) and achieved (the DRAM bytes Nsight Compute
    counted over the same time), from profile.sh's traffic run."""
    copy = res.ceilings["copy_GBps"]
    lines = ["| kernel | must move (cubes) | ms | effective GB/s | achieved GB/s | achieved / effective | effective, of the copy |",
             "|---|---:|---:|---:|---:|---:|---:|"]
    for row in results.read_csv(res.folder / "traffic.csv"):
        cubes, ms = cubes_to_move(row["kernel"]), row.number("time ms")
        effective = cubes * CUBE_BYTES / ms / 1e6  # bytes / ms / 1e6 = GB/s
        achieved = row.number("achieved GB/s")
        lines.append(f"| `{row['kernel']}` | {cubes} | {ms:.3f} | {effective:.0f} | {achieved:.0f} | "
                     f"{achieved / effective:.3f} | {effective / copy:.2f} |")
    return "\n".join(lines)


STALL = re.compile(r"smsp__average_warps_issue_stalled_(\w+)_per_issue_active\.ratio$")
STALL_NAMES = {"long_scoreboard": "global memory", "barrier": "barrier", "short_scoreboard": "shared memory",
               "mio_throttle": "MIO queue", "lg_throttle": "global queue", "wait": "fixed latency",
               "not_selected": "not selected", "selected": "issuing", "math_pipe_throttle": "math pipe",
               "dispatch_stall": "dispatch", "branch_resolving": "branch", "no_instruction": "no instruction",
               "drain": "drain", "membar": "memory barrier", "imc_miss": "constant miss", "sleeping": "sleeping",
               "tex_throttle": "texture queue", "misc": "misc"}
SHOWN_STALLS = 5  # the reasons with the most cycles over all kernels; the others add up to "other"


def stalled_kernels(stalls_csv) -> dict:
    """profile.sh's stalls run, read as the resources run is: {kernel: {metric: number}}."""
    return {name: {metric: traffic.number(value) for metric, value in record.items() if re.match(r"(smsp|sm|gpu|lts|dram)__", metric)}
            for name, record in profiled_kernels(stalls_csv).items()}


def stalls_table(res) -> str:
    path = res.folder / "stalls.csv"
    if not path.exists():
        return ("Not yet recorded on this GPU: `chapters/03_seismic/profile.sh BUILD OUT stalls` writes "
                f"`{path.name}` (the recording's profile runs it).")
    kernels = stalled_kernels(path)
    reasons = sorted({STALL.match(m).group(1) for k in kernels.values() for m in k if STALL.match(m)})
    total = {r: math.fsum(k.get(f"smsp__average_warps_issue_stalled_{r}_per_issue_active.ratio", 0) for k in kernels.values())
             for r in reasons}
    shown = sorted(reasons, key=total.get, reverse=True)[:SHOWN_STALLS]

    def cell(k, metric, scale=1.0, digits=2):
        return f"{k[metric] * scale:.{digits}f}" if metric in k else "—"

    lines = ["| kernel | ms | issue % | occupancy % | cycles between instructions | "
             + " | ".join(STALL_NAMES.get(r, r) for r in shown)
             + " | other | L2 TB/s | L2 read | L2 write | L2 hit % | DRAM read | DRAM write | DRAM % |",
             "|---|" + "---:|" * (11 + len(shown))]
    for name, k in kernels.items():
        stall = {r: k.get(f"smsp__average_warps_issue_stalled_{r}_per_issue_active.ratio", 0.0) for r in reasons}
        lines.append(f"| `{name}` | {cell(k, 'gpu__time_duration.sum', 1e-6, 3)} | "
                     f"{cell(k, 'smsp__issue_active.avg.pct_of_peak_sustained_active', digits=0)} | "
                     f"{cell(k, 'sm__warps_active.avg.pct_of_peak_sustained_active', digits=0)} | "
                     f"{cell(k, 'smsp__average_warp_latency_per_inst_issued.ratio', digits=1)} | "
                     + " | ".join(f"{stall[r]:.1f}" for r in shown)
                     + f" | {math.fsum(v for r, v in stall.items() if r not in shown):.1f} | "
                     f"{cell(k, 'lts__t_bytes.sum.per_second', 1e-12)} | "
                     f"{cell(k, 'lts__t_sectors_op_read.sum', 32 / CUBE_BYTES)} | "
                     f"{cell(k, 'lts__t_sectors_op_write.sum', 32 / CUBE_BYTES)} | "
                     f"{cell(k, 'lts__t_sector_hit_rate.pct', digits=0)} | "
                     f"{cell(k, 'dram__bytes_read.sum', 1 / CUBE_BYTES)} | {cell(k, 'dram__bytes_write.sum', 1 / CUBE_BYTES)} | "
                     f"{cell(k, 'dram__throughput.avg.pct_of_peak_sustained_elapsed', digits=0)} |")
    lines += ["", "Nsight Compute at 512^3, clocks as found (`profile.sh`, stalls), the last launch of each kernel. "
              "Cycles between instructions: how long a warp waits, on average, from one instruction it issues to the next; "
              "the stall columns split them by what it waited for (they add up to it): global memory is the long "
              "scoreboard (a load from L1, L2 or DRAM; whether cp.async's and the tensor copies' waits are counted there "
              "was not verified), shared memory the short one. L2 TB/s: all "
              "the L2's traffic over the kernel's time (lts__t_bytes: the SMs', DRAM's fills and write-backs); L2 read and "
              "write in cubes (536.9 MB) of sectors, from every source (the all-source count, lts__t_sectors_op_read: "
              "higher than the traffic table's L2 read, which counts the SMs' requests only); DRAM read and write in cubes, apart: a kernel that "
              "reads the cube once and writes it once shows about 1.0 and 1.0, less for writes still in L2 at its end."]
    return "\n".join(lines)


# --- the lesson's tables ----------------------------------------------------------------------------

GROUP = "laplacian8 512^3"
LESSON_GPU = "h200"  # the GPU whose profile the lesson's step sections quote; the glance table has every GPU
# Each taught step's idea and its prediction, in the lesson's words (README.md's step sections).
LESSON = {
    "00": ("three passes, a thread per point, every neighbour a global load",
           "32 B a point (first counted as 28): at most 0.25 of copy"),
    "01": ("rows padded to 64 floats: a warp's 32 floats in one 128-byte line", "5 → 4 sectors a request: up to 1.2x"),
    "02": ("the z pass keeps a column's 9 values in a sliding register window", "z pass from L2-bound to the DRAM bound"),
    "03": ("x and y passes on float4: fewer, wider loads", "x and y passes to the DRAM bound"),
    "04": ("the y pass reads its 9 rows from a tile in shared memory", "y's L1 traffic 11 → 4 cubes; time unchanged"),
    "05": ("x and y in one kernel: out written once, never read back",
           "32 → 20 B a point: 1.6x step 04 (first counted 28 → 20: 1.4x)"),
    "06": ("x, y and z in one pass up the planes: read once, write once", "20 → 8 B a point: 2.5x step 05"),
    "07": ("issue plane p + 1's loads before computing plane p", "twice the loads in flight: toward 2x step 06"),
    "08": ("a ring of tiles filled by asynchronous copies; 9 partial sums in z", "264 → ~150 instructions a plane; toward its copy"),
    "09": ("(optional experiment) step 07's loads with step 08's partial sums", "faster than step 08"),
    "10": ("the tensor memory accelerator fills the ring; two output rows a thread",
           "copy plan's registers gone, fewer L2 reads: toward the 0.85 target"),
}
# The fewest bytes a point each taught step's form moves, so the most of the copy it can reach:
# three passes 32 bytes (8/32), x and y fused then z 20 (8/20), one pass 8 (1).
BOUND = {**{step: "0.25" for step in ("00", "01", "02", "03", "04")}, "05": "0.40",
         **{step: "1" for step in ("06", "07", "08", "09", "10")}}


def chapter_runs(res) -> list:
    """Every GPU's results of this chapter, the lesson's GPU first."""
    runs = results.load_chapter(pathlib.Path(res.folder).parents[1])
    return sorted(runs, key=lambda run: run.folder.name != LESSON_GPU)


def short_gpu(run) -> str:
    return run.label.split()[0]


def glance(res) -> str:
    """The results at a glance: report_tables.glance_table for each GPU, joined into one table
    (the lesson's GPU first), each GPU's time and fraction of the copy side by side, after the most
    of the copy the step's form can reach (BOUND: 8 bytes over the bytes a point it moves)."""
    runs = chapter_runs(res)
    per_gpu = [[line.split(" | ") for line in report_tables.glance_table(run, GROUP, LESSON).splitlines()[2:]] for run in runs]
    header = ("| step | idea | predicted | its bound, of the copy | "
              + " | ".join(f"{short_gpu(run)} ms | {short_gpu(run)}, of the copy" for run in runs) + " |")
    lines = [header, "|---|---|---|---:|" + "---:|---:|" * len(runs)]
    for rows in zip(*per_gpu):
        cells = rows[0][:3] + [BOUND[rows[0][0].lstrip("| ")]]
        for row in rows:
            fraction = row[4].rstrip(" |")
            if fraction.endswith(" of copy"):  # the header says of what
                fraction = fraction[:-len(" of copy")]
            cells += [row[3], fraction]
        lines.append(" | ".join(cells).replace("| not recorded | ", "| not recorded yet | ") + " |")
    return "\n".join(lines)


def bound(res) -> str:
    """The bound, derived: what a point must move and compute, and the time each GPU's measured
    ceilings allow for it at 512^3; the byte counts of the three forms the steps take."""
    runs = chapter_runs(res)
    points = PROFILE_N ** 3
    rows = [("bytes, one pass: read `in` once, write `out` once", 8, "B", "copy_GBps", 1e9),
            ("flops: 25 FMAs", 50, "FLOP", "fma_GFLOPs", 1e9),
            ("bytes, x and y fused, then z (step 05)", 20, "B", "copy_GBps", 1e9),
            ("bytes, three passes (steps 00-04)", 32, "B", "copy_GBps", 1e9)]
    lines = ["| what | per point | at 512^3 | " + " | ".join(f"{short_gpu(run)}: ceiling | {short_gpu(run)}: ms" for run in runs) + " |",
             "|---|---:|---:|" + "---:|---:|" * len(runs)]
    for what, per_point, unit, ceiling, scale in rows:
        total = per_point * points
        cells = [what, f"{per_point} {unit}", f"{total / 1e9:.2f} G{unit}"]
        for run in runs:
            rate = run.ceilings[ceiling]
            cells += [f"{rate / 1e3:.2f} T{unit}/s", f"{total / (rate * scale) * 1e3:.3f}"]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def lesson_profile(res) -> dict:
    """{kernel: row} of the lesson GPU's traffic.csv, with registers from its resources.csv."""
    rows = {r["kernel"]: r for r in results.read_csv(res.folder / "traffic.csv")}
    registers = {name: k["launch__registers_per_thread"] for name, k in profiled_kernels(res.folder / "resources.csv").items()}
    return rows, registers


def profile_table(res, kernels: list, quantities: list) -> str:
    """A step's result: a few quantities of a few profiled kernels. kernels: (column heading, kernel
    name); quantities: (row heading, function of (traffic row, registers) -> text)."""
    rows, registers = lesson_profile(res)
    lines = ["| | " + " | ".join(f"{heading}" for heading, _ in kernels) + " |", "|---|" + "---:|" * len(kernels)]
    for heading, value in quantities:
        cells = [value(rows[kernel], registers.get(kernel, "—")) if kernel in rows else "—" for _, kernel in kernels]
        lines.append(f"| {heading} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def per_plane(kernel_row, planes=PROFILE_N // 64 * 64) -> float:
    """Warp instructions a warp issues per plane step, for the 64-plane kernels of steps 06-09:
    2048 blocks of 8 warps, each over 64 + 2R plane steps."""
    blocks = (PROFILE_N // 128) * (PROFILE_N // 8) * (PROFILE_N // 64)
    return kernel_row.number("warp instructions") / (blocks * 8 * (64 + 8))


def step_results(res) -> dict:
    """The small result table of each step section that quotes the profile (the lesson's GPU)."""
    if res.folder.name != LESSON_GPU:
        return {}
    ms = ("kernel ms (profile)", lambda r, _: f"{r.number('time ms'):.3f}")
    of_copy = ("DRAM bytes over time, of the copy", lambda r, _: f"{r.number('achieved GB/s') / res.ceilings['copy_GBps']:.2f}")
    l1 = ("L1 traffic (cubes)", lambda r, _: f"{r.number('L1 ratio'):.2f}")
    # traffic.csv's L2 reads: the sectors the SMs ask of the L2 (NOTES.md's stalls table counts every source)
    l2 = ("L2 reads from the SMs (cubes)", lambda r, _: f"{r.number('L2 read ratio'):.2f}")
    hbm = ("DRAM traffic (cubes)", lambda r, _: f"{r.number('HBM ratio'):.2f}")
    dram = ("DRAM busy", lambda r, _: f"{r.number('DRAM %'):.0f}%")
    regs = ("registers a thread", lambda _, n: n)
    warps = ("warps resident", lambda r, _: f"{r.number('occupancy %'):.0f}%")
    plane = ("warp instructions a plane", lambda r, _: f"{per_plane(r):.0f}")
    minst = ("warp instructions (millions)", lambda r, _: f"{r.number('warp instructions') / 1e6:.0f}")
    return {
        "result_02": profile_table(res, [("z pass of step 01", "naive_kernel<2>"), ("step 02's window", "z_window_kernel")],
                                   [ms, l2, of_copy]),
        "result_03": profile_table(res, [("x pass, float4", "x_kernel<4>"), ("y pass, float4", "y_kernel<4>")], [ms, of_copy]),
        "result_04": profile_table(res, [("y pass, step 03", "y_kernel<4>"), ("y pass from the tile", "y_tile_kernel")], [l1, ms]),
        "result_05": profile_table(res, [("step 05's xy kernel", "xy_kernel"), ("step 02's z pass", "z_window_kernel")],
                                   [ms, hbm, dram]),
        "result_06": profile_table(res, [("step 05's xy kernel", "xy_kernel"), ("step 06", "one_pass_kernel<64>")],
                                   [regs, warps, dram]),
        "result_07": profile_table(res, [("step 06", "one_pass_kernel<64>"), ("step 07", "prefetch_kernel<4>")],
                                   [ms, regs, dram]),
        "result_08": profile_table(res, [("step 07", "prefetch_kernel<4>"), ("step 08", "async_ring_kernel<3, 2, 64, 1>")],
                                   [ms, plane, regs]),
        "result_09": profile_table(res, [("step 07", "prefetch_kernel<4>"), ("step 09", "prefetched_sums_kernel"),
                                         ("step 08", "async_ring_kernel<3, 2, 64, 1>")], [ms, plane, regs]),
        "result_10": profile_table(res, [("step 08", "async_ring_kernel<3, 2, 64, 1>"),
                                         ("step 10", "tensor_ring_kernel<TwoRowsPlanes128PlainStores>")], [regs, minst, l2]),
    }


def lesson_tables(res) -> dict:
    """The lesson's tables: the bound and the glance once (from the lesson's GPU, with every GPU's
    figures), the step sections' results from the lesson GPU's profile."""
    if res.folder.name != LESSON_GPU:
        return {}
    return {"bound": bound(res), "glance": glance(res), **step_results(res)}


def tables(res) -> dict:
    return {**report_tables.default_tables(res), "resources": resources_table(res), "speedup": speedup_table(res),
            "in_flight": in_flight_table(res), "stalls": stalls_table(res), "bandwidth": bandwidth_table(res),
            **lesson_tables(res)}
