#include "policies/rounds/max_min_share.hpp"

#include "models/base/input_error.hpp"
#include "policies/lp/linear_program.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace dlsim {

namespace {

void check_input(const std::vector<MaxMinJob>& jobs, const std::vector<double>& capacities) {
    for (std::size_t t = 0; t < capacities.size(); ++t)
        if (!std::isfinite(capacities[t]) || capacities[t] < 0)
            throw InternalError(
                fmt::format("max-min allocation: capacity of type {}: expected >= 0, got {}", t, capacities[t]));
    for (std::size_t m = 0; m < jobs.size(); ++m) {
        const MaxMinJob& job = jobs[m];
        if (job.gang < 1 || !std::isfinite(job.weight) || job.weight <= 0 ||
            job.throughputs.size() != capacities.size())
            throw InternalError(
                fmt::format("max-min allocation: job {}: gang {}, weight {}, {} throughputs for {} types", m, job.gang,
                            job.weight, job.throughputs.size(), capacities.size()));
        for (double throughput : job.throughputs)
            if (!std::isfinite(throughput) || throughput < 0)
                throw InternalError(fmt::format("max-min allocation: job {}: throughput {}", m, throughput));
    }
}

}  // namespace

MaxMinShare solve_max_min_share(const std::vector<MaxMinJob>& jobs, const std::vector<double>& capacities,
                                ThroughputMode mode) {
    check_input(jobs, capacities);
    const std::size_t types = capacities.size();
    MaxMinShare result;
    result.types = types;
    result.fractions.assign(jobs.size() * types, 0.0);

    double total_capacity = 0.0;
    for (double capacity : capacities) total_capacity += capacity;

    // c_{m,t}; a job with T^prop = 0 keeps all zeros and no fairness row.
    std::vector<double> normalised(jobs.size() * types, 0.0);
    std::vector<bool> served(jobs.size(), false);
    for (std::size_t m = 0; m < jobs.size(); ++m) {
        std::vector<double> throughputs = jobs[m].throughputs;
        if (mode == ThroughputMode::Agnostic)
            for (double& throughput : throughputs) throughput = throughput > 0 ? 1.0 : 0.0;
        double proportional = 0.0;
        for (std::size_t t = 0; t < types; ++t) proportional += throughputs[t] * capacities[t];
        if (total_capacity <= 0 || proportional <= 0) continue;
        proportional /= total_capacity;
        served[m] = true;
        for (std::size_t t = 0; t < types; ++t)
            normalised[m * types + t] = jobs[m].gang * throughputs[t] / (jobs[m].weight * proportional);
    }

    LinearProgram program(LpSense::Maximize);
    const int z = program.add_column(-LinearProgram::infinity, LinearProgram::infinity, 1.0);
    std::vector<int> column(jobs.size() * types);
    for (std::size_t m = 0; m < jobs.size(); ++m)
        for (std::size_t t = 0; t < types; ++t)
            column[m * types + t] =
                program.add_column(0.0, normalised[m * types + t] > 0 ? LinearProgram::infinity : 0.0, 0.0);

    std::vector<LpTerm> terms;
    bool any_served = false;
    for (std::size_t m = 0; m < jobs.size(); ++m) {
        // Σ_t x_{m,t} <= 1
        terms.clear();
        for (std::size_t t = 0; t < types; ++t) terms.emplace_back(column[m * types + t], 1.0);
        program.add_row(-LinearProgram::infinity, 1.0, terms);
        if (!served[m]) continue;
        any_served = true;
        // z − Σ_t c_{m,t}·x_{m,t} <= 0
        terms.clear();
        terms.emplace_back(z, 1.0);
        for (std::size_t t = 0; t < types; ++t) terms.emplace_back(column[m * types + t], -normalised[m * types + t]);
        program.add_row(-LinearProgram::infinity, 0.0, terms);
    }
    for (std::size_t t = 0; t < types; ++t) {
        // Σ_m g_m·x_{m,t} <= W_t
        terms.clear();
        for (std::size_t m = 0; m < jobs.size(); ++m) terms.emplace_back(column[m * types + t], jobs[m].gang);
        program.add_row(-LinearProgram::infinity, capacities[t], terms);
    }
    if (!any_served) return result;  // z would be unbounded: nobody to be fair to

    LpStatus status = program.solve();
    if (status != LpStatus::Optimal)
        throw InternalError(fmt::format("max-min allocation: phase 1 ended {}", to_string(status)));
    result.z = program.objective_value();

    // Phase 2: the fairest level stays, then as much normalised throughput as possible.
    program.set_column_bounds(z, result.z * (1.0 - phase2_relative_slack), LinearProgram::infinity);
    program.set_objective(z, 0.0);
    for (std::size_t i = 0; i < column.size(); ++i) program.set_objective(column[i], normalised[i]);
    status = program.solve();
    if (status != LpStatus::Optimal)
        throw InternalError(fmt::format("max-min allocation: phase 2 ended {}", to_string(status)));
    // Clamp the simplex's round-off below 0 (x >= 0 is a bound, so only -0 or tiny negatives occur).
    for (std::size_t i = 0; i < column.size(); ++i)
        result.fractions[i] = std::max(0.0, program.column_value(column[i]));
    return result;
}

}  // namespace dlsim
