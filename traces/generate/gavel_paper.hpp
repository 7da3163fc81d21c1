#pragma once
// Gavel's paper-mode workload (Narayanan et al., OSDI'20, §7; Gavel scheduler/utils.py generate_job and
// scheduler.py simulate, read at c4fa400): the job type uniform over the templates (at a scale factor > 1 only
// those measured at it), duration 60·10^U(1.5,3) s w.p. 0.8 else 60·10^U(3,4) s, scale factor 1/2/4/8 w.p.
// .70/.10/.15/.05 when multi-GPU jobs are asked for (else 1), exponential inter-arrivals of mean 3600/rate s
// with the first job at t = 0, and a job's work = duration × its measured rate on the reference type (V100)
// at its scale factor (Gavel's total_steps). The trace carries that work and the reference type, so a replay
// under any rate model runs exactly those iterations.
//
// Two ways to draw: by default our own streams (one per purpose: arrivals, sizes, durations, models), so the
// numbers are Gavel's distributions but not its Python random sequence (Gavel draws the type by rejection from
// all templates at sf > 1, the same uniform law over the eligible ones). With `gavel_streams`, Gavel's own
// streams draw for draw (scheduler.py _initialize_seeds: random.Random(seed + 2) for jobs, seed + 3 for
// arrivals; utils.generate_job: scale factor, then duration, then the template by rejection over JobTable in
// its order), so the jobs are exactly those of Gavel's run with that seed. The authors' published means come
// from single seeds (their notebooks' JCT-CDF cells read seed 0 only), and one seed's window of 1,000 jobs
// differs from the law's mean by several percent (Gavel's seed 0, multi-GPU: mean V100 duration of jobs
// 4000-4999 17.68 h against 16.77 h), so comparing with them needs this stream, not a resampled pool.
#include "traces/job_record.hpp"

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace dlsim {

/// One job template: a model name and its measured aggregate iterations/s on the reference GPU type at scale
/// factors 1, 2, 4, 8 (index 0-3; 0 = not measured there, so never drawn at that size). The CLI fills these
/// from a profile (traces/ uses only models/base/, so it knows no profiles).
struct GavelPaperModel {
    std::string name;
    std::array<double, 4> reference_rate{};
};

struct GavelPaperOptions {
    std::size_t num_jobs = 1000;
    double jobs_per_hour = 1.0;  ///< Poisson arrival rate (Gavel's lam = 3600 / rate s)
    std::uint64_t seed = 0;
    bool multi_gpu = false;  ///< Gavel's -m: scale factors 1/2/4/8; else every job has 1 GPU
    std::vector<GavelPaperModel> models;
    std::string reference_gpu_type = "V100";  ///< written as each job's gpu_type
    /// Gavel's own Python random streams (see the header comment); needs every name of kGavelJobTable in
    /// `models`, and draws templates in that order.
    bool gavel_streams = false;
};

/// Gavel's JobTable (scheduler/job_table.py) in its order, which its choice() indexes: ResNet-18 bs 16-256,
/// ResNet-50 bs 16-128, Transformer bs 16-256, LM bs 5-80, Recommendation bs 512-8192, A3C, CycleGAN.
inline constexpr std::array<const char*, 26> kGavelJobTable = {"ResNet-18 (batch size 16)",
                                                               "ResNet-18 (batch size 32)",
                                                               "ResNet-18 (batch size 64)",
                                                               "ResNet-18 (batch size 128)",
                                                               "ResNet-18 (batch size 256)",
                                                               "ResNet-50 (batch size 16)",
                                                               "ResNet-50 (batch size 32)",
                                                               "ResNet-50 (batch size 64)",
                                                               "ResNet-50 (batch size 128)",
                                                               "Transformer (batch size 16)",
                                                               "Transformer (batch size 32)",
                                                               "Transformer (batch size 64)",
                                                               "Transformer (batch size 128)",
                                                               "Transformer (batch size 256)",
                                                               "LM (batch size 5)",
                                                               "LM (batch size 10)",
                                                               "LM (batch size 20)",
                                                               "LM (batch size 40)",
                                                               "LM (batch size 80)",
                                                               "Recommendation (batch size 512)",
                                                               "Recommendation (batch size 1024)",
                                                               "Recommendation (batch size 2048)",
                                                               "Recommendation (batch size 4096)",
                                                               "Recommendation (batch size 8192)",
                                                               "A3C",
                                                               "CycleGAN"};

/// The scale factors and their probabilities with multi-GPU jobs (Gavel's _generate_scale_factor).
inline constexpr std::array<int, 4> kGavelScaleFactors = {1, 2, 4, 8};
inline constexpr std::array<double, 4> kGavelScaleShares = {0.70, 0.10, 0.15, 0.05};

/// Generates the trace; deterministic in the options. Bad options (no models, no model measured at a
/// scale factor that can be drawn, a rate that is not positive) are InputErrors.
Trace generate_gavel_paper(const GavelPaperOptions& options);

}  // namespace dlsim
