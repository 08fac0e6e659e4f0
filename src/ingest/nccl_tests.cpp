// Ingest: nccl-tests output. Only rows whose tokens parse as the numeric grammar are data.
#include "planlayout/ingest/nccl_tests.hpp"

#include <cmath>
#include <cstdlib>
#include <set>
#include <sstream>

#include "planlayout/error.hpp"

namespace planlayout {
namespace {

std::vector<std::string> words_of(const std::string& line) {
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

namespace {

/// What the file says besides its rows: the collective (and where that was read) and the ranks
/// its "Rank" lines list.
struct FileEvidence {
    std::optional<CollectiveOp> op;
    std::string op_source;
    std::set<long> rank_ids;
};

/// Reads the evidence of a line that is not a data row (the test's header, the version, a
/// "Rank" line, the test's command line); true when the line is no data row (those, and
/// comments).
bool read_evidence(const std::string& line, const std::vector<std::string>& tokens, NcclTestsRun& run,
                   FileEvidence& ev) {
    // Header evidence, wherever a prefix or a lost '#' left it.
    if (const auto p = line.find("Collective test starting:"); p != std::string::npos) {
        const auto name = words_of(line.substr(p + 25));
        if (!name.empty()) {
            if (const auto op = parse_collective_op(name[0])) {
                ev.op = op;
                ev.op_source = "header";
            }
        }
        return true;
    }
    if (const auto p = line.find("nccl-tests version"); p != std::string::npos) {
        const auto v = words_of(line.substr(p + 18));
        run.version = v.empty() ? "" : v[0];
        return true;
    }
    for (std::size_t i = 0; i + 1 < tokens.size(); ++i) {
        if (tokens[i] == "Rank" && is_uint(tokens[i + 1]) && line.find("device") != std::string::npos) {
            ev.rank_ids.insert(std::strtol(tokens[i + 1].c_str(), nullptr, 10));
            return true;
        }
    }
    if (!ev.op || ev.op_source != "header") {
        for (const auto& t : tokens) {
            const auto p = t.find("_perf");
            if (p != std::string::npos && p + 5 == t.size()) {
                const auto slash = t.find_last_of('/');
                if (const auto op = parse_collective_op(slash == std::string::npos ? t : t.substr(slash + 1))) {
                    ev.op = op;
                    ev.op_source = "command line";
                }
            }
        }
    }
    // A comment line (header, units, summary).
    return lstrip_hash(line).empty() || line.find_first_not_of(" \t") == line.find('#');
}

/// Where a data row starts in its tokens (after any prefix): the first "size count type"; the
/// token count when there is none (MPI noise, NCCL INFO, a prompt).
std::size_t data_start(const std::vector<std::string>& tokens) {
    for (std::size_t i = 0; i + 2 < tokens.size(); ++i) {
        if (is_uint(tokens[i]) && is_uint(tokens[i + 1]) && nccl_type_bytes(tokens[i + 2]) > 0) {
            return i;
        }
    }
    return tokens.size();
}

/// The data row starting at tokens[start]: size count type [redop] [root] time algbw busbw wrong
/// [time algbw busbw wrong]; `at` names its line in errors.
NcclTestsRow data_row(const std::vector<std::string>& tokens, std::size_t start, std::size_t line_no, const std::string& at) {
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
    return row;
}

/// Sets the run's ranks: the option, else the "Rank" lines, else what size/count imply.
void set_ranks(NcclTestsRun& run, const NcclTestsOptions& options, const std::set<long>& rank_ids, int implied,
               const std::string& where) {
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
}

/// Sets the run's collective: the option, else the file; it must agree with size/count (rows of
/// `implied` x count x type size, first printed on line `first_line`).
void set_op(NcclTestsRun& run, const NcclTestsOptions& options, const FileEvidence& ev, int implied,
            std::int64_t first_count, std::size_t first_line, const std::string& where) {
    if (options.op) {
        if (ev.op && *ev.op != *options.op) {
            throw input_error(where, "the file is a " + std::string(to_string(*ev.op)) + " run (" +
                                         ev.op_source + "), not " + std::string(to_string(*options.op)),
                              "drop --op or pass --op " + std::string(to_string(*ev.op)));
        }
        run.op = *options.op;
        run.op_source = "option";
    } else if (ev.op) {
        run.op = *ev.op;
        run.op_source = ev.op_source;
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
    if (scaled && implied <= 1 && first_count > 0 && run.ranks > 1) {
        throw input_error(where + ":" + std::to_string(first_line),
                          "size equals count x type size, which a " + std::string(to_string(run.op)) +
                              " run of " + std::to_string(run.ranks) + " ranks does not print",
                          "check --op: this looks like all_reduce, broadcast or sendrecv");
    }
    if (scaled && implied > 1 && run.ranks > 0 && implied != run.ranks) {
        run.warnings.push_back(where + ": size/count imply " + std::to_string(implied) + " ranks, using " +
                               std::to_string(run.ranks) + " (" + run.ranks_source + ")");
    }
    if (!scaled && implied > 1) {
        throw input_error(where + ":" + std::to_string(first_line),
                          "size is " + std::to_string(implied) + " x count x type size, which a " +
                              std::string(to_string(run.op)) + " run does not print",
                          "pass --op all_gather|reduce_scatter|all_to_all");
    }
}

}  // namespace

NcclTestsRun parse_nccl_tests(const std::string& text, const std::string& where,
                              const NcclTestsOptions& options) {
    NcclTestsRun run;
    FileEvidence ev;
    std::istringstream in(text);
    std::size_t line_no = 0;
    for (std::string line; std::getline(in, line);) {
        ++line_no;
        if (!line.empty() && line.back() == '\r') {
            line.pop_back();
        }
        const auto tokens = words_of(line);
        if (tokens.empty() || read_evidence(line, tokens, run, ev)) {
            continue;
        }
        const std::size_t start = data_start(tokens);
        if (start == tokens.size()) {
            continue;  // foreign: MPI noise, NCCL INFO, a prompt
        }
        const std::string at = where + ":" + std::to_string(line_no);
        const NcclTestsRow row = data_row(tokens, start, line_no, at);
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
    const NcclTestsRow& first = run.rows.front();
    const double ratio = first.size_bytes / (static_cast<double>(first.count) * nccl_type_bytes(first.type));
    const int implied = static_cast<int>(std::lround(ratio));
    set_ranks(run, options, ev.rank_ids, implied, where);
    set_op(run, options, ev, implied, first.count, first.line, where);
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
