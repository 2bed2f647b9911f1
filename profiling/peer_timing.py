"""Times a PyTorch peer the way the course's benchmark harness times a step (common/src/
benchmark.cpp): one untimed warm-up, then CUDA events around each run with the L2 flushed
before it, and the median, min and max of the runs. For the chapters' peer_*.py scripts."""
import statistics

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
