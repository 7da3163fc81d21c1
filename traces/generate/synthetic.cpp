#include "traces/generate/synthetic.hpp"

#include "models/base/input_error.hpp"
#include "models/base/random.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace dlsim {

Trace generate_gavel_mix(const GavelMixOptions& o) {
    if (o.num_jobs == 0 || o.num_jobs > kMaxGeneratedJobs)
        throw InputError(
            fmt::format("trace generator: --jobs: expected 1 to {} jobs, got {}", kMaxGeneratedJobs, o.num_jobs));
    if (!(o.jobs_per_hour > 0) || !std::isfinite(o.jobs_per_hour))
        throw InputError("trace generator: --rate: expected a positive arrival rate in jobs/hour");
    if ((o.sizes == SizeDistribution::Empirical || o.durations == DurationDistribution::Empirical) &&
        o.empirical.empty())
        throw InputError("trace generator: an empirical distribution needs a source trace (--from)");
    if (o.durations == DurationDistribution::Lognormal && !(o.lognormal_sigma > 0 && std::isfinite(o.lognormal_mu)))
        throw InputError("trace generator: --lognormal: expected MU,SIGMA with SIGMA > 0 (of ln seconds)");
    Trace trace;
    trace.format = "generated";
    const char* size_names[] = {"gavel", "empirical"};
    const char* duration_names[] = {"gavel", "lognormal", "empirical"};
    trace.path =
        fmt::format("generated(jobs={},rate={}/h,seed={},sizes={},durations={})", o.num_jobs, o.jobs_per_hour, o.seed,
                    size_names[static_cast<int>(o.sizes)], duration_names[static_cast<int>(o.durations)]);
    std::vector<StrId> models;
    for (const auto& m : o.models) models.push_back(trace.strings.intern(m));

    // Separate streams, so changing e.g. the model list leaves arrivals and sizes unchanged.
    Rng arrivals(o.seed, "generate/arrivals"), sizes(o.seed, "generate/sizes"), durations(o.seed, "generate/durations"),
        kinds(o.seed, "generate/models");
    const double rate_per_s = o.jobs_per_hour / 3600.0;
    trace.jobs.reserve(o.num_jobs);
    double t = 0;
    for (std::size_t i = 0; i < o.num_jobs; ++i) {
        if (i > 0) t += arrivals.exponential(rate_per_s);
        JobRecord j;
        j.id = std::to_string(i);
        // Microsecond-rounded so that the CSV round trip and the engine see the same instants.
        j.submit_time = std::round(t * 1e6) / 1e6;
        std::size_t pair = 0;  // the empirical job drawn for this one
        if (o.sizes == SizeDistribution::Empirical) {
            pair = sizes.below(o.empirical.size());
            j.num_gpus = o.empirical[pair].first;
        } else {
            const double u = sizes.uniform();
            j.num_gpus = u < 0.70 ? 1 : u < 0.80 ? 2 : u < 0.95 ? 4 : 8;
        }
        double d = 0;
        switch (o.durations) {
            case DurationDistribution::Gavel: {
                const double x = durations.uniform() < 0.8 ? durations.uniform(1.5, 3.0) : durations.uniform(3.0, 4.0);
                d = 60.0 * std::pow(10.0, x);
                break;
            }
            case DurationDistribution::Lognormal: {
                // Box-Muller on our own stream: the same numbers on every standard library.
                const double u1 = 1.0 - durations.uniform(), u2 = durations.uniform();
                const double z = std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * M_PI * u2);
                d = std::exp(o.lognormal_mu + o.lognormal_sigma * z);
                break;
            }
            case DurationDistribution::Empirical:
                if (o.sizes != SizeDistribution::Empirical) pair = durations.below(o.empirical.size());
                d = o.empirical[pair].second;
                break;
        }
        j.duration = std::max(1e-6, std::round(d * 1e6) / 1e6);
        if (!models.empty()) j.model = models[kinds.below(models.size())];
        j.line = static_cast<std::uint32_t>(i + 2);
        trace.jobs.push_back(std::move(j));
    }
    trace.report.rows_read = trace.report.kept = o.num_jobs;
    return trace;
}

}  // namespace dlsim
