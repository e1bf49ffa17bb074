# Compiler settings shared by every bloomroute target.
#
# bloomroute_target_options(<target>) applies the project's warnings (-Wall -Wextra
# -Werror) and, with BLOOMROUTE_SANITIZE=ON, AddressSanitizer + UBSan to one target.
# It is applied per target rather than globally so that third-party code never sees
# -Werror.

option(BLOOMROUTE_SANITIZE "Build with AddressSanitizer and UndefinedBehaviorSanitizer" OFF)

function(bloomroute_target_options target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Werror)
  if(BLOOMROUTE_SANITIZE)
    target_compile_options(${target} PRIVATE
      -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer)
    target_link_options(${target} PRIVATE -fsanitize=address,undefined)
  endif()
endfunction()

# Libraries linked into sanitized executables must be instrumented too; this applies
# the sanitizer flags to a library without changing its warnings.
function(bloomroute_library_options target)
  bloomroute_target_options(${target})
  if(BLOOMROUTE_SANITIZE)
    target_link_options(${target} INTERFACE -fsanitize=address,undefined)
  endif()
endfunction()

# A GoogleTest executable registered with ctest. LABELS sanitize marks tests that
# `make test-asan` runs in the sanitizer build. TEST_FILTER (a gtest filter)
# registers only the matching tests, so that another gtest_discover_tests
# call can register the rest with other labels.
function(bloomroute_add_test name)
  cmake_parse_arguments(ARG "" "TEST_FILTER" "SOURCES;LIBS;LABELS" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  bloomroute_target_options(${name})
  target_link_libraries(${name} PRIVATE ${ARG_LIBS} GTest::gtest GTest::gmock GTest::gtest_main)
  set(filter)
  if(ARG_TEST_FILTER)
    set(filter TEST_FILTER "${ARG_TEST_FILTER}")
  endif()
  gtest_discover_tests(${name} DISCOVERY_TIMEOUT 60 ${filter}
    PROPERTIES LABELS "${ARG_LABELS}")
endfunction()
