#include "traces/generate/gavel_paper.hpp"

#include "models/base/input_error.hpp"
#include "models/base/random.hpp"
#include "traces/generate/python_random.hpp"
#include "traces/generate/synthetic.hpp"

#include <fmt/format.h>

#include <array>
#include <cmath>
#include <cstdint>

namespace dlsim {

namespace {

/// Gavel's generation draw for draw (see the header): one random.Random(seed + 2) gives each job's scale factor
/// (_generate_scale_factor), duration (_generate_duration) and template (choice over JobTable until one fits the
/// size); another, random.Random(seed + 3), the gaps -log(1 - random()) / (1 / lam), lam = 3600 / rate.
void generate_with_gavel_streams(const GavelPaperOptions& o, const std::vector<StrId>& names, StrId reference,
                                 Trace& trace) {
    std::array<std::size_t, kGavelJobTable.size()> table{};  // JobTable position -> index into o.models
    for (std::size_t p = 0; p < kGavelJobTable.size(); ++p) {
        std::size_t m = 0;
        while (m < o.models.size() && o.models[m].name != kGavelJobTable[p]) ++m;
        if (m == o.models.size())
            throw InputError(
                fmt::format("trace generator (gavel paper, Gavel's streams): the profile has no model "
                            "'{}', one of Gavel's 26 job templates",
                            kGavelJobTable[p]));
        table[p] = m;
    }
    // The rejection draw must end: some template measured at every size that can be drawn.
    for (std::size_t k = 1; k < (o.multi_gpu ? kGavelScaleFactors.size() : 1); ++k) {
        bool any = false;
        for (const std::size_t m : table) any = any || o.models[m].reference_rate[k] > 0;
        if (!any)
            throw InputError(
                fmt::format("trace generator (gavel paper, Gavel's streams): none of Gavel's 26 job "
                            "templates has a measured {} throughput on {} GPU(s)",
                            o.reference_gpu_type, kGavelScaleFactors[k]));
    }
    if (o.seed > UINT64_MAX - 3)
        throw InputError(
            "trace generator (gavel paper, Gavel's streams): --seed: at most 2^64 - 4 (Gavel seeds its "
            "streams with seed + 2 and seed + 3)");
    PythonRandom jobs(o.seed + 2), arrivals(o.seed + 3);
    const double lam = 3600.0 / o.jobs_per_hour;
    trace.jobs.reserve(o.num_jobs);
    double t = 0;
    for (std::size_t i = 0; i < o.num_jobs; ++i) {
        std::size_t k = 0;  // index into kGavelScaleFactors; drawn even without multi-GPU jobs, as Gavel does
        const double r = jobs.uniform(0, 1);
        if (0.7 <= r && r <= 0.8)
            k = 1;
        else if (0.8 <= r && r <= 0.95)
            k = 2;
        else if (0.95 <= r)
            k = 3;
        const double run_time =
            jobs.random() >= 0.8 ? 60 * std::pow(10.0, jobs.uniform(3, 4)) : 60 * std::pow(10.0, jobs.uniform(1.5, 3));
        if (!o.multi_gpu) k = 0;
        std::size_t m = table[jobs.randbelow(kGavelJobTable.size())];
        while (k > 0 && !(o.models[m].reference_rate[k] > 0)) m = table[jobs.randbelow(kGavelJobTable.size())];
        JobRecord j;
        j.id = std::to_string(i);
        j.submit_time = std::round(t * 1e6) / 1e6;
        j.num_gpus = kGavelScaleFactors[k];
        j.duration = std::round(run_time * 1e6) / 1e6;
        j.model = names[m];
        j.gpu_type = reference;
        j.work = j.duration * o.models[m].reference_rate[k];
        j.line = static_cast<std::uint32_t>(i + 2);
        trace.jobs.push_back(std::move(j));
        t += -std::log(1.0 - arrivals.random()) / (1.0 / lam);  // the next job's arrival
    }
    trace.report.rows_read = trace.report.kept = o.num_jobs;
}

}  // namespace

Trace generate_gavel_paper(const GavelPaperOptions& o) {
    if (o.num_jobs == 0 || o.num_jobs > kMaxGeneratedJobs)
        throw InputError(fmt::format("trace generator (gavel paper): --jobs: expected 1 to {} jobs, got {}",
                                     kMaxGeneratedJobs, o.num_jobs));
    if (!(o.jobs_per_hour > 0) || !std::isfinite(o.jobs_per_hour))
        throw InputError("trace generator (gavel paper): --rate: expected a positive arrival rate in jobs/hour");
    Trace trace;
    trace.format = "generated";
    trace.path = fmt::format("generated(gavel-paper,jobs={},rate={}/h,seed={},multi_gpu={}{})", o.num_jobs,
                             o.jobs_per_hour, o.seed, o.multi_gpu, o.gavel_streams ? ",gavel_streams" : "");
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
            throw InputError(
                fmt::format("trace generator (gavel paper): no model of the profile has a measured "
                            "{} throughput on {} GPU(s), so jobs of that size cannot be drawn",
                            o.reference_gpu_type, kGavelScaleFactors[k]));
    const StrId reference = trace.strings.intern(o.reference_gpu_type);
    if (o.gavel_streams) {
        generate_with_gavel_streams(o, names, reference, trace);
        return trace;
    }

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
