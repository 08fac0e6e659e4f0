// Tests: step-log reader (CSV with tags or columns, JSON) and its errors.
#include <doctest/doctest.h>

#include "planlayout/error.hpp"
#include "planlayout/ingest/step_log.hpp"

using planlayout::parse_step_log;
using planlayout::StepValueKind;

TEST_CASE("CSV with comment tags and a train_speed(s/it) column reads as cumulative means") {
    const auto s = parse_step_log("# arm: tcp\n# round: 2\nstep,train_speed(s/it)\n1,9.5\n2,7.25\n\n3,6.0\n",
                                  "a.csv");
    CHECK(s.arm == "tcp");
    CHECK(s.round == "2");
    CHECK(s.kind == StepValueKind::CumulativeMean);
    CHECK(s.value_column == "train_speed(s/it)");
    REQUIRE(s.points.size() == 3);
    CHECK(s.points[2].step == 3);
    CHECK(s.points[2].seconds == doctest::Approx(6.0));
    CHECK(s.points[2].line == 7);
}

TEST_CASE("CSV with arm/round columns, a step_time column and empty cells") {
    const auto s = parse_step_log("arm,round,step,loss,step_time\nrdma,1,1,2.0,30\nrdma,1,2,1.9,\nrdma,1,3,1.8,3.1\n",
                                  "b.csv");
    CHECK(s.arm == "rdma");
    CHECK(s.round == "1");
    CHECK(s.kind == StepValueKind::Instant);
    CHECK(s.points.size() == 2);
}

TEST_CASE("JSON runs carry their tags and kind") {
    const auto s = parse_step_log(
        R"({"arm": "gdrdma", "round": 3, "kind": "instant", "steps": [{"step": 1, "value": 10}, {"step": 2, "value": 3.5}]})",
        "c.json");
    CHECK(s.arm == "gdrdma");
    CHECK(s.round == "3");
    CHECK(s.kind == StepValueKind::Instant);
    CHECK(s.points.size() == 2);
}

TEST_CASE("malformed step logs name the file and line") {
    CHECK_THROWS_WITH_AS((void)parse_step_log("step,loss\n1,2\n", "d.csv"),
                         "d.csv:1: header needs a step column and a step-time column; name them step and "
                         "train_speed(s/it) (cumulative mean) or step_time (seconds per step)",
                         planlayout::Error);
    CHECK_THROWS_WITH_AS((void)parse_step_log("step,step_time\n1,2\n1,3\n", "e.csv"),
                         "e.csv:3: step 1 does not follow step 1; sort the rows by step and drop duplicates",
                         planlayout::Error);
    CHECK_THROWS_WITH_AS((void)parse_step_log("step,step_time\n1,abc\n", "f.csv"),
                         "f.csv:2: value 'abc' is not a number; give seconds per iteration, e.g. 4.49",
                         planlayout::Error);
    CHECK_THROWS_WITH_AS((void)parse_step_log("step,step_time\n1,-2\n", "g.csv"),
                         "g.csv:2: value '-2' is not a positive number of seconds; give seconds per iteration, e.g. 4.49",
                         planlayout::Error);
    CHECK_THROWS_AS((void)parse_step_log("step,step_time\n1,2,3\n", "h.csv"), planlayout::Error);
    CHECK_THROWS_AS((void)parse_step_log("arm,step,step_time\ntcp,1,2\nrdma,2,2\n", "i.csv"), planlayout::Error);
    CHECK_THROWS_AS((void)parse_step_log("step,value\n1,2\n", "j.csv"), planlayout::Error);
    CHECK_THROWS_AS((void)parse_step_log("", "k.csv"), planlayout::Error);
    CHECK_THROWS_AS((void)parse_step_log("step,step_time\n", "l.csv"), planlayout::Error);
    CHECK_THROWS_AS((void)parse_step_log(std::string("step,step_time\n1,\0 2\n", 20), "m.csv"), planlayout::Error);
    CHECK_THROWS_AS((void)parse_step_log(R"({"steps": [{"step": 0, "value": 1}]})", "n.json"), planlayout::Error);
    CHECK_THROWS_AS((void)parse_step_log(R"({"steps": 3})", "o.json"), planlayout::Error);
    CHECK_THROWS_WITH_AS((void)parse_step_log(R"({"steps": [{"step": 1, "value": 1.5e300}]})", "v.json"),
                         doctest::Contains("v.json (/steps/0/value)"), planlayout::Error);
    CHECK_THROWS_AS((void)parse_step_log("{\"steps\": [", "p.json"), planlayout::Error);
}

// Issue 41 item 8: a Megatron-LM log at 1e308 ms gave `null` medians in `ab --format json` and
// 300-digit figures in text, while --measured-step refused the same log. One range, one check
// (require_step_seconds), in every format the reader takes.
TEST_CASE("every step-log format is held to the one step-time range, with one message") {
    const std::string megatron = " [2026-03-04 10:15:40.123456] iteration        1/      30 | consumed samples:           16 | "
                                 "elapsed time per iteration (ms): 1e308 | learning rate: 3.000000E-05 |\n";
    CHECK_THROWS_WITH_AS((void)parse_step_log(megatron, "m.log"),
                         "m.log:1: a step time of 1e+305 s is outside 1e-6 to 1e6 s; step times are seconds per step: "
                         "check the unit of the log's value column or of the number given",
                         planlayout::Error);
    CHECK_THROWS_WITH_AS((void)parse_step_log("step,step_time\n1,2\n2,1e7\n", "a.csv"),
                         doctest::Contains("a.csv:3: a step time of 1e+07 s is outside 1e-6 to 1e6 s"), planlayout::Error);
    CHECK_THROWS_WITH_AS((void)parse_step_log("step,step_time\n1,1e-7\n", "b.csv"),
                         doctest::Contains("b.csv:2: a step time of 1e-07 s is outside 1e-6 to 1e6 s"), planlayout::Error);
    CHECK_THROWS_WITH_AS((void)parse_step_log(R"({"kind": "instant", "steps": [{"step": 1, "value": 1}, {"step": 2, "value": 1e300}]})", "c.json"),
                         doctest::Contains("c.json (/steps/1): a step time of 1e+300 s is outside 1e-6 to 1e6 s"),
                         planlayout::Error);
    // tqdm writes seconds per iteration as {:5.2f}s/it: its largest in a real bar are of this form.
    CHECK_THROWS_WITH_AS((void)parse_step_log(" 3%|3         | 1/30 [00:12<05:47, 9999999.99s/it]\n", "hf.log"),
                         doctest::Contains("hf.log:1: a step time of 1e+07 s is outside 1e-6 to 1e6 s"), planlayout::Error);
    CHECK_THROWS_WITH_AS(planlayout::require_step_seconds(1e308, "--measured-step"),
                         "--measured-step: a step time of 1e+308 s is outside 1e-6 to 1e6 s; step times are seconds per step: "
                         "check the unit of the log's value column or of the number given",
                         planlayout::Error);
    // The bounds themselves are in.
    CHECK_NOTHROW(planlayout::require_step_seconds(1e-6, "x"));
    CHECK_NOTHROW(planlayout::require_step_seconds(1e6, "x"));
    CHECK(parse_step_log("step,step_time\n1,1e6\n2,1e-6\n", "d.csv").points.size() == 2);
}
