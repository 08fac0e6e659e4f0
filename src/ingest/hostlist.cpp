// Ingest: Slurm hostlist expressions (see hostlist.hpp for the rules and their source).
#include "planlayout/ingest/hostlist.hpp"

#include <cstdint>

#include "planlayout/error.hpp"
#include "planlayout/limits.hpp"
#include "planlayout/names.hpp"

namespace planlayout {
namespace {

constexpr std::uint64_t kMaxRange = 64ULL * 1024ULL;  // Slurm's MAX_RANGE: hosts in one LO-HI range
constexpr const char* kHostlistFix = "write a Slurm hostlist, e.g. h100-[012-019] or gpu[1-2]-r[01-02],login1";

struct Range {
    std::uint64_t lo = 0;
    std::uint64_t hi = 0;
    std::size_t width = 0;  // digits LO is written with: the least width of every number
};

struct Context {
    const std::string& expr;
    const std::string& where;
    std::vector<std::string>& out;

    [[noreturn]] void fail(const std::string& what) const {
        throw input_error(where, "hostlist '" + printable(expr) + "': " + what, kHostlistFix);
    }
};

bool is_range_number(const std::string& s) {
    return !s.empty() && s.size() <= 18 &&
           s.find_first_not_of("0123456789") == std::string::npos;
}

// "012-019", "7": one range (_parse_single_range).
Range parse_range(const std::string& text, const Context& cx) {
    const auto dash = text.find('-');
    const std::string lo = dash == std::string::npos ? text : text.substr(0, dash);
    const std::string hi = dash == std::string::npos ? text : text.substr(dash + 1);
    if (!is_range_number(lo) || !is_range_number(hi)) {
        cx.fail("'" + printable(text) + "' is not a number or a range LO-HI");
    }
    Range r{std::stoull(lo), std::stoull(hi), lo.size()};
    if (r.lo > r.hi) {
        cx.fail("range '" + text + "' runs backwards (write the smaller number first)");
    }
    if (r.hi - r.lo + 1 > kMaxRange) {
        cx.fail("range '" + text + "' holds more than " + std::to_string(kMaxRange) + " hosts, as Slurm allows");
    }
    return r;
}

// "001-016,20": the ranges between one pair of brackets (_parse_range_list).
std::vector<Range> parse_ranges(const std::string& inside, const Context& cx) {
    std::vector<Range> out;
    std::size_t start = 0;
    while (true) {
        const auto comma = inside.find(',', start);
        out.push_back(parse_range(inside.substr(start, comma == std::string::npos ? std::string::npos : comma - start), cx));
        if (comma == std::string::npos) {
            return out;
        }
        start = comma + 1;
    }
}

std::string zero_padded(std::uint64_t v, std::size_t width) {
    std::string s = std::to_string(v);
    return s.size() < width ? std::string(width - s.size(), '0') + s : s;
}

void push(const Context& cx, std::string host) {
    if (static_cast<std::int64_t>(cx.out.size()) >= kMaxHostfileHosts) {
        cx.fail("more than " + std::to_string(kMaxHostfileHosts) + " hosts");
    }
    cx.out.push_back(std::move(host));
}

// Slurm's _push_range_list: the last bracket group of `prefix` is the outer loop, each value
// giving a new prefix that is expanded the same way; without one, `prefix` + each number.
void push_ranges(const std::string& prefix, const std::vector<Range>& ranges, const Context& cx) {
    const auto open = prefix.rfind('[');
    const auto close = open == std::string::npos ? std::string::npos : prefix.find(']', open);
    if (open != std::string::npos && close != std::string::npos) {
        const std::string before = prefix.substr(0, open);
        const std::string after = prefix.substr(close + 1);
        if (after.find(']') != std::string::npos) {
            cx.fail("a ']' without its '['");
        }
        for (const Range& r : parse_ranges(prefix.substr(open + 1, close - open - 1), cx)) {
            for (std::uint64_t v = r.lo; v <= r.hi; ++v) {
                push_ranges(before + zero_padded(v, r.width) + after, ranges, cx);
            }
        }
        return;
    }
    if (open != std::string::npos || prefix.find(']') != std::string::npos) {
        cx.fail(open != std::string::npos ? "a '[' without its ']'" : "a ']' without its '['");
    }
    for (const Range& r : ranges) {
        for (std::uint64_t v = r.lo; v <= r.hi; ++v) {
            push(cx, prefix + zero_padded(v, r.width));
        }
    }
}

// One host expression: "h100-[012-019]", "login1".
void expand_one(const std::string& token, const Context& cx) {
    const auto open = token.rfind('[');
    if (open == std::string::npos) {
        if (token.find(']') != std::string::npos) {
            cx.fail("'" + printable(token) + "' has a ']' without its '['");
        }
        push(cx, token);
        return;
    }
    const auto close = token.find(']', open);
    if (close == std::string::npos) {
        cx.fail("'" + printable(token) + "' has a '[' without its ']'");
    }
    if (close + 1 != token.size()) {
        cx.fail("'" + printable(token) + "' has text after its last ']' ('" + printable(token.substr(close + 1)) +
                "'), which Slurm refuses");
    }
    if (close == open + 1) {
        cx.fail("'" + printable(token) + "' has an empty '[]'");
    }
    push_ranges(token.substr(0, open), parse_ranges(token.substr(open + 1, close - open - 1), cx), cx);
}

}  // namespace

std::vector<std::string> expand_slurm_hostlist(const std::string& expr, const std::string& where) {
    std::vector<std::string> out;
    const Context cx{expr, where, out};
    std::string token;
    int depth = 0;
    auto flush = [&]() {
        if (!token.empty()) {
            expand_one(token, cx);
            token.clear();
        }
    };
    for (const char c : expr) {  // Slurm's _next_tok: separators outside brackets
        depth += c == '[' ? 1 : (c == ']' ? -1 : 0);
        if (depth == 0 && (c == ',' || c == ' ' || c == '\t')) {
            flush();
        } else {
            token += c;
        }
    }
    flush();
    if (out.empty()) {
        throw input_error(where, "the hostlist names no host", kHostlistFix);
    }
    return out;
}

}  // namespace planlayout
