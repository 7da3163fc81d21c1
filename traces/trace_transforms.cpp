#include "traces/trace_transforms.hpp"

#include "models/base/input_error.hpp"
#include "models/base/random.hpp"
#include "models/base/sim_time.hpp"
#include "traces/readers/row_parsing.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace dlsim {

bool TraceTransforms::identity() const {
    return status == "all" && min_gpus == 0 && max_gpus == 0 && vcs.empty() && window_start == 0 && window_end < 0 &&
           resample_rate == 0 && load_scale == 1 && max_jobs == 0;
}

void parse_time_window(const std::string& text, TraceTransforms& t) {
    const auto colon = text.find(':');
    auto bad = [&] {
        throw InputError(
            fmt::format("--time-window: expected START:END in seconds from the trace start "
                        "(either may be empty), got '{}'",
                        text));
    };
    if (colon == std::string::npos) bad();
    const std::string a = text.substr(0, colon), b = text.substr(colon + 1);
    if (!a.empty()) {
        auto v = parse_double(a);
        if (!v || *v < 0) bad();
        t.window_start = *v;
    }
    if (!b.empty()) {
        auto v = parse_double(b);
        if (!v || *v <= t.window_start) bad();
        t.window_end = *v;
    }
}

namespace {

template <class Keep>
void keep_if(Trace& trace, const std::string& what, Keep keep) {
    const std::size_t before = trace.jobs.size();
    std::erase_if(trace.jobs, [&](const JobRecord& j) { return !keep(j); });
    if (trace.jobs.size() != before) trace.report.dropped["filtered: " + what] += before - trace.jobs.size();
}

void rebase(Trace& trace) {
    if (trace.jobs.empty()) return;
    double first = trace.jobs.front().submit_time;
    for (const auto& j : trace.jobs) first = std::min(first, j.submit_time);
    for (auto& j : trace.jobs) j.submit_time -= first;
    trace.time_origin += first;
}

/// Every submit time must be one the engine can represent. Readers check their own columns, but a
/// --time-unit multiplies them afterwards; this is the last check before the times become engine time.
void check_submit_times(const Trace& trace) {
    for (const auto& j : trace.jobs)
        if (!(j.submit_time >= 0 && j.submit_time <= kMaxInputSeconds))
            throw InputError(
                fmt::format("{}:{}: job '{}' is submitted at {:.6g} s, expected a time in 0..1e12 s "
                            "(the range dlsim can simulate; check --time-unit)",
                            trace.path, j.line, j.id, j.submit_time));
}

}  // namespace

