// Ingest: small text and PCI helpers shared by the topology readers (private to src/ingest).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "planlayout/limits.hpp"

namespace planlayout::ingest_detail {

/// Trims spaces, tabs and carriage returns at both ends.
[[nodiscard]] std::string trim(std::string_view s);

/// Splits on one character, keeping empty fields.
[[nodiscard]] std::vector<std::string> split(std::string_view s, char sep);

/// Splits on runs of whitespace, dropping empty fields.
[[nodiscard]] std::vector<std::string> split_ws(std::string_view s);

/// Removes ANSI escape sequences (ESC [ ... letter).
[[nodiscard]] std::string strip_ansi(std::string_view s);

/// True when the text has bytes that no text capture contains (NUL, most control bytes).
[[nodiscard]] bool looks_binary(std::string_view s);

/// Byte offset of the first byte that is not part of well-formed UTF-8 (RFC 3629: no overlong
/// forms, no surrogates, nothing above U+10FFFF), or npos when all of s is UTF-8.
[[nodiscard]] std::size_t invalid_utf8_at(std::string_view s);

/// Throws Error (BadInput) naming "where:line:column" and the byte when text is not UTF-8.
/// Readers whose names reach JSON output call it first, so the output is always valid JSON.
void require_utf8(const std::string& text, const std::string& where);

/// Throws Error (BadInput) naming "where:line:column" when XML elements nest deeper than
/// max_depth. boost::property_tree's parser recurses once per level: 100000 nested elements
/// overflowed the stack (a crash, not an error), so the XML readers check this first.
void require_xml_depth(const std::string& text, const std::string& where, std::size_t max_depth = kMaxXmlDepth);

/// Throws Error (BadInput) naming `where` and the limit when one node has more than
/// kMaxGpusPerNode GPUs or kMaxNicsPerNode NICs. Readers call it before deriving device pairs
/// (quadratic in the devices), as soon as they know the counts.
void require_node_size(std::size_t gpus, std::size_t nics, const std::string& where);

/// Elements named `name` in XML text ("<name" followed by a space, '/' or '>'), comments
/// included: a cheap count before a full parse.
[[nodiscard]] std::size_t count_xml_elements(const std::string& text, const std::string& name);

/// Lines of text (without '\n' and '\r').
[[nodiscard]] std::vector<std::string> lines_of(std::string_view s);

/// Known NVIDIA PCI device ids → marketing model; empty when unknown.
[[nodiscard]] std::string nvidia_model(unsigned device_id);

/// NVLinks per GPU of a model family (V100 6, A100 12, H100/H200 18, B200 18); 0 unknown.
[[nodiscard]] int nvlinks_for_model(const std::string& model);

/// Unidirectional GB/s per NVLink of a model family (NVLink2 25, 3 25, 4 25, 5 50); 0 unknown.
[[nodiscard]] double nvlink_gbyte_s_for_model(const std::string& model);

/// Linux cpumap ("0000ffff,ffffffff": hex 32-bit words, most significant first) → cpulist
/// ("0-47"); empty when not a valid mask.
[[nodiscard]] std::string cpulist_from_mask(std::string_view mask);

/// "0000:1B:00.0" / "00000000:1b:00.0" → "0000:1b:00.0"; unchanged if not a bus id.
[[nodiscard]] std::string normalize_bus_id(std::string_view s);

/// Parses a non-negative decimal integer; -1 if s is not one.
[[nodiscard]] long parse_uint(std::string_view s);

/// A CPU's arch or CPUID vendor as NCCL's topology XML carries it ("x86_64", "GenuineIntel",
/// "  Shanghai  "): printable ASCII, at most 16 characters. Throws Error (BadInput) naming
/// `where` otherwise; "" passes (unknown).
[[nodiscard]] std::string cpu_id_text(std::string_view value, const std::string& where, const char* what);

/// Throws Error (BadInput) at `where` when a switch's list of switches below it names one twice
/// (SwitchName=pod0 Switches=s[0,0]: two HyperNodes of one name downstream) or names the switch
/// itself (a cycle). Every fabric reader (topology.conf, topology.yaml, fabric JSON) calls it.
void require_distinct_switches(const std::vector<std::string>& children, const std::string& parent, const std::string& where);

}  // namespace planlayout::ingest_detail
