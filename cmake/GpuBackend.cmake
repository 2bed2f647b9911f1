# The one place in the build that knows about backends. It chooses the compilers, finds the
# runtime and the vendor libraries, and defines two targets that everything else links:
#   course_backend  the backend's compile definition (COURSE_BACKEND_CUDA|HIP|CPU) and runtime
#   course_blas     the vendor BLAS for benchmark peers (COURSE_HAVE_BLAS when there is one)
#   course_collectives  NCCL (CUDA) or RCCL (HIP) when found (COURSE_NCCL_LIBRARY), else nothing:
#                   the CPU backend communicates in process, and a GPU build without the library
#                   skips what needs it (course/nccl.hpp); COURSE_NCCL_SOURCES says which
# Chapters call course_add_gpu_library(), course_add_gpu_executable() and course_add_gpu_test()
# and never mention CUDA, HIP or the CPU.
#
#   GPU_BACKEND = CUDA | HIP | CPU
#   CUDA: nvcc; CMAKE_CUDA_ARCHITECTURES defaults to the GPU of this machine ("native").
#   HIP:  clang for AMD GPUs, from ROCm or from Debian's packages; CMAKE_HIP_ARCHITECTURES must
#         name the targets (e.g. gfx90a) unless rocm_agent_enumerator finds a GPU.
#   CPU:  the same kernel sources compiled by the host compiler; blocks run on a thread pool and
#         the threads of a block run as fibers (common/cpu_backend).

set(GPU_BACKEND "CPU" CACHE STRING "Where kernels run: CUDA, HIP or CPU")
set_property(CACHE GPU_BACKEND PROPERTY STRINGS CUDA HIP CPU)
add_library(course_backend INTERFACE)
add_library(course_blas INTERFACE)
add_library(course_collectives INTERFACE)
list(APPEND CMAKE_MODULE_PATH ${CMAKE_CURRENT_LIST_DIR})  # FindNCCL.cmake
set(course_common ${CMAKE_CURRENT_LIST_DIR}/../common)

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
  target_compile_definitions(course_backend INTERFACE COURSE_BACKEND_CUDA)
  target_link_libraries(course_backend INTERFACE CUDA::cudart)
  target_link_libraries(course_blas INTERFACE CUDA::cublas)
  target_compile_definitions(course_blas INTERFACE COURSE_HAVE_BLAS)
  find_package(NCCL)
  if(NCCL_FOUND)
    set(collectives NCCL::NCCL "NCCL ${NCCL_VERSION}: ${NCCL_LIBRARY}")
  else()
    string(CONCAT missing "NCCL not found (looked in NCCL_ROOT, the CUDA toolkit, python3's nvidia.nccl and the "
                          "system's folders: set NCCL_ROOT to its folder)")
    set(collectives "" "${missing}")
  endif()
  message(STATUS "GPU backend: CUDA, architectures ${CMAKE_CUDA_ARCHITECTURES}")

