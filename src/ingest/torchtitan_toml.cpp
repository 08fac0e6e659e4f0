// Ingest: torchtitan's TOML job config (ingest/torchtitan_toml.hpp). Key names and defaults:
// torchtitan/config/job_config.py at 238fa9953 (the last commit with TOML configs).
#include "planlayout/ingest/torchtitan_toml.hpp"

#include <algorithm>
#include <map>
#include <set>

#include <toml++/toml.h>

#include "planlayout/error.hpp"
#include "planlayout/ingest/read_file.hpp"
#include "planlayout/limits.hpp"

namespace planlayout {
namespace {

std::string line_where(const std::string& file, const toml::source_region& r) {
    return file + ":" + std::to_string(r.begin.line);
}

// Every field of torchtitan's Parallelism dataclass (job_config.py at 238fa9953).
const std::set<std::string>& parallelism_keys() {
    static const std::set<std::string> kKeys = {
        "data_parallel_replicate_degree", "data_parallel_shard_degree", "fsdp_reshard_after_forward",
        "tensor_parallel_degree", "disable_loss_parallel", "enable_async_tensor_parallel",
        "pipeline_parallel_degree", "module_fqns_per_model_part", "pipeline_parallel_first_stage_less_layers",
        "pipeline_parallel_last_stage_less_layers", "pipeline_parallel_layers_per_stage",
        "pipeline_parallel_schedule", "pipeline_parallel_schedule_csv", "pipeline_parallel_microbatch_size",
        "pipeline_parallel_expert_parallel_overlap", "context_parallel_degree", "context_parallel_load_balancer",
        "context_parallel_rotate_method", "expert_parallel_degree", "expert_tensor_parallel_degree",
        "expert_parallel_comm_backend",
    };
    return kKeys;
}

std::int64_t integer(const toml::node& n, const std::string& file, const std::string& table, const std::string& key) {
    const auto v = n.value_exact<std::int64_t>();
    if (!v) {
        throw input_error(line_where(file, n.source()), "[" + table + "] " + key + " must be an integer",
                          "write e.g. " + key + " = 2");
    }
    return *v;
}

// The end of the string that opens at text[i] ('"' or '\'', single or triple): the index just past
// its closing quote, or text.size() when it does not close (the parser reports that).
std::size_t string_end(const std::string& text, std::size_t i) {
    const char q = text[i];
    const bool triple = text.compare(i, 3, std::string(3, q)) == 0;
    const std::string close = triple ? std::string(3, q) : std::string(1, q);
    for (std::size_t k = i + close.size(); k < text.size(); ++k) {
        if (q == '"' && text[k] == '\\') {
            ++k;
        } else if (!triple && text[k] == '\n') {
            return k;  // a one-line string ends at the line's end at the latest
        } else if (text.compare(k, close.size(), close) == 0) {
            return k + close.size();
        }
    }
    return text.size();
}

// One pass over the text before toml++, which recurses once per part of a dotted key or table
// header (a key of 50,000 parts overflowed the stack; its own limit covers arrays and inline tables
// only): the nesting of every key (its table header's parts, the parts of the keys of the inline
// tables around it, those tables and arrays, and its own parts) must stay within kMaxTomlDepth.
// Strings and comments are skipped; malformed text is left to the parser. Linear in the text.
void check_toml_depth(const std::string& text, const std::string& file) {
    struct Frame {
        char open;          // '{' or '['
        std::size_t depth;  // nesting of the values inside it
    };
    std::vector<Frame> stack;
    std::size_t line = 1;
    std::size_t table = 0;  // parts of the current [table] header
    std::size_t parts = 0;  // parts of the key being read so far
    std::size_t pending = 0;  // parts of the key whose value is being read (0 inside arrays)
    bool key = true;        // reading a key (or a header) rather than a value
    bool header = false;
    bool line_start = true;
    auto check = [&](std::size_t depth) {
        if (depth > kMaxTomlDepth) {
            throw input_error(file + ":" + std::to_string(line),
                              "TOML nested more than " + std::to_string(kMaxTomlDepth) +
                                  " levels deep (dotted key parts, table headers, inline tables and arrays; kMaxTomlDepth)",
                              "torchtitan configs are a few levels deep ([parallelism] tensor_parallel_degree = 2): check "
                              "that this is the right file");
        }
    };
    const auto base = [&] { return stack.empty() ? table : stack.back().depth; };
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (c == '"' || c == '\'') {
            const std::size_t end = string_end(text, i);
            line += static_cast<std::size_t>(std::count(text.begin() + static_cast<std::ptrdiff_t>(i),
                                                         text.begin() + static_cast<std::ptrdiff_t>(end), '\n'));
            i = end - 1;
            if (key && parts == 0) {
                parts = 1;
            }
            line_start = false;
            continue;
        }
        if (c == '#') {
            const auto nl = text.find('\n', i);
            i = (nl == std::string::npos ? text.size() : nl) - 1;
            continue;
        }
        if (c == '\n') {
            ++line;
            if (stack.empty()) {  // a new statement
                key = true;
                header = false;
                parts = 0;
                pending = 0;
                line_start = true;
            }
            continue;
        }
        if (c == ' ' || c == '\t' || c == '\r') {
            continue;
        }
        if (key && line_start && stack.empty() && c == '[') {  // [table] or [[array of tables]]
            header = true;
            table = 0;
            parts = 0;
            if (i + 1 < text.size() && text[i + 1] == '[') {
                ++i;
            }
            line_start = false;
            continue;
        }
        line_start = false;
        if (key) {
            if (c == '.') {
                ++parts;
                check(base() + parts);
            } else if (header && c == ']') {
                table = parts;
                check(table);
                key = false;  // the rest of the line is at most a comment
                header = false;
            } else if (c == '=') {
                key = false;
                pending = parts;
                parts = 0;
            } else if (c == '}' && !stack.empty() && stack.back().open == '{') {
                stack.pop_back();  // an empty inline table
                key = false;
            } else if (parts == 0) {
                parts = 1;
            }
            continue;
        }
        // A value.
        if (c == '{' || c == '[') {  // the value's own node sits at base + pending
            const std::size_t depth = base() + std::max<std::size_t>(pending, 1);
            check(depth);
            stack.push_back({c, depth});
            key = c == '{';
            parts = 0;
            pending = 0;
        } else if ((c == '}' || c == ']') && !stack.empty()) {
            stack.pop_back();
        } else if (c == ',' && !stack.empty() && stack.back().open == '{') {
            key = true;
            parts = 0;
        }
    }
}

}  // namespace

