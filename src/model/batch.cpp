// Model: the batch triple settled as DeepSpeed settles it (model/batch.hpp).
#include "planlayout/model/batch.hpp"

#include "planlayout/error.hpp"

namespace planlayout {
namespace {

// a x b, refused past int64 (the sizes are read up to 2^63 - 1).
std::int64_t product_of(std::int64_t a, std::int64_t b, const std::string& where) {
    if (a > 0 && b > 0 && a > INT64_MAX / b) {
        throw input_error(where, "the derived global batch overflows 64 bits", "give smaller batch sizes");
    }
    return a * b;
}

}  // namespace

Batch settle_batch(const BatchGiven& given, std::int64_t data_world, const BatchPlaces& places) {
    const auto& tb = given.global_batch;
    const auto& mb = given.micro_batch;
    const auto& ga = given.grad_accum;
    const std::int64_t w = data_world > 0 ? data_world : 1;
    Batch b;
    // The six cases of _set_batch_related_parameters, in its order.
    if (tb && mb && ga) {
        b = {*tb, *mb, *ga};
    } else if (tb && mb) {
        b = {*tb, *mb, *tb / *mb / w};
    } else if (tb && ga) {
        b = {*tb, *tb / w / *ga, *ga};
    } else if (mb && ga) {
        b = {product_of(product_of(*mb, *ga, places.micro_batch), w, places.micro_batch), *mb, *ga};
    } else if (tb) {
        b = {*tb, *tb / w, 1};
    } else if (mb) {
        b = {product_of(*mb, w, places.micro_batch), *mb, 1};
    } else {
        throw input_error(places.global_batch, "either train_batch_size or train_micro_batch_size_per_gpu needs to be provided (DeepSpeed's refusal)",
                          "give the micro batch (train_micro_batch_size_per_gpu, --micro-batch-size) or the global batch");
    }
    const std::string s_tb = std::to_string(b.global_batch);
    const std::string s_mb = std::to_string(b.micro_batch);
    const std::string s_ga = std::to_string(b.grad_accum);
    const std::string s_w = std::to_string(w);
    const std::string product = s_mb + " * " + s_ga + " * " + s_w;
    // _batch_assertion, in its order.
    if (b.global_batch <= 0) {
        throw input_error(places.global_batch, "Train batch size: " + s_tb + " has to be greater than 0 (DeepSpeed's refusal)",
                          "give a global batch of at least micro x gas x data-parallel size");
    }
    if (b.micro_batch <= 0) {
        throw input_error(tb && !mb ? places.global_batch : places.micro_batch,
                          "Micro batch size per gpu: " + s_mb + " has to be greater than 0 (DeepSpeed's refusal: derived as train_batch_size " +
                              s_tb + " // world_size " + s_w + (ga ? " // gradient_accumulation_steps " + s_ga : std::string()) + ")",
                          "make the global batch at least gas x " + s_w + ", or give the micro batch");
    }
    if (b.grad_accum <= 0) {
        throw input_error(tb && !ga ? places.global_batch : places.grad_accum,
                          "Gradient accumulation steps: " + s_ga + " has to be greater than 0 (DeepSpeed's refusal: derived as train_batch_size " +
                              s_tb + " // micro " + s_mb + " // world_size " + s_w + ")",
                          "make the global batch at least micro x " + s_w);
    }
    // Compared by division: the product of the three may not fit in 64 bits. Only a given global
    // batch can disagree (a derived one is the product itself), so the refusal names it.
    const bool equal = b.global_batch % w == 0 && (b.global_batch / w) % b.micro_batch == 0 &&
                       b.global_batch / w / b.micro_batch == b.grad_accum;
    if (!equal) {
        std::string fix = "make train_batch_size = micro x gas x data-parallel size";
        if (b.micro_batch <= INT64_MAX / b.grad_accum / w) {  // the product fits
            fix = "set the global batch (train_batch_size) to " + std::to_string(b.micro_batch * b.grad_accum * w) +
                  (tb && mb && ga ? ", or leave one of the three out to have it derived" : ", or give sizes that divide it");
        }
        throw input_error(places.global_batch,
                          "Check batch related parameters. train_batch_size is not equal to micro_batch_per_gpu * "
                          "gradient_acc_step * world_size " + s_tb + " != " + product + " (DeepSpeed's refusal)",
                          fix);
    }
    return b;
}

}  // namespace planlayout
