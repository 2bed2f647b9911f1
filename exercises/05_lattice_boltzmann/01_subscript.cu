// Generated from solutions/05_lattice_boltzmann/01_subscript.cu by exercises/generate.py (fingerprint 0f057d321821): edit the TODOs.
// Step 01 — subscript addressing: the paper's pointer tables, df[x][y][k].
//
// Step 00's kernels and layout, but every distribution is reached as the paper's scheme four
// reaches it: through a table of column pointers (df[x], one per column) into a table of cell
// pointers (df[x][y], one per cell) into the same array, and the moments through one table of
// column pointers (dd[x][y]). The paper found that this made its CPU code three times faster and
// did nothing for its GPU code.
// Predicted: on the GPU no better than step 00, slightly worse. An index costs a thread a
// multiply-add or two; a subscript costs two dependent loads, each one more round trip to L1
// (typically some tens of cycles) or L2 (some hundreds) before the distribution's own load can
// start, and 8 more bytes read for every cell pointer (the tables are 2/9 of the distributions'
// size, though mostly served by the caches). On a CPU, subscripts can win where the index
// arithmetic is the bottleneck and the tables stay in cache; on a GPU the loads are what a warp
// waits for, and they grow.
// Measured: left out here so that you predict first. On a GPU, `python3 exercises/grade.py 5 --bench` times your
// step beside the solution's; the solution's figures are in the chapter's README.
#include "course/device_buffer.hpp"
#include "steps.hpp"

