// Ingest: small text and PCI helpers shared by the topology readers.
#include "ingest_util.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstring>
#include <map>
#include <set>

#include "planlayout/error.hpp"
#include "planlayout/ingest/read_file.hpp"
#include "planlayout/names.hpp"

namespace planlayout::ingest_detail {

std::string trim(std::string_view s) {
    const auto b = s.find_first_not_of(" \t\r\n");
    if (b == std::string_view::npos) {
        return {};
    }
    const auto e = s.find_last_not_of(" \t\r\n");
    return std::string(s.substr(b, e - b + 1));
}

std::vector<std::string> split(std::string_view s, char sep) {
    std::vector<std::string> out;
    std::size_t start = 0;
    for (std::size_t i = 0; i <= s.size(); ++i) {
        if (i == s.size() || s[i] == sep) {
            out.emplace_back(s.substr(start, i - start));
            start = i + 1;
        }
    }
    return out;
}

std::vector<std::string> split_ws(std::string_view s) {
    std::vector<std::string> out;
    std::string cur;
    for (const char c : s) {
        if (c == ' ' || c == '\t' || c == '\r' || c == '\n') {
            if (!cur.empty()) {
                out.push_back(cur);
                cur.clear();
            }
        } else {
            cur += c;
        }
    }
    if (!cur.empty()) {
        out.push_back(cur);
    }
    return out;
}

std::string strip_ansi(std::string_view s) {
    std::string out;
    out.reserve(s.size());
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (s[i] == '\x1b' && i + 1 < s.size() && s[i + 1] == '[') {
            std::size_t j = i + 2;
            while (j < s.size() && !std::isalpha(static_cast<unsigned char>(s[j]))) {
                ++j;
            }
            i = j;  // skip the final letter too
            continue;
        }
        out += s[i];
    }
    return out;
}

std::size_t invalid_utf8_at(std::string_view s) {
    std::size_t i = 0;
    while (i < s.size()) {
        const auto c = static_cast<unsigned char>(s[i]);
        if (c < 0x80) {
            ++i;
            continue;
        }
        std::size_t len = 0;
        unsigned char lo = 0x80;  // allowed range of the second byte
        unsigned char hi = 0xBF;
        if (c >= 0xC2 && c <= 0xDF) {
            len = 2;
        } else if (c >= 0xE0 && c <= 0xEF) {
            len = 3;
            lo = c == 0xE0 ? 0xA0 : 0x80;  // no overlong forms
            hi = c == 0xED ? 0x9F : 0xBF;  // no surrogates
        } else if (c >= 0xF0 && c <= 0xF4) {
            len = 4;
            lo = c == 0xF0 ? 0x90 : 0x80;
            hi = c == 0xF4 ? 0x8F : 0xBF;  // nothing above U+10FFFF
        } else {
            return i;
        }
        if (i + len > s.size()) {
            return i;
        }
        for (std::size_t k = 1; k < len; ++k) {
            const auto b = static_cast<unsigned char>(s[i + k]);
            if (b < (k == 1 ? lo : 0x80) || b > (k == 1 ? hi : 0xBF)) {
                return i;
            }
        }
        i += len;
    }
    return std::string_view::npos;
}

void require_utf8(const std::string& text, const std::string& where) {
    require_8bit_text(text, where);
    const std::size_t at = invalid_utf8_at(text);
    if (at == std::string_view::npos) {
        return;
    }
    const TextPosition p = position_of(text, at);
    char byte[8];
    std::snprintf(byte, sizeof byte, "0x%02X", static_cast<unsigned>(static_cast<unsigned char>(text[at])));
    throw input_error(where + ":" + std::to_string(p.line) + ":" + std::to_string(p.column),
                      std::string("not UTF-8 text (byte ") + byte + ")",
                      "save the file as UTF-8 (e.g. iconv -f latin1 -t utf-8), or check that it is the right file");
}

