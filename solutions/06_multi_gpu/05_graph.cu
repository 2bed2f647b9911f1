// Step 05 — the time step as a graph.
//
// Step 04 launches, per step and rank, 2 kernels for the boundary's two ends, 2 for the interior
// and NCCL's kernel, with their waits and records: about ten calls, each costing the host a few
// microseconds and the GPU a gap between kernels. At 512^3 per GPU that is small beside 0.6 ms;
// on thin slabs (strong scaling at 8 GPUs and smaller grids) it is what is left. So the step is
// captured once per buffer as a graph (the boundary stream forks the interior stream through an
// event and joins it back; step 04's halves in between, update_boundary and update_interior of
// 04_overlap.cu, and 03_nccl.cu's exchange_nccl, NCCL's calls included) and each step is
// then one graph launch. Graph launches on one stream run one after the other, whole: the
// step-to-step events of step 04 become unnecessary, and the interior of one step no longer runs
// beside the previous step's exchange (step 04 allowed that).
// Each kernel node keeps the priority of the stream it was captured on only if the graph is
// instantiated with gpuGraphInstantiateFlagUseNodePriority (else all run at the priority of the
// stream the graph is launched on), and an instance is uploaded to the device before the timed
// launches (gpuGraphUpload), not at its first launch. HIP 5 has neither (course/gpu.hpp).
// NCCL needs its connections made before a capture (its first send to a peer sets them up, which
// a graph cannot hold), so the constructor exchanges once before capturing.
// Predicted: step 04's times at 512^3 per GPU (0.6 ms a step hides 10 launches); at small slabs,
// e.g. 128^3 per GPU (0.01 ms of compute a step), up to 2x faster than step 04.
// BEGIN MEASURED by profiling/report.py from the chapter's results/, per GPU:
//   NVIDIA H100 80GB HBM3 (commit 5d5e4fe, 2026-11-28):
//     05_graph x1  strong 1024^3       107.4991 ms (20 time steps), 2397 GB/s (0.799 of copy), 200 GLUP/s
//     05_graph x2  strong 1024^3       54.5508 ms (20 time steps), 2362 GB/s (0.788 of copy), 394 GLUP/s
//     05_graph x4  strong 1024^3       28.3110 ms (20 time steps), 2276 GB/s (0.759 of copy), 759 GLUP/s
//     05_graph x1  weak 512^3 per GPU  13.9190 ms (20 time steps), 2314 GB/s (0.772 of copy), 193 GLUP/s
//     05_graph x2  weak 512^3 per GPU  15.2162 ms (20 time steps), 2117 GB/s (0.706 of copy), 353 GLUP/s
//     05_graph x4  weak 512^3 per GPU  14.8006 ms (20 time steps), 2176 GB/s (0.726 of copy), 725 GLUP/s
//   NVIDIA H200 (commit c81c09d, 2026-11-27):
//     05_graph x1  strong 1024^3       73.1635 ms (20 time steps), 3522 GB/s (0.836 of copy), 294 GLUP/s
//     05_graph x2  strong 1024^3       37.9019 ms (20 time steps), 3400 GB/s (0.806 of copy), 567 GLUP/s
//     05_graph x4  strong 1024^3       21.2918 ms (20 time steps), 3026 GB/s (0.718 of copy), 1009 GLUP/s
//     05_graph x1  weak 512^3 per GPU  10.3156 ms (20 time steps), 3123 GB/s (0.741 of copy), 260 GLUP/s
//     05_graph x2  weak 512^3 per GPU  11.0723 ms (20 time steps), 2909 GB/s (0.690 of copy), 485 GLUP/s
//     05_graph x4  weak 512^3 per GPU  11.0398 ms (20 time steps), 2918 GB/s (0.692 of copy), 973 GLUP/s
// END MEASURED
// BEGIN FINDINGS
// Measured at weak 128^3 (NOTES.md's small-slab table), against step 04: on one rank 1.58x
// faster on the H100 and as fast on the H200 (0.0274 against 0.0272 ms); on four ranks as fast
// on the H200 and 1.83x slower on the H100 (0.0773 against 0.0422 ms). A probe on four H100s
// (chapters/06_multi_gpu/results/h100-80gb-hbm3/graph-small-2026-11-28/) found that each launch
// of the benchmark keeps one speed for its graphs: in 43 of 56 launches 0.66-0.94x step 04's
// time, in 13 1.07-1.64x. Node priorities and threads against processes did not decide it, and
// the hardware queue count was not shown to; the cause is open.
// END FINDINGS
// Your parts: the launch of a time step's graph, the capture of the step (fork, step 04's halves
// and exchange, join), and the instance made from it. It uses your exchange_nccl (step 03) and
// update_boundary and update_interior (step 04).
#include "course/exercise.hpp"
#include "steps.hpp"

