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
