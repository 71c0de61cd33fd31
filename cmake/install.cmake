# `cmake --install`: the optcert command (and optcert-gen, which `optcert vectors verify` runs),
# the fast backends it loads, the plugin ABI headers, the shipped vectors, a CMake package
# (find_package(optcert): optcert::impl, optcert::optcert) and a pkg-config file (optcert.pc).
# An installed optcert finds its vectors and backends relative to its own directory
# (conformance/src/main.c, installed_path), so the tree can be moved, as the Python wheel does.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)
set(OPTCERT_INSTALL_DATADIR ${CMAKE_INSTALL_DATADIR}/optcert)
set(OPTCERT_INSTALL_PLUGINDIR ${CMAKE_INSTALL_LIBDIR}/optcert)
set(OPTCERT_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/optcert)
file(RELATIVE_PATH rel_data ${CMAKE_INSTALL_FULL_BINDIR}
     ${CMAKE_INSTALL_PREFIX}/${OPTCERT_INSTALL_DATADIR})
file(RELATIVE_PATH rel_plugin ${CMAKE_INSTALL_FULL_BINDIR}
     ${CMAKE_INSTALL_PREFIX}/${OPTCERT_INSTALL_PLUGINDIR})
target_compile_definitions(optcert PRIVATE OPTCERT_REL_DATADIR="${rel_data}"
                           OPTCERT_REL_PLUGINDIR="${rel_plugin}")

# The plugin ABI is header-only: a plugin needs the include directory and nothing to link.
add_library(optcert_impl INTERFACE)
set_target_properties(optcert_impl PROPERTIES EXPORT_NAME impl)
target_include_directories(optcert_impl INTERFACE $<BUILD_INTERFACE:${CMAKE_SOURCE_DIR}/include>
                           $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)

install(TARGETS optcert optcert-gen EXPORT optcertTargets RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(TARGETS optcert_impl EXPORT optcertTargets)
foreach(backend optcert_fast_cpu_plugin optcert_fast_cuda_plugin)
  if(TARGET ${backend})
    install(TARGETS ${backend} LIBRARY DESTINATION ${OPTCERT_INSTALL_PLUGINDIR})
  endif()
endforeach()
install(DIRECTORY include/optcert DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
# The element-wise algorithms' ACSL (cmake/registry.cmake) beside optcert/mixed.h, which includes it
# under __FRAMAC__: Frama-C then reads the installed headers' contracts as the proofs do.
install(FILES ${OPTCERT_REGISTRY_DIR}/elementwise_logic.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/optcert)
install(DIRECTORY vectors/ DESTINATION ${OPTCERT_INSTALL_DATADIR}/vectors PATTERN gen EXCLUDE)

install(EXPORT optcertTargets NAMESPACE optcert:: DESTINATION ${OPTCERT_INSTALL_CMAKEDIR})
configure_package_config_file(cmake/optcertConfig.cmake.in
                              ${CMAKE_BINARY_DIR}/optcertConfig.cmake
                              INSTALL_DESTINATION ${OPTCERT_INSTALL_CMAKEDIR}
                              PATH_VARS CMAKE_INSTALL_BINDIR OPTCERT_INSTALL_DATADIR)
write_basic_package_version_file(${CMAKE_BINARY_DIR}/optcertConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/optcertConfig.cmake ${CMAKE_BINARY_DIR}/optcertConfigVersion.cmake
        DESTINATION ${OPTCERT_INSTALL_CMAKEDIR})
# Relocatable: the prefix is found from the .pc file's own directory (pkg-config's pcfiledir).
file(RELATIVE_PATH OPTCERT_PC_TO_PREFIX ${CMAKE_INSTALL_FULL_LIBDIR}/pkgconfig ${CMAKE_INSTALL_PREFIX})
configure_file(cmake/optcert.pc.in ${CMAKE_BINARY_DIR}/optcert.pc @ONLY)
install(FILES ${CMAKE_BINARY_DIR}/optcert.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