namespace ch05 {
namespace {

using course::DeviceBuffer;

constexpr int kCellsPerBlock = 32;

// Where distribution k of cell (x, y) lives, as step 00 computes it, for loading and storing.
__host__ __device__ inline long long paper_index(int x, int y, int k, int ny) {
  return k + (y + static_cast<long long>(x) * ny) * kDirections;
}

// The paper's subscripts: distributions[x][y][k] and moment[x][y].
struct Subscripts {
  float*** df;
  float*** dfbak;
  float** rho;
  float** ux;
  float** uy;
};

// This thread's distribution: column blockIdx.x, row blockIdx.y * 32 + threadIdx.y, direction threadIdx.x.
struct Distribution {
  int x, y, k;
  bool inside;
};
__device__ inline Distribution this_distribution(int ny) {
  const int y = blockIdx.y * kCellsPerBlock + threadIdx.y;
  return {static_cast<int>(blockIdx.x), y, static_cast<int>(threadIdx.x), y < ny};
}

__global__ void subscript_copy_kernel(Subscripts s, Channel c) {
  const Distribution d = this_distribution(c.ny);
  if (!d.inside) return;
  // TODO: part 1 of 2, the copy by subscripts: dfbak[x][y][k] = df[x][y][k], each subscript a load of a pointer from the paper's tables (s.df, s.dfbak). Invariant: the same element that step 00's id = k + (y + x ny) 9 names, reached through two pointer loads instead of an index. Mistake to avoid: the subscripts in another order (df[y][x][k]): the tables are by column x first, then cell y
  (void)s;
}

__global__ void subscript_stream_kernel(Subscripts s, Channel c) {
  const Distribution d = this_distribution(c.ny);
  if (!d.inside) return;
  const int from_x = (d.x - velocity_x(d.k) + c.nx) % c.nx, from_y = upwind_row(c, d.y, velocity_y(d.k));
  const bool from_wall = from_y < 0 || from_y >= c.ny;
  // TODO: part 2 of 2, the pull by subscripts: df[x][y][k] from dfbak[from_x][from_y][k], the upwind neighbour's value of the same direction, or at a wall (from_wall) from this cell's own dfbak[x][y][opposite(k)]. Invariant: the stream reads only dfbak and writes only df, so the order of the threads does not matter. Mistake to avoid: reading df (this step's output) instead of dfbak, or opposite(k) at the neighbour instead of at this cell
  (void)s; (void)from_x; (void)from_wall;
}

// The nine threads of a cell put its distributions into shared memory; the first sums them.
__global__ void subscript_calculate_kernel(Subscripts s, Channel c) {
  __shared__ float cell_f[kCellsPerBlock][kDirections];
  const Distribution d = this_distribution(c.ny);
  if (d.inside) cell_f[threadIdx.y][d.k] = s.df[d.x][d.y][d.k];
  __syncthreads();
  if (!d.inside || d.k != 0) return;
  const Moments m = moments_of(cell_f[threadIdx.y]);
  s.rho[d.x][d.y] = m.rho;
  s.ux[d.x][d.y] = m.ux;
  s.uy[d.x][d.y] = m.uy;
}

__global__ void subscript_collide_kernel(Subscripts s, Channel c) {
  const Distribution d = this_distribution(c.ny);
  if (!d.inside) return;
  float& f = s.df[d.x][d.y][d.k];
  f = collide(d.k, f, Moments{s.rho[d.x][d.y], s.ux[d.x][d.y], s.uy[d.x][d.y]}, 1.0f / c.tau, c.force);
}

// The canonical layout (lbm.hpp) in and out, and the moments out in row-major order.
__global__ void to_paper_layout(const float* __restrict__ canonical, float* __restrict__ df, Channel c) {
  const Distribution d = this_distribution(c.ny);
  if (d.inside) df[paper_index(d.x, d.y, d.k, c.ny)] = canonical[(static_cast<long long>(d.y) * c.nx + d.x) * kDirections + d.k];
}
__global__ void from_paper_layout(const float* __restrict__ df, float* __restrict__ canonical, Channel c) {
  const Distribution d = this_distribution(c.ny);
  if (d.inside) canonical[(static_cast<long long>(d.y) * c.nx + d.x) * kDirections + d.k] = df[paper_index(d.x, d.y, d.k, c.ny)];
}
__global__ void paper_fields_out(Subscripts s, Fields out, Channel c) {
  const Distribution d = this_distribution(c.ny);
  if (!d.inside || d.k != 0) return;
  const long long to = static_cast<long long>(d.y) * c.nx + d.x;
  out.rho[to] = s.rho[d.x][d.y];
  out.ux[to] = s.ux[d.x][d.y];
  out.uy[to] = s.uy[d.x][d.y];
}

// Tables of pointers into `data` (device memory), built on the host as the paper builds them:
// cell rows (x, y) -> &data[(y + x ny) * per_cell], then columns x -> &cell_rows[x ny].
struct PointerTables {
  DeviceBuffer<float*> cells;
  DeviceBuffer<float**> columns;
  PointerTables(float* data, const Channel& c, int per_cell) : cells(c.cells()), columns(c.nx) {
    std::vector<float*> cell_pointers(c.cells());
    for (long long cell = 0; cell < c.cells(); ++cell) cell_pointers[cell] = data + cell * per_cell;
    std::vector<float**> column_pointers(c.nx);
    for (int x = 0; x < c.nx; ++x) column_pointers[x] = cells.data() + static_cast<long long>(x) * c.ny;
    cells.copy_from(cell_pointers);
    columns.copy_from(column_pointers);
  }
};

// The moments' tables have one level: dd[x] -> &dd0[x ny].
DeviceBuffer<float*> column_table(float* data, const Channel& c) {
  std::vector<float*> columns(c.nx);
  for (int x = 0; x < c.nx; ++x) columns[x] = data + static_cast<long long>(x) * c.ny;
  return DeviceBuffer<float*>(std::span<float* const>(columns));
}

class SubscriptLattice final : public Lattice {
 public:
  explicit SubscriptLattice(const Channel& channel)
      : c_(channel),
        grid_(channel.nx, course::blocks_for(channel.ny, kCellsPerBlock)),
        block_(kDirections, kCellsPerBlock),
        df_(channel.cells() * kDirections), dfbak_(channel.cells() * kDirections),
        rho_(channel.cells()), ux_(channel.cells()), uy_(channel.cells()),
        df_tables_(df_.data(), channel, kDirections), dfbak_tables_(dfbak_.data(), channel, kDirections),
        rho_table_(column_table(rho_.data(), channel)), ux_table_(column_table(ux_.data(), channel)),
        uy_table_(column_table(uy_.data(), channel)),
        s_{df_tables_.columns.data(), dfbak_tables_.columns.data(), rho_table_.data(), ux_table_.data(), uy_table_.data()} {}

  void load(const float* f) override { course::launch(to_paper_layout, {grid_, block_}, f, df_.data(), c_); }
  void store(float* f) override { course::launch(from_paper_layout, {grid_, block_}, df_.data(), f, c_); }

  void advance(int steps, const Fields* fields) override {
    for (int step = 0; step < steps; ++step) {
      course::launch(subscript_copy_kernel, {grid_, block_}, s_, c_);
      course::launch(subscript_stream_kernel, {grid_, block_}, s_, c_);
      course::launch(subscript_calculate_kernel, {grid_, block_}, s_, c_);
      course::launch(subscript_collide_kernel, {grid_, block_}, s_, c_);
    }
    if (fields && steps > 0) course::launch(paper_fields_out, {grid_, block_}, s_, *fields, c_);
  }

 private:
  Channel c_;
  dim3 grid_, block_;
  DeviceBuffer<float> df_, dfbak_, rho_, ux_, uy_;
  PointerTables df_tables_, dfbak_tables_;
  DeviceBuffer<float*> rho_table_, ux_table_, uy_table_;
  Subscripts s_;
};

}  // namespace

std::unique_ptr<Lattice> make_subscript(const Channel& channel) { return std::make_unique<SubscriptLattice>(channel); }

}  // namespace ch05
