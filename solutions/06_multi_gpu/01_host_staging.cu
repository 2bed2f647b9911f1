// Step 01 — z slabs, halos through the host.
//
// Each rank owns a slab of whole planes and keeps R = 4 halo planes above and below it. After
// each step its bottom and top R planes go to its neighbours' halos, the way a code without
// any GPU-to-GPU path does it: copied to pinned host memory, exchanged between the hosts' buffers
// (Team::exchange_host: MPI_Sendrecv between processes, a copy after a barrier between threads),
// copied from the received buffers into the halos, which the host waits for before its buffers
// can take the next step's planes.
// The bound, written before the runs: per step and rank 4 messages of R planes, 2 out and 2 in:
// a plane of a 512^2 slab is 520 x 520 floats with its halo and padding, 1.08 MB, so 4.3 MB a
// message, 17 MB a step. (That was rows padded to 4 floats; rows on 128-byte lines are 576 floats,
// so 4.8 MB a message and 19.2 MB a step.)
// Over PCIe (Gen5 x16: about 50 GB/s each way, an estimate) the copies out take 0.17 ms and
// the copies in 0.17 ms after them, plus a synchronize and a barrier; none of it is hidden.
// Predicted: weak scaling at 512^3 per GPU, 0.59 ms of compute + 0.35 ms of exchange:
// efficiency about 0.6 at every count (one rank exchanges with itself the same way); strong
// scaling at 1024^3 falls further as the slabs thin and the exchange stays the same size.
// BEGIN MEASURED by profiling/report.py from the chapter's results/, per GPU:
//   NVIDIA H100 80GB HBM3 (commit 5d5e4fe, 2026-11-28):
//     01_host_staging x1  strong 1024^3       246.7917 ms (20 time steps), 1044 GB/s (0.348 of copy), 87 GLUP/s
//     01_host_staging x2  strong 1024^3       207.6698 ms (20 time steps), 620 GB/s (0.207 of copy), 103 GLUP/s
//     01_host_staging x4  strong 1024^3       218.0709 ms (20 time steps), 295 GB/s (0.099 of copy), 98 GLUP/s
//     01_host_staging x1  weak 512^3 per GPU  41.6239 ms (20 time steps), 774 GB/s (0.258 of copy), 64 GLUP/s
//     01_host_staging x2  weak 512^3 per GPU  44.5839 ms (20 time steps), 723 GB/s (0.241 of copy), 120 GLUP/s
//     01_host_staging x4  weak 512^3 per GPU  50.8351 ms (20 time steps), 634 GB/s (0.211 of copy), 211 GLUP/s
//   NVIDIA H200 (commit c81c09d, 2026-11-27):
//     01_host_staging x1  strong 1024^3       189.8065 ms (20 time steps), 1358 GB/s (0.322 of copy), 113 GLUP/s
//     01_host_staging x2  strong 1024^3       153.3258 ms (20 time steps), 840 GB/s (0.199 of copy), 140 GLUP/s
//     01_host_staging x4  strong 1024^3       188.6104 ms (20 time steps), 342 GB/s (0.081 of copy), 114 GLUP/s
//     01_host_staging x1  weak 512^3 per GPU  34.0717 ms (20 time steps), 945 GB/s (0.224 of copy), 79 GLUP/s
//     01_host_staging x2  weak 512^3 per GPU  35.2238 ms (20 time steps), 915 GB/s (0.217 of copy), 152 GLUP/s
//     01_host_staging x4  weak 512^3 per GPU  36.9275 ms (20 time steps), 872 GB/s (0.207 of copy), 291 GLUP/s
// END MEASURED
// BEGIN FINDINGS
// Measured on one rank (against step 00's), weak 512^3: 1.39 ms more a step on the H100 and
// 1.22 ms on the H200, efficiencies 0.33 and 0.29, far below the predicted 0.6: the round trip
// took 3.7x (H100) and 3.5x (H200) its bound at the measured host copy rates (0.37, 0.35 ms).
// END FINDINGS
// Your parts: the exchange through the host (parts::exchange_through_host), in three parts, each
// tested on its own: the copies to the host and the wait for them, the exchange with the right
// buffer to each neighbour, the copies into the halos. The buffers and the time loop are given.
#include <array>

#include "course/exercise.hpp"
#include "parts.hpp"
#include "steps.hpp"

