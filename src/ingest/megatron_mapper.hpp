// Ingest (private): the mapping of Megatron-LM flags to layout values, shared by
// megatron_args.cpp (flags, cluster, parallel, training) and megatron_model_args.cpp (model).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "planlayout/ingest/megatron_args.hpp"

namespace planlayout::megatron {

enum class Kind { Bool, One, List };

// A modeled flag: its name (dashes), how it takes values, and the key its last value is kept
// under (aliases share a key: --tp and --tensor-model-parallel-size).
struct Flag {
    const char* name;
    Kind kind;
    const char* key;
};

constexpr std::int64_t kMaxSize = std::int64_t{1} << 30;  // model and batch sizes (ModelSpec's limit)
constexpr std::int64_t kMaxBucketParams = std::int64_t{1000000000000000};  // --ddp-bucket-size (TrainingSpec's limit, 1e15)

// The last value of a modeled flag, as given.
struct Given {
    std::string flag;                 // as written
    std::vector<std::string> values;  // one for Kind::One, several for Kind::List, none for Kind::Bool
    int line = 0;
    std::optional<std::string> unresolved;
    std::string raw;  // the value as written, for messages
};

/// Collects the last value of each modeled flag (scan), then writes the layout (build).
class Mapper {
public:
    explicit Mapper(std::string file) : file_(std::move(file)) {}

    void scan(const std::vector<ScriptWord>& words);
    MegatronArgs build();

private:
    [[nodiscard]] std::string where(int line) const { return file_ + ":" + std::to_string(line); }
    [[nodiscard]] const Given* get(const char* key) const;
    void put(const std::string& pointer, nlohmann::json v, const Given& g, const std::string& note = "");
    void kernels();
    void attention_backend();
    void cuda_graph();
    void put_default(const std::string& pointer, nlohmann::json v, const std::string& what = "");
    void ignore(const Given& g) { out_.ignored.push_back({g.flag, g.raw, where(g.line)}); }

    /// The value (number k of a list); throws the --env error when it is unresolved.
    [[nodiscard]] const std::string& text(const Given& g, std::size_t k = 0) const;
    [[nodiscard]] std::int64_t integer(const Given& g, std::int64_t min, std::int64_t max, std::size_t k = 0) const;
    [[nodiscard]] double number(const Given& g, double min, double max) const;
    [[nodiscard]] std::string choice(const Given& g, const std::vector<std::string>& choices) const;
    void count(const char* key, const std::string& pointer, std::int64_t min, std::int64_t max);
    void memory_flags();
    void flag(const char* key, const std::string& pointer);

    void cluster_and_parallel();
    void virtual_pipeline();
    void training();
    void overlap();
    void model();
    void moe();
    void mla();
    void dtype();

    std::string file_;
    std::map<std::string, Given> given_;
    MegatronArgs out_;
    bool moe_pending_ = false;  // MoE flags without --num-experts: put() holds them in moe_modifiers
};

}  // namespace planlayout::megatron
