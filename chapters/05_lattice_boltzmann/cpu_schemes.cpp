#include "cpu_schemes.hpp"

#include <algorithm>
#include <barrier>
#include <stdexcept>
#include <thread>

namespace ch05 {
namespace {

// The two ways to reach distribution k of cell (x, y).
struct Linear {
  float* f;
  int ny;
  float& operator()(int x, int y, int k) const { return f[k + (y + static_cast<long long>(x) * ny) * kDirections]; }
};
struct Subscript {
  float*** f;
  float& operator()(int x, int y, int k) const { return f[x][y][k]; }
};

// Columns [x0, x1) of the paper's four loops, `steps` times, in the order that leaves the
// post-collision state of lbm.hpp (copy, stream, calculate, collide); the threads meet at
// `phase` around the stream, which reads the neighbours' copies.
template <class Access>
void run_columns(const Channel& c, Access f, Access backup, float* rho, float* ux, float* uy, int x0, int x1,
                 int steps, std::barrier<>& phase) {
  const float omega = 1.0f / c.tau;
  for (int step = 0; step < steps; ++step) {
    for (int x = x0; x < x1; ++x)  // copy
      for (int y = 0; y < c.ny; ++y)
        for (int k = 0; k < kDirections; ++k) backup(x, y, k) = f(x, y, k);
    phase.arrive_and_wait();
    for (int x = x0; x < x1; ++x)  // stream: pull, bouncing off the walls
      for (int y = 0; y < c.ny; ++y)
        for (int k = 0; k < kDirections; ++k) {
          const int from_x = (x - velocity_x(k) + c.nx) % c.nx, from_y = y - velocity_y(k);
          f(x, y, k) = from_y < 0 || from_y >= c.ny ? backup(x, y, opposite(k)) : backup(from_x, from_y, k);
        }
    for (int x = x0; x < x1; ++x)  // calculate
      for (int y = 0; y < c.ny; ++y) {
        float cell_f[kDirections];
        for (int k = 0; k < kDirections; ++k) cell_f[k] = f(x, y, k);
        const Moments m = moments_of(cell_f);
        const long long cell = y + static_cast<long long>(x) * c.ny;
        rho[cell] = m.rho, ux[cell] = m.ux, uy[cell] = m.uy;
      }
    for (int x = x0; x < x1; ++x)  // collide
      for (int y = 0; y < c.ny; ++y) {
        const long long cell = y + static_cast<long long>(x) * c.ny;
        const Moments m{rho[cell], ux[cell], uy[cell]};
        for (int k = 0; k < kDirections; ++k) f(x, y, k) = collide(k, f(x, y, k), m, omega, c.force);
      }
    phase.arrive_and_wait();  // the next copy overwrites what a neighbour's stream reads
  }
}

}  // namespace

CpuScheme::CpuScheme(const Channel& channel, Addressing addressing, int threads)
    : channel_(channel), addressing_(addressing), threads_(threads) {
  check_channel(channel);
  if (threads < 1) throw std::invalid_argument("CpuScheme needs at least one thread");
  const std::size_t cells = static_cast<std::size_t>(channel.cells());
  f_.resize(cells * kDirections);
  backup_.resize(cells * kDirections);
  rho_.resize(cells), ux_.resize(cells), uy_.resize(cells);
  if (addressing == Addressing::subscript) {
    auto tables = [&](std::vector<float>& data, std::vector<float*>& rows, std::vector<float**>& columns) {
      rows.resize(cells);
      for (std::size_t cell = 0; cell < cells; ++cell) rows[cell] = &data[cell * kDirections];
      columns.resize(channel.nx);
      for (int x = 0; x < channel.nx; ++x) columns[x] = &rows[static_cast<std::size_t>(x) * channel.ny];
    };
    tables(f_, cell_rows_, columns_);
    tables(backup_, backup_rows_, backup_columns_);
  }
}

void CpuScheme::load(const State& f) {
  if (f.size() != f_.size()) throw std::invalid_argument("CpuScheme::load: the state has the wrong size");
  for (int y = 0; y < channel_.ny; ++y)
    for (int x = 0; x < channel_.nx; ++x) {
      const long long mine = y + static_cast<long long>(x) * channel_.ny, canonical = static_cast<long long>(y) * channel_.nx + x;
      for (int k = 0; k < kDirections; ++k) f_[mine * kDirections + k] = f[canonical * kDirections + k];
    }
}

State CpuScheme::store() const {
  State f(f_.size());
  for (int y = 0; y < channel_.ny; ++y)
    for (int x = 0; x < channel_.nx; ++x)
      for (int k = 0; k < kDirections; ++k)
        f[(static_cast<long long>(y) * channel_.nx + x) * kDirections + k] =
            f_[(y + static_cast<long long>(x) * channel_.ny) * kDirections + k];
  return f;
}

void CpuScheme::advance(int steps) {
  const int workers = std::min(threads_, channel_.nx);
  std::barrier<> phase(workers);
  std::vector<std::jthread> threads;
  for (int w = 0; w < workers; ++w) {
    const int x0 = channel_.nx * w / workers, x1 = channel_.nx * (w + 1) / workers;
    threads.emplace_back([&, x0, x1] {
      if (addressing_ == Addressing::linear)
        run_columns(channel_, Linear{f_.data(), channel_.ny}, Linear{backup_.data(), channel_.ny}, rho_.data(),
                    ux_.data(), uy_.data(), x0, x1, steps, phase);
      else
        run_columns(channel_, Subscript{columns_.data()}, Subscript{backup_columns_.data()}, rho_.data(), ux_.data(),
                    uy_.data(), x0, x1, steps, phase);
    });
  }
}

std::vector<float> CpuScheme::row_major(const std::vector<float>& field) const {
  std::vector<float> out(field.size());
  for (int y = 0; y < channel_.ny; ++y)
    for (int x = 0; x < channel_.nx; ++x)
      out[static_cast<std::size_t>(y) * channel_.nx + x] = field[y + static_cast<std::size_t>(x) * channel_.ny];
  return out;
}
std::vector<float> CpuScheme::rho() const { return row_major(rho_); }
std::vector<float> CpuScheme::ux() const { return row_major(ux_); }
std::vector<float> CpuScheme::uy() const { return row_major(uy_); }

}  // namespace ch05
