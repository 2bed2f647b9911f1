# course_add_chapter(): a chapter's whole build, derived from its folder, chapters/NN_name/:
#
#   steps.hpp       registers the steps: every row STEP(NN_file, ...) (the taught variant) or
#                   EXPERIMENT(NN_file, ...) names a file of the track (solutions/NN_name/NN_file.cu
#                   or exercises/...; COURSE_TRACK). A row whose file is missing, a step file that
#                   no row names, or one with experiments and no STEP( row stops the configure.
#   test_*.cpp      the chapter's tests (one file)
#   bench_*.cpp     the chapter's benchmark (one file)
#   *.cpp, *.cu     everything else: the chapter's own sources (references, helpers)
#
# Makes the steps library <dir>_steps, the test executable and the benchmark named after their
# files, and, when the chapter has committed results (results/GPU/), a test that the README's generated
# tables and the step headers' measured figures match them (profiling/report.py --check).
# The chapter's code sees COURSE_CHAPTER="NN_name".
#
# CTest gets one test per step file, named after it ("01_transpose/02_shared_tile") and labelled
# chapterN and chapterN-stepNN, so `ctest -L chapter1-step02` grades one step; on the CPU
# backend a second one, ".../shuffled", runs it again with the threads of each block shuffled
# between barriers, so a missing __syncthreads() fails by default. The chapter's tests outside
# any step (plain TEST()s) are "NN_name/other". Every test requires the fixture "NN_name/build",
# which rebuilds the chapter's programs first: a test never runs a stale binary.
function(course_add_chapter)
  get_filename_component(dir ${CMAKE_CURRENT_SOURCE_DIR} NAME)
  if(NOT dir MATCHES "^([0-9][0-9])_[a-z0-9_]+$")
    message(FATAL_ERROR "chapters/${dir}: a chapter's folder is named NN_name (two digits, lower case)")
  endif()
  math(EXPR number "${CMAKE_MATCH_1}")  # "02" -> 2
  set(label chapter${number})
  set(here ${CMAKE_CURRENT_SOURCE_DIR})
  set(track ${COURSE_TRACK_DIR}/${dir})

  # The steps, from the registry.
  set(registry ${here}/steps.hpp)
  if(NOT EXISTS ${registry})
    message(FATAL_ERROR "chapters/${dir} has no steps.hpp registering its steps (see cmake/Chapter.cmake)")
  endif()
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${registry})
  # A row is a line that begins with STEP( or EXPERIMENT( ; the build reads the file as text, so
  # a row inside a comment would count too.
  file(READ ${registry} text)
  string(REGEX MATCHALL "\n[ \t]*(STEP|EXPERIMENT)\\([0-9][0-9]_[a-z0-9_]+," rows "${text}")
  set(registered "")
  set(taught "")
  foreach(row IN LISTS rows)
    string(REGEX REPLACE ".*(STEP|EXPERIMENT)\\(([0-9][0-9]_[a-z0-9_]+),$" "\\2.cu" file "${row}")
    list(APPEND registered ${file})
    if(row MATCHES "^\n[ \t]*STEP\\(")
      list(APPEND taught ${file})
    endif()
  endforeach()
  list(REMOVE_DUPLICATES registered)
  foreach(file IN LISTS registered)
    if(NOT file IN_LIST taught)
      message(FATAL_ERROR "chapters/${dir}/steps.hpp registers only experiments of ${file}: "
                          "make the variant its lesson teaches a STEP(...) row")
    endif()
  endforeach()
  file(GLOB present RELATIVE ${track} CONFIGURE_DEPENDS ${track}/*.cu)
  foreach(file IN LISTS registered)
    if(NOT file IN_LIST present)
      message(FATAL_ERROR "chapters/${dir}/steps.hpp registers ${file}, but ${COURSE_TRACK}/${dir}/${file} does not exist")
    endif()
  endforeach()
  foreach(file IN LISTS present)
    if(NOT file IN_LIST registered)
      message(FATAL_ERROR "${COURSE_TRACK}/${dir}/${file} is not registered: add a STEP(...) row for it to chapters/${dir}/steps.hpp")
    endif()
  endforeach()
  list(TRANSFORM registered PREPEND ${track}/)

  # The chapter's own files.
  file(GLOB test RELATIVE ${here} CONFIGURE_DEPENDS ${here}/test_*.cpp)
  file(GLOB bench RELATIVE ${here} CONFIGURE_DEPENDS ${here}/bench_*.cpp)
  file(GLOB own RELATIVE ${here} CONFIGURE_DEPENDS ${here}/*.cpp ${here}/*.cu)
  list(LENGTH test tests)
  list(LENGTH bench benches)
  if(NOT tests EQUAL 1 OR NOT benches EQUAL 1)
    message(FATAL_ERROR "chapters/${dir} needs exactly one test_*.cpp and one bench_*.cpp (found: ${test} ${bench})")
  endif()
  list(REMOVE_ITEM own ${test} ${bench})

  set(steps ${dir}_steps)
  course_add_gpu_library(${steps} ${registered} ${own})
  target_include_directories(${steps} PUBLIC ${here})
  target_compile_definitions(${steps} PUBLIC COURSE_CHAPTER="${dir}")
  target_link_libraries(${steps} PUBLIC course::harness)

  get_filename_component(test_name ${test} NAME_WE)
  get_filename_component(bench_name ${bench} NAME_WE)
  course_add_gpu_executable(${test_name} ${test})
  target_link_libraries(${test_name} PRIVATE ${steps} course::testing)
  set(step_files ${registered})
  list(TRANSFORM step_files REPLACE ".*/([0-9][0-9]_[a-z0-9_]+)\\.cu$" "\\1")
  list(SORT step_files)
  # The chapter's plain TEST()s make a test of their own, unless course::suite_tests_step() counts
  # their suite as a step's.
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${here}/${test})
  file(READ ${here}/${test} test_text)
  string(REGEX MATCHALL "\nTEST(_F)?\\([A-Za-z0-9_]+" suites "${test_text}")
  list(TRANSFORM suites REPLACE ".*\\(" "")
  string(REGEX MATCHALL "suite_tests_step\\(\"[A-Za-z0-9_]+\"" counted "${test_text}")
  list(TRANSFORM counted REPLACE ".*\\(\"([A-Za-z0-9_]+)\"" "\\1")
  if(counted)
    list(REMOVE_ITEM suites ${counted})
  endif()
  if(suites)
    list(APPEND step_files other)
  endif()
  # The fixture the chapter's tests require: its programs rebuilt first (one build at a time).
  add_test(NAME ${dir}/build COMMAND ${CMAKE_COMMAND} --build ${CMAKE_BINARY_DIR} --target ${test_name} ${bench_name})
  set_tests_properties(${dir}/build PROPERTIES FIXTURES_SETUP ${dir}_build RESOURCE_LOCK course_build_folder TIMEOUT 3600)
  foreach(file IN LISTS step_files)
    set(labels ${label})
    if(file MATCHES "^([0-9][0-9])_")
      list(APPEND labels ${label}-step${CMAKE_MATCH_1})
    endif()
    set(selector ${dir}/${file})
    if(file STREQUAL "other")
      set(selector ${dir}/none)
    endif()
    course_add_step_test(${dir}/${file} ${test_name} ${selector} "${labels}" ${dir}_build)
  endforeach()

  course_add_gpu_executable(${bench_name} ${bench})
  target_link_libraries(${bench_name} PRIVATE ${steps} course::bench)

  file(GLOB recorded CONFIGURE_DEPENDS ${here}/results/*/bench.json)  # results/GPU/, one folder per GPU
  if(recorded)
    add_test(NAME readme_tables_match_results_${dir}
             COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/profiling/report.py --check ${here})
    set_tests_properties(readme_tables_match_results_${dir} PROPERTIES LABELS tooling)
  endif()
endfunction()

# One CTest test that runs the tests of one step (`selector`: CHAPTER/FILE, or CHAPTER/none for
# the chapter's other tests), and on the CPU backend the same with shuffled threads.
set(COURSE_SHUFFLE_SEED 20261122 CACHE STRING "The seed of the .../shuffled tests' thread order (CPU backend)")
function(course_add_step_test name executable selector labels build_fixture)
  add_test(NAME ${name} COMMAND ${executable} --course_step=${selector} --gtest_brief=1)
  set_tests_properties(${name} PROPERTIES LABELS "${labels}" TIMEOUT 300 SKIP_RETURN_CODE 77
                                          FIXTURES_REQUIRED ${build_fixture})
  if(GPU_BACKEND STREQUAL "CPU")
    add_test(NAME ${name}/shuffled COMMAND ${executable} --course_step=${selector} --gtest_brief=1)
    set_tests_properties(${name}/shuffled PROPERTIES LABELS "${labels}" TIMEOUT 300 SKIP_RETURN_CODE 77
                         FIXTURES_REQUIRED ${build_fixture} ENVIRONMENT COURSE_CPU_SHUFFLE=${COURSE_SHUFFLE_SEED})
  endif()
endfunction()
