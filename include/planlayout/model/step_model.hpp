// Model: the performance model's one entry for a training step (docs/architecture.md, "The
// performance model"). The model's inputs in — the model, training and transport sections, the
// parallel sizes, one placed group per traffic role, the given factors, the GPU — and the step
// prediction per transport arm out: step times, compute (compute_model.hpp), each kind's
// collectives with the windows that hide them (cost.hpp, overlap.hpp), MFU and the benefit. Pure:
// no I/O. analysis/ (the pipeline, and search and plan() through it) predicts a step only here;
// memory.hpp (memory per GPU) and cost.hpp (one collective's time, for calibrate and collective)
// are the model's two other entries.
#pragma once

#include "planlayout/model/score.hpp"

namespace planlayout {

/// The model's inputs for one step (the sections, sizes, placed groups, given factors and GPU;
/// score.hpp's ScoreInput).
using StepInputs = ScoreInput;

/// The step prediction per transport arm (baseline, candidate) with its breakdown (score.hpp's Score).
using StepPrediction = Score;

/// The step prediction for these inputs. Throws Error (BadInput) when neither a model nor all
/// three factors are given.
[[nodiscard]] StepPrediction predict_step(const StepInputs& in);

}  // namespace planlayout
