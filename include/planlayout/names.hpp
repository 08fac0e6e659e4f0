// Names that leave the program: host and device names reach shells (launch snippets),
// hostfiles and DOT. They are checked where they enter (every reader that takes one calls
// require_*), and quoted where they leave (shell_quote here, DOT escaping in emit/dot_graph).
#pragma once

#include <string>
#include <string_view>

namespace planlayout {

/// Empty if `name` is a host name as RFC 1123 allows it: dot-separated labels of letters,
/// digits and '-', each 1..63 long and neither starting nor ending with '-', at most 253 in
/// all. Otherwise what is wrong ("has '$' at byte 2").
[[nodiscard]] std::string host_name_problem(std::string_view name);

/// Empty if `name` is a device or interface name of the characters real ones use
/// (mlx5_0, ib0, enp12s0f0np0, bond0.100, mlx5_0:1, GPU0, 0000:18:00.0): letters, digits and
/// "_.:-@+", 1..64 long. Otherwise what is wrong.
[[nodiscard]] std::string device_name_problem(std::string_view name);

/// Throws Error (BadInput) at `where` unless `name` is a valid host name.
void require_host_name(std::string_view name, const std::string& where);

/// Throws Error (BadInput) at `where` unless `name` is a valid device/interface name; `what`
/// says which ("NIC device", "network interface").
void require_device_name(std::string_view name, const std::string& where, const std::string& what);

/// The name as it may be shown in a message: printable ASCII as is, any other byte as \xHH,
/// cut to 80 characters with "..." (a message never carries raw bytes or a whole file).
[[nodiscard]] std::string printable(std::string_view text);

/// A message as it may reach a terminal: valid UTF-8 kept (file names in any language), control
/// characters and bytes that are not UTF-8 written as \xHH. The CLI passes every error through it.
[[nodiscard]] std::string terminal_safe(std::string_view text);

/// One shell word that means exactly `text` to a POSIX shell (bash, sh, zsh): as is when it
/// is only of letters, digits and "_@%+=:,./-", else in single quotes with each ' written '\''.
/// Throws Error (Internal) for a NUL byte, which no shell word can hold (names are checked
/// where they enter, so this never happens on checked input).
[[nodiscard]] std::string shell_quote(std::string_view text);

}  // namespace planlayout
