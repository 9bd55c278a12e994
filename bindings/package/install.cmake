# `make install` (cmake --install): libtocha.so, the tocha executable, the public headers, the
# Lua modules, tocha.pc for pkg-config and a CMake package (find_package(Tocha) -> Tocha::tocha).
include(GNUInstallDirs)
file(RELATIVE_PATH _bin_to_lib "${CMAKE_INSTALL_FULL_BINDIR}" "${CMAKE_INSTALL_FULL_LIBDIR}")
set_target_properties(tocha_exe PROPERTIES INSTALL_RPATH "$ORIGIN/${_bin_to_lib}")
install(TARGETS tocha LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(TARGETS tocha_exe RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})

file(GLOB _abi_headers ${PROJECT_SOURCE_DIR}/bindings/tocha*.h ${PROJECT_SOURCE_DIR}/bindings/tocha.hpp)
install(FILES ${_abi_headers} DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/tocha)
install(FILES ${PROJECT_SOURCE_DIR}/core/tensor_header.h ${PROJECT_SOURCE_DIR}/core/ops.def DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/tocha/core)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/lua/ DESTINATION ${CMAKE_INSTALL_DATADIR}/tocha/lua
        FILES_MATCHING PATTERN "*.lua")

file(RELATIVE_PATH TOCHA_PC_TO_PREFIX "/p/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/p")
configure_file(${CMAKE_CURRENT_LIST_DIR}/tocha.pc.in ${PROJECT_BINARY_DIR}/package/tocha.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/package/tocha.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
set(_config_dir ${CMAKE_INSTALL_LIBDIR}/cmake/Tocha)
file(RELATIVE_PATH TOCHA_CONFIG_TO_PREFIX "${CMAKE_INSTALL_PREFIX}/${_config_dir}" "${CMAKE_INSTALL_PREFIX}")
configure_file(${CMAKE_CURRENT_LIST_DIR}/TochaConfig.cmake.in ${PROJECT_BINARY_DIR}/package/TochaConfig.cmake @ONLY)
include(CMakePackageConfigHelpers)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/package/TochaConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/package/TochaConfig.cmake ${PROJECT_BINARY_DIR}/package/TochaConfigVersion.cmake
        DESTINATION ${_config_dir})
# torch.distributed's MPI plugin, next to libtocha (lua/torch/distributed.lua looks there).
if(TARGET tocha_mpi)
  set_target_properties(tocha_mpi PROPERTIES INSTALL_RPATH "$ORIGIN")
  install(TARGETS tocha_mpi LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
endif()
