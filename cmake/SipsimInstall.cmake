# cmake --install (docs/install.md): the binary in bin/, everything a user
# runs or reads under share/sipsim/, the Python package importable from
# share/sipsim/python (and pip-installable from there), and an Lmod modulefile.
include(GNUInstallDirs)

set(SIPSIM_MODULE_DEPENDS "" CACHE STRING
    "modules the modulefile loads first (a CMake list, e.g. openmpi/4.1;hdf5/1.12-mpi)")

# Keep the library folders the binary was linked with (a site's MPI and HDF5
# modules, Debian's hdf5/openmpi): the installed binary runs without
# LD_LIBRARY_PATH.
set_target_properties(sipsim PROPERTIES INSTALL_RPATH_USE_LINK_PATH ON)
install(TARGETS sipsim RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
set(SIPSIM_SHARE_DIR ${CMAKE_INSTALL_DATADIR}/sipsim)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/scenarios/ DESTINATION ${SIPSIM_SHARE_DIR}/scenarios)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/ DESTINATION ${SIPSIM_SHARE_DIR}/docs)
install(FILES ${PROJECT_SOURCE_DIR}/README.md DESTINATION ${SIPSIM_SHARE_DIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/python/sipsim DESTINATION ${SIPSIM_SHARE_DIR}/python
        PATTERN "__pycache__" EXCLUDE)
install(FILES ${PROJECT_SOURCE_DIR}/python/pyproject.toml DESTINATION ${SIPSIM_SHARE_DIR}/python)

set(SIPSIM_MODULE_PREFIX "" CACHE STRING
    "the prefix the modulefile names (default: found from the modulefile's own path, so the \
installed tree can move; set it to copy the modulefile into a site's tree)")
set(SIPSIM_MODULE_DEPENDS_LUA "")
foreach(module IN LISTS SIPSIM_MODULE_DEPENDS)
  string(APPEND SIPSIM_MODULE_DEPENDS_LUA "depends_on(\"${module}\")\n")
endforeach()
configure_file(${PROJECT_SOURCE_DIR}/cmake/sipsim.lua.in
               ${PROJECT_BINARY_DIR}/modulefiles/sipsim/${PROJECT_VERSION}.lua @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/modulefiles/sipsim/${PROJECT_VERSION}.lua
        DESTINATION ${CMAKE_INSTALL_DATADIR}/modulefiles/sipsim)
