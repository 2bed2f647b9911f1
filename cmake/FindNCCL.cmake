# FindNCCL: NVIDIA's collective communication library, wherever it was installed.
#
# Looks, in this order, in NCCL_ROOT (a CMake or environment variable), in the CUDA toolkit
# (which carries NCCL on some installations), in the nvidia.nccl package of python3's environment
# (pip's and PyTorch's NCCL: include/nccl.h and lib/libnccl.so.2, with no unversioned
# libnccl.so), then in the system's folders.
#
# Sets NCCL_FOUND, NCCL_INCLUDE_DIR, NCCL_LIBRARY, NCCL_VERSION, and the imported target
# NCCL::NCCL. Programs linked to it find the library again at run time through the build
# tree's RPATH, wherever it was.
include(FindPackageHandleStandardArgs)

set(nccl_hints "")
foreach(root IN ITEMS "${NCCL_ROOT}" "$ENV{NCCL_ROOT}")
  if(root)
    list(APPEND nccl_hints "${root}")
  endif()
endforeach()
if(CUDAToolkit_INCLUDE_DIRS)
  list(APPEND nccl_hints ${CUDAToolkit_INCLUDE_DIRS}/.. ${CUDAToolkit_LIBRARY_DIR}/..)
endif()
find_program(NCCL_PYTHON3 python3)
if(NCCL_PYTHON3)
  execute_process(COMMAND ${NCCL_PYTHON3} -c "import nvidia.nccl, sys; sys.stdout.write(nvidia.nccl.__path__[0])"
                  OUTPUT_VARIABLE nccl_python_package RESULT_VARIABLE nccl_python_status ERROR_QUIET)
  if(nccl_python_status EQUAL 0 AND IS_DIRECTORY "${nccl_python_package}")
    list(APPEND nccl_hints "${nccl_python_package}")
  endif()
endif()

find_path(NCCL_INCLUDE_DIR nccl.h HINTS ${nccl_hints} PATH_SUFFIXES include)
find_library(NCCL_LIBRARY NAMES nccl libnccl.so.2 HINTS ${nccl_hints} PATH_SUFFIXES lib lib64)

if(NCCL_INCLUDE_DIR AND EXISTS "${NCCL_INCLUDE_DIR}/nccl.h")
  file(STRINGS "${NCCL_INCLUDE_DIR}/nccl.h" nccl_version_lines REGEX "^#define NCCL_(MAJOR|MINOR|PATCH) [0-9]+")
  foreach(part MAJOR MINOR PATCH)
    string(REGEX REPLACE ".*#define NCCL_${part} ([0-9]+).*" "\\1" nccl_${part} "${nccl_version_lines}")
  endforeach()
  set(NCCL_VERSION "${nccl_MAJOR}.${nccl_MINOR}.${nccl_PATCH}")
endif()

find_package_handle_standard_args(NCCL REQUIRED_VARS NCCL_LIBRARY NCCL_INCLUDE_DIR VERSION_VAR NCCL_VERSION)

if(NCCL_FOUND AND NOT TARGET NCCL::NCCL)
  add_library(NCCL::NCCL SHARED IMPORTED)
  set_target_properties(NCCL::NCCL PROPERTIES IMPORTED_LOCATION "${NCCL_LIBRARY}"
                                              INTERFACE_INCLUDE_DIRECTORIES "${NCCL_INCLUDE_DIR}")
endif()
mark_as_advanced(NCCL_INCLUDE_DIR NCCL_LIBRARY NCCL_PYTHON3)
