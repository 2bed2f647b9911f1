"""Chapter 3's README tables (profiling/report.py): the default ones (the steps, the roofline, the
traffic per kernel), the compiler's and the profiler's resources per kernel, the source
document's speed-up model measured with the profiled kernel times, the bytes each one-pass
structure keeps in flight against what Little's law asks of the GPU, what the warps wait for
beside what the L2 and DRAM carry (profile.sh's stalls run), and each profiled kernel's effective
and achieved bandwidth as the source document reports them."""

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
            name = record["Kernel Name"].split("::")[-1].split("(")[0]
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
# The latency under load: what chapter 1's step 01 consumer implies on the H200 (its README,
# "Bytes in flight"); the idle latency is the pointer chase's. Used for every GPU.
LOADED_LATENCY_NS = 590


def littles_law(res):
    """What Little's law needs on this GPU: (idle latency ns, multiprocessors, {latency ns: knee
    in KB per multiprocessor}) at the idle latency and under load, the knee being copy x latency /
    multiprocessors; None when chapter 1 has no recording for it."""
    transpose = pathlib.Path(res.folder).parents[2] / "01_transpose" / "results" / res.folder.name / "bench.json"
    if not transpose.exists():
        return None
    context, _ = results.load(transpose)
    latency_ns, sms = float(context["memory_latency_ns"]), float(context["multiprocessors"])
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
             f"{LOADED_LATENCY_NS} ns under load {knees[LOADED_LATENCY_NS]:.1f} KB. Predicted = min(1, KB in flight / knee); "
             "measured = the profile's HBM GB/s over the copy; the last column is the latency at which the KB in flight "
             "would deliver exactly the measured rate.", "",
             "| step | kernel | in flight per thread (the code) | threads per SM | KB per SM (DRAM) | predicted, idle | "
             f"predicted, {LOADED_LATENCY_NS} ns | measured (HBM) | latency that fits (ns) |",
             "|---|---|---|---:|---:|---:|---:|---:|---:|"]
    for kernel, (step, what, per_thread, dram_per_loaded) in IN_FLIGHT.items():
        if kernel not in rows:
            continue
        threads, kb = in_flight_per_sm(rows[kernel], per_thread, dram_per_loaded)
        measured = rows[kernel].number("achieved GB/s")
        predicted = [f"{min(1.0, kb / knee):.2f}" for knee in knees.values()]
        lines.append(f"| {step} | `{kernel}` | {what} | {threads:.0f} | {kb:.1f} | {' | '.join(predicted)} | "
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
              "scoreboard (a load from L1, L2 or DRAM, cp.async's wait included), shared memory the short one. L2 TB/s: all "
              "the L2's traffic over the kernel's time (lts__t_bytes: the SMs', DRAM's fills and write-backs); L2 read and "
              "write in cubes (536.9 MB) of sectors, from every source; DRAM read and write in cubes, apart: a kernel that "
              "reads the cube once and writes it once shows about 1.0 and 1.0, less for writes still in L2 at its end."]
    return "\n".join(lines)


def tables(res) -> dict:
    return {**report_tables.default_tables(res), "resources": resources_table(res), "speedup": speedup_table(res),
            "in_flight": in_flight_table(res), "stalls": stalls_table(res), "bandwidth": bandwidth_table(res)}
