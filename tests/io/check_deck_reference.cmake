# Test deck.reference: docs/deck.md is exactly what `scanmd deck-reference` prints (the reference
# is written from the key table, io/deck_keys.cpp, and the pair styles' headers; the committed
# copy must not drift from them). On a difference it shows the diff and how to regenerate.
# Usage: cmake -DEXE=<scanmd> -DDOC=<docs/deck.md> -DOUT=<where the fresh output goes>
#              -P check_deck_reference.cmake
foreach(var EXE DOC OUT)
  if(NOT DEFINED ${var} OR "${${var}}" STREQUAL "")
    message(FATAL_ERROR "check_deck_reference.cmake: -D${var}=... is required")
  endif()
endforeach()
execute_process(COMMAND "${EXE}" deck-reference RESULT_VARIABLE rc OUTPUT_FILE "${OUT}"
                ERROR_VARIABLE err TIMEOUT 60)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${EXE} deck-reference failed (${rc}):\n${err}")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files "${DOC}" "${OUT}" RESULT_VARIABLE differ)
if(differ)
  execute_process(COMMAND diff -u "${DOC}" "${OUT}" OUTPUT_VARIABLE diff)
  message(FATAL_ERROR
          "${DOC} differs from `scanmd deck-reference` (its output: ${OUT}):\n${diff}\n"
          "The reference is generated: edit io/deck_keys.cpp or the pair style's header, then "
          "regenerate it with `build/app/scanmd deck-reference > docs/deck.md`.")
endif()
message(STATUS "${DOC} is the output of `scanmd deck-reference`")
