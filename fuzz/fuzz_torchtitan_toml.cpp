// Fuzz target: a torchtitan TOML job config (`read_torchtitan_config`, toml++), and the degrees it
// gives built as torchtitan groups on 64 ranks, both constructions (each may refuse cleanly).
// Every kind built must answer find() for a rank consistently with member().
#include "fuzz_common.hpp"
#include "planlayout/ingest/torchtitan_toml.hpp"

namespace {

void check(const planlayout::Groups& g, std::int64_t world) {
    for (const auto& k : g.kinds) {
        for (std::int64_t r = 0; r < world; r += 7) {
            const auto at = k.find(r);
            if (!at || k.member(at->first, at->second) != r) {
                __builtin_trap();
            }
        }
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    planlayout::fuzz::expect_clean([&] {
        const auto cfg = planlayout::read_torchtitan_config(planlayout::fuzz::as_text(data, size), "job.toml");
        planlayout::TorchtitanDims d = cfg.dims;
        d.world = 64;
        for (const bool v2025 : {false, true}) {
            d.mesh_2025 = v2025;
            try {
                check(planlayout::build_torchtitan_groups(d, {"job.toml", "/parallelism"}), d.world);
            } catch (const planlayout::Error& e) {
                if (e.code() != planlayout::ExitCode::BadInput) {
                    __builtin_trap();
                }
            }
        }
    });
    return 0;
}