elseif(GPU_BACKEND STREQUAL "HIP")
  # Find the toolchain before enable_language(HIP): a failed attempt caches a wrong compiler
  # (the system's clang++), and every later configure in that folder fails until it is deleted.
  set(rocm_root "$ENV{ROCM_PATH}")
  if(DEFINED COURSE_ROCM_ROOT)
    set(rocm_root "${COURSE_ROCM_ROOT}")  # the tests point the search elsewhere
  elseif(NOT rocm_root)
    set(rocm_root /opt/rocm)
  endif()
  set(debian_lib /usr/lib/${CMAKE_LIBRARY_ARCHITECTURE})
  set(debian_hip_lang ${debian_lib}/cmake/hip-lang)
  if(DEFINED COURSE_DEBIAN_HIP_LANG_DIR)
    set(debian_hip_lang "${COURSE_DEBIAN_HIP_LANG_DIR}")
  endif()
  set(install_hint "Install Debian's HIP with: bash cmake/install-deps.sh hip (hipcc, clang-15, libamdhip64-dev, rocm-device-libs)")
  if(EXISTS "${rocm_root}/lib/cmake/hip-lang")
    set(hip_toolchain "ROCm at ${rocm_root}")
  elseif(EXISTS "${debian_hip_lang}")
    find_program(COURSE_CLANG15 clang++-15)
    if(NOT COURSE_CLANG15)
      message(FATAL_ERROR "GPU_BACKEND=HIP: Debian's HIP runtime is installed but clang++-15 is not. ${install_hint}")
    endif()
    if(NOT EXISTS ${debian_lib}/amdgcn/bitcode)
      message(FATAL_ERROR "GPU_BACKEND=HIP: the AMD GPU device libraries (${debian_lib}/amdgcn/bitcode) are missing. "
                          "${install_hint}")
    endif()
    if(CMAKE_HIP_COMPILER AND NOT CMAKE_HIP_COMPILER MATCHES "clang\\+\\+-15$")
      message(FATAL_ERROR "GPU_BACKEND=HIP: this build folder has ${CMAKE_HIP_COMPILER} cached as the HIP compiler, "
                          "from an earlier configure; Debian's HIP needs clang++-15. Delete ${CMAKE_BINARY_DIR} "
                          "and configure again.")
    endif()
    set(hip_toolchain "Debian's packages (clang-15)")
  else()
    message(FATAL_ERROR "GPU_BACKEND=HIP needs a HIP toolchain and found none: neither ROCm "
                        "(${rocm_root}; set ROCM_PATH if it is elsewhere) nor Debian's packages "
                        "(${debian_hip_lang}). ${install_hint}, then configure again.")
  endif()
  if(NOT DEFINED CMAKE_HIP_ARCHITECTURES)
    find_program(COURSE_ROCM_AGENT_ENUMERATOR rocm_agent_enumerator PATHS ${rocm_root}/bin)
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
  if(hip_toolchain MATCHES "^Debian")
    # Debian 12 ships HIP without a ROCm root: point CMake's HIP language at clang-15, the
    # device libraries and the hip-lang package where Debian puts them.
    if(NOT CMAKE_HIP_COMPILER)
      set(CMAKE_HIP_COMPILER ${COURSE_CLANG15})
    endif()
    string(APPEND CMAKE_HIP_FLAGS " --rocm-path=/usr --rocm-device-lib-path=${debian_lib}/amdgcn/bitcode")
    set(debian_rocm_root "${CMAKE_BINARY_DIR}/debian-rocm-root")
    file(MAKE_DIRECTORY "${debian_rocm_root}/lib/cmake")
    file(CREATE_LINK ${debian_hip_lang} "${debian_rocm_root}/lib/cmake/hip-lang" SYMBOLIC)
    set(CMAKE_HIP_COMPILER_ROCM_ROOT "${debian_rocm_root}" CACHE PATH "ROCm root seen by CMake")
    set(ENV{CMAKE_PREFIX_PATH} "${debian_lib}/cmake:$ENV{CMAKE_PREFIX_PATH}")
  endif()
  enable_language(HIP)
  set(CMAKE_HIP_STANDARD 20)
  set(CMAKE_HIP_STANDARD_REQUIRED ON)
  find_package(hip REQUIRED CONFIG)  # hip::host, for host-only files built by the C++ compiler
  set(COURSE_KERNEL_LANGUAGE HIP)
  target_compile_definitions(course_backend INTERFACE COURSE_BACKEND_HIP)
  target_link_libraries(course_backend INTERFACE hip::host)
  find_package(hipblas CONFIG QUIET)
  if(hipblas_FOUND)
    target_link_libraries(course_blas INTERFACE roc::hipblas)
    target_compile_definitions(course_blas INTERFACE COURSE_HAVE_BLAS)
  else()
    message(STATUS "hipBLAS not found: the benchmarks run without their hipBLAS peers")
  endif()
  find_package(rccl CONFIG QUIET)
  if(rccl_FOUND)
    set(collectives rccl::rccl "RCCL ${rccl_VERSION}")
  else()
    set(collectives "" "RCCL not found")
  endif()
  message(STATUS "GPU backend: HIP (${hip_toolchain}), architectures ${CMAKE_HIP_ARCHITECTURES}")

elseif(GPU_BACKEND STREQUAL "CPU")
  find_package(Boost 1.74 REQUIRED COMPONENTS context)
  find_package(Threads REQUIRED)
  set(COURSE_KERNEL_LANGUAGE CXX)
  target_compile_definitions(course_backend INTERFACE COURSE_BACKEND_CPU)
  target_link_libraries(course_backend INTERFACE Boost::context Threads::Threads)
  set(COURSE_BACKEND_SOURCES ${course_common}/cpu_backend/runtime.cpp ${course_common}/cpu_backend/streams.cpp)
  set(COURSE_NCCL_SOURCES ${course_common}/cpu_backend/nccl.cpp)  # ranks as threads, in process
  message(STATUS "GPU backend: CPU (kernels run as fibers on the host; timings are not GPU timings)")

else()
  message(FATAL_ERROR "GPU_BACKEND must be CUDA, HIP or CPU, not '${GPU_BACKEND}'")
endif()

# A GPU backend's communicator: the library found above (`collectives`: its target, or nothing,
# and what to say), or calls that fail saying why, which chapter 6's NCCL steps skip on.
if(DEFINED collectives)
  list(GET collectives 0 collectives_target)
  list(GET collectives 1 collectives_said)
  if(collectives_target)
    target_link_libraries(course_collectives INTERFACE ${collectives_target})
    target_compile_definitions(course_collectives INTERFACE COURSE_NCCL_LIBRARY)
    message(STATUS "${collectives_said}")
  else()
    set(COURSE_NCCL_SOURCES ${course_common}/src/nccl_missing.cpp)
    message(STATUS "${collectives_said}: this build skips what needs it (chapter 6's NCCL steps)")
  endif()
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
                       PROPERTIES LABELS "${arg_LABEL}" TIMEOUT 300 FIXTURES_REQUIRED course_build)
endfunction()
