// Tests: the measured GEMM table (topology/gemm_table.hpp), its section of a kernel table file
// (ingest/kernel_table_json.hpp) and the compute model's use of it (model/compute_model.hpp), by hand.
#include <doctest/doctest.h>

#include <cmath>
#include <memory>
#include <string>

#include "planlayout/error.hpp"
#include "planlayout/ingest/gpu_spec_json.hpp"
#include "planlayout/ingest/kernel_table_json.hpp"
#include "planlayout/ingest/read_file.hpp"
#include "planlayout/model/compute_model.hpp"

using namespace planlayout;  // NOLINT(google-build-using-namespace)

namespace {

/// A full 2 x 1 x 2 grid: M 512 and 2048, N 1024, K 1024 and 4096.
GemmTable corner_table() {
    return GemmTable({{512, 1024, 1024, 0.2}, {512, 1024, 4096, 0.4}, {2048, 1024, 1024, 0.5}, {2048, 1024, 4096, 0.7}},
                     "test", "H200");
}

/// The required keys of a kernel table file, before its optional sections.
constexpr const char* kHead = R"({"gpu": "H200", "peak_bf16_tflops": 989, "spec_hbm_gbyte_s": 4800, "copy_gbyte_s": 4296,
        "launch_us": 6, "embedding_bwd_ps": 1, "attention": [], "unfused_attention": {},
        "blocks": {"hf": {"rmsnorm": [1, 1], "rope": [1, 1], "swiglu": [1, 1], "residual": [1, 1], "loss": [1, 1]}},)";

/// The error text of reading `gemm` as a table's gemm section ("" when it is accepted).
std::string gemm_error(const std::string& gemm) {
    try {
        (void)kernel_table_from_json(parse_json_text(std::string(kHead) + R"("gemm": )" + gemm + "}", "k.json"), "k.json");
    } catch (const Error& e) {
        return e.what();
    }
    return "";
}

GpuSpec h200_with(const std::shared_ptr<const KernelTable>& t) {
    GpuSpec g;
    g.name = "H200";
    g.bf16_tflops = 989;
    g.fp8_tflops = 1979;
    g.hbm_gbyte_s = 4800;
    g.kernels = t;
    return g;
}

}  // namespace

TEST_CASE("a measured GEMM shape returns its measured efficiency, between them, trilinear in log2, outside, clamped") {
    const GemmTable t = corner_table();
    CHECK(*t.efficiency(512, 1024, 1024) == doctest::Approx(0.2));
    CHECK(*t.efficiency(2048, 1024, 4096) == doctest::Approx(0.7));
    CHECK(*t.efficiency(1024, 1024, 1024) == doctest::Approx(0.35));  // halfway in log2(M)
    CHECK(*t.efficiency(1024, 1024, 2048) == doctest::Approx(0.45));  // the centre of the cell
    CHECK(*t.efficiency(1024, 1024, 2048) == doctest::Approx((0.2 + 0.4 + 0.5 + 0.7) / 4));
    // Clamped per dimension to the measured range: below, above, and N (one value) anywhere.
    CHECK(*t.efficiency(64, 1024, 1024) == doctest::Approx(0.2));
    CHECK(*t.efficiency(1e6, 1024, 1e6) == doctest::Approx(0.7));
    CHECK(*t.efficiency(512, 8, 1024) == doctest::Approx(0.2));
    CHECK(*t.efficiency(512, 65536, 4096) == doctest::Approx(0.4));
    CHECK_FALSE(t.efficiency(0, 1024, 1024).has_value());
    CHECK_FALSE(GemmTable().efficiency(512, 1024, 1024).has_value());
}

TEST_CASE("an unmeasured grid node is the inverse-distance mean of its nearest measured shapes, monotone where the data is") {
    // Along M at N = K = 1024, rising; and one shape off that line, so the grid has unmeasured nodes.
    const GemmTable t({{512, 1024, 1024, 0.1}, {1024, 1024, 1024, 0.3}, {2048, 1024, 1024, 0.5}, {4096, 1024, 1024, 0.6},
                       {4096, 4096, 4096, 0.8}},
                      "test", "H200");
    for (const double m : {512.0, 1024.0, 2048.0, 4096.0}) {  // measured nodes keep their values
        CHECK(*t.efficiency(m, 1024, 1024) > 0);
    }
    CHECK(*t.efficiency(4096, 4096, 4096) == doctest::Approx(0.8));
    double last = 0;
    for (int quarter = 0; quarter <= 12; ++quarter) {  // quarter octaves from 512 to 4096
        const double e = *t.efficiency(512 * std::exp2(quarter / 4.0), 1024, 1024);
        CHECK(e >= last);
        CHECK(e >= 0.1);
        CHECK(e <= 0.6);
        last = e;
    }
    // An unmeasured node lies between the efficiencies of the shapes around it.
    const double node = *t.efficiency(512, 4096, 4096);
    CHECK(node > 0.1);
    CHECK(node < 0.8);
    // Deterministic: the same points give the same grid.
    const GemmTable again({{512, 1024, 1024, 0.1}, {1024, 1024, 1024, 0.3}, {2048, 1024, 1024, 0.5}, {4096, 1024, 1024, 0.6},
                           {4096, 4096, 4096, 0.8}},
                          "test", "H200");
    CHECK(*again.efficiency(700, 3000, 1500) == *t.efficiency(700, 3000, 1500));
}

