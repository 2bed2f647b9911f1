#!/usr/bin/env python3
"""What a PyTorch user would otherwise write for a 3D stencil, timed the way the course's
benchmarks time (warm-up, CUDA events around each run, L2 flushed before each, median of 20), on
the same interior, with the same effective-bandwidth count (2 x 4 N^3 bytes):

  * conv3d (cuDNN) with the stencil's weights, the deep-learning route;
  * avg_pool3d for the box (its weights are all 1/27: the same operator, a pooling kernel);
  * torch.compile of the stencil written as a sum of shifted slices, which Inductor fuses into
    one generated kernel: the strongest thing a PyTorch user gets without writing a kernel.

    peer_conv3d.py [--size 512] [--out conv3d.json]
"""
import argparse
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "profiling"))
import cli  # noqa: E402
from peer_timing import median_ms, peer_case, shifted_slice_sum, torch_on_cuda, whole_number, write_results  # noqa: E402


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

    def record(stencil, name, run):
        with torch.no_grad():
            timing = median_ms(torch, run)
        cases.append(peer_case(stencil, name, timing, {"GB": gigabytes}))
        print(f"{stencil:12} {name:36} {timing[0]:9.3f} ms {gigabytes / (timing[0] / 1e3):8.1f} GB/s")

    for stencil, edge in (("box27", 3), ("compound_r2", 5)):
        radius = edge // 2
        x = torch.rand(1, 1, n + 2 * radius, n + 2 * radius, n + 2 * radius, device="cuda")
        weight = torch.rand(1, 1, edge, edge, edge, device="cuda")
        record(stencil, f"torch conv3d {edge}x{edge}x{edge}", lambda: torch.nn.functional.conv3d(x, weight))
        if stencil == "box27":
            record(stencil, "torch avg_pool3d 3x3x3", lambda: torch.nn.functional.avg_pool3d(x, edge, stride=1))
        taps = [(dz, dy, dx, float(weight[0, 0, dz, dy, dx])) for dz in range(edge) for dy in range(edge) for dx in range(edge)]
        compiled = torch.compile(shifted_slice_sum(taps, n))
        volume = x[0, 0]
        record(stencil, f"torch.compile, sum of {edge ** 3} shifted slices", lambda: compiled(volume))
    if args.out:
        write_results(args.out, cases, gpu=props.name, torch=torch.__version__, cudnn=torch.backends.cudnn.version(),
                      size=n)
    return 0


if __name__ == "__main__":
    cli.run(main)
