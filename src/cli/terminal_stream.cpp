// CLI: TerminalSafeBuf (terminal_stream.hpp).
#include "terminal_stream.hpp"

#include <array>

namespace planlayout::cli {
namespace {

bool escaped(unsigned char u) {
    return (u < 0x20 && u != '\n' && u != '\t') || u == 0x7f;
}

}  // namespace

bool TerminalSafeBuf::put_escaped(unsigned char u) {
    constexpr const char* kHex = "0123456789ABCDEF";
    const std::array<char, 4> text{'\\', 'x', kHex[u >> 4U], kHex[u & 0xFU]};
    return target_->sputn(text.data(), text.size()) == static_cast<std::streamsize>(text.size());
}

TerminalSafeBuf::int_type TerminalSafeBuf::overflow(int_type c) {
    if (traits_type::eq_int_type(c, traits_type::eof())) {
        return traits_type::not_eof(c);
    }
    const auto u = static_cast<unsigned char>(traits_type::to_char_type(c));
    if (escaped(u)) {
        return put_escaped(u) ? c : traits_type::eof();
    }
    return target_->sputc(static_cast<char>(u));
}

std::streamsize TerminalSafeBuf::xsputn(const char* s, std::streamsize n) {
    std::streamsize from = 0;
    for (std::streamsize i = 0; i < n; ++i) {
        const auto u = static_cast<unsigned char>(s[i]);
        if (!escaped(u)) {
            continue;
        }
        if (target_->sputn(s + from, i - from) != i - from || !put_escaped(u)) {
            return from;
        }
        from = i + 1;
    }
    return from + target_->sputn(s + from, n - from);
}

int TerminalSafeBuf::sync() {
    return target_->pubsync();
}

TerminalSafeStream::TerminalSafeStream(std::ostream& target) : std::ostream(nullptr), buf_(target.rdbuf()) {
    rdbuf(&buf_);
}

}  // namespace planlayout::cli