void require_node_size(std::size_t gpus, std::size_t nics, const std::string& where) {
    const auto refuse = [&](std::size_t count, const char* what, std::int64_t limit, const char* name) {
        throw input_error(where,
                          std::to_string(count) + " " + what + " in one node is over the limit of " + std::to_string(limit) +
                              " (" + name + ")",
                          "a node template describes one host: capture each host on its own (real nodes have 4 to 16 GPUs)");
    };
    if (gpus > static_cast<std::size_t>(kMaxGpusPerNode)) {
        refuse(gpus, "GPUs", kMaxGpusPerNode, "kMaxGpusPerNode");
    }
    if (nics > static_cast<std::size_t>(kMaxNicsPerNode)) {
        refuse(nics, "NICs", kMaxNicsPerNode, "kMaxNicsPerNode");
    }
}

std::size_t count_xml_elements(const std::string& text, const std::string& name) {
    const std::string open = "<" + name;
    std::size_t n = 0;
    for (std::size_t at = text.find(open); at != std::string::npos; at = text.find(open, at + open.size())) {
        const std::size_t next = at + open.size();
        if (next < text.size() && (std::isspace(static_cast<unsigned char>(text[next])) != 0 || text[next] == '/' || text[next] == '>')) {
            ++n;
        }
    }
    return n;
}

void require_xml_depth(const std::string& text, const std::string& where, std::size_t max_depth) {
    std::size_t depth = 0;
    const auto skip_to = [&text](std::size_t from, const char* end) {
        const std::size_t at = text.find(end, from);
        return at == std::string::npos ? text.size() : at + std::strlen(end) - 1;
    };
    for (std::size_t i = text.find('<'); i < text.size(); i = text.find('<', i + 1)) {
        if (text.compare(i, 4, "<!--") == 0) {
            i = skip_to(i + 4, "-->");
        } else if (text.compare(i, 9, "<![CDATA[") == 0) {
            i = skip_to(i + 9, "]]>");
        } else if (text.compare(i, 2, "<?") == 0) {
            i = skip_to(i + 2, "?>");
        } else if (text.compare(i, 2, "<!") == 0 || text.compare(i, 2, "</") == 0) {
            if (text[i + 1] == '/' && depth > 0) {
                --depth;
            }
            i = skip_to(i + 2, ">");
        } else {
            const std::size_t start = i;
            char quote = 0;
            for (++i; i < text.size() && (quote != 0 || text[i] != '>'); ++i) {
                if (quote != 0 && text[i] == quote) {
                    quote = 0;
                } else if (quote == 0 && (text[i] == '"' || text[i] == '\'')) {
                    quote = text[i];
                }
            }
            if (i < text.size() && text[i - 1] != '/' && ++depth > max_depth) {
                const TextPosition p = position_of(text, start);
                throw input_error(where + ":" + std::to_string(p.line) + ":" + std::to_string(p.column),
                                  "XML elements nested more than " + std::to_string(max_depth) + " levels deep",
                                  "real topology files are under 20 levels deep: check that this is the right file");
            }
        }
    }
}

bool looks_binary(std::string_view s) {
    std::size_t bad = 0;
    const std::size_t n = std::min<std::size_t>(s.size(), 65536);
    for (std::size_t i = 0; i < n; ++i) {
        const auto c = static_cast<unsigned char>(s[i]);
        if (c == 0) {
            return true;
        }
        if (c < 0x20 && c != '\n' && c != '\r' && c != '\t' && c != '\x1b' && c != '\f') {
            ++bad;
        }
    }
    return n > 0 && bad * 100 > n;  // more than 1 % control bytes
}

std::vector<std::string> lines_of(std::string_view s) {
    std::vector<std::string> out = split(s, '\n');
    for (auto& l : out) {
        if (!l.empty() && l.back() == '\r') {
            l.pop_back();
        }
    }
    if (!out.empty() && out.back().empty()) {
        out.pop_back();
    }
    return out;
}

std::string nvidia_model(unsigned device_id) {
    static const std::map<unsigned, std::string> kModels = {
        {0x1bb3, "Tesla P4"},          {0x1db1, "V100-SXM2-16GB"}, {0x1db5, "V100-SXM2-32GB"},
        {0x1db8, "V100-SXM3-32GB"},    {0x1df6, "V100S-PCIE-32GB"}, {0x1023, "K40m"},
        {0x20b0, "A100-SXM4-40GB"},    {0x20b2, "A100-SXM4-80GB"}, {0x20b5, "A100 80GB PCIe"},
        {0x20f1, "A100-PCIE-40GB"},    {0x2204, "GeForce RTX 3090"}, {0x2237, "A10G"},
        {0x2330, "H100 80GB HBM3"},    {0x2331, "H100 PCIe"},      {0x2335, "H200"},
        {0x2684, "GeForce RTX 4090"},  {0x26b5, "L40"},            {0x26ba, "L20"},
    };
    const auto it = kModels.find(device_id);
    return it == kModels.end() ? std::string() : it->second;
}

