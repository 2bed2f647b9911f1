#!/usr/bin/env python3
"""What a PyTorch user would write for the Coulomb sum on the GPU, timed the way the course's
benchmarks time (profiling/peer_timing.py), on the benchmark's problem: nx x ny grid points of
spacing 0.5 at height 1.25, atoms spread over the slice with heights 0.25-2 from it.

  - broadcast: for chunks of atoms, the squared distances of every point to every atom of the
    chunk as one (points x chunk) tensor, torch.rsqrt, times the charges, summed over atoms;
  - cdist + matmul: torch.cdist for the (points x chunk) distances, then 1/d times the charges
    as a matrix-vector product;
  - compiled: the broadcast form's chunk through torch.compile, which fuses the distances, the
    root and the sum (at its measured rate, the (points x chunk) tensor cannot be going through
    memory); and the same with mode="max-autotune", which also tries its kernels' tile sizes;
  - Triton: a kernel a user would write in the Triton that PyTorch ships, each program
    accumulating 128 points' sums over blocks of 64 atoms (skipped where triton does not import).
Each is checked against a float64 sum at two points.

    peer_torch.py [--sizes 512x512:10000] [--out torch.json]
"""
import argparse
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "profiling"))
import cli  # noqa: E402
from peer_timing import median_ms, peer_case, size_list, torch_on_cuda, write_results  # noqa: E402

torch = None  # PyTorch on CUDA: main() takes it once the options are known to be good

SPACING, HEIGHT = 0.5, 1.25
ELEMENTS_PER_CHUNK = 1 << 27  # points x atoms per chunk: a 512 MB float tensor


def problem(nx: int, ny: int, count: int):
    generator = torch.Generator(device="cuda").manual_seed(20261122)
    u = lambda: torch.rand(count, device="cuda", generator=generator)  # noqa: E731
    ax, ay = u() * nx * SPACING, u() * ny * SPACING
    dz = (0.5 + 3.5 * u()) * SPACING * torch.where(u() < 0.5, -1.0, 1.0)
    q = 2 * u() - 1
    j, i = torch.meshgrid(torch.arange(ny, device="cuda"), torch.arange(nx, device="cuda"), indexing="ij")
    return (i.reshape(-1) * SPACING).float(), (j.reshape(-1) * SPACING).float(), ax, ay, dz, q


def broadcast(x, y, ax, ay, dz, q, chunk: int):
    potential = torch.zeros_like(x)
    for first in range(0, ax.numel(), chunk):
        s = slice(first, first + chunk)
        r2 = (x[:, None] - ax[None, s]) ** 2 + (y[:, None] - ay[None, s]) ** 2 + dz[None, s] ** 2
        potential += (torch.rsqrt(r2) * q[None, s]).sum(dim=1)
    return potential


def chunk_sum(x, y, ax, ay, dz, q):
    return (torch.rsqrt((x[:, None] - ax[None, :]) ** 2 + (y[:, None] - ay[None, :]) ** 2 + dz[None, :] ** 2)
            * q[None, :]).sum(dim=1)


compiled_chunk_sums = {}  # torch.compile(chunk_sum) per mode, made on first use


def compiled_with(mode: str):
    def compiled(x, y, ax, ay, dz, q, chunk: int):
        if mode not in compiled_chunk_sums:
            compiled_chunk_sums[mode] = torch.compile(chunk_sum, dynamic=False, mode=mode)
        potential = torch.zeros_like(x)
        for first in range(0, ax.numel(), chunk):
            s = slice(first, first + chunk)
            potential += compiled_chunk_sums[mode](x, y, ax[s], ay[s], dz[s], q[s])
        return potential
    return compiled


POINTS_PER_PROGRAM, ATOMS_PER_STEP = 128, 64
triton_kernel = None  # made on first use: importing triton is the test of whether it works here


