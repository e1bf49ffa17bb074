# Thrift C++ code generation at build time.
#
# bloomroute_thrift_cpp(<target>
#   IDL <file.thrift>...          IDL files, relative to the current source dir
#   SERVICES <Name>...            services they declare (one .h/.cpp pair each)
#   LIBS <target>...)             libraries the generated code links against
#
# Runs ${THRIFT_COMPILER} --gen cpp on every IDL file into
# ${PROJECT_BINARY_DIR}/thrift/gen-cpp (include the output as
# "thrift/gen-cpp/<name>.h") and builds it as the static library <target>.
# One command generates every file and depends on every IDL file, because a
# file may include another: editing any of them regenerates all (they are
# small). Generated code is third-party style, so it is compiled without the
# project's -Werror; with BLOOMROUTE_SANITIZE it is still instrumented.
function(bloomroute_thrift_cpp target)
  cmake_parse_arguments(ARG "" "" "IDL;SERVICES;LIBS" ${ARGN})
  set(out_dir "${PROJECT_BINARY_DIR}/thrift/gen-cpp")

  set(idl_paths "")
  set(outputs "")
  set(commands "")
  foreach(idl IN LISTS ARG_IDL)
    set(path "${CMAKE_CURRENT_SOURCE_DIR}/${idl}")
    get_filename_component(base "${idl}" NAME_WE)
    list(APPEND idl_paths "${path}")
    list(APPEND outputs "${out_dir}/${base}_types.h" "${out_dir}/${base}_types.cpp")
    list(APPEND commands COMMAND "${THRIFT_COMPILER}" --gen cpp:no_skeleton
         -I "${CMAKE_CURRENT_SOURCE_DIR}" -out "${out_dir}" "${path}")
  endforeach()
  foreach(service IN LISTS ARG_SERVICES)
    list(APPEND outputs "${out_dir}/${service}.h" "${out_dir}/${service}.cpp")
  endforeach()

  add_custom_command(
    OUTPUT ${outputs}
    COMMAND "${CMAKE_COMMAND}" -E make_directory "${out_dir}"
    ${commands}
    DEPENDS ${idl_paths}
    COMMENT "Generating Thrift C++ code for ${target}"
    VERBATIM)

  add_library(${target} STATIC ${outputs})
  target_include_directories(${target} PUBLIC "${PROJECT_BINARY_DIR}")
  target_link_libraries(${target} PUBLIC ${ARG_LIBS})
  if(BLOOMROUTE_SANITIZE)
    target_compile_options(${target} PRIVATE
      -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer)
    target_link_options(${target} INTERFACE -fsanitize=address,undefined)
  endif()
endfunction()

# Thrift Python code generation at build time, for Python clients.
#
# bloomroute_thrift_py(<target>
#   IDL <file.thrift>             the IDL to generate (its includes follow, -r)
#   PACKAGE <a/b/c>               the directory its `namespace py` names
#   OUTPUTS <name.py>...)         files generated into that directory
#
# Runs ${THRIFT_COMPILER} --gen py -r into ${PROJECT_BINARY_DIR}/python, so
# that PYTHONPATH=<build>/python finds the package its `namespace py` line
# names. <target> is part of `all` and re-runs when any IDL file of the
# current source dir changes (an included file changes the output too).
function(bloomroute_thrift_py target)
  cmake_parse_arguments(ARG "" "IDL;PACKAGE" "OUTPUTS" ${ARGN})
  set(out_dir "${PROJECT_BINARY_DIR}/python")
  file(GLOB idl_paths "${CMAKE_CURRENT_SOURCE_DIR}/*.thrift")
  set(outputs "")
  foreach(name IN LISTS ARG_OUTPUTS)
    list(APPEND outputs "${out_dir}/${ARG_PACKAGE}/${name}")
  endforeach()
  add_custom_command(
    OUTPUT ${outputs}
    COMMAND "${CMAKE_COMMAND}" -E make_directory "${out_dir}"
    COMMAND "${THRIFT_COMPILER}" --gen py -r -I "${CMAKE_CURRENT_SOURCE_DIR}"
            -out "${out_dir}" "${CMAKE_CURRENT_SOURCE_DIR}/${ARG_IDL}"
    # Newer than every IDL file whatever the compiler rewrote, so the rule
    # is satisfied until an IDL file changes again.
    COMMAND "${CMAKE_COMMAND}" -E touch ${outputs}
    DEPENDS ${idl_paths}
    COMMENT "Generating Thrift Python code for ${target}"
    VERBATIM)
  add_custom_target(${target} ALL DEPENDS ${outputs})
endfunction()
