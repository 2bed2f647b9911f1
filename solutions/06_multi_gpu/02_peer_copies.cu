// Step 02 — peer-to-peer copies between devices.
//
// The halos come straight from the neighbours' memory: each rank pulls the planes it needs
// with a peer copy on its own stream (over NVLink on an HGX machine, once peer access is on),
// no host memory and no host synchronize. Each rank reaches its neighbours' fields and events
// through the team's windows (Team::open_neighbours): their own pointers between threads, CUDA
// IPC handles opened in this process between MPI processes of one machine. What the host still does is order the ranks' streams,
// which no longer meet at a synchronize: a rank pulls buffer b's planes only after its
// neighbours have computed them, waiting on its stream for their event computed[b], recorded
// after their update; a host barrier each step makes sure the record has been issued before the
// wait is. That one wait also keeps a neighbour from overwriting planes this rank still has to
// pull: the neighbour's next update of that buffer comes after its own wait for this rank's
// next computed[], which this rank records after the pull.
// Pulling rather than pushing keeps the copy on the stream whose next kernel needs it.
// The bound, written before the runs: the same 17 MB a step and rank as step 01, over NVLink.
// NVIDIA gives an H200's NVLink 900 GB/s, both directions together, 450 each way (course_ceilings
// measures the peer copy); each rank pulls 8.7 MB from two neighbours, 0.02 ms at 450 GB/s, its
// kernel waiting. (Those were rows padded to 4 floats; rows on 128-byte lines make it 19.2 MB a
// step and 9.6 MB pulled, about 0.024 ms at course_ceilings' peer copy, 396 GB/s each way.)
// Predicted: weak scaling at 512^3 per GPU, 0.59 ms + 0.02 ms + a barrier: efficiency about
// 0.95. Strong scaling at 1024^3 on 8 GPUs, 128 planes a slab: the same compute per GPU as 512^3
// and planes 4x larger, 34 MB in, 0.08 ms: about 0.88.
// BEGIN MEASURED by profiling/report.py from the chapter's results/, per GPU:
//   NVIDIA H100 80GB HBM3 (commit 5d5e4fe, 2026-11-28):
//     02_peer_copies x1  strong 1024^3       105.4759 ms (20 time steps), 2443 GB/s (0.815 of copy), 204 GLUP/s
//     02_peer_copies x2  strong 1024^3       55.4063 ms (20 time steps), 2326 GB/s (0.776 of copy), 388 GLUP/s
//     02_peer_copies x4  strong 1024^3       29.4715 ms (20 time steps), 2186 GB/s (0.729 of copy), 729 GLUP/s
//     02_peer_copies x1  weak 512^3 per GPU  13.7426 ms (20 time steps), 2344 GB/s (0.782 of copy), 195 GLUP/s
//     02_peer_copies x2  weak 512^3 per GPU  14.8819 ms (20 time steps), 2165 GB/s (0.722 of copy), 361 GLUP/s
//     02_peer_copies x4  weak 512^3 per GPU  15.2150 ms (20 time steps), 2117 GB/s (0.706 of copy), 706 GLUP/s
//   NVIDIA H200 (commit c81c09d, 2026-11-27):
//     02_peer_copies x1  strong 1024^3       72.6772 ms (20 time steps), 3546 GB/s (0.841 of copy), 295 GLUP/s
//     02_peer_copies x2  strong 1024^3       38.7619 ms (20 time steps), 3324 GB/s (0.789 of copy), 554 GLUP/s
//     02_peer_copies x4  strong 1024^3       21.2817 ms (20 time steps), 3027 GB/s (0.718 of copy), 1009 GLUP/s
//     02_peer_copies x1  weak 512^3 per GPU  9.6957 ms (20 time steps), 3322 GB/s (0.788 of copy), 277 GLUP/s
//     02_peer_copies x2  weak 512^3 per GPU  10.6358 ms (20 time steps), 3029 GB/s (0.718 of copy), 505 GLUP/s
//     02_peer_copies x4  weak 512^3 per GPU  10.8332 ms (20 time steps), 2973 GB/s (0.705 of copy), 991 GLUP/s
// END MEASURED
// Your parts: the handshake that orders the ranks' streams (record, barrier, waits), and the two
// peer copies (parts::pull_halos), which are tested on their own. The windows, with peer access
// on, are given (Team::open_neighbours).
#include <stdexcept>

