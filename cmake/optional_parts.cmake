# The library's optional parts (CMakeLists.txt, RAGMETER_WITH_*; docs/library.md,
# "Building without a dependency"). Each part is an object library of its own files, or of
# their stand-ins (src/*/without_*.cc) when its option is OFF, so its dependency's compile
# flags reach its files only: the rest of the library compiles the same either way, and
# ccache shares it between a full and a reduced build.

set(RAGMETER_OPTIONAL_PARTS "")

# ragmeter_optional_part(OPTION SOURCES file... WITHOUT file... LIBRARIES target...)
# Takes the part's SOURCES out of RAGMETER_LIB_SOURCES and makes the object library
# ragmeter_part_<name> of them (OPTION ON, compiled and later linked with LIBRARIES) or of
# the WITHOUT stand-ins (OPTION OFF). Paths are relative to the project's directory.
function(ragmeter_optional_part option)
  cmake_parse_arguments(PART "" "" "SOURCES;WITHOUT;LIBRARIES" ${ARGN})
  list(TRANSFORM PART_SOURCES PREPEND ${PROJECT_SOURCE_DIR}/)
  list(TRANSFORM PART_WITHOUT PREPEND ${PROJECT_SOURCE_DIR}/)
  set(sources ${RAGMETER_LIB_SOURCES})
  list(REMOVE_ITEM sources ${PART_SOURCES})
  string(TOLOWER "${option}" part)
  string(REPLACE "ragmeter_with_" "ragmeter_part_" part "${part}")
  if(${option})
    add_library(${part} OBJECT ${PART_SOURCES})
    target_link_libraries(${part} PRIVATE ${PART_LIBRARIES})
    set_property(TARGET ${part} PROPERTY RAGMETER_PART_LIBRARIES ${PART_LIBRARIES})
  else()
    add_library(${part} OBJECT ${PART_WITHOUT})
  endif()
  set(RAGMETER_LIB_SOURCES ${sources} PARENT_SCOPE)
  set(RAGMETER_OPTIONAL_PARTS ${RAGMETER_OPTIONAL_PARTS} ${part} PARENT_SCOPE)
endfunction()

# Compiles every part as `library` is compiled (its include paths, warnings, definitions,
# position-independent code, the headers of its own dependencies) and puts the parts'
# objects into `library`, with the dependencies of the parts that are ON linked after it.
function(ragmeter_add_optional_parts library)
  get_target_property(pic ${library} POSITION_INDEPENDENT_CODE)
  foreach(part ${RAGMETER_OPTIONAL_PARTS})
    target_include_directories(${part} PRIVATE ${PROJECT_SOURCE_DIR}/include ${PROJECT_SOURCE_DIR}/src
                                               ${PROJECT_BINARY_DIR}/generated)
    target_compile_options(${part} PRIVATE ${RAGMETER_WARNINGS})
    target_compile_definitions(${part} PRIVATE RAGMETER_VERSION="${PROJECT_VERSION}")
    target_link_libraries(${part} PRIVATE nlohmann_json::nlohmann_json fmt::fmt ICU::uc ICU::i18n
                                          OpenSSL::Crypto simdjson::simdjson)
    if(pic)
      set_target_properties(${part} PROPERTIES POSITION_INDEPENDENT_CODE ON)
    endif()
    target_sources(${library} PRIVATE $<TARGET_OBJECTS:${part}>)
    get_target_property(libraries ${part} RAGMETER_PART_LIBRARIES)
    if(libraries)
      foreach(dependency ${libraries})
        target_link_libraries(${library} PRIVATE $<LINK_ONLY:${dependency}>)
      endforeach()
    endif()
  endforeach()
endfunction()