namespace ch06 {
namespace {

class Graph final : public Propagator {
 public:
  Graph(Crew& crew, int rank)
      : slab_(crew.team().slab(rank)), problem_(crew.team().problem()), comm_(crew.team().comm(rank)) {
    exchange_nccl(slab_, slab_.field[0], comm_, boundary_stream_);  // NCCL's connections, before any capture
    GPU_CHECK(gpuStreamSynchronize(boundary_stream_));
    for (int from = 0; from < 2; ++from) capture(from);
    GPU_CHECK(gpuStreamSynchronize(boundary_stream_));  // the uploads, before any launch is timed
  }
  ~Graph() override {
    for (gpuGraphExec_t step : steps_)
      if (step != nullptr) report_if_failed(gpuGraphExecDestroy(step), "gpuGraphExecDestroy");
  }

  void advance(int steps) override {
    const Grid& g = slab_.grid;
    wrap_xy(slab_.field[slab_.current], g, all_planes(g), boundary_stream_);
    exchange_nccl(slab_, slab_.field[slab_.current], comm_, boundary_stream_);
    for (int step = 0; step < steps; ++step) {
      // BEGIN SOLUTION: part 1 of 3, the launch: one gpuGraphLaunch on boundary_stream_ of the graph of the step that starts from field[slab_.current]. Invariant: the graph for each starting field was captured once; the launches on one stream run one after the other, whole. Mistake to avoid: launching steps_[1 - current], the step that starts from the other field.
      GPU_CHECK(gpuGraphLaunch(steps_[slab_.current], boundary_stream_));
      // STUB: throw course::NotImplemented(__FILE__);
      // END SOLUTION
      slab_.current = 1 - slab_.current;
    }
    GPU_CHECK(gpuStreamSynchronize(boundary_stream_));
  }

 private:
  // steps_[from]: one time step from field[from] to the other field, as step 04 runs it.
  void capture(int from) {
    gpuGraph_t graph = nullptr;
    const int to = 1 - from;
    // BEGIN SOLUTION: part 2 of 3, the capture: begin a capture on boundary_stream_ (gpuStreamCaptureModeThreadLocal: the other ranks capture at the same time, on their threads); fork interior_stream_ into it (record fork_ on boundary_stream_, make interior_stream_ wait for it); then step 04's work, update_boundary and exchange_nccl of field[to] on boundary_stream_, update_interior on interior_stream_; join it back (record join_ on interior_stream_, boundary_stream_ waits for it); end the capture into `graph`. Invariant: every stream that joins a capture is joined back to its origin before it ends; nothing is launched, only recorded. Mistake to avoid: work on interior_stream_ without the fork (the stream is then not part of the capture: it runs at once, outside the graph) or without the join (the capture cannot end).
    GPU_CHECK(gpuStreamBeginCapture(boundary_stream_, gpuStreamCaptureModeThreadLocal));
    GPU_CHECK(gpuEventRecord(fork_, boundary_stream_));
    GPU_CHECK(gpuStreamWaitEvent(interior_stream_, fork_, 0));
    update_boundary(slab_, problem_, slab_.field[from], slab_.field[to], boundary_stream_);
    exchange_nccl(slab_, slab_.field[to], comm_, boundary_stream_);
    update_interior(slab_, problem_, slab_.field[from], slab_.field[to], interior_stream_);
    GPU_CHECK(gpuEventRecord(join_, interior_stream_));
    GPU_CHECK(gpuStreamWaitEvent(boundary_stream_, join_, 0));
    GPU_CHECK(gpuStreamEndCapture(boundary_stream_, &graph));
    // STUB: (void)to; throw course::NotImplemented(__FILE__);
    // END SOLUTION
    // BEGIN SOLUTION: part 3 of 3, the instance: instantiate `graph` into steps_[from] with gpuGraphInstantiateWithFlags and gpuGraphInstantiateFlagUseNodePriority, destroy `graph` (the instance keeps what it needs), and upload the instance (gpuGraphUpload on boundary_stream_: its first launch then pays nothing extra). Invariant: one instance per starting field, made once, before any launch is timed. Mistake to avoid: instantiating without the flag: every node then runs at the priority of the stream the graph is launched on, and the boundary's and NCCL's high priority is lost (the results are still right: only the overlap suffers).
    GPU_CHECK(gpuGraphInstantiateWithFlags(&steps_[from], graph, gpuGraphInstantiateFlagUseNodePriority));
    GPU_CHECK(gpuGraphDestroy(graph));
    GPU_CHECK(gpuGraphUpload(steps_[from], boundary_stream_));
    // STUB: (void)graph;
    // END SOLUTION
  }

  Slab& slab_;
  const Problem& problem_;
  ncclComm_t comm_;
  Stream boundary_stream_{Stream::Priority::high}, interior_stream_{Stream::Priority::low};
  Event fork_, join_;
  gpuGraphExec_t steps_[2] = {};  // by the field the step starts from
};

}  // namespace

std::unique_ptr<Propagator> make_graph(Crew& crew, int rank) { return std::make_unique<Graph>(crew, rank); }

}  // namespace ch06
