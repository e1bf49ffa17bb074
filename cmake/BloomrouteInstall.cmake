# Installing bloomroute (`cmake --install`) and packaging it as a .deb
# (`cpack -G DEB`): the binary, its man page (generated from --help at build
# time), systemd units with a sandbox, example config files, the system
# user's sysusers.d entry and the documentation.

# The default prefix is /usr, as a package installs (GNUInstallDirs then
# puts the config files in /etc); `cmake --install build --prefix DIR` or
# -DCMAKE_INSTALL_PREFIX=DIR installs elsewhere, and the units name the
# paths of that prefix.
include(GNUInstallDirs)

configure_file(deploy/systemd/bloomroute-router.service.in
               "${PROJECT_BINARY_DIR}/systemd/bloomroute-router.service" @ONLY)
configure_file(deploy/systemd/bloomroute-regionserver@.service.in
               "${PROJECT_BINARY_DIR}/systemd/bloomroute-regionserver@.service"
               @ONLY)

# The man page, regenerated whenever the binary changes.
set(BLOOMROUTE_MAN_PAGE "${PROJECT_BINARY_DIR}/man/bloomroute.1")
add_custom_command(
  OUTPUT "${BLOOMROUTE_MAN_PAGE}"
  COMMAND ${CMAKE_COMMAND} -E make_directory "${PROJECT_BINARY_DIR}/man"
  COMMAND ${CMAKE_COMMAND} -DBINARY=$<TARGET_FILE:bloomroute>
          -DVERSION=${PROJECT_VERSION} -DOUTPUT=${BLOOMROUTE_MAN_PAGE}
          -P "${PROJECT_SOURCE_DIR}/cmake/man_page.cmake"
  DEPENDS bloomroute "${PROJECT_SOURCE_DIR}/cmake/man_page.cmake"
  COMMENT "Writing the bloomroute(1) man page from --help")
add_custom_target(bloomroute_man_page ALL DEPENDS "${BLOOMROUTE_MAN_PAGE}")

install(TARGETS bloomroute RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(FILES "${BLOOMROUTE_MAN_PAGE}"
        DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
# systemd's own locations, under the prefix (/usr/lib/systemd/system for a
# package): units and the system user.
install(FILES "${PROJECT_BINARY_DIR}/systemd/bloomroute-router.service"
              "${PROJECT_BINARY_DIR}/systemd/bloomroute-regionserver@.service"
        DESTINATION lib/systemd/system)
install(FILES deploy/systemd/bloomroute.sysusers
        DESTINATION lib/sysusers.d RENAME bloomroute.conf)
# /etc/bloomroute for a /usr prefix (GNUInstallDirs' special case).
install(FILES deploy/config/router.conf deploy/config/regionserver-1.conf
        DESTINATION ${CMAKE_INSTALL_FULL_SYSCONFDIR}/bloomroute)
# Monitoring: the Grafana dashboard, the Prometheus alert rules and an
# example scrape config that loads them, under /usr/share/bloomroute rather
# than the documentation (images often leave /usr/share/doc out, and Grafana
# provisioning or Prometheus' rule_files can point here directly).
install(FILES deploy/grafana/bloomroute-dashboard.json
        DESTINATION ${CMAKE_INSTALL_DATADIR}/bloomroute/grafana)
install(FILES deploy/prometheus/bloomroute-alerts.yml
              deploy/prometheus/prometheus.yml
        DESTINATION ${CMAKE_INSTALL_DATADIR}/bloomroute/prometheus)
install(FILES README.md DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(DIRECTORY docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR}/docs
        FILES_MATCHING PATTERN "*.md")

# The .deb: its dependencies found by dpkg-shlibdeps from the binary's
# libraries (libzookeeper-mt2 among them once the binary links the ZooKeeper
# client, so it is not listed by hand), gnuplot recommended (the accuracy chart), /etc files as
# conffiles, and a postinst that makes the system user.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME bloomroute)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "bloomroute developers")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "secondary-index router for HBase-style tables")
set(CPACK_PACKAGING_INSTALL_PREFIX "${CMAKE_INSTALL_PREFIX}")
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION database)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "gnuplot-nox")
set(CPACK_DEBIAN_PACKAGE_CONTROL_EXTRA
    "${PROJECT_SOURCE_DIR}/deploy/debian/postinst;${PROJECT_SOURCE_DIR}/deploy/debian/conffiles")
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
# The binary without its debug sections: the package is 10x smaller.
set(CPACK_STRIP_FILES ON)
include(CPack)
