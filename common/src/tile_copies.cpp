#include "course/tile_copies.hpp"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <stdexcept>
#include <string>

#if defined(COURSE_BACKEND_CUDA)
#include <cudaTypedefs.h>  // PFN_cuTensorMapEncodeTiled
#endif

namespace course {

namespace {
void check_shape(const float* array, std::array<long long, 3> extent, std::array<long long, 2> stride, std::array<int, 3> box,
                 const char* why) {
  const auto refuse = [why](const std::string& what) { throw std::invalid_argument(std::string(why) + ": " + what); };
  if (reinterpret_cast<std::uintptr_t>(array) % 16 != 0) refuse("a tile map's array must start on a 16-byte boundary");
  for (int d = 0; d < 3; ++d) {
    if (extent[d] < 1) refuse("a tile map needs an array of at least one float along each axis");
    if (box[d] < 1 || box[d] > 256) refuse("a tile's sides are 1 to 256 floats (this box: " + std::to_string(box[d]) + ")");
  }
  if (box[0] % 4 != 0) refuse("a tile's rows are whole multiples of 16 bytes (4 floats); this one is " + std::to_string(box[0]));
  if (stride[0] % 4 != 0 || stride[1] % 4 != 0)
    refuse("the array's rows and planes must start on 16-byte boundaries (strides of " + std::to_string(stride[0]) + " and " +
           std::to_string(stride[1]) + " floats)");
  if (stride[0] < extent[0] || stride[1] < stride[0] * extent[1]) refuse("the array's rows or planes overlap");
}
}  // namespace

#if defined(COURSE_BACKEND_CUDA)

namespace {
// Why this device cannot copy tiles, or nothing.
std::optional<std::string> tile_copies_unavailable_reason() {
  int device = 0, major = 0, minor = 0;
  check_gpu(cudaGetDevice(&device), "cudaGetDevice", __FILE__, __LINE__);
  check_gpu(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device), "cudaDeviceGetAttribute", __FILE__, __LINE__);
  check_gpu(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device), "cudaDeviceGetAttribute", __FILE__, __LINE__);
  if (major >= 9) return std::nullopt;
  return "the tensor memory accelerator needs an NVIDIA GPU of sm_90 or later; this one is sm_" + std::to_string(major) +
         std::to_string(minor);
}
}  // namespace

TileMap make_tile_map(const float* array, std::array<long long, 3> extent, std::array<long long, 2> stride,
                      std::array<int, 3> box, const char* why) {
  if (const auto reason = tile_copies_unavailable_reason()) throw Unsupported(std::string(why) + ": " + *reason);
  check_shape(array, extent, stride, box, why);
  // The driver's encoder, found at run time: the course links the runtime only.
  static const PFN_cuTensorMapEncodeTiled_v12000 encode = [] {
    void* function = nullptr;
    cudaDriverEntryPointQueryResult found{};
#if CUDART_VERSION >= 12050
    check_gpu(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &function, 12000, cudaEnableDefault, &found),
              "cudaGetDriverEntryPointByVersion(cuTensorMapEncodeTiled)", __FILE__, __LINE__);
#else
    check_gpu(cudaGetDriverEntryPoint("cuTensorMapEncodeTiled", &function, cudaEnableDefault, &found),
              "cudaGetDriverEntryPoint(cuTensorMapEncodeTiled)", __FILE__, __LINE__);
#endif
    if (found != cudaDriverEntryPointSuccess || function == nullptr)
      throw Unsupported("cuTensorMapEncodeTiled is missing from this driver (it needs CUDA 12.0 or later)");
    return reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(function);
  }();
  // No L2 promotion: with 256-byte promotion chapter 3's step 10 read 12% more from DRAM and ran
  // 6-8% slower on the H200 (chapters/03_seismic/results/h200/tensor-ring-2026-11-24/README.md).
  TileMap map{};
  const cuuint64_t sizes[3] = {cuuint64_t(extent[0]), cuuint64_t(extent[1]), cuuint64_t(extent[2])};
  const cuuint64_t strides[2] = {cuuint64_t(stride[0]) * sizeof(float), cuuint64_t(stride[1]) * sizeof(float)};
  const cuuint32_t box_sizes[3] = {cuuint32_t(box[0]), cuuint32_t(box[1]), cuuint32_t(box[2])};
  const cuuint32_t element_strides[3] = {1, 1, 1};
  const CUresult status = encode(&map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 3, const_cast<float*>(array), sizes, strides, box_sizes,
                                 element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE,
                                 CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (status != CUDA_SUCCESS)
    throw std::runtime_error("cuTensorMapEncodeTiled failed at " __FILE__ ":" + std::to_string(__LINE__) + " (CUresult " +
                             std::to_string(int(status)) + ") for " + why);
  return map;
}

