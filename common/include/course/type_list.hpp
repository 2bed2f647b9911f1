// Lists of types that tests, benchmarks and step tables fold over, so that a chapter names its
// operators once; and loops whose index is a compile-time constant.
#pragma once

#include <type_traits>
#include <utility>

#include "course/gpu.hpp"

namespace course {

namespace detail {
template <class F, int... i>
__host__ __device__ constexpr void static_for(F& f, std::integer_sequence<int, i...>) {
  (f(std::integral_constant<int, i>{}), ...);
}
}  // namespace detail

// Calls f(std::integral_constant<int, i>{}) for i = 0 .. N-1, in order: in kernels, a loop whose
// index can select compile-time data (an operator's term, a tile of a ring).
template <int N, class F>
__host__ __device__ constexpr void static_for(F&& f) {
  detail::static_for(f, std::make_integer_sequence<int, N>{});
}

template <class... T>
struct TypeList {};

// Calls f.template operator()<T>() for every T of the list, in order:
//   course::for_each_type(Operators{}, []<class Op>() { ... });
template <class... T, class F>
constexpr void for_each_type(TypeList<T...>, F&& f) {
  (f.template operator()<T>(), ...);
}

template <class First, class... Rest>
using DropFirst = TypeList<Rest...>;

}  // namespace course

// A chapter keeps its list of types as an X-macro, FOR_EACH(X, ...) calling X(Type, ...) once per
// type, so that the same one list can also write explicit instantiations in the step files.
// COURSE_TYPE_LIST(FOR_EACH) is the course::TypeList of it.
#define COURSE_TYPE_LIST_ITEM(T, ...) , T
#define COURSE_TYPE_LIST(FOR_EACH) ::course::DropFirst<void FOR_EACH(COURSE_TYPE_LIST_ITEM)>
