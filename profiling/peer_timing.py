"""Times a PyTorch peer the way the course's benchmark harness times a step (common/src/
benchmark.cpp): one untimed warm-up, then CUDA events around each run with the L2 flushed
before it, and the median, min and max of the runs; and writes the peer's cases in the form
profiling/results.py's load_peers reads. For the chapters' peer_*.py scripts."""
import json
import statistics

import cli

REPETITIONS = 20


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
