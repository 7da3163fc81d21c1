#pragma once
// Helpers of the hand-worked policy schedules: one run with a policy's parameters, and the check of every
// job's first start, finish and preemption count.
#include "tests/support/test_support.hpp"

#include <catch2/catch.hpp>

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace dlsim::test {

/// `in` under `policy` with k=v parameters, the run's seed and a fixed restart cost; no result file.
inline RunOutcome run_seeded(const RunInputs& in, const std::string& policy, std::uint64_t seed,
                             const std::vector<std::string>& params = {}, double restart_cost = 0) {
    RunConfig c;
    c.policy = policy;
    c.seed = seed;
    c.restart.restart_cost = restart_cost;
    for (const auto& p : params) add_param(c, p);
    c.out.clear();
    return simulate(in, c);
}

/// Checks every job's first start, finish and preemption count (none when `preempted` is empty).
inline void check_schedule(const RunInputs& in, const RunOutcome& o, std::span<const double> start,
                           std::span<const double> finish, std::span<const unsigned> preempted = {}) {
    REQUIRE(o.jobs.size() == start.size());
    for (std::size_t j = 0; j < start.size(); ++j) {
        INFO("job " << in.trace.jobs[j].id);
        CHECK(start_s(o, j) == start[j]);
        CHECK(finish_s(o, j) == finish[j]);
        CHECK(o.jobs[j].preemptions == (preempted.empty() ? 0 : preempted[j]));
    }
}

}  // namespace dlsim::test