void apply_transforms(Trace& trace, const TraceTransforms& t) {
    if (t.status != "all" && t.status != "completed")
        throw InputError(fmt::format("--status: expected all or completed, got '{}'", t.status));
    if (t.min_gpus < 0 || t.max_gpus < 0 || (t.max_gpus > 0 && t.max_gpus < t.min_gpus))
        throw InputError(
            fmt::format("--min-gpus/--max-gpus: expected 0 <= min <= max, got {} and {}", t.min_gpus, t.max_gpus));
    if (!(t.load_scale > 0) || !std::isfinite(t.load_scale))
        throw InputError(fmt::format("--load-scale: expected a factor > 0, got {}", t.load_scale));
    if (!(t.resample_rate >= 0) || !std::isfinite(t.resample_rate))
        throw InputError(fmt::format("--resample-rate: expected jobs/hour >= 0, got {}", t.resample_rate));
    if (t.resample_jobs > kMaxResampledJobs)
        throw InputError(
            fmt::format("--resample-jobs: expected at most {} jobs, got {}", kMaxResampledJobs, t.resample_jobs));
    if (t.identity()) {
        check_submit_times(trace);
        return;
    }

    if (t.status == "completed") {
        const bool any_status = std::any_of(trace.jobs.begin(), trace.jobs.end(),
                                            [](const JobRecord& j) { return j.outcome != JobOutcome::Unknown; });
        if (!any_status)
            throw InputError(
                fmt::format("--status completed: {} records no job status, so completed jobs cannot be "
                            "told apart (use --status all)",
                            trace.path));
        keep_if(trace, "status", [](const JobRecord& j) { return j.outcome == JobOutcome::Completed; });
    }
    if (t.min_gpus > 0) keep_if(trace, "gpus", [&](const JobRecord& j) { return j.num_gpus >= t.min_gpus; });
    if (t.max_gpus > 0) keep_if(trace, "gpus", [&](const JobRecord& j) { return j.num_gpus <= t.max_gpus; });
    if (!t.vcs.empty())
        keep_if(trace, "vc", [&](const JobRecord& j) {
            return std::find(t.vcs.begin(), t.vcs.end(), trace.strings[j.vc]) != t.vcs.end();
        });
    if (t.window_start > 0 || t.window_end >= 0) {
        keep_if(trace, "time window", [&](const JobRecord& j) {
            return j.submit_time >= t.window_start && (t.window_end < 0 || j.submit_time < t.window_end);
        });
        rebase(trace);
    }
    if (trace.jobs.empty()) throw InputError(fmt::format("{}: the filters left no job", trace.path));

    // Submit order, ties by trace order: what "first N" and re-sampling draw from.
    std::stable_sort(trace.jobs.begin(), trace.jobs.end(),
                     [](const JobRecord& a, const JobRecord& b) { return a.submit_time < b.submit_time; });

    if (t.resample_rate > 0) {
        // Like Gavel and Blox resample Philly: each arrival is a uniformly drawn job of the trace
        // (with replacement), arrivals a Poisson process at the asked rate, the first at 0.
        const std::size_t n = t.resample_jobs > 0 ? t.resample_jobs : trace.jobs.size();
        Rng pick(t.seed, "trace/resample-jobs"), gaps(t.seed, "trace/resample-arrivals");
        std::vector<JobRecord> drawn;
        drawn.reserve(n);
        double now = 0;
        for (std::size_t i = 0; i < n; ++i) {
            if (i > 0) now += gaps.exponential(t.resample_rate / 3600.0);
            if (!(now <= kMaxInputSeconds))  // also catches an infinite gap
                throw InputError(fmt::format(
                    "--resample-rate: {} jobs/hour puts arrival {} of {} at {:.3g} s, past the 1e12 s dlsim can "
                    "simulate; expected a rate of roughly {:.3g} jobs/hour or more for {} jobs",
                    t.resample_rate, i + 1, n, now, static_cast<double>(n) * 3600.0 / kMaxInputSeconds, n));
            JobRecord j = trace.jobs[pick.below(trace.jobs.size())];
            j.id = fmt::format("{}@{}", j.id, i);
            j.submit_time = std::round(now * 1e6) / 1e6;
            drawn.push_back(std::move(j));
        }
        trace.jobs = std::move(drawn);
        trace.wall_clock = false;
        trace.report.assumptions.push_back(fmt::format(
            "re-sampled: {} jobs drawn uniformly with replacement, Poisson arrivals at {} jobs/hour (seed {})", n,
            t.resample_rate, t.seed));
    }
    if (t.load_scale != 1) {
        // Sorted above, so the last job spans the trace; a factor below 1 stretches it.
        const double first = trace.jobs.front().submit_time, span = trace.jobs.back().submit_time - first;
        const double last = first + span / t.load_scale;
        if (!(last <= kMaxInputSeconds))
            throw InputError(
                fmt::format("--load-scale: {} stretches the trace's {:.6g} s of arrivals to {:.3g} s, "
                            "past the 1e12 s dlsim can simulate; expected a factor >= {:.3g}",
                            t.load_scale, span, last - first, span / (kMaxInputSeconds - first)));
        for (auto& j : trace.jobs) j.submit_time = first + (j.submit_time - first) / t.load_scale;
    }
    if (t.max_jobs > 0 && trace.jobs.size() > t.max_jobs) {
        trace.report.dropped["filtered: max jobs"] += trace.jobs.size() - t.max_jobs;
        trace.jobs.resize(t.max_jobs);
    }
    trace.report.kept = trace.jobs.size();
    check_submit_times(trace);
}

}  // namespace dlsim
