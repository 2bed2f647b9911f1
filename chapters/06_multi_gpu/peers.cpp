#include "peers.hpp"

#include <array>

#include "parts.hpp"
#include "steps.hpp"

namespace ch06::peers {
namespace {

enum class Halos { none, nccl, peer_copies };
enum class Start { after_last_boundary, after_this_boundary };

// A rank's halos filled one of three ways: not at all, by step 03's NCCL group, or by step 02's
// handshake (record, barrier, wait for the neighbours) and pulls.
class HaloExchange {
 public:
  HaloExchange(Crew& crew, int rank, Halos halos) : team_(crew.team()), slab_(crew.team().slab(rank)), halos_(halos) {
    if (halos_ == Halos::nccl) comm_ = team_.comm(rank);
    if (halos_ != Halos::peer_copies) return;
    if (const auto why = device_memory_not_shareable()) throw course::Unsupported(*why);
    const Team::Window mine{{slab_.field[0], slab_.field[1]}, {computed_[0], computed_[1]}, slab_.device, slab_.grid};
    neighbours_ = team_.open_neighbours(slab_.rank, mine);
  }
  // Field b's halos from the neighbours' planes, queued on `stream` after what it holds.
  void fill(int b, gpuStream_t stream) {
    if (halos_ == Halos::none) return;
    if (halos_ == Halos::nccl) {
      exchange_nccl(slab_, slab_.field[b], comm_, stream);
      return;
    }
    GPU_CHECK(gpuEventRecord(computed_[b], stream));
    team_.barrier();
    for (const Team::Window& neighbour : neighbours_) GPU_CHECK(gpuStreamWaitEvent(stream, neighbour.computed[b], 0));
    parts::pull_halos(slab_, b, neighbours_, stream);
  }
  // Called once this rank's streams are done: with peer copies, waits until every neighbour's
  // pulls from this rank's fields are done too (step 02's end of advance()).
  void settle() {
    if (halos_ == Halos::peer_copies) team_.barrier();
  }

 private:
  Team& team_;
  Slab& slab_;
  const Halos halos_;
  ncclComm_t comm_{};
  Event computed_[2]{Event(launch() == Launch::processes), Event(launch() == Launch::processes)};
  std::array<Team::Window, 2> neighbours_{};
};

class ComputeOnly final : public Propagator {
 public:
  ComputeOnly(Crew& crew, int rank) : slab_(crew.team().slab(rank)), problem_(crew.team().problem()) {}
  void advance(int steps) override {
    advance_on_one_stream(slab_, problem_, steps, stream_,
                          [this](int b) { wrap_xy(slab_.field[b], slab_.grid, all_planes(slab_.grid), stream_); });
  }

 private:
  Slab& slab_;
  const Problem& problem_;
  Stream stream_;
};

// Step 04's time step, two halves on two streams (04_overlap.cu's update_boundary and
// update_interior, with its events), its halos filled by `halos`, its interior started after the
// last step's boundary (step 04) or this step's. Its loop restates step 04's rather than calling
// it: that loop is the student's part 3, and the experiments vary its exchange and its start.
class SplitStep final : public Propagator {
 public:
  SplitStep(Crew& crew, int rank, Halos halos, Start start)
      : slab_(crew.team().slab(rank)), problem_(crew.team().problem()), halos_(crew, rank, halos), start_(start) {}
  void advance(int steps) override {
    const int a = slab_.current;
    wrap_xy(slab_.field[a], slab_.grid, all_planes(slab_.grid), boundary_stream_);
    GPU_CHECK(gpuEventRecord(boundary_done_[a], boundary_stream_));
    GPU_CHECK(gpuEventRecord(interior_done_[a], boundary_stream_));
    halos_.fill(a, boundary_stream_);
    for (int step = 0; step < steps; ++step) {
      const int from = slab_.current, to = 1 - from;
      GPU_CHECK(gpuStreamWaitEvent(boundary_stream_, interior_done_[from], 0));
      update_boundary(slab_, problem_, slab_.field[from], slab_.field[to], boundary_stream_);
      GPU_CHECK(gpuEventRecord(boundary_done_[to], boundary_stream_));
      halos_.fill(to, boundary_stream_);
      const int boundary = start_ == Start::after_this_boundary ? to : from;
      GPU_CHECK(gpuStreamWaitEvent(interior_stream_, boundary_done_[boundary], 0));
      update_interior(slab_, problem_, slab_.field[from], slab_.field[to], interior_stream_);
      GPU_CHECK(gpuEventRecord(interior_done_[to], interior_stream_));
      slab_.current = to;
    }
    GPU_CHECK(gpuStreamSynchronize(boundary_stream_));
    GPU_CHECK(gpuStreamSynchronize(interior_stream_));
    halos_.settle();
  }

 private:
  Slab& slab_;
  const Problem& problem_;
  HaloExchange halos_;
  const Start start_;
  Stream boundary_stream_{Stream::Priority::high}, interior_stream_{Stream::Priority::low};
  Event boundary_done_[2], interior_done_[2];
};

class ExchangeOnly final : public Propagator {
 public:
  ExchangeOnly(Crew& crew, int rank, Halos halos) : slab_(crew.team().slab(rank)), halos_(crew, rank, halos) {}
  void advance(int steps) override {
    for (int step = 0; step < steps; ++step) halos_.fill(slab_.current, stream_);
    GPU_CHECK(gpuStreamSynchronize(stream_));
    halos_.settle();
  }

 private:
  Slab& slab_;
  HaloExchange halos_;
  Stream stream_;
};

}  // namespace

std::unique_ptr<Propagator> make_compute_only(Crew& crew, int rank) { return std::make_unique<ComputeOnly>(crew, rank); }
std::unique_ptr<Propagator> make_split_compute_only(Crew& crew, int rank) {
  return std::make_unique<SplitStep>(crew, rank, Halos::none, Start::after_last_boundary);
}
std::unique_ptr<Propagator> make_exchange_only_nccl(Crew& crew, int rank) {
  return std::make_unique<ExchangeOnly>(crew, rank, Halos::nccl);
}
std::unique_ptr<Propagator> make_exchange_only_peer_copies(Crew& crew, int rank) {
  return std::make_unique<ExchangeOnly>(crew, rank, Halos::peer_copies);
}
std::unique_ptr<Propagator> make_overlap_peer_copies(Crew& crew, int rank) {
  return std::make_unique<SplitStep>(crew, rank, Halos::peer_copies, Start::after_last_boundary);
}
std::unique_ptr<Propagator> make_overlap_interior_after_boundary(Crew& crew, int rank) {
  return std::make_unique<SplitStep>(crew, rank, Halos::nccl, Start::after_this_boundary);
}

}  // namespace ch06::peers
