# Writes the bloomroute(1) man page from the built binary's --help, at build
# time: `bloomroute --help` for the synopsis and the list of commands, then
# each command's own --help, verbatim. Run as
#   cmake -DBINARY=path/to/bloomroute -DVERSION=x.y.z -DOUTPUT=bloomroute.1
#         -P cmake/man_page.cmake
# (help2man reads one --help; bloomroute has one per subcommand.)

# troff: a backslash is \e; a line starting with '.' or '\'' would be a
# request, so it gets the zero-width \& in front.
function(troff_escape text out)
  string(REPLACE "\\" "\\e" text "${text}")
  string(REGEX REPLACE "(^|\n)([.'])" "\\1\\\\&\\2" text "${text}")
  set(${out} "${text}" PARENT_SCOPE)
endfunction()

execute_process(COMMAND "${BINARY}" --help OUTPUT_VARIABLE usage
                RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${BINARY} --help failed: ${rc}")
endif()

# The commands: the lines of `commands:` that start with two blanks.
string(REGEX MATCH "commands:\n(.*)\n\n" listed "${usage}")
string(REGEX MATCHALL "\n  [a-z][a-z-]*" names "\n${CMAKE_MATCH_1}")

string(TIMESTAMP today "%Y-%m-%d" UTC)
troff_escape("${usage}" usage_text)
set(page ".TH BLOOMROUTE 1 \"${today}\" \"bloomroute ${VERSION}\" \"User Commands\"
.SH NAME
bloomroute \\- a secondary-index router for HBase-style tables
.SH SYNOPSIS
.B bloomroute
.I COMMAND
[\\fIOPTIONS\\fR]
.SH DESCRIPTION
.nf
${usage_text}
.fi
.SH COMMANDS
")
foreach(name IN LISTS names)
  string(STRIP "${name}" name)
  execute_process(COMMAND "${BINARY}" ${name} --help OUTPUT_VARIABLE help
                  RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${BINARY} ${name} --help failed: ${rc}")
  endif()
  troff_escape("${help}" help_text)
  string(APPEND page ".SS ${name}\n.nf\n${help_text}\n.fi\n")
endforeach()
string(APPEND page ".SH SEE ALSO
The user guide, operator guide and security guide in the bloomroute
documentation (/usr/share/doc/bloomroute).
")
file(WRITE "${OUTPUT}" "${page}")
