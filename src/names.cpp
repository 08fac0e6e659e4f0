// Names that leave the program: validation where they enter, quoting where they leave.
#include "planlayout/names.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <utility>

#include "planlayout/error.hpp"

namespace planlayout {
namespace {

bool is_alnum(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'); }

// "\xFF": how every message shows a byte it cannot print.
std::string hex_byte(unsigned char u) {
    char buf[8];
    std::snprintf(buf, sizeof buf, "\\x%02X", u);
    return buf;
}

std::string byte_text(char c) {
    const auto u = static_cast<unsigned char>(c);
    return u >= 0x20 && u < 0x7f ? std::string("'") + c + "'" : "byte " + hex_byte(u);
}

std::string bad_char(char c, std::size_t at) { return "has " + byte_text(c) + " at byte " + std::to_string(at + 1); }

bool is_hex(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

// The UTF-8 sequence at text[i]: its code point and length; length 0 when it is not valid UTF-8
// (a bad lead or continuation byte, an overlong form, a surrogate, past U+10FFFF).
std::pair<std::uint32_t, std::size_t> utf8_at(std::string_view text, std::size_t i) {
    const auto u = static_cast<unsigned char>(text[i]);
    if (u < 0x80) {
        return {u, 1};
    }
    const std::size_t len = u >= 0xF0 && u <= 0xF4 ? 4 : u >= 0xE0 && u <= 0xEF ? 3 : u >= 0xC2 && u <= 0xDF ? 2 : 0;
    if (len == 0 || i + len > text.size()) {
        return {0, 0};
    }
    std::uint32_t cp = u & (len == 2 ? 0x1FU : len == 3 ? 0x0FU : 0x07U);
    for (std::size_t k = 1; k < len; ++k) {
        const auto c = static_cast<unsigned char>(text[i + k]);
        if ((c & 0xC0U) != 0x80U) {
            return {0, 0};
        }
        cp = (cp << 6U) | (c & 0x3FU);
    }
    const std::uint32_t min = len == 2 ? 0x80 : len == 3 ? 0x800 : 0x10000;
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
        return {0, 0};
    }
    return {cp, len};
}

// "--" broken up as "- -", and no '-' at the end: text an XML comment can hold.
std::string no_double_dash(const std::string& text) {
    std::string out;
    for (const char c : text) {
        if (c == '-' && !out.empty() && out.back() == '-') {
            out += ' ';
        }
        out += c;
    }
    if (!out.empty() && out.back() == '-') {
        out += ' ';
    }
    return out;
}

Error not_writable(const char* language, std::string_view text, std::size_t at) {
    return {ExitCode::Internal, std::string(language) + " writer",
            "'" + printable(text) + "' " + bad_char(text[at], at) + ", which " + language + " cannot carry",
            "names are checked where they enter; please report this with the command line"};
}

}  // namespace

std::string host_name_problem(std::string_view name) {
    if (name.empty()) {
        return "is empty";
    }
    if (name.size() > 253) {
        return "is " + std::to_string(name.size()) + " bytes long, over the 253 a host name may have";
    }
    std::size_t label_start = 0;
    for (std::size_t i = 0; i <= name.size(); ++i) {
        if (i == name.size() || name[i] == '.') {
            const std::size_t len = i - label_start;
            if (len == 0) {
                return "has an empty label at byte " + std::to_string(i + 1);
            }
            if (len > 63) {
                return "has a label of " + std::to_string(len) + " bytes, over the 63 a label may have";
            }
            if (name[label_start] == '-' || name[i - 1] == '-') {
                return "has a label that starts or ends with '-'";
            }
            label_start = i + 1;
        } else if (!is_alnum(name[i]) && name[i] != '-') {
            return bad_char(name[i], i);
        }
    }
    return {};
}

std::string device_name_problem(std::string_view name) {
    if (name.empty()) {
        return "is empty";
    }
    if (name.size() > 64) {
        return "is " + std::to_string(name.size()) + " bytes long, over the 64 a device name may have";
    }
    for (std::size_t i = 0; i < name.size(); ++i) {
        const char c = name[i];
        if (!is_alnum(c) && c != '_' && c != '.' && c != ':' && c != '-' && c != '@' && c != '+') {
            return bad_char(c, i);
        }
    }
    return {};
}

std::string bus_id_problem(std::string_view id) {
    // DDDD:BB:DD.F; the domain may have up to 8 digits (Intel VMD domains are 10000 and up).
    static constexpr std::string_view kTail = ":hh:hh.h";
    const std::string shape = "not a PCI bus id DDDD:BB:DD.F (as 0000:0f:00.0)";
    const std::size_t domain = id.size() < kTail.size() ? 0 : id.size() - kTail.size();
    if (domain < 4 || domain > 8) {
        return "is " + std::to_string(id.size()) + " bytes long, " + shape;
    }
    for (std::size_t i = 0; i < id.size(); ++i) {
        const char want = i < domain ? 'h' : kTail[i - domain];
        if (want == 'h' ? !is_hex(id[i]) : id[i] != want) {
            return bad_char(id[i], i) + ", " + shape;
        }
    }
    return {};
}

std::string label_key_problem(std::string_view key) {
    const auto slash = key.find('/');
    if (slash != std::string_view::npos) {
        if (const auto problem = host_name_problem(key.substr(0, slash)); !problem.empty()) {
            return "has a prefix that is not a DNS name: it " + problem;
        }
    }
    const std::size_t start = slash == std::string_view::npos ? 0 : slash + 1;
    const std::string_view name = key.substr(start);
    if (name.empty() || name.size() > 63) {
        return "has a name part of " + std::to_string(name.size()) + " bytes, not 1..63";
    }
    for (std::size_t i = 0; i < name.size(); ++i) {
        const char c = name[i];
        const bool edge = i == 0 || i + 1 == name.size();
        if (!is_alnum(c) && (edge || (c != '-' && c != '_' && c != '.'))) {
            return bad_char(c, start + i);
        }
    }
    return {};
}

std::string kubernetes_object_name(std::string_view name) {
    std::string out;
    std::string label;
    const auto close_label = [&] {
        while (!label.empty() && label.back() == '-') {
            label.pop_back();
        }
        if (!label.empty()) {
            out += (out.empty() ? "" : ".") + label;
        }
        label.clear();
    };
    for (const char c : name) {
        if (c == '.') {
            close_label();
            continue;
        }
        const char lower = c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
        const bool ok = (lower >= 'a' && lower <= 'z') || (lower >= '0' && lower <= '9');
        if (ok || !label.empty()) {  // a label starts with a letter or digit
            label += ok ? lower : '-';
        }
    }
    close_label();
    if (out.size() > 253) {
        out.resize(253);
        while (!out.empty() && !is_alnum(out.back())) {
            out.pop_back();
        }
    }
    return out.empty() ? "x" : out;
}

std::string kubernetes_label_value(std::string_view name) {
    std::string out;
    for (const char c : name) {
        out += is_alnum(c) || c == '-' || c == '_' || c == '.' ? c : '-';
    }
    if (out.size() > 63) {
        out.resize(63);
    }
    const auto first = std::find_if(out.begin(), out.end(), is_alnum);
    out.erase(out.begin(), first);
    while (!out.empty() && !is_alnum(out.back())) {
        out.pop_back();
    }
    return out.empty() ? "x" : out;
}

void require_bus_id(std::string_view id, const std::string& where, const std::string& what) {
    if (const auto problem = bus_id_problem(id); !problem.empty()) {
        throw input_error(where, what + " '" + printable(id) + "' " + problem,
                          "write the bus id as nvidia-smi or lspci -D print it, e.g. 0000:0f:00.0");
    }
}

void require_label_key(std::string_view key, const std::string& where) {
    if (const auto problem = label_key_problem(key); !problem.empty()) {
        throw input_error(where, "label key '" + printable(key) + "' " + problem,
                          "Kubernetes label keys are [prefix/]name, as kubectl get nodes --show-labels prints them");
    }
}

void require_host_name(std::string_view name, const std::string& where) {
    if (const auto problem = host_name_problem(name); !problem.empty()) {
        throw input_error(where, "host name '" + printable(name) + "' " + problem,
                          "host names are letters, digits, '-' and '.' (RFC 1123), as `hostname` prints them");
    }
}

void require_device_name(std::string_view name, const std::string& where, const std::string& what) {
    if (const auto problem = device_name_problem(name); !problem.empty()) {
        throw input_error(where, what + " name '" + printable(name) + "' " + problem,
                          "device and interface names are letters, digits and _ . : - @ + "
                          "(as ibv_devices or ip link print them)");
    }
}

void require_no_control_bytes(std::string_view text, const std::string& where, const std::string& what) {
    for (std::size_t i = 0; i < text.size(); ++i) {
        const auto u = static_cast<unsigned char>(text[i]);
        if (u < 0x20 || u == 0x7f) {
            throw input_error(where, what + " '" + printable(text) + "' has the control character " + hex_byte(u) +
                                         " at byte " + std::to_string(i + 1),
                              "a name is one line of printable text: remove the control character (a terminal would run it)");
        }
    }
}

std::string printable(std::string_view text) { return printable(text, 80); }

std::string printable(std::string_view text, std::size_t max_shown) {
    std::string out;
    for (const char c : text) {
        if (out.size() >= max_shown) {
            out += "...";
            break;
        }
        const auto u = static_cast<unsigned char>(c);
        out += u >= 0x20 && u < 0x7f ? std::string(1, c) : hex_byte(u);
    }
    return out;
}

std::string terminal_safe(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    for (std::size_t i = 0; i < text.size();) {
        const auto u = static_cast<unsigned char>(text[i]);
        if (u < 0x80) {
            if (u < 0x20 || u == 0x7f) {
                out += hex_byte(u);
            } else {
                out += text[i];
            }
            ++i;
            continue;
        }
        // A UTF-8 sequence: lead byte, then 1..3 continuation bytes; overlong and surrogate forms
        // are not checked (the terminal shows them as replacement characters, harmlessly).
        const std::size_t len = u >= 0xF0 && u <= 0xF4 ? 4 : u >= 0xE0 ? 3 : u >= 0xC2 && u <= 0xDF ? 2 : 0;
        bool valid = len > 0 && i + len <= text.size();
        for (std::size_t k = 1; valid && k < len; ++k) {
            valid = (static_cast<unsigned char>(text[i + k]) & 0xC0U) == 0x80U;
        }
        if (valid) {
            out.append(text.substr(i, len));
            i += len;
        } else {
            out += hex_byte(u);
            ++i;
        }
    }
    return out;
}

std::string yaml_quote(std::string_view text) {
    std::string out = "\"";
    char buf[16];
    for (std::size_t i = 0; i < text.size();) {
        const auto [cp, len] = utf8_at(text, i);
        if (len == 0) {
            throw not_writable("YAML", text, i);
        }
        if (cp == '"' || cp == '\\') {
            out += '\\';
            out += static_cast<char>(cp);
        } else if (cp >= 0x20 && cp < 0x7f) {
            out += static_cast<char>(cp);
        } else {
            std::snprintf(buf, sizeof buf, cp < 0x80 ? "\\x%02X" : cp <= 0xFFFF ? "\\u%04X" : "\\U%08X", cp);
            out += buf;
        }
        i += len;
    }
    return out + "\"";
}

std::string xml_attribute(std::string_view text) {
    std::string out;
    for (std::size_t i = 0; i < text.size();) {
        const auto [cp, len] = utf8_at(text, i);
        const bool control = cp < 0x20 && cp != '\t' && cp != '\n' && cp != '\r';
        if (len == 0 || control || cp == 0xFFFE || cp == 0xFFFF) {
            throw not_writable("XML", text, i);
        }
        switch (cp) {
            case '&': out += "&amp;"; break;
            case '<': out += "&lt;"; break;
            case '>': out += "&gt;"; break;
            case '"': out += "&quot;"; break;
            case '\'': out += "&apos;"; break;
            case '\t': out += "&#x9;"; break;
            case '\n': out += "&#xA;"; break;
            case '\r': out += "&#xD;"; break;
            default: out.append(text.substr(i, len));
        }
        i += len;
    }
    return out;
}

std::string xml_comment_text(std::string_view text) { return no_double_dash(printable(text)); }

std::string xml_comment(std::string_view body) {
    std::string out = "<!-- ";
    std::size_t start = 0;
    while (true) {
        const auto nl = body.find('\n', start);
        const auto line = body.substr(start, nl == std::string_view::npos ? std::string_view::npos : nl - start);
        out += no_double_dash(printable(line, std::string_view::npos));
        if (nl == std::string_view::npos) {
            break;
        }
        out += '\n';
        start = nl + 1;
    }
    return out + " -->";
}

std::string shell_quote(std::string_view text) {
    const auto plain = [](char c) {
        return is_alnum(c) || c == '_' || c == '@' || c == '%' || c == '+' || c == '=' || c == ':' || c == ',' ||
               c == '.' || c == '/' || c == '-';
    };
    bool quote = text.empty();
    for (const char c : text) {
        if (c == '\0') {
            throw Error(ExitCode::Internal, "shell quoting", "a NUL byte cannot be part of a shell word",
                        "names are checked where they enter; please report this");
        }
        quote = quote || !plain(c);
    }
    if (!quote) {
        return std::string(text);
    }
    std::string out = "'";
    for (const char c : text) {
        if (c == '\'') {
            out += "'\\''";
        } else {
            out += c;
        }
    }
    return out + "'";
}

}  // namespace planlayout
