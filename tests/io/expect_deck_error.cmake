# End-to-end check of a bad input deck: runs `EXE run DECK` and requires (a) a non-zero exit that is
# not a crash, and (b) stdout+stderr matching the regex EXPECT (the deck name, line and key).
# Usage: cmake -DEXE=<scanmd> -DDECK=<deck.toml> -DEXPECT=<regex> -P expect_deck_error.cmake
foreach(var EXE DECK EXPECT)
  if(NOT DEFINED ${var} OR "${${var}}" STREQUAL "")
    message(FATAL_ERROR "expect_deck_error.cmake: -D${var}=... is required")
  endif()
endforeach()

execute_process(
  COMMAND "${EXE}" run "${DECK}"
  RESULT_VARIABLE rc
  OUTPUT_VARIABLE out
  ERROR_VARIABLE err
  TIMEOUT 60)
set(all "${out}${err}")

if(NOT rc MATCHES "^[0-9]+$")
  message(FATAL_ERROR "`${EXE} run ${DECK}` did not exit normally (${rc}); output:\n${all}")
endif()
if(rc EQUAL 0)
  message(FATAL_ERROR "`${EXE} run ${DECK}` exited 0, expected an error; output:\n${all}")
endif()
if(NOT all MATCHES "${EXPECT}")
  message(FATAL_ERROR
    "`${EXE} run ${DECK}` exited ${rc} but its output does not match\n  ${EXPECT}\noutput:\n${all}")
endif()
message(STATUS "ok: exit ${rc}, output matches '${EXPECT}'")
