// Ingest: GPU spec files.
#include "planlayout/ingest/gpu_spec_json.hpp"

#include <algorithm>

#include "planlayout/error.hpp"
#include "planlayout/json_reader.hpp"
#include "planlayout/ingest/kernel_table_json.hpp"
#include "planlayout/ingest/read_file.hpp"
#include "planlayout_embedded_gpus.hpp"

namespace planlayout {
namespace {

constexpr double kMaxTflops = 1e5;
constexpr double kMaxGpuGbyteS = 1e6;

double required_spec_value(const JsonReader& r, const std::string& key, double min, double max, const std::string& example) {
    const auto v = r.get<double>(key, min, max);
    if (!v) {
        throw input_error(r.where(key), "missing: " + key, "add \"" + key + "\": " + example + " from the vendor's datasheet");
    }
    return *v;
}

std::vector<GpuSpec> read_builtin() {
    std::vector<GpuSpec> out;
    for (const auto& e : kEmbeddedGpus) {
        const std::string src = std::string("layouts/gpus/") + e.name + ".json";
        out.push_back(gpu_spec_from_json(parse_json_text(e.text, src), src));
    }
    return out;
}

}  // namespace

GpuSpec gpu_spec_from_json(const nlohmann::json& j, const std::string& file) {
    const JsonReader r(j, file, "");
    r.check_keys({"name", "ids", "bf16_tflops", "fp16_tflops", "fp8_tflops", "hbm_gbyte_s", "memory_gib"});
    GpuSpec g;
    g.source = file;
    const auto name = r.get<std::string>("name");
    if (!name || name->empty()) {
        throw input_error(r.where("name"), "missing: the GPU's name", "add \"name\": \"H100 SXM\"");
    }
    g.name = *name;
    if (r.has("ids")) {
        const nlohmann::json& ids = r.at("ids");
        if (!ids.is_array()) {
            throw input_error(r.where("ids"), "expected a list of names, got " + ids.dump().substr(0, 80),
                              "write \"ids\": [\"H100 80GB HBM3\", \"H100-SXM5-80GB\"]");
        }
        for (std::size_t i = 0; i < ids.size(); ++i) {
            if (!ids[i].is_string() || ids[i].get<std::string>().empty()) {
                throw input_error(r.where("ids/" + std::to_string(i)), "expected a non-empty name, got " + ids[i].dump().substr(0, 80),
                                  "write the GPU name as nvidia-smi or the node template's gpu_model spells it");
            }
            g.ids.push_back(ids[i].get<std::string>());
        }
    }
    g.bf16_tflops = required_spec_value(r, "bf16_tflops", 1e-3, kMaxTflops, "989");
    g.fp16_tflops = r.get<double>("fp16_tflops", 0, kMaxTflops).value_or(g.bf16_tflops);
    g.fp8_tflops = r.get<double>("fp8_tflops", 0, kMaxTflops).value_or(0);
    g.hbm_gbyte_s = required_spec_value(r, "hbm_gbyte_s", 1e-3, kMaxGpuGbyteS, "3350");
    g.memory_gib = r.get<double>("memory_gib", 0, 1e6).value_or(0);
    return g;
}

std::vector<GpuSpec> builtin_gpu_specs() {
    std::vector<GpuSpec> specs = read_builtin();
    attach_kernel_tables(specs, builtin_kernel_tables());
    return specs;
}

void attach_kernel_tables(std::vector<GpuSpec>& specs, const std::vector<std::shared_ptr<const KernelTable>>& tables) {
    if (tables.empty()) {
        return;
    }
    // A GPU without its own table carries the one marked "carried" (the first table if none is).
    const auto carried = std::find_if(tables.begin(), tables.end(), [](const auto& t) { return t->carried; });
    const std::shared_ptr<const KernelTable>& fallback = carried == tables.end() ? tables.front() : *carried;
    for (GpuSpec& g : specs) {
        g.kernels = fallback;
        g.kernels_derived = true;
        for (const auto& t : tables) {
            if (match_gpu({g}, t->gpu) != nullptr) {
                g.kernels = t;
                g.kernels_derived = false;
                break;
            }
        }
    }
}

}  // namespace planlayout
