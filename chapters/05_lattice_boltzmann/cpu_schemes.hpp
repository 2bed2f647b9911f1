// The paper's CPU side: its time step as four loops over the cells (copy, stream, calculate,
// collide) in its layout, the nine directions of a cell adjacent, id = k + (y + x ny) 9, with
// either of its two ways to address them:
//   linear     one array, the index computed:           f[k + (y + x * ny) * 9]
//   subscript  tables of pointers into the same array:  f[x][y][k]
// In float, like the GPU steps, the columns shared among `threads` host threads (the paper
// used one). The benchmark times them beside the GPU.
#pragma once

#include <memory>
#include <vector>

#include "lbm.hpp"

namespace ch05 {

enum class Addressing { linear, subscript };

class CpuScheme {
 public:
  CpuScheme(const Channel& channel, Addressing addressing, int threads);
  void load(const State& f);  // canonical layout
  State store() const;
  void advance(int steps);
  // The moments of the last step (row-major, y then x), as the calculate loop left them.
  std::vector<float> rho() const;
  std::vector<float> ux() const;
  std::vector<float> uy() const;

 private:
  Channel channel_;
  Addressing addressing_;
  int threads_;
  std::vector<float> f_, backup_, rho_, ux_, uy_;  // the paper's df, dfbak, dd, dvx, dvy
  std::vector<float*> cell_rows_;                   // subscript addressing: f[x][y] -> &f_[(y + x ny) 9]
  std::vector<float**> columns_;                    // f[x] -> &cell_rows_[x ny]
  std::vector<float*> backup_rows_;
  std::vector<float**> backup_columns_;
  std::vector<float> row_major(const std::vector<float>& field) const;
};

}  // namespace ch05
