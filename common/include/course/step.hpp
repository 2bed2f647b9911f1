// A chapter's step: the file a student edits, and which variant of it.
//
// Every chapter registers its steps once, in chapters/NN_name/steps.hpp, as rows of an X-macro,
// one line each. A step file has one taught variant, a STEP( row: the one its lesson teaches, its
// stub asks for and `grade.py --bench` times. Other variants of the same file, knobs that were
// tried, are EXPERIMENT( rows: tested like the taught one, benchmarked only with --all, and
// tabled apart from the taught steps:
//
//   #define CH02_STEPS(STEP, EXPERIMENT)                         \
//     STEP(05_register_queue, register_queue, weights)           \
//     STEP(06_prefetch, prefetch, weights)                       \
//     EXPERIMENT(06_prefetch, prefetch_4_rows, weights)          \
//     /* one row per step, above this line */
//
// The first argument is the file (solutions/ or exercises/NN_name/<file>.cu), the second the
// variant; a chapter may add columns of its own. cmake/Chapter.cmake reads the rows to build
// exactly those files, and refuses a step file that no row names or that has no STEP( row;
// profiling/registry.py reads them for the tables. (A file that solves two of the chapter's
// problems, such as chapter 1's naive transpose and naive A^T x, has a STEP( row in each list.)
// The chapter's header turns each row into a declaration and a row of its step table, whose size
// the compiler counts; a row whose function no step file defines does not link.
#pragma once

#include <string>
#include <string_view>

namespace course {

struct StepSource {
  std::string_view chapter;  // "02_stencil"
  std::string_view file;     // "06_prefetch"
  std::string_view variant;  // "prefetch_4_rows"
  bool experiment = false;   // an EXPERIMENT( row: not the variant the lesson teaches

  // The name tests and benchmarks use: the file's number and the variant, "06_prefetch_4_rows".
  std::string id() const { return std::string(file.substr(0, 3)) + std::string(variant); }
};

// The path of the step's file in the track this build uses: "exercises/02_stencil/06_prefetch.cu".
std::string step_path(const StepSource& step);

}  // namespace course

// A step's source in chapter code, taught or an experiment; COURSE_CHAPTER, the chapter's
// directory, is defined for the chapter's targets by course_add_chapter().
#define COURSE_STEP_SOURCE(file, variant) ::course::StepSource{COURSE_CHAPTER, #file, #variant, false}
#define COURSE_EXPERIMENT_SOURCE(file, variant) ::course::StepSource{COURSE_CHAPTER, #file, #variant, true}
