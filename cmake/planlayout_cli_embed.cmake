# Embeds src/cli/commands.json (every command's options, help texts and examples: the one
# definition behind parsing, --help and the man page) as a string the CLI parses at start.
set(PLANLAYOUT_CLI_COMMANDS ${CMAKE_CURRENT_SOURCE_DIR}/src/cli/commands.json)
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${PLANLAYOUT_CLI_COMMANDS})
file(READ ${PLANLAYOUT_CLI_COMMANDS} PLANLAYOUT_CLI_COMMANDS_TEXT)
file(WRITE ${PLANLAYOUT_GENERATED}/planlayout_cli_commands.hpp.in
"// Generated from src/cli/commands.json by cmake/planlayout_cli_embed.cmake. Do not edit.
#pragma once
namespace planlayout::cli {
inline constexpr const char* kCommandDefinitions = R\"PLJSON(@PLANLAYOUT_CLI_COMMANDS_TEXT@)PLJSON\";
}  // namespace planlayout::cli
")
configure_file(${PLANLAYOUT_GENERATED}/planlayout_cli_commands.hpp.in
               ${PLANLAYOUT_GENERATED}/planlayout_cli_commands.hpp @ONLY)