#elif defined(COURSE_BACKEND_CPU)

TileMap make_tile_map(const float* array, std::array<long long, 3> extent, std::array<long long, 2> stride,
                      std::array<int, 3> box, const char* why) {
  check_shape(array, extent, stride, box, why);
  return TileMap{array, extent, {1, stride[0], stride[1]}, box};
}

namespace {
// A protocol mistake a GPU would hang or race on: the program stops, naming it.
[[noreturn]] void stop(const std::string& why) {
  std::fprintf(stderr, "\nerror: %s\n", why.c_str());
  std::abort();
}
}  // namespace

void TileBarrier::require_initialised(const char* call) const {
  if (block_ != cpu::current->block_serial)
    stop(std::string(call) + " on a barrier this block has not initialised: one thread calls course::init_tile_barrier, "
         "then every thread a __syncthreads(), before the first copy");
}

void TileBarrier::start(const TileMap& map, float* tile, unsigned bytes, int x, int y, int z) {
  require_initialised("course::load_tile_async");
  const std::size_t count = std::size_t(map.box[0]) * map.box[1] * map.box[2];
  if (bytes != count * sizeof(float))
    stop("course::load_tile_async: the bytes expected on the barrier are not the box's (a GPU would never complete "
         "the phase, or complete it early)");
  if (reinterpret_cast<std::uintptr_t>(tile) % 128 != 0)
    stop("course::load_tile_async: the tile does not start on a 128-byte boundary of shared memory (a GPU stops "
         "with 'misaligned address')");
  if (pending_.size() == copies_)
    stop("course::load_tile_async: one copy more than the barrier's phase holds (init_tile_barrier's count of copies "
         "a phase), or the next phase's copy started before any thread waited for this one (wait_tile)");
  Copy copy{tile, std::vector<float>(count, 0.0f)};  // outside the array: zeros
  std::size_t n = 0;
  for (int k = 0; k < map.box[2]; ++k)
    for (int j = 0; j < map.box[1]; ++j)
      for (int i = 0; i < map.box[0]; ++i, ++n) {
        const long long at[3] = {x + i, y + j, z + k};
        if (at[0] >= 0 && at[0] < map.extent[0] && at[1] >= 0 && at[1] < map.extent[1] && at[2] >= 0 && at[2] < map.extent[2])
          copy.values[n] = map.base[at[0] + at[1] * map.stride[1] + at[2] * map.stride[2]];
      }
  std::memset(tile, 0xff, count * sizeof(float));
  pending_.push_back(std::move(copy));
}

void TileBarrier::wait(unsigned phase) {
  require_initialised("course::wait_tile");
  if (completed_ % 2 != phase % 2) return;  // that phase has completed
  if (pending_.size() < copies_)
    stop("course::wait_tile waits for a copy that no thread has started yet (the block's threads run one after "
         "another here: start the copy before a __syncthreads() that comes before the wait)");
  for (unsigned c = 0; c < copies_; ++c)
    std::memcpy(pending_[c].tile, pending_[c].values.data(), pending_[c].values.size() * sizeof(float));
  pending_.erase(pending_.begin(), pending_.begin() + copies_);
  ++completed_;
}

#else

TileMap make_tile_map(const float*, std::array<long long, 3>, std::array<long long, 2>, std::array<int, 3>, const char* why) {
  throw Unsupported(std::string(why) + ": the tensor memory accelerator is NVIDIA's (sm_90 or later); " COURSE_BACKEND_NAME
                    " has none");
}

#endif

}  // namespace course
