#!/usr/bin/env python3
"""The library a user would otherwise pick for a 3D stencil: PyTorch's conv3d (cuDNN), timed the
way the course's benchmarks time (warm-up, CUDA events around each run, L2 flushed before each,
median of 20), on the same interior, with the same effective-bandwidth count (2 x 4 N^3 bytes).

    peer_conv3d.py [--size 512] [--out conv3d.json]
"""
import argparse
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "profiling"))
from peer_timing import median_ms, peer_case, write_results  # noqa: E402

try:
    import torch
except ImportError:
    sys.exit("error: PyTorch is not installed; this peer needs python3 with torch and a CUDA GPU")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", type=int, default=512)
    parser.add_argument("--out")
    args = parser.parse_args()
    if not torch.cuda.is_available():
        sys.exit("error: no CUDA device for PyTorch")
    torch.backends.cudnn.benchmark = True
    n = args.size
    props = torch.cuda.get_device_properties(0)
    cases = []
    for stencil, edge in (("box27", 3), ("compound_r2", 5)):
        radius = edge // 2
        x = torch.rand(1, 1, n + 2 * radius, n + 2 * radius, n + 2 * radius, device="cuda")
        weight = torch.rand(1, 1, edge, edge, edge, device="cuda")
        with torch.no_grad():
            timing = median_ms(torch, lambda: torch.nn.functional.conv3d(x, weight))
        gigabytes = 2 * 4 * n**3 / 1e9
        cases.append(peer_case(stencil, f"torch conv3d {edge}x{edge}x{edge}", timing, {"GB": gigabytes}))
        print(f"{cases[-1]['name']:24} {timing[0]:9.3f} ms {gigabytes / (timing[0] / 1e3):8.1f} GB/s")
    if args.out:
        write_results(args.out, cases, gpu=props.name, torch=torch.__version__, cudnn=torch.backends.cudnn.version(),
                      size=n)
    return 0


if __name__ == "__main__":
    sys.exit(main())
