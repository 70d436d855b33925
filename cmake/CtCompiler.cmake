# Compiler launcher and warning flags, applied per target (no global flag edits).
find_program(CT_CCACHE ccache)
if(CT_CCACHE AND NOT CMAKE_CXX_COMPILER_LAUNCHER)
  set(CMAKE_C_COMPILER_LAUNCHER ${CT_CCACHE})
  set(CMAKE_CXX_COMPILER_LAUNCHER ${CT_CCACHE})
  set(CMAKE_CUDA_COMPILER_LAUNCHER ${CT_CCACHE})
  message(STATUS "ClusterTwin: using ccache (${CT_CCACHE})")
endif()

function(ct_warnings target)
  if(CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
    target_compile_options(${target} PRIVATE
      $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor>)
  endif()
endfunction()
