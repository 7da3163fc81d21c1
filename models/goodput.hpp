#pragma once
// The elastic job model (models/README.md, "Elastic jobs"): Pollux's goodput = throughput × statistical
// efficiency (Qiao et al., OSDI'21; petuum/adaptdl, adaptdl/goodput.py and the osdi21-artifact
// simulator's applications.py). A job's progress is counted in samples at its application's initial
// batch size M0; it finishes when its epoch passes the application's completion epoch.
//
// Units: seconds, samples, samples/s. Everything here is a pure function of a GoodputProfile (loaded
// from a profile's `goodput` block, models/profiles/README.md) and its arguments: no engine state.
#include "models/measured_steps.hpp"

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace dlsim {

/// Pollux's step-time parameters for one application on one GPU type (adaptdl goodput.py PerfParams):
/// T_accum(b) = α_c + β_c·b; T_net = α_n + β_n·max(K−2, 1e-8) across nodes, α_r + β_r·max(K−2, 1e-8)
/// within one node, 1e-8 + 1e-8·max(K−2, 1e-8) on one GPU; T_optim = (T_accum^γ + T_net^γ)^(1/γ);
/// one step with s accumulation steps = s·T_accum + T_optim.
struct PerfParams {
    double alpha_c = 0, beta_c = 0;  ///< compute: s, s per sample of the per-GPU micro-batch
    double alpha_n = 0, beta_n = 0;  ///< network across nodes: s, s per replica beyond 2
    double alpha_r = 0, beta_r = 0;  ///< network within a node: s, s per replica beyond 2
    double gamma = 1;                ///< compute/network overlap, in [1, 10]
    /// Per-GPU micro-batch limits on this type (Sia measures each type over its own range and memory):
    /// 0 = the application's (GoodputProfile::min_local_bsz / max_local_bsz).
    int min_local_bsz = 0, max_local_bsz = 0;
};

/// How a job's total batch is split: M = replicas × atomic_bsz × (accum_steps + 1).
struct BatchConfig {
    int atomic_bsz = 0;   ///< per-GPU micro-batch
    int accum_steps = 0;  ///< gradient-accumulation steps per optimizer step
};

/// What a job achieves on one configuration.
struct GoodputPoint {
    double throughput = 0;  ///< samples/s: M / step time
    double efficiency = 0;  ///< statistical efficiency E(M) in (0, 1]
    double goodput = 0;     ///< throughput × efficiency, samples at M0 per second
    double step_seconds = 0;
    BatchConfig batch;
    int batch_size = 0;  ///< M
};

/// One application's measured data (Pollux's simulator/traces/<app>/ and, for other GPU types, Sia's).
struct GoodputProfile {
    int init_batch_size = 0;  ///< M0: the smallest validated batch size; progress is in samples at M0
    int max_batch_size = 0;   ///< the largest validated batch size
    int min_local_bsz = 1;    ///< smallest per-GPU micro-batch measured
    int max_local_bsz = 1;    ///< largest per-GPU micro-batch that fits (the GPU memory limit)
    int max_epochs = 1;       ///< the job completes when its epoch reaches this (completion epoch max_epochs − 1)
    /// GPUs a job may use at most; 0: as many as max_batch_size spreads over at min_local_bsz each (up to 64).
    /// Pollux's artifact holds NCF at 1 (simulator.py).
    int max_replicas = 0;
    /// A total batch size the application always runs at, even where batch sizes adapt; 0: none. Pollux's
    /// artifact holds NCF at 32768 under its own policy (simulator.py).
    int fixed_batch_size = 0;
    std::map<std::string, PerfParams> perf;  ///< by lower-cased GPU type
    /// The measurements the fit was made on, as the simulators interpolate them, by lower-cased GPU type
    /// (may be absent): a run rates jobs by these where they cover the configuration.
    std::map<std::string, MeasuredSteps> measured;
    /// The validated batch sizes, ascending; the tables below are indexed [batch size][epoch], one row per
    /// epoch 0 .. max_epochs − 1 (validation-<B>.csv's rows: progress at the epoch's end, in M0-iterations,
    /// optimizer iterations at the epoch's end, and the gradient statistics measured during the epoch).
    std::vector<int> batch_sizes;
    std::vector<std::vector<double>> progress, iterations, grad_sqr, grad_var;

    /// Progress (samples at M0) at which epoch e begins, e = 0 .. max_epochs (Pollux's get_progress × M0):
    /// 0 for e = 0, else the smallest of the validated batch sizes' progress at the end of epoch e − 1.
    double epoch_start(int epoch) const;
    /// The work of a whole job: epoch_start(max_epochs).
    double completion_work() const { return epoch_start(max_epochs); }
    /// The epoch a job is in after `progress` samples at M0: how many of epoch_start(1 .. max_epochs) are
    /// <= progress.
    int epoch_at(double progress) const;
    /// Gradient (sqr, var) during `epoch` at total batch `batch_size`: linear in the batch size between the
    /// two validated batch sizes around it (clamped to the validated range), Pollux's get_grad_stats.
    std::pair<double, double> grad_stats(double batch_size, int epoch) const;
    /// Optimizer iterations a run at `batch_size` has made when epoch `epoch` ends (interpolated likewise).
    double iterations_at(double batch_size, int epoch) const;
    /// The parameters for a GPU type (lower-cased), or nullptr if the application was not measured there.
    const PerfParams* perf_for(const std::string& gpu_type) const;
    /// The measured step times on a GPU type (lower-cased), or nullptr.
    const MeasuredSteps* measured_for(const std::string& gpu_type) const;
    /// The micro-batch limits on a type with parameters p: p's where set, else the application's.
    int min_local(const PerfParams& p) const { return p.min_local_bsz > 0 ? p.min_local_bsz : min_local_bsz; }
    int max_local(const PerfParams& p) const { return p.max_local_bsz > 0 ? p.max_local_bsz : max_local_bsz; }
};

/// Seconds per optimizer step.
double step_seconds(const PerfParams& p, int nodes, int replicas, BatchConfig b);
/// Statistical efficiency of total batch M: (var + sqr) / (var/scale + sqr) / scale with scale = M/M0
/// (1/scale when var/scale + sqr <= 0).
double efficiency(double grad_sqr, double grad_var, double init_batch_size, double batch_size);
/// Goodput of an explicit configuration in `epoch`.
GoodputPoint evaluate(const GoodputProfile& g, const PerfParams& p, int nodes, int replicas, BatchConfig b, int epoch);
/// Pollux's batch choice: the best of 50 geometrically spaced total batch sizes from max(M0,
/// min_local_bsz·replicas) (here and below, the micro-batch limits are the type's, GoodputProfile::min_local) to
/// max_batch_size, each split into (atomic_bsz ≤ max_local_bsz, accum_steps) (at least one accumulation step on one GPU
/// above M0), then atomic_bsz capped at ⌊max_batch_size / (replicas·(accum_steps+1))⌋. The choice weighs efficiency
/// with the statistics at (M0, epoch), the noise scale the job measures; the point returned is evaluated at the batch
/// chosen. goodput 0 when no candidate is valid (replicas·min_local_bsz > max_batch_size).
GoodputPoint best_batch(const GoodputProfile& g, const PerfParams& p, int nodes, int replicas, int epoch);
/// A fixed total batch (the trace's batch_size, kept by policies that do not adapt it): split as Pollux's
/// simulator does for a target batch, atomic_bsz capped as in best_batch.
GoodputPoint fixed_batch(const GoodputProfile& g, const PerfParams& p, int nodes, int replicas, int batch_size,
                         int epoch);

}  // namespace dlsim
