"""Times a PyTorch peer the way the course's benchmark harness times a step (common/src/
benchmark.cpp): one untimed warm-up, then CUDA events around each run with the L2 flushed
before it, and the median, min and max of the runs; and writes the peer's cases in the form
profiling/results.py's load_peers reads. For the chapters' peer_*.py scripts, which check their
arguments (with the argparse types below, and their --out with cli.check_output_file) before
they take PyTorch: --help and a bad argument need no torch, and nothing is measured for nothing."""
import argparse
import json
import re
import statistics
import sys

import cli

REPETITIONS = 20


def whole_number(low: int, high: int):
    """An argparse type: a whole number from `low` to `high`."""
    def parse(text: str) -> int:
        if not re.fullmatch(r"[0-9]+", text) or not low <= int(text) <= high:
            raise argparse.ArgumentTypeError(f"needs a whole number from {low} to {high}, not '{text}'")
        return int(text)
    return parse


def size_list(form: str, *limits: tuple[int, int]):
    """An argparse type: sizes of the form `form` ("NXxNY", "NXxNY:ATOMS"), separated by commas,
    each number within its (low, high) in `limits`, and no size twice; a list of tuples."""
    names = re.findall(r"[A-Z]+", form)
    pattern = re.sub(r"[A-Z]+", "([0-9]+)", form)
    ranges = ", ".join(f"{name} from {low} to {high}" for name, (low, high) in zip(names, limits))

    def parse(text: str) -> list:
        sizes = []
        for item in text.split(","):
            match = re.fullmatch(pattern, item)
            size = tuple(int(v) for v in match.groups()) if match else ()
            if not match or not all(low <= v <= high for v, (low, high) in zip(size, limits)):
                raise argparse.ArgumentTypeError(f"needs {form}[,{form}...] with {ranges}, not '{item}'")
            if size in sizes:
                raise argparse.ArgumentTypeError(f"gives {item} twice")
            sizes.append(size)
        return sizes
    return parse


def torch_on_cuda():
    """PyTorch, with a CUDA device to run on; else one error line and exit status 1."""
    try:
        import torch
    except ImportError:
        sys.exit("error: PyTorch is not installed; this peer needs python3 with torch and a CUDA GPU")
    if not torch.cuda.is_available():
        sys.exit("error: no CUDA device for PyTorch")
    return torch


def shifted_slice_sum(taps, n: int):
    """A stencil as a PyTorch user writes it for torch.compile to fuse into one kernel: the sum of
    w * volume[dz:dz+n, dy:dy+n, dx:dx+n] over taps (dz, dy, dx, w), on an n^3 interior of a
    haloed volume. The weights are Python numbers, so the compiled kernel holds them as constants."""
    def stencil(volume):
        return sum(w * volume[dz:dz + n, dy:dy + n, dx:dx + n] for dz, dy, dx, w in taps)
    return stencil


def median_ms(torch, run, repetitions: int = REPETITIONS) -> tuple[float, float, float]:
    props = torch.cuda.get_device_properties(0)
    scratch = torch.empty(2 * props.L2_cache_size // 4 + 1, device="cuda")  # twice the L2, as the harness flushes
    run()
    torch.cuda.synchronize()
    times = []
    for _ in range(repetitions):
        scratch.zero_()
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        run()
        stop.record()
        stop.synchronize()
        times.append(start.elapsed_time(stop))
    return statistics.median(times), min(times), max(times)


def peer_case(group: str, name: str, timing: tuple[float, float, float], amounts: dict, **extra) -> dict:
    """One case for load_peers: `timing` is median_ms's (median, min, max), `amounts` the work of
    one run by unit ({"GB": ..., "Grsqrt": ...}), `extra` anything else worth keeping."""
    median, low, high = timing
    return {"group": group, "name": name, "median_ms": median, "min_ms": low, "max_ms": high,
            "repetitions": REPETITIONS, "amounts": amounts, **extra}


def write_results(path, cases: list, **context) -> None:
    """The peer's JSON file, written whole or not at all: its context (the GPU, library versions,
    sizes) and its cases. A peer script checks its --out with cli.check_output_file before it measures."""
    with cli.atomic_output(path) as f:
        f.write(json.dumps({**context, "cases": cases}, indent=2))
