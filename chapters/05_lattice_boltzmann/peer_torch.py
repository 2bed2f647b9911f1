#!/usr/bin/env python3
"""What a PyTorch user would write for the D2Q9 lattice Boltzmann channel on the GPU, timed the way
the course's benchmarks time (profiling/peer_timing.py), on the benchmark's problem: nx x ny cells,
periodic along x, walls halfway outside the first and last rows (halfway bounce-back), BGK
collision with tau 0.8 and a body force 1e-6 along x, from rest. The state is a (9, ny, nx)
float32 tensor of post-collision distributions; one time step

  - streams by pulling: torch.roll of each direction's plane by its velocity, and torch.where
    puts the opposite direction's own value where the pull would come from behind a wall;
  - takes the moments (density, velocity) and collides, vectorised over the 9 directions.

Five forms: that step in eager mode; the same function through torch.compile; through
torch.compile, the step written one direction's plane at a time, which Inductor can fuse into
one pass (the vectorised form compiles to a copy per roll and a reduction over the 9 directions,
5x slower on the H200 at 8192^2); the plane-by-plane step replayed as a CUDA graph of a run's
steps (what a user does where launches, not memory, set the time); and that with the state
stored in float16 as differences from the weights, as the course's 16-bit steps store it,
converted plane by plane inside the compiled step. A run
is --steps time steps; rates count lattice updates (MLUP) and the fewest bytes an update moves
(72 per cell in float32: 9 values read and 9 written; 36 in float16). Each form is checked
first, at 64 x 8 from a seeded random state near equilibrium: 5 steps against the same eager
code in float64, and the mass after 20 steps. Each case also records the kernels a time step
launches (torch.profiler, "kernels_per_step"): one where the compiler fused the step into one pass.

    peer_torch.py [--sizes 256x256,1024x1024,...] [--steps 20] [--out torch.json]
"""
import argparse
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "profiling"))
import cli  # noqa: E402
from peer_timing import median_ms, peer_case, size_list, torch_on_cuda, whole_number, write_results  # noqa: E402

torch = None  # PyTorch on CUDA: main() takes it once the options are known to be good

# D2Q9: velocities e_k, weights w_k, and the direction opposite to each.
VELOCITIES = ((0, 0), (1, 0), (0, 1), (-1, 0), (0, -1), (1, 1), (-1, 1), (-1, -1), (1, -1))
WEIGHTS = (4 / 9,) + (1 / 9,) * 4 + (1 / 36,) * 4
OPPOSITE = (0, 3, 4, 1, 2, 7, 8, 5, 6)
TAU, FORCE = 0.8, 1e-6  # the benchmark's problem
CHECK_FORCE = 1e-3  # the checks' force: 1e-6 would change f by less than their tolerance
CHECK_NX, CHECK_NY, CHECK_SEED = 64, 8, 20261205
BYTES_PER_CELL = 2 * 9 * 4
DEFAULT_SIZES = "256x256,1024x1024,2048x2048,4096x4096,8192x8192"


def lattice_step(ny: int, tau: float, force: float, double: bool = False):
    """The time step f* -> f* of a channel ny rows wide, for (9, ny, nx) float32 tensors (float64
    with `double`), vectorised over the 9 directions."""
    dtype = torch.float64 if double else torch.float32

    def column(values):  # one value per direction, broadcast over the (ny, nx) plane
        return torch.tensor(values, dtype=dtype, device="cuda").view(9, 1, 1)
    ex, ey, w = column([e[0] for e in VELOCITIES]), column([e[1] for e in VELOCITIES]), column(WEIGHTS)
    opposite = torch.tensor(OPPOSITE, device="cuda")
    rows = torch.arange(ny, device="cuda").view(1, ny, 1)
    # Where the pull from y - e_y leaves the channel (row 0 for e_y = 1, row ny-1 for e_y = -1),
    # torch.roll wraps around: those cells take the opposite direction's value instead.
    behind_wall = ((ey == 1) & (rows == 0)) | ((ey == -1) & (rows == ny - 1))
    forcing = 3 * w * ex * force

    def step(f):
        streamed = torch.stack([f[k].roll((e_y, e_x), (0, 1)) for k, (e_x, e_y) in enumerate(VELOCITIES)])
        f = torch.where(behind_wall, f[opposite], streamed)
        rho = f.sum(0)
        ux, uy = (f * ex).sum(0) / rho, (f * ey).sum(0) / rho
        eu = ex * ux + ey * uy
        equilibrium = w * rho * (1 + 3 * eu + 4.5 * eu**2 - 1.5 * (ux**2 + uy**2))
        return f - (f - equilibrium) / tau + forcing
    return step