namespace ch06 {

void parts::exchange_through_host(Team& team, const Slab& slab, float* v, const std::array<float*, 4>& staged,
                                  gpuStream_t stream) {
  const Grid& g = slab.grid;
  const std::size_t bytes = halo_floats(g) * sizeof(float);
  // BEGIN SOLUTION: part 1 of 3, to the host: copy v's bottom R planes (bottom_planes) into staged[kBottom] and its top R planes (top_planes) into staged[kTop], device to host on `stream`, then wait for the stream. Invariant: the host hands a buffer to another rank only once the copy into it has finished. Mistake to avoid: no wait: a copy on a stream is only queued when gpuMemcpyAsync returns, so the exchange would send what the buffers held before (here the tests fill them with NaN first).
  GPU_CHECK(gpuMemcpyAsync(staged[kBottom], bottom_planes(v, g), bytes, gpuMemcpyDeviceToHost, stream));
  GPU_CHECK(gpuMemcpyAsync(staged[kTop], top_planes(v, g), bytes, gpuMemcpyDeviceToHost, stream));
  GPU_CHECK(gpuStreamSynchronize(stream));
  // STUB: (void)v; (void)bytes; throw course::NotImplemented(__FILE__);
  // END SOLUTION
  // BEGIN SOLUTION: part 2 of 3, the exchange: one call of team.exchange_host(slab.rank, to_below, to_above, from_below, from_above, halo_floats(g)), every rank at once. Which buffer goes where: the rank below needs the planes just above its slab, which are your bottom planes; the rank above needs your top planes; what the rank below sends you lands in staged[kBelow], the rank above's in staged[kAbove]. Invariant: what you receive from below is the rank below's top planes (the R planes under your slab). Mistake to avoid: sending the bottom planes to the rank above (to_below and to_above swapped): every halo then holds planes from the far end of the neighbour's slab.
  team.exchange_host(slab.rank, staged[kBottom], staged[kTop], staged[kBelow], staged[kAbove], halo_floats(g));
  // STUB: (void)team; throw course::NotImplemented(__FILE__);
  // END SOLUTION
  // BEGIN SOLUTION: part 3 of 3, into the halos: copy staged[kBelow] into v's below halo (below_halo) and staged[kAbove] into its above halo (above_halo), host to device on `stream`, then wait for the stream. Invariant: a halo receives the planes that lie next to it in the whole grid: below the slab, the planes under it. Mistake to avoid: the buffers crossed (the planes from above in the below halo), or returning before the copies have run: the next exchange reuses the buffers.
  GPU_CHECK(gpuMemcpyAsync(below_halo(v, g), staged[kBelow], bytes, gpuMemcpyHostToDevice, stream));
  GPU_CHECK(gpuMemcpyAsync(above_halo(v, g), staged[kAbove], bytes, gpuMemcpyHostToDevice, stream));
  GPU_CHECK(gpuStreamSynchronize(stream));
  // STUB: throw course::NotImplemented(__FILE__);
  // END SOLUTION
}

namespace {

class HostStaging final : public Propagator {
 public:
  HostStaging(Crew& crew, int rank) : team_(crew.team()), slab_(crew.team().slab(rank)), problem_(crew.team().problem()) {
    for (float*& planes : staged_) GPU_CHECK(gpuMallocHost(&planes, halo_floats(slab_.grid) * sizeof(float)));
  }
  ~HostStaging() override {
    for (float* planes : staged_) report_if_failed(gpuFreeHost(planes), "gpuFreeHost");
  }

  void advance(int steps) override {
    advance_on_one_stream(slab_, problem_, steps, stream_, [this](int b) { refresh_halos(slab_.field[b]); });
  }

 private:
  void refresh_halos(float* v) {
    wrap_xy(v, slab_.grid, all_planes(slab_.grid), stream_);
    parts::exchange_through_host(team_, slab_, v, staged_, stream_);
  }

  Team& team_;
  Slab& slab_;
  const Problem& problem_;
  Stream stream_;
  std::array<float*, 4> staged_{};  // pinned host buffers: this rank's planes out, its neighbours' in (parts::Staged)
};

}  // namespace

std::unique_ptr<Propagator> make_host_staging(Crew& crew, int rank) { return std::make_unique<HostStaging>(crew, rank); }

}  // namespace ch06
