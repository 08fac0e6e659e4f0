// Tests: step times from the text logs runs print (Megatron-LM, torchtitan, tqdm / HF Trainer),
// on the samples of tests/data/ab/logs (their README and generators name each format's source),
// their reconstruction by `ab`, and the error naming every format tried.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "planlayout/error.hpp"
#include "planlayout/ingest/read_file.hpp"
#include "planlayout/ingest/step_log.hpp"
#include "planlayout/verify/ab.hpp"

using planlayout::parse_step_log;
using planlayout::StepLogOptions;
using planlayout::StepSeries;
using planlayout::StepValueKind;
using planlayout::verify::window_step_times;

namespace {

StepSeries sample(const std::string& name, const StepLogOptions& options = {}) {
    const std::string path = std::string(PLANLAYOUT_TEST_DATA_DIR) + "/ab/logs/" + name;
    return parse_step_log(planlayout::read_text_file(path), name, options);
}

double window_mean(const StepSeries& s, planlayout::verify::StepWindow w) {
    const auto t = window_step_times(s, w);
    double sum = 0;
    for (const double v : t) {
        sum += v;
    }
    return sum / static_cast<double>(t.size());
}

}  // namespace

TEST_CASE("Megatron-LM log: interval means per logged iteration, the first-iteration line not resetting") {
    const auto s = sample("megatron-tcp-1.log");
    CHECK(s.format == "megatron-log");
    CHECK(s.kind == StepValueKind::IntervalMean);
    REQUIRE(s.points.size() == 7);  // iterations 1, 5, 10, ..., 30
    CHECK(s.points[0].step == 1);
    CHECK(s.points[0].seconds == doctest::Approx(38.0));
    CHECK(s.points[0].line == 3);
    CHECK(s.points[1].step == 5);
    CHECK(s.points[1].first_step == 1);  // the line at 5 covers 1..5: the first line did not reset
    CHECK(s.points[2].first_step == 6);
    CHECK(s.points[2].seconds == doctest::Approx(4.524));
    // The generator's true mean of steps 6-20 (make_megatron.py prints it): 4.508 s.
    CHECK(window_mean(s, {6, 20}) == doctest::Approx(4.508).epsilon(1e-6));
    // srun --label prefixes ("15: ") are read through.
    const auto r = sample("megatron-rdma-1.log");
    CHECK(window_mean(r, {6, 20}) == doctest::Approx(3.200).epsilon(1e-6));
}

TEST_CASE("Megatron-LM log: a window that cuts a logged interval names the window that fits") {
    const auto s = sample("megatron-tcp-1.log");
    CHECK_THROWS_WITH_AS((void)window_step_times(s, {8, 20}),
                         "megatron-tcp-1.log: the log gives mean step times over intervals (elapsed time per iteration "
                         "(ms), logged at steps 1, 5, 10, ..., 30), so a window must start after a logged step and end "
                         "on one; 8:20 does not; pass --window 11:20",
                         planlayout::Error);
    CHECK(planlayout::verify::aligned_window(s, {6, 28}).first == 6);
    CHECK(planlayout::verify::aligned_window(s, {6, 28}).last == 25);
}

TEST_CASE("Megatron-LM log lines at every iteration, no first-line rule needed") {
    std::string text;
    for (int i = 1; i <= 8; ++i) {
        text += " iteration        " + std::to_string(i) + "/      8 | consumed samples:            " +
                std::to_string(i * 8) + " | elapsed time per iteration (ms): " + std::to_string(1000 + i) +
                ".0 | global batch size:     8 |\n";
    }
    const auto s = parse_step_log(text, "m.log");
    REQUIRE(s.points.size() == 8);
    CHECK(s.points[3].first_step == 4);
    CHECK(window_mean(s, {6, 8}) == doctest::Approx(1.007));
}

TEST_CASE("torchtitan log: tps turned into seconds with the tokens of a step per GPU") {
    StepLogOptions o;
    o.tokens_per_gpu_step = 8192;
    const auto s = sample("torchtitan-tcp-1.log", o);
    CHECK(s.format == "torchtitan-log");
    CHECK(s.kind == StepValueKind::IntervalMean);
    REQUIRE(s.points.size() == 7);  // steps 1, 5, ..., 30; the `validate step:` line is not a step
    CHECK(s.points[1].first_step == 2);
    CHECK(s.points[2].seconds == doctest::Approx(8192.0 / 1811.0));
    // tps is printed rounded to a whole token per second: within 0.05 % of the true 4.508 s.
    CHECK(window_mean(s, {6, 20}) == doctest::Approx(4.508).epsilon(5e-4));
    CHECK(window_mean(sample("torchtitan-rdma-1.log", o), {6, 20}) == doctest::Approx(3.200).epsilon(5e-4));
    CHECK_THROWS_WITH_AS((void)sample("torchtitan-tcp-1.log"),
                         "torchtitan-tcp-1.log:2: a torchtitan log gives tps (tokens per second per GPU), not seconds; "
                         "pass ab --tokens-per-gpu-step N (global batch x sequence length / GPUs) to turn it into seconds "
                         "per step, or give the step time in seconds (--measured-step ARM=SECONDS)",
                         planlayout::Error);
}

