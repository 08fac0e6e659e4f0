// Ingest: compute micro-benchmark runs (bench_ops_json.hpp).
#include "planlayout/ingest/bench_ops_json.hpp"

#include <cctype>
#include <map>

#include "planlayout/error.hpp"
#include "planlayout/json_reader.hpp"
#include "planlayout/ingest/read_file.hpp"

namespace planlayout {
namespace {

constexpr double kMaxOpDim = 1e9;

/// "M512 N3072 K1024" → {M: 512, N: 3072, K: 1024}; "E8 x (M16 ...)" adds E; "B32 H8 S512 D128".
/// Letters followed by digits; anything else is skipped.
std::map<char, double> shape_dims_of(const std::string& shape) {
    std::map<char, double> d;
    for (std::size_t i = 0; i + 1 < shape.size(); ++i) {
        const char c = shape[i];
        if (std::isupper(static_cast<unsigned char>(c)) && std::isdigit(static_cast<unsigned char>(shape[i + 1])) &&
            (i == 0 || !std::isalnum(static_cast<unsigned char>(shape[i - 1])))) {
            std::size_t j = i + 1;
            double v = 0;
            while (j < shape.size() && std::isdigit(static_cast<unsigned char>(shape[j])) && v < kMaxOpDim) {
                v = v * 10 + (shape[j] - '0');
                ++j;
            }
            d[c] = v;
            i = j - 1;
        }
    }
    return d;
}

/// "4096x4096x4096" → 3 numbers; anything else → empty.
std::vector<double> square_of(const std::string& shape) {
    std::vector<double> out;
    double v = 0;
    bool digits = false;
    for (const char c : shape + "x") {
        if (std::isdigit(static_cast<unsigned char>(c)) && v < kMaxOpDim) {
            v = v * 10 + (c - '0');
            digits = true;
        } else if (c == 'x' && digits) {
            out.push_back(v);
            v = 0;
            digits = false;
        } else {
            return {};
        }
    }
    return out;
}

bool positive(const std::map<char, double>& d, const std::string& letters) {
    for (const char c : letters) {
        const auto it = d.find(c);
        if (it == d.end() || !(it->second > 0)) {
            return false;
        }
    }
    return true;
}

}  // namespace

BenchRun bench_run_from_json(const std::string& text, const std::string& file) {
    require_8bit_text(text, file);
    const nlohmann::json j = parse_json_text(text, file);
    const JsonReader top(j, file, "");
    if (!j.is_object() || !top.has("ops") || !top.at("ops").is_array()) {
        throw input_error(file, "not a compute benchmark run: no \"ops\" list",
                          "give the JSON that tests/gpu/harness.py ops writes (ops-*.json)");
    }
    BenchRun run;
    run.device = top.get<std::string>("device").value_or("");
    const nlohmann::json& ops = top.at("ops");
    for (std::size_t i = 0; i < ops.size(); ++i) {
        const JsonReader r(ops[i], file, "/ops/" + std::to_string(i));
        if (!ops[i].is_object()) {
            throw input_error(r.where(), "expected an op object, got " + ops[i].dump().substr(0, 80),
                              "each entry of \"ops\" is {\"kind\", \"name\", \"shape\", \"us\", ...}");
        }
        const auto us = r.get<double>("us", 0.0, 1e12);
        if (!us || !(*us > 0)) {
            continue;  // failed in the run: no time
        }
        BenchOp o;
        o.kind = r.get<std::string>("kind").value_or("");
        o.name = r.get<std::string>("name").value_or("");
        o.shape = r.get<std::string>("shape").value_or("");
        o.flops = r.get<double>("flops", 0.0, 1e30).value_or(0);
        o.bytes = r.get<double>("bytes", 0.0, 1e30).value_or(0);
        o.seconds = *us * 1e-6;
        const std::string dtype = r.get<std::string>("dtype").value_or("bf16");
        const auto d = shape_dims_of(o.shape);
        const auto sq = square_of(o.shape);
        ModelOp& m = o.op;
        m.fp8 = dtype.rfind("fp8", 0) == 0;
        if (o.kind == "attn-fwd" || o.kind == "attn-bwd") {
            if (!positive(d, "BHSD")) {
                throw input_error(r.where("shape"), "attention shape \"" + o.shape + "\" lacks B, H, S or D",
                                  "write it as \"B32 H8 S512 D128\"");
            }
            m.kind = o.kind == "attn-fwd" ? ModelOpKind::AttentionForward : ModelOpKind::AttentionBackward;
            m.batch = d.at('B');
            m.heads = d.at('H');
            m.seq = d.at('S');
            m.head_dim = d.at('D');
        } else if (o.kind == "bw" || (o.kind == "reference" && sq.size() != 3)) {
            if (!(o.bytes > 0)) {
                throw input_error(r.where("bytes"), "a bandwidth-bound op without its bytes",
                                  "give \"bytes\": the bytes the op reads and writes");
            }
            m.kind = ModelOpKind::Memory;
            m.bytes = o.bytes;
        } else if (positive(d, "MNK")) {
            m.kind = ModelOpKind::Gemm;
            m.m = d.at('M');
            m.n = d.at('N');
            m.k = d.at('K');
            m.count = positive(d, "E") ? d.at('E') : 1.0;
        } else if (sq.size() == 3 && sq[0] > 0 && sq[1] > 0 && sq[2] > 0) {
            m.kind = ModelOpKind::Gemm;
            m.m = sq[0];
            m.n = sq[1];
            m.k = sq[2];
        } else {
            throw input_error(r.where("shape"), "op kind \"" + o.kind + "\" with shape \"" + o.shape + "\" is not one the model times",
                              "GEMMs \"M512 N3072 K1024\" (or \"E8 x (M N K)\"), attention \"B H S D\" (attn-fwd, attn-bwd), kind bw with bytes");
        }
        run.ops.push_back(o);
    }
    if (run.ops.empty()) {
        throw input_error(file + " (/ops)", "no op with a time", "give a run whose ops have \"us\"");
    }
    return run;
}

}  // namespace planlayout