TorchtitanConfig read_torchtitan_config(const std::string& text, const std::string& file) {
    require_text_size(text, file, kMaxConfigBytes, "kMaxConfigBytes",
                      "torchtitan job configs are a few kilobytes: check that this is the right file");
    check_toml_depth(text, file);
    toml::table root;
    try {
        root = toml::parse(text, file);
    } catch (const toml::parse_error& e) {
        throw input_error(line_where(file, e.source()), "not valid TOML: " + std::string(e.description()),
                          "fix the TOML syntax (torchtitan reads it with tomllib)");
    }
    TorchtitanConfig out;
    if (const toml::node* p = root.get("parallelism")) {
        const toml::table* t = p->as_table();
        if (t == nullptr) {
            throw input_error(line_where(file, p->source()), "parallelism must be a table", "write [parallelism]");
        }
        const std::map<std::string, std::int64_t*> degrees = {
            {"data_parallel_replicate_degree", &out.dims.dp_replicate},
            {"data_parallel_shard_degree", &out.dims.dp_shard},
            {"context_parallel_degree", &out.dims.cp},
            {"tensor_parallel_degree", &out.dims.tp},
            {"pipeline_parallel_degree", &out.dims.pp},
            {"expert_parallel_degree", &out.dims.ep},
            {"expert_tensor_parallel_degree", &out.dims.etp},
        };
        for (const auto& [k, node] : *t) {
            const std::string key(k.str());
            if (parallelism_keys().count(key) == 0) {
                std::vector<std::string> known(parallelism_keys().begin(), parallelism_keys().end());
                const std::string near = nearest_match(key, known);
                throw input_error(line_where(file, k.source()), "[parallelism] has no key '" + key + "' in torchtitan's JobConfig",
                                  near.empty() ? "see torchtitan/config/job_config.py (class Parallelism)"
                                               : "did you mean " + near + "?");
            }
            if (const auto it = degrees.find(key); it != degrees.end()) {
                *it->second = integer(node, file, "parallelism", key);
            }
            if (key == "pipeline_parallel_microbatch_size") {
                out.training.pp_microbatch_size = integer(node, file, "parallelism", key);
            }
        }
    }
    if (const toml::node* p = root.get("training")) {
        if (const toml::table* t = p->as_table()) {
            const std::map<std::string, std::optional<std::int64_t>*> sizes = {
                {"local_batch_size", &out.training.local_batch_size},
                {"global_batch_size", &out.training.global_batch_size},
                {"seq_len", &out.training.seq_len},
            };
            for (const auto& [key, field] : sizes) {
                if (const toml::node* n = t->get(key)) {
                    *field = integer(*n, file, "training", key);
                }
            }
        }
    }
    if (const toml::node* p = root.get("activation_checkpoint")) {
        if (const toml::table* t = p->as_table()) {
            if (const toml::node* n = t->get("mode")) {
                const auto mode = n->value_exact<std::string>();
                if (!mode || (*mode != "selective" && *mode != "full" && *mode != "none")) {
                    throw input_error(line_where(file, n->source()), "[activation_checkpoint] mode must be \"selective\", \"full\" or \"none\"",
                                      "write e.g. mode = \"selective\" (torchtitan's ActivationCheckpoint.mode)");
                }
                out.training.ac_mode = *mode;
            }
            if (const toml::node* n = t->get("selective_ac_option")) {
                const auto option = n->value_exact<std::string>();
                const bool digits = option && !option->empty() && option->size() < 9 &&
                                    std::all_of(option->begin(), option->end(), [](char c) { return c >= '0' && c <= '9'; });
                if (!option || (*option != "op" && !digits)) {
                    throw input_error(line_where(file, n->source()),
                                      "[activation_checkpoint] selective_ac_option must be \"op\" or a whole number as a string",
                                      "write e.g. selective_ac_option = \"2\" (every 2nd block) or \"op\"");
                }
                out.training.ac_option = *option;
            }
        }
    }
    return out;
}

TorchtitanDims read_torchtitan_toml(const std::string& text, const std::string& file) {
    return read_torchtitan_config(text, file).dims;
}

}  // namespace planlayout
