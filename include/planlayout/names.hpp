// Names that leave the program: host and device names reach shells (launch snippets),
// hostfiles and DOT. They are checked where they enter (every reader that takes one calls
// require_*), and quoted where they leave (shell_quote here, DOT escaping in emit/dot_graph).
#pragma once

#include <cstddef>
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

/// Empty if `id` is a PCI bus id as NCCL, hwloc and sysfs write it: DDDD:BB:DD.F in hex (domain of
/// 4 to 8 digits,
/// bus, device, function; nvidia-smi's 8-digit domain is normalised by the readers before this
/// check). Otherwise what is wrong. Bus ids reach NCCL topology XML.
[[nodiscard]] std::string bus_id_problem(std::string_view id);

/// Empty if `key` is a Kubernetes label key: an optional DNS-subdomain prefix and '/', then a
/// name of 1..63 letters, digits, '-', '_', '.' that starts and ends with a letter or digit
/// ("fabric.topograph.run/tier-0"). Otherwise what is wrong. Label keys reach Kueue YAML.
[[nodiscard]] std::string label_key_problem(std::string_view key);

/// A name Kubernetes accepts for an object (metadata.name of a Volcano HyperNode, a Node) made from
/// a switch, block or host name: an RFC 1123 DNS subdomain (lower-case letters, digits, '-' and
/// '.', each dot-separated label starting and ending with a letter or digit, at most 253). Upper
/// case is lowered (as the kubelet lowers a host name), any other byte becomes '-', labels are
/// trimmed of '-' and empty ones dropped; "x" if nothing is left. A valid name is returned as is.
[[nodiscard]] std::string kubernetes_object_name(std::string_view name);

/// A Kubernetes label value made from a name: at most 63 letters, digits, '-', '_' and '.',
/// starting and ending with a letter or digit. Any other byte becomes '-', the ends are trimmed
/// to a letter or digit, cut to 63; "x" if nothing is left. A valid value is returned as is.
[[nodiscard]] std::string kubernetes_label_value(std::string_view name);

/// Throws Error (BadInput) at `where` unless `name` is a valid host name.
void require_host_name(std::string_view name, const std::string& where);

/// Throws Error (BadInput) at `where` unless `name` is a valid device/interface name; `what`
/// says which ("NIC device", "network interface").
void require_device_name(std::string_view name, const std::string& where, const std::string& what);

/// Throws Error (BadInput) at `where` unless `id` is a PCI bus id (bus_id_problem); `what` says
/// whose ("GPU0 bus id").
void require_bus_id(std::string_view id, const std::string& where, const std::string& what);

/// Throws Error (BadInput) at `where` unless `key` is a Kubernetes label key.
void require_label_key(std::string_view key, const std::string& where);

/// Throws Error (BadInput) at `where` when `text` holds a control character (below 0x20, or
/// 0x7F): a name read from an input that the outputs print (an A/B arm tag, a NIC named by an NCCL
/// log, a GPU product label); `what` says which ("arm tag"). Issue 41 item 7.
void require_no_control_bytes(std::string_view text, const std::string& where, const std::string& what);

/// The name as it may be shown in a message: printable ASCII as is, any other byte as \xHH,
/// cut to 80 characters with "..." (a message never carries raw bytes or a whole file).
[[nodiscard]] std::string printable(std::string_view text);

/// printable() cut at `max_shown` characters instead of 80 (npos: never).
[[nodiscard]] std::string printable(std::string_view text, std::size_t max_shown);

/// A message as it may reach a terminal: valid UTF-8 kept (file names in any language), control
/// characters and bytes that are not UTF-8 written as \xHH. The CLI passes every error through it.
[[nodiscard]] std::string terminal_safe(std::string_view text);

/// One shell word that means exactly `text` to a POSIX shell (bash, sh, zsh): as is when it
/// is only of letters, digits and "_@%+=:,./-", else in single quotes with each ' written '\''.
/// Throws Error (Internal) for a NUL byte, which no shell word can hold (names are checked
/// where they enter, so this never happens on checked input).
[[nodiscard]] std::string shell_quote(std::string_view text);

// ---- Writers: one per output language; each output of that language goes through them. ----

/// A YAML double-quoted scalar that means exactly `text` to any YAML 1.1 or 1.2 parser: '"'
/// and '\' escaped, every byte outside printable ASCII written as an escape (\xHH below 0x80,
/// \uXXXX / \UXXXXXXXX for UTF-8 sequences), so the result is one line of printable ASCII
/// and cannot end the scalar, the line or the document. Throws Error (Internal) for text that is
/// not UTF-8 (names are checked where they enter).
[[nodiscard]] std::string yaml_quote(std::string_view text);

/// Text for an XML attribute value written between double quotes: & < > " ' as entities, tab,
/// newline and carriage return as character references (so attribute normalisation keeps them),
/// valid UTF-8 as is. Throws Error (Internal) for other control bytes and invalid UTF-8, which
/// XML 1.0 cannot carry at all.
[[nodiscard]] std::string xml_attribute(std::string_view text);

/// Text for inside an XML comment: printable(text) with every "--" broken up and no '-' at the
/// end, so that it can neither end the comment nor make it malformed ("--" is forbidden there).
[[nodiscard]] std::string xml_comment_text(std::string_view text);

/// A whole XML comment "<!-- body -->": each line of body printable (not cut) with every "--"
/// broken up, newlines kept, so a comment may span lines.
[[nodiscard]] std::string xml_comment(std::string_view body);

}  // namespace planlayout
