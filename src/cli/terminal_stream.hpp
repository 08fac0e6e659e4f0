// CLI: the text results as they may reach a terminal (issue 41 item 7). Text tables quote names
// from the inputs (hosts, NICs, arms, files); the readers refuse control characters in the names
// they read, and every text result is written through this filter as well, so that no raw control
// byte of an input reaches a terminal whichever reader let it in.
#pragma once

#include <ostream>
#include <streambuf>

namespace planlayout::cli {

/// A stream buffer that forwards to `target`, each byte below 0x20 other than newline and tab, and
/// 0x7F, written as \xHH (as terminal_safe writes it). Unbuffered: a failed write of the target
/// shows at its flush, where Output::commit looks.
class TerminalSafeBuf : public std::streambuf {
public:
    explicit TerminalSafeBuf(std::streambuf* target) : target_(target) {}

protected:
    int_type overflow(int_type c) override;
    std::streamsize xsputn(const char* s, std::streamsize n) override;
    int sync() override;

private:
    bool put_escaped(unsigned char u);
    std::streambuf* target_;
};

/// An ostream over TerminalSafeBuf.
class TerminalSafeStream : public std::ostream {
public:
    explicit TerminalSafeStream(std::ostream& target);

private:
    TerminalSafeBuf buf_;
};

}  // namespace planlayout::cli
