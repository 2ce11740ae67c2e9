# FindCAF: the C++ Actor Framework 0.17 from Debian's libcaf-dev, which ships no CMake config.
# Defines CAF::core, CAF::io and CAF::openssl (when found) and CAF_FOUND.
find_path(CAF_INCLUDE_DIR caf/all.hpp)
find_library(CAF_CORE_LIBRARY caf_core)
find_library(CAF_IO_LIBRARY caf_io)
find_library(CAF_OPENSSL_LIBRARY caf_openssl)
include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(CAF REQUIRED_VARS CAF_INCLUDE_DIR CAF_CORE_LIBRARY CAF_IO_LIBRARY)
if(CAF_FOUND)
  foreach(part CORE IO OPENSSL)
    string(TOLOWER ${part} lower)
    if(CAF_${part}_LIBRARY AND NOT TARGET CAF::${lower})
      add_library(CAF::${lower} UNKNOWN IMPORTED)
      set_target_properties(CAF::${lower} PROPERTIES IMPORTED_LOCATION ${CAF_${part}_LIBRARY}
                                                    INTERFACE_INCLUDE_DIRECTORIES ${CAF_INCLUDE_DIR})
    endif()
  endforeach()
  set_property(TARGET CAF::io APPEND PROPERTY INTERFACE_LINK_LIBRARIES CAF::core)
  # CAF 0.17's caf/detail/atom_val.hpp uses uint64_t without including <cstdint>; gcc 13 (the GPU
  # host's) no longer includes it through other headers.
  set_property(TARGET CAF::core APPEND PROPERTY INTERFACE_COMPILE_OPTIONS
                                                "$<$<COMPILE_LANGUAGE:CXX>:SHELL:-include cstdint>")
endif()
mark_as_advanced(CAF_INCLUDE_DIR CAF_CORE_LIBRARY CAF_IO_LIBRARY CAF_OPENSSL_LIBRARY)