namespace {
bool contains(const std::string& s, const char* needle) { return s.find(needle) != std::string::npos; }
}  // namespace

int nvlinks_for_model(const std::string& model) {
    if (contains(model, "V100")) {
        return 6;
    }
    if (contains(model, "A100") || contains(model, "A800")) {
        return 12;
    }
    if (contains(model, "H100") || contains(model, "H200") || contains(model, "H20") ||
        contains(model, "B200")) {
        return 18;
    }
    return 0;
}

double nvlink_gbyte_s_for_model(const std::string& model) {
    if (contains(model, "B200")) {
        return 50;
    }
    if (contains(model, "V100") || contains(model, "A100") || contains(model, "A800") ||
        contains(model, "H100") || contains(model, "H200") || contains(model, "H800")) {
        return 25;
    }
    return 0;
}

std::string cpulist_from_mask(std::string_view mask) {
    const auto words = split(trim(mask), ',');
    std::vector<bool> bits;
    for (auto it = words.rbegin(); it != words.rend(); ++it) {
        std::string w = trim(*it);
        if (w.rfind("0x", 0) == 0) {
            w = w.substr(2);
        }
        if (w.empty() || w.size() > 8 ||
            w.find_first_not_of("0123456789abcdefABCDEF") != std::string::npos) {
            return {};
        }
        const unsigned long v = std::stoul(w, nullptr, 16);
        for (unsigned b = 0; b < 32; ++b) {
            bits.push_back(((v >> b) & 1UL) != 0);
        }
    }
    std::string out;
    for (std::size_t i = 0; i < bits.size();) {
        if (!bits[i]) {
            ++i;
            continue;
        }
        std::size_t j = i;
        while (j + 1 < bits.size() && bits[j + 1]) {
            ++j;
        }
        out += (out.empty() ? "" : ",") + std::to_string(i);
        if (j > i) {
            out += "-" + std::to_string(j);
        }
        i = j + 1;
    }
    return out;
}

std::string normalize_bus_id(std::string_view s) {
    std::string t = trim(s);
    std::transform(t.begin(), t.end(), t.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    const auto parts = split(t, ':');
    if (parts.size() == 3 && parts[0].size() > 4 &&
        parts[0].find_first_not_of('0') >= parts[0].size() - 4) {
        return parts[0].substr(parts[0].size() - 4) + ":" + parts[1] + ":" + parts[2];
    }
    return t;
}

long parse_uint(std::string_view s) {
    if (s.empty() || s.size() > 9) {
        return -1;
    }
    long v = 0;
    for (const char c : s) {
        if (c < '0' || c > '9') {
            return -1;
        }
        v = v * 10 + (c - '0');
    }
    return v;
}

std::string cpu_id_text(std::string_view value, const std::string& where, const char* what) {
    const bool ok = value.size() <= 16 && std::all_of(value.begin(), value.end(), [](char c) { return c >= 0x20 && c < 0x7f; });
    if (!ok) {
        throw input_error(where, std::string("CPU ") + what + " '" + printable(value) + "' is not printable ASCII of at most 16 characters",
                          "give it as the machine names it (lscpu: Architecture x86_64, Vendor ID GenuineIntel), or leave it out");
    }
    return std::string(value);
}

void require_distinct_switches(const std::vector<std::string>& children, const std::string& parent, const std::string& where) {
    std::set<std::string> seen;
    for (const auto& c : children) {
        if (c == parent) {
            throw input_error(where, "switch '" + printable(parent) + "' lists itself among the switches below it",
                              "a switch's Switches are the ones one tier down: drop '" + printable(c) + "' from its list");
        }
        if (!seen.insert(c).second) {
            throw input_error(where, "switch '" + printable(parent) + "' lists switch '" + printable(c) + "' twice",
                              "list each switch below it once (Switches=s[0-1], not s[0,0])");
        }
    }
}

}  // namespace planlayout::ingest_detail