#include "course/exercise.hpp"
#include "parts.hpp"
#include "steps.hpp"

namespace ch06 {
namespace {

class PeerCopies final : public Propagator {
 public:
  PeerCopies(Crew& crew, int rank) : team_(crew.team()), slab_(crew.team().slab(rank)), problem_(crew.team().problem()) {
    if (const auto why = device_memory_not_shareable()) throw course::Unsupported(*why);
    Team::Window mine{{slab_.field[0], slab_.field[1]}, {computed_[0], computed_[1]}, slab_.device, slab_.grid};
    neighbours_ = team_.open_neighbours(slab_.rank, mine);  // peer access on, where there is a direct path
  }

  void advance(int steps) override {
    advance_on_one_stream(slab_, problem_, steps, stream_, [this](int b) { refresh_halos(b); });
    // The neighbours' last pulls from this rank's fields ran on their streams, not this one: no
    // rank returns (and lets its caller rewrite its fields) until every rank's stream is done.
    team_.barrier();
  }

 private:
  // Buffer b's x and y images, then its z halos pulled from the neighbours' buffer b, once they
  // have computed it.
  void refresh_halos(int b) {
    wrap_xy(slab_.field[b], slab_.grid, all_planes(slab_.grid), stream_);
    // BEGIN SOLUTION: part 1 of 2, the handshake: record computed_[b] on stream_ (this rank's new planes of field b are queued before it), then team_.barrier(), then make stream_ wait (gpuStreamWaitEvent) for each neighbour's computed[b] (neighbours_[0] below, [1] above). Invariant: a rank's stream pulls a neighbour's planes only after the neighbour's update of them; the barrier makes sure every neighbour has recorded its event for this step before anyone waits on it. Mistake to avoid: waiting before the barrier (the neighbour may not have recorded yet: the wait then refers to its previous record, already passed) or recording after it.
    GPU_CHECK(gpuEventRecord(computed_[b], stream_));
    team_.barrier();
    for (const Team::Window& neighbour : neighbours_) GPU_CHECK(gpuStreamWaitEvent(stream_, neighbour.computed[b], 0));
    // STUB: (void)b; throw course::NotImplemented(__FILE__);
    // END SOLUTION
    parts::pull_halos(slab_, b, neighbours_, stream_);
  }

  Team& team_;
  Slab& slab_;
  const Problem& problem_;
  Stream stream_;
  // Recorded once buffer b holds this rank's new planes. Shareable between processes only: a
  // stream of one device waiting on another device's interprocess event crashed the driver (an H200
  // pair, CUDA 13.0), so the threads keep plain events.
  Event computed_[2]{Event(launch() == Launch::processes), Event(launch() == Launch::processes)};
  std::array<Team::Window, 2> neighbours_{};
};

}  // namespace

void parts::pull_halos(const Slab& slab, int b, const std::array<Team::Window, 2>& neighbours, gpuStream_t stream) {
  // BEGIN SOLUTION: part 2 of 2, the pulls: two gpuMemcpyPeerAsync on `stream`, each from a neighbour's device to slab.device, halo_floats(g) floats: the neighbour below's top planes of its field b into the below halo of slab.field[b], the neighbour above's bottom planes into the above halo. Invariant: a neighbour's planes are found with its own grid (Window::grid), its slab may be thicker or thinner than yours. Mistake to avoid: top_planes(below.field[b], g) with your grid g (the wrong planes, or past the end of its array), or the bottom planes pulled from below.
  const Grid& g = slab.grid;
  const std::size_t bytes = halo_floats(g) * sizeof(float);
  const Team::Window& below = neighbours[0];
  const Team::Window& above = neighbours[1];
  float* v = slab.field[b];
  GPU_CHECK(gpuMemcpyPeerAsync(below_halo(v, g), slab.device, top_planes(below.field[b], below.grid), below.device, bytes, stream));
  GPU_CHECK(gpuMemcpyPeerAsync(above_halo(v, g), slab.device, bottom_planes(above.field[b], above.grid), above.device, bytes, stream));
  // STUB: (void)slab; (void)b; (void)neighbours; (void)stream; throw course::NotImplemented(__FILE__);
  // END SOLUTION
}

std::unique_ptr<Propagator> make_peer_copies(Crew& crew, int rank) { return std::make_unique<PeerCopies>(crew, rank); }

}  // namespace ch06
