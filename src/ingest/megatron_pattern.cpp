// Ingest: Megatron-LM's --moe-layer-freq pattern (arguments.py `_eval_pattern`: a Python list
// expression over digits , [ ] ( ) + *), expanded without Python.
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "planlayout/ingest/megatron_args.hpp"
#include "planlayout/limits.hpp"

namespace planlayout {
namespace {

// Layers a pattern may describe: more than any model has; bounds the expansion ([1]*10**9).
constexpr std::size_t kMaxPatternLength = std::size_t{1} << 20U;

// An int or a list of ints.
struct PatternItem {
    bool is_list = false;
    long long number = 0;
    std::vector<int> list;
};

class PatternParser {
public:
    explicit PatternParser(const std::string& s) : s_(s) {}

    std::optional<std::vector<int>> run() {
        auto v = sum(0);
        if (!v || i_ != s_.size() || !v->is_list) {
            return std::nullopt;
        }
        for (const int x : v->list) {
            if (x != 0 && x != 1) {
                return std::nullopt;
            }
        }
        return std::move(v->list);
    }

private:
    std::optional<PatternItem> sum(int depth) {
        auto a = product(depth);
        while (a && i_ < s_.size() && s_[i_] == '+') {
            ++i_;
            auto b = product(depth);
            if (!b || a->is_list != b->is_list) {
                return std::nullopt;
            }
            if (a->is_list) {
                if (a->list.size() + b->list.size() > kMaxPatternLength) {
                    return std::nullopt;
                }
                a->list.insert(a->list.end(), b->list.begin(), b->list.end());
            } else if (__builtin_add_overflow(a->number, b->number, &a->number)) {
                return std::nullopt;
            }
        }
        return a;
    }

    std::optional<PatternItem> product(int depth) {
        auto a = atom(depth);
        while (a && i_ < s_.size() && s_[i_] == '*') {
            ++i_;
            auto b = atom(depth);
            if (!b || (a->is_list && b->is_list)) {
                return std::nullopt;
            }
            if (!a->is_list && !b->is_list) {
                if (__builtin_mul_overflow(a->number, b->number, &a->number)) {
                    return std::nullopt;
                }
                continue;
            }
            PatternItem& list = a->is_list ? *a : *b;
            const long long times = a->is_list ? b->number : a->number;
            if (times > 0 && list.list.size() > kMaxPatternLength / static_cast<std::size_t>(times)) {
                return std::nullopt;
            }
            std::vector<int> out;
            for (long long k = 0; k < times; ++k) {
                out.insert(out.end(), list.list.begin(), list.list.end());
            }
            a = PatternItem{true, 0, std::move(out)};
        }
        return a;
    }

    std::optional<PatternItem> atom(int depth) {
        if (i_ >= s_.size() || depth > kMaxLaunchNesting) {
            return std::nullopt;
        }
        const char c = s_[i_];
        if (c >= '0' && c <= '9') {
            long long v = 0;
            while (i_ < s_.size() && s_[i_] >= '0' && s_[i_] <= '9') {
                if (__builtin_mul_overflow(v, 10, &v) || __builtin_add_overflow(v, s_[i_] - '0', &v)) {
                    return std::nullopt;
                }
                ++i_;
            }
            return PatternItem{false, v, {}};
        }
        if (c == '(') {
            ++i_;
            auto v = sum(depth + 1);
            if (!v || i_ >= s_.size() || s_[i_] != ')') {
                return std::nullopt;  // a tuple (1,0) is not a list
            }
            ++i_;
            return v;
        }
        if (c != '[') {
            return std::nullopt;
        }
        ++i_;
        PatternItem list{true, 0, {}};
        while (i_ < s_.size() && s_[i_] != ']') {
            auto e = sum(depth + 1);
            if (!e || e->is_list || e->number > 1 || list.list.size() >= kMaxPatternLength) {
                return std::nullopt;
            }
            list.list.push_back(static_cast<int>(e->number));
            if (i_ < s_.size() && s_[i_] == ',') {
                ++i_;
            } else if (i_ < s_.size() && s_[i_] != ']') {
                return std::nullopt;
            }
        }
        if (i_ >= s_.size()) {
            return std::nullopt;
        }
        ++i_;
        return list;
    }

    const std::string& s_;
    std::size_t i_ = 0;
};

}  // namespace

std::optional<std::vector<int>> expand_layer_pattern(const std::string& text) {
    if (text.find('[') == std::string::npos) {
        return std::nullopt;
    }
    return PatternParser(text).run();
}

}  // namespace planlayout
