// Chapter 4: direct Coulomb summation.
//
// The electrostatic potential on one slice of a regular grid: point (i, j), 0 <= i < nx,
// 0 <= j < ny, sits at (i h, j h, z), and K atoms (x_k, y_k, z_k) with charges q_k give it
//   V(i, j) = sum over k of q_k / sqrt((i h - x_k)^2 + (j h - y_k)^2 + (z - z_k)^2).
// Every step takes the atoms as the document lays them out for one slice: (x, y, (z - z_k)^2, q),
// the squared height worked out once per atom on the host (atoms_on_slice). The output is nx x ny
// floats, row-major (row j, column i), on the device; every element is written.
// An atom exactly on a grid point puts 1/0 into that point's sum: the point gets +inf or -inf
// (NaN if charges of both signs sit there), as the physics says; nothing else is affected. The
// exception is step 06, where some points take their roots from the FMA pipe: there the term is
// a large finite number instead, about 3.6e19 q (4.5e19 q with the Newton root).
// From step 04 on, on NVIDIA GPUs, an atom within about 1e-19 of a grid point (a squared distance
// below 2^-126, which the one-instruction root flushes to zero) counts as on it.
#pragma once

#include <span>
#include <vector>

#include "course/gpu.hpp"

namespace ch04 {

struct Slice {
  int nx, ny;     // grid points along x and y
  float spacing;  // h
  float z;        // the slice's height
};

struct alignas(16) SliceAtom {
  float x, y;
  float dz2;  // (z - z_k)^2 for this slice
  float q;
};

struct Atom {
  float x, y, z, q;
};

std::vector<SliceAtom> atoms_on_slice(std::span<const Atom> atoms, float z);

// Atoms per chunk of constant memory: 64 KB holds 4096 of them.
inline constexpr int kConstantAtoms = 64 * 1024 / sizeof(SliceAtom);

// Calls chunk(first, count, initialize) for the atoms in chunks of at most atoms_per_chunk
// (kConstantAtoms unless smaller chunks are asked for), in order; `initialize` is true for the
// first, whose launch writes the output instead of adding to it. With no atoms it is called once
// with count 0, so that the output is still written.
template <class Chunk>
void for_each_constant_chunk(int count, Chunk&& chunk, int atoms_per_chunk = kConstantAtoms) {
  int first = 0;
  do {
    const int n = count - first < atoms_per_chunk ? count - first : atoms_per_chunk;
    chunk(first, n, first == 0);
    first += n;
  } while (first < count);
}

}  // namespace ch04
