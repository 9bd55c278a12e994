# The REPL's terminal tests (tests/repl/test_repl_pty.py), driven through a pseudo-terminal by
# Python's standard pty module: one ctest test per case. They skip (status 77) without python3.
find_program(TOCHA_PYTHON3 NAMES python3 PATHS /usr/bin NO_DEFAULT_PATH)
if(NOT TOCHA_PYTHON3)
  find_program(TOCHA_PYTHON3 NAMES python3)
endif()
set(repl_pty_script ${PROJECT_SOURCE_DIR}/tests/repl/test_repl_pty.py)
foreach(case completion multiline error_recovery ctrl_c_line ctrl_c_tensor_loop ctrl_c_lua_loop
        ctrl_c_twice history help colors piped_stdin)
  if(TOCHA_PYTHON3)
    add_test(NAME repl.pty.${case} COMMAND ${TOCHA_PYTHON3} ${repl_pty_script} $<TARGET_FILE:tocha_exe> ${case})
  else()
    add_test(NAME repl.pty.${case} COMMAND sh -c "echo 'SKIP: python3 not found (Debian: python3)'; exit 77")
  endif()
  set_tests_properties(repl.pty.${case} PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 60
    ENVIRONMENT "TOCHA_TEST_TMP=${CMAKE_CURRENT_BINARY_DIR}")
endforeach()
