// Analysis: the one pipeline after the inputs are read — resolved spec → groups → the pairs each
// group's collective uses, classified → traffic → cost → score. plan(), search, compare and
// every command that scores a layout run it; nothing here reads a file.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "planlayout/analysis/allocation.hpp"
#include "planlayout/analysis/arms.hpp"
#include "planlayout/analysis/calibrate.hpp"
#include "planlayout/analysis/edge_class.hpp"
#include "planlayout/model/step_model.hpp"
#include "planlayout/parallel/groups.hpp"
#include "planlayout/parallel/placement.hpp"
#include "planlayout/topology/cluster.hpp"

namespace planlayout {

/// What the score needs besides the classified groups: the layout's model, training, transport
/// and score sections, and the calibrations its transport names (already read).
struct ScoreSetup {
    std::optional<ModelSpec> model;
    std::optional<TrainingSpec> training;
    TransportSpec transport;
    ScoreFactors given;
    std::vector<Calibration> calibrations;  // applied in order
    std::optional<ArmChoice> arms;          // the arms the hardware allows (choose_arms); evaluate()
                                            // decides them when absent (search decides once)
    std::vector<GpuSpec> gpus;              // the GPU specs known (layouts/gpus, read by the caller)
    std::optional<GpuChoice> gpu;           // the GPU compute runs on; evaluate() decides it when
                                            // absent (gpu_of_layout), search decides once
    std::optional<ComputeCalibration> compute_calibration;  // the one that set training.compute_scale
};

/// The GPU of a layout: training.gpu, else the used node templates' gpu_model, else the default
/// (compute_model.hpp: choose_gpu).
[[nodiscard]] GpuChoice gpu_of_layout(const Cluster& cluster, const Placement& placement, const ScoreSetup& setup);

/// How many groups of each kind are classified: every group, or the groups through a few
/// representative nodes (sampled_footprints.hpp; search uses it on thousands of candidates).
enum class Coverage { Every, Sampled };

struct PipelineOptions {
    std::vector<std::string> kinds;  // only these kinds (empty: every kind)
    Coverage coverage = Coverage::Every;
    std::function<void(std::int64_t, std::int64_t)> progress;  // optional, for long runs
    bool domain_what_if = false;  // a cluster with NVLink domains: also score it without them (Score::domain_what_if)
    bool allocation = false;      // the placement is an allocation: its straddles and a compact one (Evaluation::allocation)
};

struct Evaluation {
    Groups groups;
    std::vector<KindEdges> kinds;  // creation order
    std::optional<Score> score;    // when a ScoreSetup was given
    std::optional<AllocationReport> allocation;  // when PipelineOptions::allocation
};

/// The sizes the traffic model reads, from a resolved spec.
[[nodiscard]] ParallelSizes parallel_sizes(const ResolvedSpec& spec);
/// The sizes of a framework's groups: groups.spec's, and the group sizes of its "fsdp",
/// "dp_replicate" and "efsdp" kinds (0 when it has none: Megatron's data parallelism).
[[nodiscard]] ParallelSizes parallel_sizes(const Groups& groups);

/// The hardware numbers of the cluster (priors), and the transport with every calibration's fit
/// in transport.fits: the cost of a collective uses the fit of its (transport, op, class), NV/PCIe
/// fits its intra-node time, whatever else the files hold.
struct CalibratedHardware {
    NodeHardware hardware;
    TransportSpec transport;
};

[[nodiscard]] CalibratedHardware calibrated_hardware(const Cluster& cluster,
                                                     const TransportSpec& transport,
                                                     const std::vector<Calibration>& calibrations);

/// Scores classified kinds on the arms chosen: each kind's worst group footprint becomes its
/// placed group. When the hardware took the requested candidate away, the score also carries
/// what it would predict on hardware that allows it (Score::what_if). fabric: PXN and the leaf
/// uplinks' oversubscription, which a kind whose groups cross the spine (XRAIL, XPOD) pays.
[[nodiscard]] Score score_kinds(const ScoreSetup& setup,
                                const ArmChoice& arms,
                                const CalibratedHardware& calibrated,
                                const ParallelSizes& sizes,
                                const std::vector<KindEdges>& kinds,
                                const FabricSpec& fabric);

/// Runs the pipeline on Megatron's groups of `spec`. Throws Error (BadInput) for a kind the spec
/// does not create.
[[nodiscard]] Evaluation evaluate(const Cluster& cluster,
                                  const Placement& placement,
                                  const ResolvedSpec& spec,
                                  const PipelineOptions& options,
                                  const std::optional<ScoreSetup>& setup);

/// Runs the pipeline on any framework's groups (parallel/framework.hpp); the score keys each kind
/// by its role and sizes the traffic by groups.spec and the FSDP/HSDP roles (parallel_sizes).
[[nodiscard]] Evaluation evaluate(const Cluster& cluster,
                                  const Placement& placement,
                                  Groups groups,
                                  const PipelineOptions& options,
                                  const std::optional<ScoreSetup>& setup);

}  // namespace planlayout