TEST_CASE("tqdm / HF Trainer progress bar: the smoothed s/it is unsmoothed back into step times") {
    const auto s = sample("hf-trainer-tcp-1.log");
    CHECK(s.format == "tqdm");
    CHECK(s.kind == StepValueKind::Smoothed);
    CHECK(s.smoothing == doctest::Approx(0.3));
    REQUIRE(s.points.size() == 30);  // the evaluation bar (total 4) and redraws are skipped
    CHECK(s.points[0].seconds == doctest::Approx(12.0));
    const auto t = window_step_times(s, {1, 3});
    CHECK(t[0] == doctest::Approx(12.0));
    CHECK(t[1] == doctest::Approx(6.1).epsilon(0.01));
    // tqdm prints 2 decimals; unsmoothing amplifies that rounding per step, the window mean stays
    // within 0.5 % of the true 4.508 s and 3.200 s.
    CHECK(window_mean(s, {6, 20}) == doctest::Approx(4.508).epsilon(5e-3));
    CHECK(window_mean(sample("hf-trainer-rdma-1.log"), {6, 20}) == doctest::Approx(3.200).epsilon(5e-3));
}

TEST_CASE("tqdm it/s bars read as the inverse") {
    const std::string text = "\r  0%|          | 0/9 [00:00<?, ?it/s]\r 11%|#         | 1/9 [00:00<00:04,  2.00it/s]"
                             "\r 22%|##        | 2/9 [00:00<00:03,  2.00it/s]\n";
    const auto s = parse_step_log(text, "bar.log");
    REQUIRE(s.points.size() == 2);
    CHECK(s.points[1].seconds == doctest::Approx(0.5));
    CHECK(window_step_times(s, {2, 2})[0] == doctest::Approx(0.5));
}

TEST_CASE("a log in no known format names every format tried") {
    CHECK_THROWS_WITH_AS((void)parse_step_log("epoch 1 done\nepoch 2 done\n", "run.log"),
                         "run.log: no step times found: not a CSV or JSON export, a Megatron-LM log ('iteration N/ M | "
                         "... elapsed time per iteration (ms): X'), a torchtitan log ('step: N  loss: ...  tps: T'), or a "
                         "tqdm / HF Trainer progress bar ('N/M [mm:ss<mm:ss, X s/it]'); pass the run's own log or a CSV "
                         "export with a step column and a step-time column (docs/commands/ab.md lists the formats)",
                         planlayout::Error);
    CHECK_THROWS_WITH_AS((void)parse_step_log(" iteration 5/ 10 | elapsed time per iteration (ms): abc |\n", "bad.log"),
                         "bad.log:1: value 'abc' is not a positive number; check the log line is complete",
                         planlayout::Error);
    CHECK_THROWS_WITH_AS((void)parse_step_log(" consumed samples: 8 | elapsed time per iteration (ms): 12.0 |\n", "half.log"),
                         "half.log:1: a Megatron-LM log line without 'iteration N/ M |' before its elapsed time; pass the "
                         "log as Megatron-LM printed it (training.py training_log)",
                         planlayout::Error);
    // Two runs in one log (a restart): the steps go back.
    CHECK_THROWS_WITH_AS(
        (void)parse_step_log(" iteration 10/ 20 | elapsed time per iteration (ms): 12.0 |\n"
                             " iteration 5/ 20 | elapsed time per iteration (ms): 12.0 |\n",
                             "two.log"),
        "two.log:2: step 5 does not follow step 10; one log holds one run: split the log where the run restarted",
        planlayout::Error);
}

TEST_CASE("torchtitan's W&B export column time_metrics/end_to_end(s) reads as interval means") {
    const auto s = parse_step_log("_step,time_metrics/end_to_end(s),loss\n1,30,9\n5,4.5,8\n10,4.4,7\n", "w.csv");
    CHECK(s.kind == StepValueKind::IntervalMean);
    REQUIRE(s.points.size() == 3);
    CHECK(s.points[1].first_step == 2);
    CHECK(window_mean(s, {6, 10}) == doctest::Approx(4.4));
}