def make_triton_kernel():
    import triton
    import triton.language as tl

    @triton.jit
    def potential_kernel(x_ptr, y_ptr, ax_ptr, ay_ptr, dz2_ptr, q_ptr, out_ptr, points, count,
                         POINTS: tl.constexpr, ATOMS: tl.constexpr):
        at = tl.program_id(0) * POINTS + tl.arange(0, POINTS)
        inside = at < points
        x = tl.load(x_ptr + at, mask=inside, other=0.0)
        y = tl.load(y_ptr + at, mask=inside, other=0.0)
        potential = tl.zeros([POINTS], dtype=tl.float32)
        for first in range(0, count, ATOMS):
            k = first + tl.arange(0, ATOMS)
            real = k < count
            dx = x[:, None] - tl.load(ax_ptr + k, mask=real, other=0.0)[None, :]
            dy = y[:, None] - tl.load(ay_ptr + k, mask=real, other=0.0)[None, :]
            r2 = dx * dx + dy * dy + tl.load(dz2_ptr + k, mask=real, other=1.0)[None, :]
            potential += tl.sum(tl.load(q_ptr + k, mask=real, other=0.0)[None, :] * tl.rsqrt(r2), axis=1)
        tl.store(out_ptr + at, potential, mask=inside)

    return potential_kernel


def triton_per_point(x, y, ax, ay, dz, q, chunk: int):
    global triton_kernel
    if triton_kernel is None:
        triton_kernel = make_triton_kernel()
    out = torch.empty_like(x)
    grid = ((x.numel() + POINTS_PER_PROGRAM - 1) // POINTS_PER_PROGRAM,)
    triton_kernel[grid](x, y, ax, ay, dz * dz, q, out, x.numel(), ax.numel(), POINTS=POINTS_PER_PROGRAM, ATOMS=ATOMS_PER_STEP)
    return out


def cdist_matmul(x, y, ax, ay, dz, q, chunk: int):
    points = torch.stack([x, y, torch.full_like(x, HEIGHT)], dim=1)
    atoms = torch.stack([ax, ay, HEIGHT - dz], dim=1)
    potential = torch.zeros_like(x)
    for first in range(0, ax.numel(), chunk):
        s = slice(first, first + chunk)
        potential += (1.0 / torch.cdist(points, atoms[s])) @ q[s]
    return potential


def main() -> int:
    parser = cli.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=size_list("NXxNY:ATOMS", (1, 65536), (1, 65536), (1, 1 << 24)),
                        default="512x512:10000", help="default %(default)s (the benchmark's limits)")
    parser.add_argument("--out", help="the results JSON to write")
    args = parser.parse_args()
    if args.out:
        cli.check_output_file(args.out)
    global torch
    torch = torch_on_cuda()
    cases = []
    for nx, ny, count in args.sizes:
        x, y, ax, ay, dz, q = problem(nx, ny, count)
        chunk = max(1, ELEMENTS_PER_CHUNK // x.numel())
        probes = torch.tensor([0, x.numel() // 2], device="cuda")
        d = lambda v: v.double().cpu()  # noqa: E731
        exact = ((d(x[probes])[:, None] - d(ax)) ** 2 + (d(y[probes])[:, None] - d(ay)) ** 2 + d(dz) ** 2).rsqrt() @ d(q)
        group = f"{nx}x{ny}, {count} atoms"
        methods = (("torch broadcast + rsqrt", broadcast, chunk), ("torch cdist + matmul", cdist_matmul, chunk),
                   # one chunk of all atoms for the compiled forms: no tensor is made
                   ("torch.compile broadcast", compiled_with("default"), count),
                   ("torch.compile max-autotune", compiled_with("max-autotune"), count),
                   ("Triton per-point kernel", triton_per_point, count))
        for name, method, chunk in methods:
            with torch.no_grad():
                try:
                    result = method(x, y, ax, ay, dz, q, chunk)
                except Exception as error:  # torch.compile and Triton need a working Triton and C compiler
                    print(f"{group}, {name}: skipped, {type(error).__name__}: {str(error).splitlines()[0][:200]}")
                    continue
                worst = float((d(result[probes]) - exact).abs().div(exact.abs().clamp_min(1e-30)).max())
                median, low, high = median_ms(torch, lambda: method(x, y, ax, ay, dz, q, chunk))
            evaluations = x.numel() * count
            cases.append(peer_case(group, name, (median, low, high),
                                   {"Grsqrt": evaluations / 1e9, "GB": (4 * x.numel() + 16 * count) / 1e9},
                                   relative_error_at_two_points=worst))
            print(f"{group}, {name:24} {median:9.3f} ms {evaluations / 1e9 / (median / 1e3):8.1f} G evaluations/s "
                  f"(relative error {worst:.1e} at two points)")
    if args.out:
        write_results(args.out, cases, gpu=torch.cuda.get_device_properties(0).name, torch=torch.__version__)
    return 0


if __name__ == "__main__":
    cli.run(main)
