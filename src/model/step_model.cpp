// Model: the performance model's one entry for a training step (planlayout/model/step_model.hpp).
#include "planlayout/model/step_model.hpp"

#include "planlayout/model/score.hpp"

namespace planlayout {

StepPrediction predict_step(const StepInputs& in) { return compute_score(in); }

}  // namespace planlayout
