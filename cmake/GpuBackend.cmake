# The one place that knows about backends. Chapters call course_add_gpu_library(),
# course_add_gpu_executable() and course_add_gpu_test() and never mention CUDA, HIP or the CPU.
#
#   GPU_BACKEND = CUDA | HIP | CPU
#   CUDA: nvcc; CMAKE_CUDA_ARCHITECTURES defaults to the GPU of this machine ("native").
#   HIP:  clang for AMD GPUs; CMAKE_HIP_ARCHITECTURES must name the targets (e.g. gfx90a) unless
#         rocm_agent_enumerator finds a GPU. Debian's packages need the workarounds below.
#   CPU:  the same kernel sources compiled by the host compiler; blocks run on a thread pool and
#         the threads of a block run as fibers (common/cpu_backend).

set(GPU_BACKEND "CPU" CACHE STRING "Where kernels run: CUDA, HIP or CPU")
set_property(CACHE GPU_BACKEND PROPERTY STRINGS CUDA HIP CPU)

if(GPU_BACKEND STREQUAL "CUDA")
  if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
    set(CMAKE_CUDA_ARCHITECTURES native)
  endif()
  enable_language(CUDA)
  # CMake 3.25 does not know that nvcc 12+ accepts C++20: teach it the flag.
  if(NOT CMAKE_CUDA20_STANDARD_COMPILE_OPTION)
    set(CMAKE_CUDA20_STANDARD_COMPILE_OPTION "-std=c++20")
    set(CMAKE_CUDA20_EXTENSION_COMPILE_OPTION "-std=c++20")
    list(APPEND CMAKE_CUDA_COMPILE_FEATURES cuda_std_20)
  endif()
  set(CMAKE_CUDA_STANDARD 20)
  set(CMAKE_CUDA_STANDARD_REQUIRED ON)
  find_package(CUDAToolkit REQUIRED)
  set(COURSE_KERNEL_LANGUAGE CUDA)
  message(STATUS "GPU backend: CUDA, architectures ${CMAKE_CUDA_ARCHITECTURES}")

elseif(GPU_BACKEND STREQUAL "HIP")
  if(NOT DEFINED CMAKE_HIP_ARCHITECTURES)
    find_program(COURSE_ROCM_AGENT_ENUMERATOR rocm_agent_enumerator PATHS /opt/rocm/bin)
    if(COURSE_ROCM_AGENT_ENUMERATOR)
      execute_process(COMMAND ${COURSE_ROCM_AGENT_ENUMERATOR} OUTPUT_VARIABLE agents)
      string(REGEX MATCHALL "gfx[0-9a-f]+" agents "${agents}")
      list(REMOVE_ITEM agents gfx000)
      list(REMOVE_DUPLICATES agents)
    endif()
    if(NOT agents)
      message(FATAL_ERROR "GPU_BACKEND=HIP needs an offload architecture and none was detected: "
                          "pass -DCMAKE_HIP_ARCHITECTURES=gfx90a (MI250X) or your GPU's gfx name.")
    endif()
    set(CMAKE_HIP_ARCHITECTURES "${agents}")
  endif()
  if(NOT EXISTS /opt/rocm AND NOT DEFINED ENV{ROCM_PATH} AND EXISTS /usr/lib/x86_64-linux-gnu/cmake/hip-lang)
    # Debian 12 ships HIP without a ROCm root: point CMake's HIP language at clang-15, the
    # device libraries and the hip-lang package where Debian puts them.
    if(NOT CMAKE_HIP_COMPILER)
      set(CMAKE_HIP_COMPILER clang++-15)
    endif()
    string(APPEND CMAKE_HIP_FLAGS
      " --rocm-path=/usr --rocm-device-lib-path=/usr/lib/x86_64-linux-gnu/amdgcn/bitcode")
    set(debian_rocm_root "${CMAKE_BINARY_DIR}/debian-rocm-root")
    file(MAKE_DIRECTORY "${debian_rocm_root}/lib/cmake")
    file(CREATE_LINK /usr/lib/x86_64-linux-gnu/cmake/hip-lang
         "${debian_rocm_root}/lib/cmake/hip-lang" SYMBOLIC)
    set(CMAKE_HIP_COMPILER_ROCM_ROOT "${debian_rocm_root}" CACHE PATH "ROCm root seen by CMake")
    set(ENV{CMAKE_PREFIX_PATH} "/usr/lib/x86_64-linux-gnu/cmake:$ENV{CMAKE_PREFIX_PATH}")
  endif()
  enable_language(HIP)
  set(CMAKE_HIP_STANDARD 20)
  set(CMAKE_HIP_STANDARD_REQUIRED ON)
  find_package(hip REQUIRED CONFIG)  # hip::host, for host-only files built by the C++ compiler
  set(COURSE_KERNEL_LANGUAGE HIP)
  message(STATUS "GPU backend: HIP, architectures ${CMAKE_HIP_ARCHITECTURES}")

elseif(GPU_BACKEND STREQUAL "CPU")
  find_package(Boost 1.74 REQUIRED COMPONENTS context)
  find_package(Threads REQUIRED)
  set(COURSE_KERNEL_LANGUAGE CXX)
  message(STATUS "GPU backend: CPU (kernels run as fibers on the host; timings are not GPU timings)")

else()
  message(FATAL_ERROR "GPU_BACKEND must be CUDA, HIP or CPU, not '${GPU_BACKEND}'")
endif()

# Kernel sources (*.cu) are compiled as the backend's language; host-only files (tests,
# benchmarks) by the C++ compiler against the runtime's host API.
function(course_use_gpu target)
  get_target_property(sources ${target} SOURCES)
  get_target_property(source_dir ${target} SOURCE_DIR)
  foreach(source IN LISTS sources)
    if(source MATCHES "\\.cu$")
      set_source_files_properties(${source} DIRECTORY ${source_dir}
                                  PROPERTIES LANGUAGE ${COURSE_KERNEL_LANGUAGE})
    endif()
  endforeach()
  target_link_libraries(${target} PUBLIC course::gpu)
endfunction()

function(course_add_gpu_library name)
  add_library(${name} STATIC ${ARGN})
  course_use_gpu(${name})
endfunction()

function(course_add_gpu_executable name)
  add_executable(${name} ${ARGN})
  course_use_gpu(${name})
endfunction()

# A GoogleTest executable whose tests carry LABEL (e.g. chapter1). Discovery runs at test time,
# so a CUDA or HIP build on a machine without a GPU still builds.
function(course_add_gpu_test name)
  cmake_parse_arguments(arg "" "LABEL" "SOURCES;LIBRARIES" ${ARGN})
  course_add_gpu_executable(${name} ${arg_SOURCES})
  target_link_libraries(${name} PRIVATE ${arg_LIBRARIES} course::testing)
  gtest_discover_tests(${name} DISCOVERY_MODE PRE_TEST
                       PROPERTIES LABELS "${arg_LABEL}" TIMEOUT 300)
endfunction()
