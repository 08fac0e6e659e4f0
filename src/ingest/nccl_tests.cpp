// Ingest: nccl-tests output. Only rows whose tokens parse as the numeric grammar are data.
#include "planlayout/ingest/nccl_tests.hpp"

#include <cmath>
#include <cstdlib>
#include <set>
#include <sstream>

#include "planlayout/error.hpp"

namespace planlayout {
namespace {

std::vector<std::string> split_ws(const std::string& line) {
    std::istringstream in(line);
    std::vector<std::string> out;
    for (std::string t; in >> t;) {
        out.push_back(t);
    }
    return out;
}

bool is_uint(const std::string& s) {
    if (s.empty()) {
        return false;
    }
    for (const char c : s) {
        if (c < '0' || c > '9') {
            return false;
        }
    }
    return true;
}

std::optional<double> to_number(const std::string& s) {
    if (s.empty()) {
        return std::nullopt;
    }
    char* end = nullptr;
    const double v = std::strtod(s.c_str(), &end);
    if (end != s.c_str() + s.size() || !std::isfinite(v)) {
        return std::nullopt;
    }
    return v;
}

bool is_redop(const std::string& s) {
    static const std::set<std::string> kOps = {"sum", "prod", "max", "min", "avg", "premulsum", "mulsum", "none"};
    return kOps.count(s) > 0;
}

/// "#wrong" is an integer or N/A; old layouts print a max relative error like 2e-06.
bool is_wrong_cell(const std::string& s) { return s == "N/A" || to_number(s).has_value(); }

std::string lstrip_hash(const std::string& s) {
    const auto p = s.find_first_not_of("# \t");
    return p == std::string::npos ? std::string() : s.substr(p);
}

}  // namespace

int nccl_type_bytes(const std::string& type) {
    if (type == "int8" || type == "uint8" || type == "char" || type == "f8e4m3" || type == "f8e5m2" ||
        type == "fp8_e4m3" || type == "fp8_e5m2") {
        return 1;
    }
    if (type == "half" || type == "bfloat16" || type == "float16" || type == "bf16") {
        return 2;
    }
    if (type == "float" || type == "int32" || type == "uint32" || type == "int") {
        return 4;
    }
    if (type == "double" || type == "int64" || type == "uint64") {
        return 8;
    }
    return 0;
}

NcclTestsRun parse_nccl_tests(const std::string& text, const std::string& where,
                              const NcclTestsOptions& options) {
    NcclTestsRun run;
    std::optional<CollectiveOp> file_op;
    std::string file_op_source;
    std::set<long> rank_ids;
    std::istringstream in(text);
    std::size_t line_no = 0;
    for (std::string line; std::getline(in, line);) {
        ++line_no;
        if (!line.empty() && line.back() == '\r') {
            line.pop_back();
        }
        const auto tokens = split_ws(line);
        if (tokens.empty()) {
            continue;
        }
        // Header evidence, wherever a prefix or a lost '#' left it.
        if (const auto p = line.find("Collective test starting:"); p != std::string::npos) {
            const auto name = split_ws(line.substr(p + 25));
            if (!name.empty()) {
                if (const auto op = parse_collective_op(name[0])) {
                    file_op = op;
                    file_op_source = "header";
                }
            }
            continue;
        }
        if (const auto p = line.find("nccl-tests version"); p != std::string::npos) {
            const auto v = split_ws(line.substr(p + 18));
            run.version = v.empty() ? "" : v[0];
            continue;
        }
        bool is_rank_line = false;
        for (std::size_t i = 0; i + 1 < tokens.size(); ++i) {
            if (tokens[i] == "Rank" && is_uint(tokens[i + 1]) && line.find("device") != std::string::npos) {
                rank_ids.insert(std::strtol(tokens[i + 1].c_str(), nullptr, 10));
                is_rank_line = true;
                break;
            }
        }
        if (is_rank_line) {
            continue;
        }
        if (!file_op || file_op_source != "header") {
            for (const auto& t : tokens) {
                const auto p = t.find("_perf");
                if (p != std::string::npos && p + 5 == t.size()) {
                    const auto slash = t.find_last_of('/');
                    if (const auto op = parse_collective_op(slash == std::string::npos ? t : t.substr(slash + 1))) {
                        file_op = op;
                        file_op_source = "command line";
                    }
                }
            }
        }
        if (lstrip_hash(line).empty() || line.find_first_not_of(" \t") == line.find('#')) {
            continue;  // a comment line (header, units, summary)
        }
        // A data row: size count type [redop] [root] time algbw busbw wrong [time algbw busbw wrong],
        // possibly after a prefix. Find where it starts.
        std::size_t start = tokens.size();
        for (std::size_t i = 0; i + 2 < tokens.size(); ++i) {
            if (is_uint(tokens[i]) && is_uint(tokens[i + 1]) && nccl_type_bytes(tokens[i + 2]) > 0) {
                start = i;
                break;
            }
        }
        if (start == tokens.size()) {
            continue;  // foreign: MPI noise, NCCL INFO, a prompt
        }
        const std::string at = where + ":" + std::to_string(line_no);
        NcclTestsRow row;
        row.line = line_no;
        row.size_bytes = std::strtod(tokens[start].c_str(), nullptr);
        row.count = std::strtoll(tokens[start + 1].c_str(), nullptr, 10);
        row.type = tokens[start + 2];
        std::size_t j = start + 3;
        if (j < tokens.size() && is_redop(tokens[j])) {
            row.redop = tokens[j++];
        }
        const std::size_t rest = tokens.size() - j;
        if (rest == 9 || rest == 5) {
            const auto root = to_number(tokens[j]);
            if (!root || *root < -1 || *root > 1e9) {  // found by fuzzing: 5e12 overflowed the int
                throw input_error(at, "the root column '" + tokens[j] + "' is not a rank number",
                                  "expected: size count type [redop] root time algbw busbw #wrong ...");
            }
            row.root = static_cast<int>(*root);
            ++j;
        } else if (rest != 8 && rest != 4) {
            throw input_error(at, "a data row with " + std::to_string(rest) +
                                      " columns after the type; expected 4 or 8, plus an optional root",
                              "expected: size count type [redop] [root] time algbw busbw #wrong "
                              "[time algbw busbw #wrong]; was the line cut or merged with another?");
        }
        const auto field = [&](std::size_t k, const char* name) {
            const auto v = to_number(tokens[k]);
            if (!v || *v < 0) {
                throw input_error(at, std::string("the ") + name + " column '" + tokens[k] + "' is not a number",
                                  "expected: size count type [redop] [root] time algbw busbw #wrong ...");
            }
            return *v;
        };
        row.time_us = field(j, "time");
        row.printed_algbw_gbyte_s = field(j + 1, "algbw");
        row.printed_busbw_gbyte_s = field(j + 2, "busbw");
        if (!is_wrong_cell(tokens[j + 3])) {
            throw input_error(at, "the #wrong/error column '" + tokens[j + 3] + "' is not a number or N/A",
                              "expected: size count type [redop] [root] time algbw busbw #wrong ...");
        }
        if (tokens.size() - j == 8) {
            row.in_place_time_us = field(j + 4, "in-place time");
        }
        if (row.time_us <= 0) {
            run.warnings.push_back(at + ": time 0 us, row skipped");
            continue;
        }
        if (row.size_bytes <= 0) {  // nccl-tests -b 0: no bandwidth to fit or compare (was "busbw -nan")
            run.warnings.push_back(at + ": size 0 B, row skipped");
            continue;
        }
        run.rows.push_back(row);
    }
    if (run.rows.empty()) {
        throw input_error(where, "no nccl-tests data rows found",
                          "expected rows like '  268435456  67108864  float  sum  -1  2218.2  121.02  211.78  0 ...' "
                          "from all_reduce_perf, alltoall_perf, ...");
    }

    // Ranks: the option, else the "Rank" lines, else what size/count imply.
    const NcclTestsRow& first = run.rows.front();
    const double ratio = first.size_bytes / (static_cast<double>(first.count) * nccl_type_bytes(first.type));
    const int implied = static_cast<int>(std::lround(ratio));
    if (options.ranks > 0) {
        run.ranks = options.ranks;
        run.ranks_source = "option";
        if (!rank_ids.empty() && static_cast<int>(rank_ids.size()) != options.ranks) {
            run.warnings.push_back(where + ": the file lists " + std::to_string(rank_ids.size()) +
                                   " ranks, the command line says " + std::to_string(options.ranks));
        }
    } else if (!rank_ids.empty()) {
        run.ranks = static_cast<int>(rank_ids.size());
        run.ranks_source = "Rank lines";
    } else if (implied > 1) {
        run.ranks = implied;
        run.ranks_source = "size/count";
    }

    // The collective: the option, else the file; it must agree with size/count.
    if (options.op) {
        if (file_op && *file_op != *options.op) {
            throw input_error(where, "the file is a " + std::string(to_string(*file_op)) + " run (" +
                                         file_op_source + "), not " + std::string(to_string(*options.op)),
                              "drop --op or pass --op " + std::string(to_string(*file_op)));
        }
        run.op = *options.op;
        run.op_source = "option";
    } else if (file_op) {
        run.op = *file_op;
        run.op_source = file_op_source;
    } else if (implied <= 1) {
        run.op = CollectiveOp::AllReduce;
        run.op_source = "size/count";
        run.warnings.push_back(where + ": no test name in the file; size = count x type size, read as all_reduce");
    } else {
        throw input_error(where, "cannot tell the collective: size is " + std::to_string(implied) +
                                     " x count x type size, which fits all_gather, reduce_scatter and all_to_all",
                          "pass --op all_gather|reduce_scatter|all_to_all");
    }
    const bool scaled = run.op == CollectiveOp::AllGather || run.op == CollectiveOp::ReduceScatter ||
                        run.op == CollectiveOp::AllToAll;
    if (scaled && implied <= 1 && first.count > 0 && run.ranks > 1) {
        throw input_error(where + ":" + std::to_string(first.line),
                          "size equals count x type size, which a " + std::string(to_string(run.op)) +
                              " run of " + std::to_string(run.ranks) + " ranks does not print",
                          "check --op: this looks like all_reduce, broadcast or sendrecv");
    }
    if (scaled && implied > 1 && run.ranks > 0 && implied != run.ranks) {
        run.warnings.push_back(where + ": size/count imply " + std::to_string(implied) + " ranks, using " +
                               std::to_string(run.ranks) + " (" + run.ranks_source + ")");
    }
    if (!scaled && implied > 1) {
        throw input_error(where + ":" + std::to_string(first.line),
                          "size is " + std::to_string(implied) + " x count x type size, which a " +
                              std::string(to_string(run.op)) + " run does not print",
                          "pass --op all_gather|reduce_scatter|all_to_all");
    }
    if (run.ranks == 0) {
        throw input_error(where, "cannot tell the number of ranks (no 'Rank' lines in the file)",
                          "pass --nodes and --gpus-per-node");
    }
    for (auto& r : run.rows) {
        r.algbw_gbyte_s = r.size_bytes / r.time_us / 1e3;
        r.busbw_gbyte_s = r.algbw_gbyte_s * bus_factor(run.op, run.ranks);
    }
    return run;
}

}  // namespace planlayout
