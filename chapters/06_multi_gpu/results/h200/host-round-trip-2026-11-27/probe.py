"""Step 01's round trip in pieces, on this machine: the host-to-host copies of the threads' exchange
(libc memcpy of two messages, as Team::exchange_host does, by 1 and by 4 threads at once), and the
device copies of step 01's pattern (two down, synchronize, two up, synchronize), with pinned buffers."""
import ctypes, statistics, threading, time
import torch

MESSAGE = 4_790_000  # bytes: a quarter of the 19.2 MB a GPU sends and receives a step at weak 512^3
REPS = 200
libc = ctypes.CDLL("libc.so.6")
libc.memcpy.restype = ctypes.c_void_p
libc.memcpy.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t]

def pinned():
    return torch.empty(MESSAGE, dtype=torch.uint8, pin_memory=True)

def host_copies(results, slot):
    src, dst = [pinned() for _ in range(2)], [pinned() for _ in range(2)]
    times = []
    for _ in range(REPS):
        t = time.perf_counter()
        for s, d in zip(src, dst):
            libc.memcpy(d.data_ptr(), s.data_ptr(), MESSAGE)
        times.append(time.perf_counter() - t)
    results[slot] = statistics.median(times) * 1e3

for threads in (1, 4):
    results = [0.0] * threads
    workers = [threading.Thread(target=host_copies, args=(results, i)) for i in range(threads)]
    for w in workers: w.start()
    for w in workers: w.join()
    print(f"host memcpy, 2 messages of {MESSAGE} B, {threads} thread(s) at once: "
          f"{max(results):.4f} ms a step (slowest thread), {2 * MESSAGE / max(results) / 1e6:.1f} GB/s")

stream = torch.cuda.Stream()
device = [torch.empty(MESSAGE, dtype=torch.uint8, device="cuda") for _ in range(4)]
host = [pinned() for _ in range(4)]
times = []
for _ in range(REPS):
    t = time.perf_counter()
    with torch.cuda.stream(stream):
        host[0].copy_(device[0], non_blocking=True); host[1].copy_(device[1], non_blocking=True)
    stream.synchronize()
    with torch.cuda.stream(stream):
        device[2].copy_(host[2], non_blocking=True); device[3].copy_(host[3], non_blocking=True)
    stream.synchronize()
    times.append(time.perf_counter() - t)
ms = statistics.median(times) * 1e3
print(f"device copies, 2 down, synchronize, 2 up, synchronize: {ms:.4f} ms a step, {4 * MESSAGE / ms / 1e6:.1f} GB/s")