def lattice_step_by_plane(ny: int, tau: float, force: float, fp16: bool = False):
    """The same step for float32, one direction's (ny, nx) plane at a time: the moments are sums of
    planes and the constants Python numbers, so torch.compile makes one pointwise kernel of it.
    With `fp16` the state is stored as float16 differences from the weights, s = f - w (as the
    course's 16-bit steps store it), the arithmetic in float32: each pulled plane is converted
    up and each collided plane down inside the step, plane by plane, so the compiled kernel reads
    and writes float16 only (no float32 copy of the whole state on the way)."""
    rows = torch.arange(ny, device="cuda").view(ny, 1)
    first_row, last_row = rows == 0, rows == ny - 1

    def step(f):
        planes = []
        for k, (e_x, e_y) in enumerate(VELOCITIES):
            pulled = f[k].roll((e_y, e_x), (0, 1))
            if e_y != 0:
                pulled = torch.where(first_row if e_y == 1 else last_row, f[OPPOSITE[k]], pulled)
            planes.append(pulled.float() + WEIGHTS[k] if fp16 else pulled)
        rho = sum(planes)
        ux = sum(e_x * plane for plane, (e_x, _) in zip(planes, VELOCITIES) if e_x) / rho
        uy = sum(e_y * plane for plane, (_, e_y) in zip(planes, VELOCITIES) if e_y) / rho
        usq = ux * ux + uy * uy
        collided = []
        for plane, (e_x, e_y), w in zip(planes, VELOCITIES, WEIGHTS):
            eu = e_x * ux + e_y * uy
            equilibrium = w * rho * (1 + 3 * eu + 4.5 * eu * eu - 1.5 * usq)
            value = plane - (plane - equilibrium) / tau + 3 * w * e_x * force
            collided.append((value - w).half() if fp16 else value)
        return torch.stack(collided)
    return step


def lattice_step_by_plane_fp16(ny: int, tau: float, force: float):
    """The plane-by-plane step on the float16 state (lattice_step_by_plane's `fp16`)."""
    return lattice_step_by_plane(ny, tau, force, fp16=True)


def compiled(step_of):
    """A form's maker through torch.compile. torch.compile specialises on the shape and on the
    step's constants; a user running many sizes clears its cache for each, rather than meet its
    recompile limit and fall back to eager."""
    def make(ny: int, tau: float, force: float):
        torch._dynamo.reset()
        return torch.compile(step_of(ny, tau, force), dynamic=False)
    return make


# (name, make(ny, tau, force) -> the step function, storage, timed as a CUDA graph of a run's
# steps). Storage "f32" is the distributions in float32; "f16" their differences from the
# weights in float16. In a CUDA graph (torch.cuda.graph), a run's launches are replayed as one:
# what a user does where launching, not memory, sets the time (the small channels).
FORMS = (("torch eager, roll + where", lattice_step, "f32", False),
         ("torch.compile, roll + where", compiled(lattice_step), "f32", False),
         ("torch.compile, plane by plane", compiled(lattice_step_by_plane), "f32", False),
         ("torch.compile, plane by plane, CUDA graph", compiled(lattice_step_by_plane), "f32", True),
         ("torch.compile, plane by plane, fp16 storage, CUDA graph", compiled(lattice_step_by_plane_fp16), "f16", True))
# What the checks allow after 5 steps (max |f - f(float64)|) and 20 (relative mass drift): fp16
# rounds each stored difference (below ~0.05 here) to 11 significant bits every step.
CHECK_BOUNDS = {"f32": (1e-5, 1e-4), "f16": (5e-4, 1e-3)}


def advance(step, f, steps: int):
    for _ in range(steps):
        f = step(f)
    return f


def stored(f, storage: str):
    """Distributions (float) as a form stores them."""
    return f if storage == "f32" else (f - torch.tensor(WEIGHTS, device="cuda").view(9, 1, 1)).half()


def distributions(state, storage: str):
    """A form's state back as float64 distributions."""
    return state.double() if storage == "f32" else state.double() + torch.tensor(WEIGHTS, device="cuda").double().view(9, 1, 1)


def check(name: str, make_step, storage: str) -> bool:
    """The form against the same eager code in float64 (5 steps), and its mass after 20 steps,
    at CHECK_NX x CHECK_NY from a seeded random state near equilibrium; says how it did."""
    generator = torch.Generator(device="cuda").manual_seed(CHECK_SEED)
    weights = torch.tensor(WEIGHTS, device="cuda").view(9, 1, 1)
    start = weights * (1 + 0.1 * (2 * torch.rand(9, CHECK_NY, CHECK_NX, device="cuda", generator=generator) - 1))
    step = make_step(CHECK_NY, TAU, CHECK_FORCE)
    exact = advance(lattice_step(CHECK_NY, TAU, CHECK_FORCE, double=True), start.double(), 5)
    difference = float((distributions(advance(step, stored(start, storage), 5), storage) - exact).abs().max())
    mass = float(start.double().sum())
    mass_drift = abs(float(distributions(advance(step, stored(start, storage), 20), storage).sum()) - mass) / mass
    most_difference, most_drift = CHECK_BOUNDS[storage]
    good = difference < most_difference and mass_drift < most_drift
    print(f"check {name}: {'ok' if good else 'FAILED'}: max |f - f(float64)| {difference:.1e} after 5 steps "
          f"(below {most_difference:.0e}), mass drift {mass_drift:.1e} after 20 (below {most_drift:.0e}), "
          f"{CHECK_NX}x{CHECK_NY}, seed {CHECK_SEED}")
    return good


