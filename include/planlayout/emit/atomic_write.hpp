// Emit: the one place that writes output files.
#pragma once

#include <string>
#include <string_view>

namespace planlayout {

/// Writes content to path atomically: a temporary file in the same folder, fsync, rename.
/// On failure the temporary file is removed and an existing file at path is left intact.
/// Throws Error (Io, exit 3) naming the path and the system's reason.
void write_file_atomically(const std::string& path, std::string_view content);

}  // namespace planlayout
