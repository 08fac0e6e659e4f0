// Fuzz target: a Hugging Face config.json (`read_hf_config`), and the model section it makes read
// by `model_spec_from_json` (which may refuse it cleanly: a shape of more than 1e15 parameters).
// A section the model reader accepted must survive to_json/from_json: a rejection there is a bug.
#include "fuzz_common.hpp"
#include "planlayout/ingest/hf_config.hpp"
#include "planlayout/ingest/layout_sections.hpp"
#include "planlayout/model/model_spec.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    planlayout::fuzz::expect_clean([&] {
        const planlayout::HfModel hf = planlayout::read_hf_config(planlayout::fuzz::as_text(data, size), "config.json");
        const auto m = planlayout::model_spec_from_json(hf.model, "config.json");
        try {
            const auto again = planlayout::model_spec_from_json(m.to_json(), "saved.json");
            (void)again.active_params();
            (void)again.kv_dim();
        } catch (const planlayout::Error&) {
            __builtin_trap();
        }
    });
    return 0;
}
