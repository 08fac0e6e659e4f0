// Tests: reading the model, training and transport sections.
#include <doctest/doctest.h>

#include "planlayout/analysis/model_spec.hpp"
#include "planlayout/error.hpp"

using namespace planlayout;  // NOLINT(google-build-using-namespace)
