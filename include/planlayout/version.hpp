// The tool's version and the JSON schema version every output carries.
#pragma once

namespace planlayout {

inline constexpr const char* kVersion = "0.1.0";
inline constexpr int kSchemaVersion = 1;

}  // namespace planlayout
