# course_add_chapter(): what every chapter's CMakeLists.txt would otherwise repeat.
#
#   course_add_chapter(DIR 02_stencil LABEL chapter2
#                      STEPS 00_naive.cu 01_coalesced.cu ...     # from solutions/ or exercises/ (COURSE_TRACK)
#                      SOURCES steps.cpp reference.cpp ...       # the chapter's own, beside its CMakeLists.txt
#                      TEST test_stencil.cpp BENCH bench_stencil.cpp)
#
# Makes the steps library <dir>_steps, the test executable and the benchmark named after their
# files, and, when the chapter has committed results/, a test that its README's generated tables
# match them.
function(course_add_chapter)
  cmake_parse_arguments(arg "" "DIR;LABEL;TEST;BENCH" "STEPS;SOURCES" ${ARGN})
  list(TRANSFORM arg_STEPS PREPEND ${COURSE_TRACK_DIR}/${arg_DIR}/)
  set(steps ${arg_DIR}_steps)
  course_add_gpu_library(${steps} ${arg_STEPS} ${arg_SOURCES})
  target_include_directories(${steps} PUBLIC ${CMAKE_CURRENT_SOURCE_DIR})

  get_filename_component(test ${arg_TEST} NAME_WE)
  course_add_gpu_test(${test} LABEL ${arg_LABEL} SOURCES ${arg_TEST} LIBRARIES ${steps})
  target_compile_definitions(${test} PRIVATE COURSE_TRACK="${COURSE_TRACK}")

  get_filename_component(bench ${arg_BENCH} NAME_WE)
  course_add_gpu_executable(${bench} ${arg_BENCH})
  target_link_libraries(${bench} PRIVATE ${steps} course::bench course::harness)

  if(EXISTS ${CMAKE_CURRENT_SOURCE_DIR}/results/bench.json)
    add_test(NAME readme_tables_match_results_${arg_DIR}
             COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/profiling/report.py --check ${CMAKE_CURRENT_SOURCE_DIR})
    set_tests_properties(readme_tables_match_results_${arg_DIR} PROPERTIES LABELS tooling)
  endif()
endfunction()