TEST_CASE("the kernel table's gemm section is read, and a missing field, a non-positive value or points out of order are one-line errors") {
    const KernelTable t = kernel_table_from_json(
        parse_json_text(std::string(kHead) + R"("gemm": {"source": "s", "measured_on": "H200", "points": [{"m": 512, "n": 1024, "k": 1024, "eff": 0.2},
            {"m": 2048, "n": 1024, "k": 1024, "eff": 0.5}]}})", "k.json"), "k.json");
    REQUIRE(t.gemm.points().size() == 2);
    CHECK(t.gemm.measured_on() == "H200");
    CHECK(*t.gemm.efficiency(2048, 1024, 1024) == doctest::Approx(0.5));
    const KernelTable none = kernel_table_from_json(parse_json_text(std::string(kHead) + R"("fp8_source": ""})", "k.json"), "k.json");
    CHECK(none.gemm.empty());
    const std::string p0 = R"({"m": 512, "n": 1024, "k": 1024, "eff": 0.2})";
    const auto one_line = [](const std::string& e) { return !e.empty() && e.find('\n') == std::string::npos; };
    const std::string missing = gemm_error(R"({"points": [)" + p0 + R"(, {"m": 512, "n": 1024, "k": 2048}]})");
    CHECK(one_line(missing));
    CHECK(missing.find("k.json (/gemm/points/1/eff)") != std::string::npos);
    CHECK(missing.find("missing: eff") != std::string::npos);
    const std::string zero = gemm_error(R"({"points": [)" + p0 + R"(, {"m": 512, "n": 1024, "k": 2048, "eff": 0}]})");
    CHECK(one_line(zero));
    CHECK(zero.find("k.json (/gemm/points/1/eff)") != std::string::npos);
    const std::string negative = gemm_error(R"({"points": [{"m": -512, "n": 1024, "k": 1024, "eff": 0.2}]})");
    CHECK(one_line(negative));
    CHECK(negative.find("k.json (/gemm/points/0/m)") != std::string::npos);
    const std::string twice = gemm_error(R"({"points": [)" + p0 + ", " + p0 + "]}");
    CHECK(one_line(twice));
    CHECK(twice.find("k.json (/gemm/points/1)") != std::string::npos);
    CHECK(twice.find("out of order or a shape twice") != std::string::npos);
    const std::string unsorted = gemm_error(R"({"points": [{"m": 2048, "n": 1024, "k": 1024, "eff": 0.5}, )" + p0 + "]}");
    CHECK(unsorted.find("k.json (/gemm/points/1)") != std::string::npos);
    CHECK(gemm_error(R"({"points": []})").find("k.json (/gemm/points)") != std::string::npos);
    CHECK(gemm_error(R"({"points": [{"m": 512, "n": 1024, "k": 1024, "eff": 0.2, "tflops": 1}]})").find("unknown key") != std::string::npos);
}

TEST_CASE("the built-in tables: the H200's GEMMs measured there, the H100's carried from it and labelled so") {
    const auto specs = builtin_gpu_specs();
    const GpuSpec* h200 = match_gpu(specs, "H200");
    const GpuSpec* h100 = match_gpu(specs, "H100 SXM");
    REQUIRE(h200 != nullptr);
    REQUIRE(h100 != nullptr);
    const GemmTable& g = h200->kernels->gemm;
    REQUIRE(g.points().size() == 400);
    CHECK(g.measured_on() == "H200");
    CHECK(g.source().find("tests/gpu/data/h200-ops/ops-h200.json") != std::string::npos);
    for (const GemmPoint& p : g.points()) {  // each measured shape returns its own efficiency
        CHECK(*g.efficiency(p.m, p.n, p.k) == doctest::Approx(p.eff));
    }
    CHECK(h100->kernels->gemm.measured_on() == "H200");
    CHECK(h100->kernels->gemm.source().find("carried to the H100 SXM") != std::string::npos);
    CHECK(h100->kernels->gemm.points().size() == g.points().size());
}

TEST_CASE("the compute model prices a bf16 GEMM from the table when it has one, the prior curve without, the floor kept") {
    KernelTable kt;
    kt.gpu = "H200";
    kt.peak_bf16_tflops = 989;
    kt.gemm = corner_table();
    const GpuSpec with = h200_with(std::make_shared<const KernelTable>(kt));
    const GpuSpec without = h200_with(nullptr);
    ModelOp op;
    op.m = 2048;
    op.n = 1024;
    op.k = 4096;
    // In microseconds: doctest's Approx adds an absolute margin of about 1e-5, a third of these times in seconds.
    const auto us = [](double s) { return s * 1e6; };
    const double flops = 2.0 * op.m * op.n * op.k;
    CHECK(us(op_seconds(op, with)) == doctest::Approx(us(flops / (989e12 * 0.7))));
    CHECK(us(op_seconds(op, without)) == doctest::Approx(us(flops / (989e12 * gemm_efficiency(op.m, op.n, op.k)))));
    CHECK(us(op_seconds(op, with)) < 0.95 * us(op_seconds(op, without)));  // 0.7 against the prior's 0.65
    KernelTable empty = kt;
    empty.gemm = GemmTable();
    CHECK(us(op_seconds(op, h200_with(std::make_shared<const KernelTable>(empty)))) == doctest::Approx(us(op_seconds(op, without))));
    op.fp8 = true;  // FP8 ops keep the FP8 peak on the prior curve
    CHECK(us(op_seconds(op, with)) == doctest::Approx(us(op_seconds(op, without))));
    ModelOp tiny;  // clamped to the smallest measured shape's efficiency, and at least one kernel's time
    tiny.m = 16;
    tiny.n = 16;
    tiny.k = 16;
    CHECK(us(op_seconds(tiny, with)) == doctest::Approx(us(numbers::kKernelFloorSeconds.value)));
}
