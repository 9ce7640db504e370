# Included after each project() call while llama-cpp-python builds (Makefile: CMAKE_ARGS,
# -DCMAKE_PROJECT_INCLUDE).  llama-cpp-python forces llama.cpp's `common` library on, but its
# Python bindings load only libllama and ggml: turn `common` off again inside llama.cpp's own
# project, before its CMakeLists reads the option, so it is neither compiled nor installed.
if(PROJECT_NAME STREQUAL "llama.cpp")
    set(LLAMA_BUILD_COMMON OFF CACHE BOOL "llama: build common utils library" FORCE)
endif()
