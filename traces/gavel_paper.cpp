#include "traces/gavel_paper.hpp"

#include "models/base/input_error.hpp"
#include "traces/random.hpp"

#include <fmt/format.h>

#include <cmath>

namespace dlsim {

Trace generate_gavel_paper(const GavelPaperOptions& o) {
    if (o.num_jobs == 0) throw InputError("trace generator (gavel paper): --jobs: expected at least 1 job");
    if (!(o.jobs_per_hour > 0) || !std::isfinite(o.jobs_per_hour))
        throw InputError("trace generator (gavel paper): --rate: expected a positive arrival rate in jobs/hour");
    Trace trace;
    trace.format = "generated";
    trace.path = fmt::format("generated(gavel-paper,jobs={},rate={}/h,seed={},multi_gpu={})", o.num_jobs,
                             o.jobs_per_hour, o.seed, o.multi_gpu);
    // The templates eligible at each scale factor, checked up front for every size that can be drawn.
    std::array<std::vector<std::size_t>, 4> eligible;
    std::vector<StrId> names;
    for (std::size_t m = 0; m < o.models.size(); ++m) {
        names.push_back(trace.strings.intern(o.models[m].name));
        for (std::size_t k = 0; k < 4; ++k)
            if (o.models[m].reference_rate[k] > 0 && std::isfinite(o.models[m].reference_rate[k]))
                eligible[k].push_back(m);
    }
    for (std::size_t k = 0; k < (o.multi_gpu ? 4u : 1u); ++k)
        if (eligible[k].empty())
            throw InputError(fmt::format("trace generator (gavel paper): no model of the profile has a measured "
                                         "{} throughput on {} GPU(s), so jobs of that size cannot be drawn",
                                         o.reference_gpu_type, kGavelScaleFactors[k]));
    const StrId reference = trace.strings.intern(o.reference_gpu_type);

    // One stream per purpose, so e.g. --multi-gpu leaves arrivals and durations unchanged.
    Rng arrivals(o.seed, "gavel-paper/arrivals"), sizes(o.seed, "gavel-paper/sizes"),
        durations(o.seed, "gavel-paper/durations"), kinds(o.seed, "gavel-paper/models");
    const double rate_per_s = o.jobs_per_hour / 3600.0;
    trace.jobs.reserve(o.num_jobs);
    double t = 0;
    for (std::size_t i = 0; i < o.num_jobs; ++i) {
        if (i > 0) t += arrivals.exponential(rate_per_s);  // the first job arrives at 0, as in Gavel
        JobRecord j;
        j.id = std::to_string(i);
        // Microsecond-rounded so that the CSV round trip and the engine see the same instants.
        j.submit_time = std::round(t * 1e6) / 1e6;
        std::size_t k = 0;
        if (o.multi_gpu) {
            const double u = sizes.uniform();
            double below = kGavelScaleShares[0];
            while (k < 3 && u >= below) below += kGavelScaleShares[++k];
        }
        j.num_gpus = kGavelScaleFactors[k];
        const double x = durations.uniform() < 0.8 ? durations.uniform(1.5, 3.0) : durations.uniform(3.0, 4.0);
        j.duration = std::round(60.0 * std::pow(10.0, x) * 1e6) / 1e6;
        const std::size_t m = eligible[k][kinds.below(eligible[k].size())];
        j.model = names[m];
        j.gpu_type = reference;
        j.work = j.duration * o.models[m].reference_rate[k];  // Gavel's total_steps
        j.line = static_cast<std::uint32_t>(i + 2);
        trace.jobs.push_back(std::move(j));
    }
    trace.report.rows_read = trace.report.kept = o.num_jobs;
    return trace;
}

}  // namespace dlsim