def kernels_per_step(step, state, steps: int = 4) -> float:
    """GPU kernels a time step of `step` launches, counted by torch.profiler over `steps` steps
    after a warm-up (which compiles): one for a step fused into a single pass. Copies and fills
    are not kernels and are not counted."""
    advance(step, state, 1)
    torch.cuda.synchronize()
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as profile:
        advance(step, state, steps)
        torch.cuda.synchronize()
    kernels = [event for event in profile.events() if event.device_type == torch.autograd.DeviceType.CUDA
               and not event.name.startswith(("Memcpy", "Memset"))]
    return len(kernels) / steps


def graphed(step, state, steps: int):
    """A run of `steps` steps from `state` captured as one CUDA graph; returns its replay. Every
    replay recomputes the same run from the same state (the timing does not depend on it)."""
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):  # warm-up (compiles) outside the capture, as the capture requires
        advance(step, state, steps)
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        result = advance(step, state, steps)
    return graph, result


def main() -> int:
    parser = cli.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=size_list("NXxNY", (1, 65536), (1, 65535)), default=DEFAULT_SIZES,
                        help=f"default {DEFAULT_SIZES} (the benchmark's limits)")
    parser.add_argument("--steps", type=whole_number(1, 1000), default=20, help="time steps per timed run")
    parser.add_argument("--out", help="the results JSON to write")
    args = parser.parse_args()
    if args.out:
        cli.check_output_file(args.out)
    global torch
    torch = torch_on_cuda()

    forms = []
    with torch.no_grad():
        for name, make_step, storage, as_graph in FORMS:
            try:
                good = check(name, make_step, storage)
            except Exception as error:  # torch.compile needs a working Triton and C compiler
                print(f"{name}: skipped, {type(error).__name__}: {str(error).splitlines()[0][:200]}")
                continue
            if not good:
                raise cli.ToolError(f"{name} does not match float64 or loses mass: not timed")
            forms.append((name, make_step, storage, as_graph))
        if not forms:
            raise cli.ToolError("no form could run: nothing to time")

        cases = []
        for nx, ny in args.sizes:
            group, cells = f"{nx}x{ny}", nx * ny
            for name, make_step, storage, as_graph in forms:
                per_cell = BYTES_PER_CELL if storage == "f32" else BYTES_PER_CELL // 2
                amounts = {"MLUP": cells * args.steps / 1e6, "GB": per_cell * cells * args.steps / 1e9}
                step = make_step(ny, TAU, FORCE)
                rest = torch.tensor(WEIGHTS, device="cuda").view(9, 1, 1).expand(9, ny, nx).contiguous()
                state = [stored(rest, storage)]
                try:
                    # Launched one by one (a graph replays the same kernels).
                    kernels = kernels_per_step(step, state[0])
                    if as_graph:
                        graph, result = graphed(step, state[0], args.steps)
                        state[0] = result
                        run = graph.replay
                    else:
                        def run():  # carries the state from run to run; median_ms's warm-up run compiles
                            state[0] = advance(step, state[0], args.steps)
                    timing = median_ms(torch, run)
                except torch.cuda.OutOfMemoryError:
                    raise cli.ToolError(f"{group}: {name} does not fit in the GPU's memory") from None
                if not bool(torch.isfinite(state[0]).all()):
                    raise cli.ToolError(f"{group}: {name} ended with a distribution that is not finite")
                cases.append(peer_case(group, name, timing, amounts, steps=args.steps, kernels_per_step=kernels))
                seconds = timing[0] / 1e3
                print(f"{group:>11} {name:56} {timing[0]:9.3f} ms per {args.steps} steps {amounts['MLUP'] / seconds:9.1f} "
                      f"MLUP/s {amounts['GB'] / seconds:8.1f} GB/s, {kernels:g} kernels a step")
    if args.out:
        write_results(args.out, cases, gpu=torch.cuda.get_device_properties(0).name, torch=torch.__version__,
                      steps=args.steps, tau=TAU, force=FORCE)
    return 0


if __name__ == "__main__":
    cli.run(main)
