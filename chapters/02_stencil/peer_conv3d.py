#!/usr/bin/env python3
"""What a PyTorch user would otherwise write for a 3D stencil, timed the way the course's
benchmarks time (warm-up, CUDA events around each run, L2 flushed before each, median of 20), on
the same interior, with the same effective-bandwidth count (2 x 4 N^3 bytes):

  * conv3d (cuDNN) with the operator's weights (stencils.hpp, written out below), the
    deep-learning route;
  * avg_pool3d for the box (its weights are all 1/27: the same operator, a pooling kernel);
  * torch.compile of the stencil written as a sum of shifted slices, which Inductor fuses into
    one generated kernel, in its default mode: the fastest thing we found a PyTorch user gets
    without writing a kernel.

Before it times a peer, it checks the peer's output at a few interior points against a float64
sum of the same weights over the input (cuDNN may compute in TF32, hence the tolerance).

(The recorded results/h200/conv3d.json and results/h100-80gb-hbm3/conv3d.json were made by an
earlier version, which gave conv3d and torch.compile random weights of the same shape, all
nonzero like the operators', and checked no output; the work, and so the time, is the same.)

    peer_conv3d.py [--size 512] [--out conv3d.json]
"""
import argparse
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "profiling"))
import cli  # noqa: E402
from peer_timing import median_ms, peer_case, shifted_slice_sum, torch_on_cuda, whole_number, write_results  # noqa: E402

# 1D central differences of radius 2, at offsets -2 .. 2 (course/stencil.hpp's first_derivative(2, i)
# and second_derivative(2, i)), and the identity.
D1 = [1 / 12, -8 / 12, 0.0, 8 / 12, -1 / 12]
D2 = [-1 / 12, 16 / 12, -30 / 12, 16 / 12, -1 / 12]
ID = [0.0, 0.0, 1.0, 0.0, 0.0]


def weight(stencil: str, i: int, j: int, k: int) -> float:
    """The operator's weight of the neighbour (x+i, y+j, z+k), as stencils.hpp's weight(i, j, k)."""
    if stencil == "box27":
        return 1.0 / 27
    # compound_r2: the Laplacian, the mixed second derivatives and the mixed third derivative.
    x, y, z = i + 2, j + 2, k + 2
    return (D2[x] * ID[y] * ID[z] + ID[x] * D2[y] * ID[z] + ID[x] * ID[y] * D2[z]
            + D1[x] * D1[y] * ID[z] + ID[x] * D1[y] * D1[z] + D1[x] * ID[y] * D1[z]
            + D1[x] * D1[y] * D1[z])


def check(name: str, output, volume, taps, n: int) -> None:
    """The peer's output against a float64 sum of the taps over the input, at a few interior points;
    exits with the first point that differs."""
    edge = round(len(taps) ** (1 / 3))
    out = output.reshape(n, n, n)
    for z, y, x in ((0, 0, 0), (n // 2, n - 1, n // 3), (n - 1, n // 2, n - 1)):
        window = volume[z:z + edge, y:y + edge, x:x + edge].double().cpu()
        terms = [w * float(window[dz, dy, dx]) for dz, dy, dx, w in taps]
        expected, scale = sum(terms), sum(abs(t) for t in terms)
        got = float(out[z, y, x])
        if not abs(got - expected) <= 2e-3 * scale + 1e-6:  # TF32 keeps 10 bits of each product's inputs
            sys.exit(f"error: {name} is wrong at the interior point (x, y, z) = ({x}, {y}, {z}): got {got}, "
                     f"expected {expected}")


def main() -> int:
    parser = cli.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", type=whole_number(1, 1024), default=512, help="the cube's edge (the benchmark's limits)")
    parser.add_argument("--out", help="the results JSON to write")
    args = parser.parse_args()
    if args.out:
        cli.check_output_file(args.out)
    torch = torch_on_cuda()
    torch.backends.cudnn.benchmark = True
    n = args.size
    props = torch.cuda.get_device_properties(0)
    cases = []
    gigabytes = 2 * 4 * n**3 / 1e9

    def record(stencil, name, run, volume, taps):
        with torch.no_grad():
            check(name, run(), volume, taps, n)
            timing = median_ms(torch, run)
        cases.append(peer_case(stencil, name, timing, {"GB": gigabytes}))
        print(f"{stencil:12} {name:36} {timing[0]:9.3f} ms {gigabytes / (timing[0] / 1e3):8.1f} GB/s")

    for stencil, edge in (("box27", 3), ("compound_r2", 5)):
        radius = edge // 2
        x = torch.rand(1, 1, n + 2 * radius, n + 2 * radius, n + 2 * radius, device="cuda")
        volume = x[0, 0]
        # Tap (dz, dy, dx) reads volume[z + dz, y + dy, x + dx], the neighbour i = dx - r, j = dy - r, k = dz - r.
        taps = [(dz, dy, dx, weight(stencil, dx - radius, dy - radius, dz - radius))
                for dz in range(edge) for dy in range(edge) for dx in range(edge)]
        assert all(w != 0.0 for *_, w in taps), "every weight of both operators is nonzero"
        kernel = torch.tensor([w for *_, w in taps], device="cuda").reshape(1, 1, edge, edge, edge)
        record(stencil, f"torch conv3d {edge}x{edge}x{edge}", lambda: torch.nn.functional.conv3d(x, kernel), volume, taps)
        if stencil == "box27":
            record(stencil, "torch avg_pool3d 3x3x3", lambda: torch.nn.functional.avg_pool3d(x, edge, stride=1), volume, taps)
        compiled = torch.compile(shifted_slice_sum(taps, n))
        record(stencil, f"torch.compile, sum of {edge ** 3} shifted slices", lambda: compiled(volume), volume, taps)
    if args.out:
        write_results(args.out, cases, gpu=props.name, torch=torch.__version__, cudnn=torch.backends.cudnn.version(),
                      size=n)
    return 0


if __name__ == "__main__":
    cli.run(main)
