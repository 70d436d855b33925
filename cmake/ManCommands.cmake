# Writes a help2man include file with one section per clustertwin-cli command, from `clustertwin-cli help CMD`,
# so that the man page says what --help says. Run as: cmake -DCLI=... -DOUT=... -P ManCommands.cmake
cmake_policy(SET CMP0007 NEW)  # run with -P: empty list elements are kept, and filtered below
set(text "[DESCRIPTION]\nclustertwin-cli runs ClusterTwin's model without a display: it validates, summarises and generates scenarios,\nsimulates power, heat, air and network, imports telemetry into a run database, queries it and renders pictures.\n\n[COMMANDS]\n")
execute_process(COMMAND ${CLI} help --commands OUTPUT_VARIABLE commands RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${CLI} help --commands failed")
endif()
string(REPLACE "\n" ";" commands "${commands}")
list(FILTER commands EXCLUDE REGEX "^$")
foreach(cmd IN LISTS commands)
  execute_process(COMMAND ${CLI} help ${cmd} OUTPUT_VARIABLE help RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${CLI} help ${cmd} failed")
  endif()
  string(REPLACE "\\" "\\e" help "${help}")
  # roff: a line starting with . or ' is a request; \& keeps it text.
  string(REGEX REPLACE "(^|\n)([.'])" "\\1\\\\&\\2" help "${help}")
  string(APPEND text ".SS ${cmd}\n.nf\n${help}.fi\n")
endforeach()
string(APPEND text "\n[ENVIRONMENT]\n.TP\nDISPLAY\nrender draws on this X display; without one a private Xvfb is started (package xvfb).\n.TP\nTMPDIR\nwhere standard input read by import is kept while it is read.\n\n[SEE ALSO]\nclustertwin(1), clustertwin-bench(1); the documentation in /usr/share/doc/clustertwin.\n")
file(WRITE ${OUT} "${text}")
