// Names that leave the program: validation where they enter, quoting where they leave.
#include "planlayout/names.hpp"

#include <cstdio>

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

std::string printable(std::string_view text) {
    constexpr std::size_t kMaxShown = 80;
    std::string out;
    for (const char c : text) {
        if (out.size() >= kMaxShown) {
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
