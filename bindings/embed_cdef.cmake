# Turns the preprocessed tocha.h (IN) into a C++ raw string literal (OUT) for tocha_cdef().
file(READ "${IN}" text)
string(REGEX REPLACE "\n[ \t]*\n+" "\n" text "${text}")
file(WRITE "${OUT}.tmp" "R\"TOCHA_CDEF(${text})TOCHA_CDEF\"\n")
execute_process(COMMAND ${CMAKE_COMMAND} -E copy_if_different "${OUT}.tmp" "${OUT}")
