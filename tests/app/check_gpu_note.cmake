# app.gpu_note (issue 31, item 7): on a machine without any NVIDIA driver, `scanmd info` and the
# backend choice say so, instead of the CUDA runtime's "CUDA driver version is insufficient for
# CUDA runtime version". Nothing to check (passes) where a driver is loaded or CUDA is not
# compiled in.
# Usage: cmake -DEXE=<scanmd> -DDECK=<deck> -P check_gpu_note.cmake
if(EXISTS /proc/driver/nvidia/version)
  message(STATUS "an NVIDIA driver is loaded here: nothing to check")
  return()
endif()
execute_process(COMMAND "${EXE}" info OUTPUT_VARIABLE info RESULT_VARIABLE rc)
if(info MATCHES "cuda_compiled: no")
  message(STATUS "no CUDA backend in this build: nothing to check")
  return()
endif()
if(NOT rc EQUAL 0 OR NOT info MATCHES "gpu_note: no usable GPU: no NVIDIA driver on this machine")
  message(FATAL_ERROR "`scanmd info` does not say there is no driver:\n${info}")
endif()
execute_process(COMMAND "${EXE}" run "${DECK}" --set run.backend=auto --set run.steps=0
                OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL 0 OR NOT out MATCHES "backend: auto -> host \\(no usable GPU: no NVIDIA driver on this machine")
  message(FATAL_ERROR "the backend choice does not say there is no driver:\n${out}${err}")
endif()
message(STATUS "ok: no driver named as such")
