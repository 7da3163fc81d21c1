#pragma once
// Calibration of the iteration-time model (models/iteration_time.hpp) to measured per-placement step
// times (Pollux's placements.csv: petuum/adaptdl osdi21-artifact simulator/traces/<app>/). The model fitted is the one
// that rates jobs in a run: predict_step_seconds fills a RingLinks from the placement and calls
// iteration_seconds. Only its free parameters are fitted, per model and GPU type.
#include "models/iteration_time.hpp"

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace dlsim {

/// One measured step: `placement` holds the GPUs used on each node, one digit (1-9) per node.
struct PlacementPoint {
    std::string placement;
    int local_bsz = 1;     ///< per-GPU batch
    double step_time = 0;  ///< s per iteration
    std::string gpu_type;  ///< lower-cased; empty = not named
};

/// The free parameters of the iteration-time model for one model on one GPU type.
struct CommCalibration {
    double compute_intercept_s = 0;   ///< α_c: T_comp(b) = α_c + β_c·b
    double compute_per_sample_s = 0;  ///< β_c (s per sample of the local batch)
    double intra_bytes_per_s = 0;     ///< effective intra-node bandwidth: the ring's slowest intra edge, η included
    double inter_bytes_per_s = 0;     ///< effective inter-node bandwidth: the whole edge, η and channels included
    double step_latency_s = 0;        ///< α per ring step
    double gamma = 1;                 ///< overlap, in [1, 10]
    std::string gpu_type;             ///< the type the points were measured on (empty = not named)

    double compute_seconds(int local_bsz) const { return compute_intercept_s + compute_per_sample_s * local_bsz; }
};

/// What a placement string says about a ring: GPUs, nodes, and whether some node holds 2+ GPUs.
struct PlacementShape {
    int gpus = 0;
    int nodes = 0;
    bool intra = false;
};

/// Parses "22" (2 nodes × 2 GPUs) and the like. Throws InputError unless it is 1 to 4096 digits 1-9.
PlacementShape parse_placement(std::string_view placement);

/// The ring a placement gives: intra-node bandwidth only if some node holds 2+ GPUs, inter-node only
/// if it spans 2+ nodes (the other stays unlimited).
RingLinks ring_links(const PlacementShape& shape, const CommCalibration& c);

/// The step time the simulator's model gives `placement` at `local_bsz`: iteration_seconds with
/// T_comp(b) and `base` (gradient bytes, bucket) with γ replaced by the fitted γ.
double predict_step_seconds(const CommCalibration& c, const CommModel& base, std::string_view placement, int local_bsz);

/// What a fit did (for tests and reports).
struct FitStats {
    int evaluations = 0;     ///< objective evaluations
    std::size_t groups = 0;  ///< distinct (ring shape, local batch) among the points
    double objective = 0;    ///< Σ (predicted / measured − 1)² at the result
};

struct FitOptions {
    /// > 0: hold γ at this value (a profile's own `gamma`) instead of fitting it.
    double fixed_gamma = 0;
    FitStats* stats = nullptr;  ///< filled when set
};

/// Fits the free parameters by minimising Σ (predicted / measured − 1)² over `points`: Nelder–Mead over
/// bounded log-parameters, started from a coarse grid's two best points, then restarted once on all the
/// points. Deterministic (no random draws). `points` must not be empty.
CommCalibration fit_placements(const std::vector<PlacementPoint>& points, const CommModel& base,
                               const FitOptions& options = {});

/// Mean absolute percentage error (in %) of predict_step_seconds over `points`.
double placement_mape(const CommCalibration& c, const CommModel& base, const std::vector<PlacementPoint>& points);

}  // namespace dlsim
