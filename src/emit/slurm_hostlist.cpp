// Emit: a host list folded into Slurm's hostlist syntax ("node[0-7]"), for the scheduler outputs.
#include <cctype>
#include <string>
#include <utility>
#include <vector>

#include "planlayout/emit/sched_topology_emit.hpp"

namespace planlayout {

std::string slurm_hostlist(const std::vector<std::string>& hosts) {
    struct Run {
        std::string prefix;
        std::size_t width = 0;  // digits, 0: no number
        std::vector<std::pair<long long, long long>> ranges;
    };
    std::vector<Run> runs;
    for (const auto& h : hosts) {
        std::size_t i = h.size();
        while (i > 0 && std::isdigit(static_cast<unsigned char>(h[i - 1])) != 0) {
            --i;
        }
        const std::size_t digits = h.size() - i;
        if (digits == 0 || digits > 18) {
            runs.push_back({h, 0, {}});
            continue;
        }
        const std::string prefix = h.substr(0, i);
        const long long v = std::stoll(h.substr(i));
        // Zero-padded numbers keep their width; unpadded ones are of any width.
        const std::size_t width = h[i] == '0' && digits > 1 ? digits : 0;
        // A padded run takes unpadded numbers of its width too ("gpu09", "gpu10").
        const bool joins = !runs.empty() && runs.back().prefix == prefix && !runs.back().ranges.empty() &&
                           (runs.back().width == width || (width == 0 && digits == runs.back().width));
        if (joins && runs.back().ranges.back().second + 1 == v) {
            runs.back().ranges.back().second = v;
        } else if (joins) {
            runs.back().ranges.emplace_back(v, v);
        } else {
            runs.push_back({prefix, width, {{v, v}}});
        }
    }
    auto num = [](long long v, std::size_t width) {
        std::string s = std::to_string(v);
        return s.size() < width ? std::string(width - s.size(), '0') + s : s;
    };
    std::string out;
    for (const auto& run : runs) {
        out += out.empty() ? "" : ",";
        if (run.ranges.empty()) {
            out += run.prefix;
            continue;
        }
        if (run.ranges.size() == 1 && run.ranges[0].first == run.ranges[0].second) {
            out += run.prefix + num(run.ranges[0].first, run.width);
            continue;
        }
        out += run.prefix + "[";
        for (std::size_t i = 0; i < run.ranges.size(); ++i) {
            const auto [a, b] = run.ranges[i];
            out += (i ? "," : "") + num(a, run.width) + (a == b ? "" : "-" + num(b, run.width));
        }
        out += "]";
    }
    return out;
}

}  // namespace planlayout
