#!/usr/bin/env python3
"""What a PyTorch user would write for the seismic Laplacian, timed the way the course's
benchmarks time (profiling/peer_timing.py: warm-up, CUDA events, L2 flushed, median of 20), on
the same interior with the same effective-bandwidth count (2 x 4 N^3 bytes):
  - conv3d three times, with a 1-D kernel of 9 taps along each axis (9x1x1, 1x9x1, 1x1x9), each
    on a non-contiguous slice of the haloed field (the other two axes' halos cut off), summed;
  - conv3d once, with the 9x9x9 kernel that holds the star's 25 weights (zeros elsewhere);
  - torch.compile of the star written as a sum of 25 shifted slices, which Inductor fuses into
    one generated kernel: the strongest thing a PyTorch user gets without writing a kernel;
    once with the default mode and once with mode="max-autotune-no-cudagraphs" (Inductor tries
    several configurations of the generated kernel and keeps the fastest; no CUDA graphs, so the
    timing is of the kernel, launched as the other cases are).

    peer_torch.py [--size 512] [--out torch.json]
"""
import argparse
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "profiling"))
import cli  # noqa: E402
from peer_timing import median_ms, peer_case, shifted_slice_sum, torch_on_cuda, whole_number, write_results  # noqa: E402

RADIUS = 4
# The 8th-order central second difference (course/stencil.hpp, radius 4).
WEIGHTS = [-1 / 560, 8 / 315, -1 / 5, 8 / 5, -205 / 72, 8 / 5, -1 / 5, 8 / 315, -1 / 560]


def main() -> int:
    parser = cli.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", type=whole_number(1, 1024), default=512, help="the cube's edge (the benchmark's limits)")
    parser.add_argument("--out", help="the results JSON to write")
    args = parser.parse_args()
    if args.out:
        cli.check_output_file(args.out)
    torch = torch_on_cuda()
    torch.backends.cudnn.benchmark = True
    n, r = args.size, RADIUS
    props = torch.cuda.get_device_properties(0)
    # A packed haloed field: each row's interior starts 16 bytes into a sector, where the steps (from
    # step 01) get rows padded to 64 floats; step 01 measured that layout at 1.12x (NOTES.md, "The peers").
    field = torch.rand(1, 1, n + 2 * r, n + 2 * r, n + 2 * r, device="cuda")
    taps = torch.tensor(WEIGHTS, device="cuda")
    along_z, along_y, along_x = taps.view(1, 1, 9, 1, 1), taps.view(1, 1, 1, 9, 1), taps.view(1, 1, 1, 1, 9)
    star = torch.zeros(1, 1, 9, 9, 9, device="cuda")
    star[0, 0, :, r, r] += taps
    star[0, 0, r, :, r] += taps
    star[0, 0, r, r, :] += taps
    conv = torch.nn.functional.conv3d

    def three_convolutions():
        return (conv(field[:, :, :, r:-r, r:-r], along_z) + conv(field[:, :, r:-r, :, r:-r], along_y)
                + conv(field[:, :, r:-r, r:-r, :], along_x))

    volume = field[0, 0]
    # (dz, dy, dx, weight) of the star's 25 taps, the centre's three weights as one.
    taps_of_star = [(r, r, r, 3 * WEIGHTS[r])] + [
        offset for i, w in enumerate(WEIGHTS) if i != r
        for offset in ((i, r, r, w), (r, i, r, w), (r, r, i, w))]
    compiled = torch.compile(shifted_slice_sum(taps_of_star, n))
    autotuned = torch.compile(shifted_slice_sum(taps_of_star, n), mode="max-autotune-no-cudagraphs")

    with torch.no_grad():
        # The three forms agree with each other (and so with the star's weights).
        torch.testing.assert_close(three_convolutions(), conv(field, star), rtol=1e-4, atol=1e-4)
        torch.testing.assert_close(compiled(volume), conv(field, star)[0, 0], rtol=1e-4, atol=1e-4)
        torch.testing.assert_close(autotuned(volume), conv(field, star)[0, 0], rtol=1e-4, atol=1e-4)
        gigabytes = 2 * 4 * n**3 / 1e9
        cases = []
        for name, run in (("torch conv3d x3, 1-D kernels of 9 on slices", three_convolutions),
                          ("torch conv3d, one 9x9x9 kernel", lambda: conv(field, star)),
                          ("torch.compile, sum of 25 shifted slices", lambda: compiled(volume)),
                          ("torch.compile max-autotune-no-cudagraphs, 25 slices", lambda: autotuned(volume))):
            timing = median_ms(torch, run)
            cases.append(peer_case(f"laplacian8 {n}^3", name, timing, {"GB": gigabytes}))
            print(f"{name:52} {timing[0]:9.3f} ms {gigabytes / (timing[0] / 1e3):8.1f} GB/s")
    if args.out:
        write_results(args.out, cases, gpu=props.name, torch=torch.__version__, cudnn=torch.backends.cudnn.version(),
                      size=n)
    return 0


if __name__ == "__main__":
    cli.run(main)
