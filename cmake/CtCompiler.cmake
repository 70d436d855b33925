# Compiler launcher and warning flags, applied per target (no global flag edits).
find_program(CT_CCACHE ccache)
if(CT_CCACHE AND NOT CMAKE_CXX_COMPILER_LAUNCHER)
  set(CMAKE_C_COMPILER_LAUNCHER ${CT_CCACHE})
  # The precompiled header (app/gui) is cacheable only with this sloppiness (ccache's manual, "Precompiled
  # headers"); set here so that no one's ccache.conf has to say it.
  set(CMAKE_CXX_COMPILER_LAUNCHER ${CMAKE_COMMAND} -E env
      CCACHE_SLOPPINESS=pch_defines,time_macros ${CT_CCACHE})
  set(CMAKE_CUDA_COMPILER_LAUNCHER ${CT_CCACHE})
  message(STATUS "ClusterTwin: using ccache (${CT_CCACHE})")
endif()

function(ct_warnings target)
  if(CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
    target_compile_options(${target} PRIVATE
      $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor>)
  endif()
endfunction()

# CT_SANITIZE (preset "asan"): AddressSanitizer and UndefinedBehaviorSanitizer on everything we build, stopping at
# the first finding (-fno-sanitize-recover). Leaks inside third-party libraries are suppressed by
# tests/lsan.supp (Mesa, X11, D-Bus, fontconfig...), never ours.
option(CT_SANITIZE "Build with ASan + UBSan (the asan preset)" OFF)
if(CT_SANITIZE)
  add_compile_options($<$<COMPILE_LANGUAGE:C,CXX>:-fsanitize=address,undefined> $<$<COMPILE_LANGUAGE:C,CXX>:-fno-sanitize-recover=all>
                      $<$<COMPILE_LANGUAGE:C,CXX>:-fno-omit-frame-pointer>)
  add_link_options(-fsanitize=address,undefined)
  # Executables linked at a fixed address: as position-independent executables (Debian's default) the sanitized
  # CLI applied 2.7 million relative relocations at every start (`--version` 0.57 s; 0.31-0.42 s without), and
  # tst_import_cli starts it once per testdata file (668 times). -no-pie resolves them at link time.
  add_link_options($<$<STREQUAL:$<TARGET_PROPERTY:TYPE>,EXECUTABLE>:-no-pie>)
endif()

# vtk_module_autoinit, with its generated header named through the include path instead of by an absolute path
# in a definition on every file of the target: the same command line in every clone, so ccache serves them.
function(ct_vtk_autoinit target)
  vtk_module_autoinit(TARGETS ${target} MODULES ${ARGN})
  get_target_property(defs ${target} COMPILE_DEFINITIONS)
  set(kept)
  foreach(d IN LISTS defs)
    if(d MATCHES "^(.*_AUTOINIT_INCLUDE)=\"(.*)/(vtkModuleAutoInit_[0-9a-f]+\\.h)\"$")
      list(APPEND kept "${CMAKE_MATCH_1}=\"${CMAKE_MATCH_3}\"")
      target_include_directories(${target} PRIVATE ${CMAKE_MATCH_2})
    else()
      list(APPEND kept "${d}")
    endif()
  endforeach()
  set_target_properties(${target} PROPERTIES COMPILE_DEFINITIONS "${kept}")
endfunction()
