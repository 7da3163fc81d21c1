#pragma once
// Driving the engine by hand in tests: a scripted policy that records what each call was told, a
// homogeneous cluster with its trace resolved, and seconds as engine time.
#include "policies/placement/consolidated_placer.hpp"
#include "sim/simulator.hpp"
#include "tests/support/test_support.hpp"

#include <functional>
#include <string>
#include <vector>

namespace dlsim::test {

/// A policy whose decisions come from a test lambda; it records what each call was told.
class ScriptedPolicy final : public Policy {
public:
    using Script = std::function<void(const ClusterView&, const Changes&, Decisions&)>;
    explicit ScriptedPolicy(Script script) : script_(std::move(script)) {}
    void decide(const ClusterView& view, const Changes& c, Decisions& out) override {
        calls.push_back({view.now(),
                         {c.arrived.begin(), c.arrived.end()},
                         {c.finished.begin(), c.finished.end()},
                         {c.requeued.begin(), c.requeued.end()},
                         {c.declined.begin(), c.declined.end()},
                         c.timer});
        script_(view, c, out);
    }
    struct Call {
        Time now;
        std::vector<JobIdx> arrived, finished, requeued, declined;
        bool timer;
    };
    std::vector<Call> calls;

private:
    Script script_;
};

/// `nodes` nodes of `gpus` GPUs of one type, a trace of jobs without a model, resolved, and the
/// consolidated placer.
struct EngineFixture {
    RunInputs in;
    RateModel rates;
    ResolvedJobs jobs;
    ConsolidatedPlacer placer;
    EngineFixture(int nodes, int gpus, const std::string& trace)
        : in(inputs_from_text(homogeneous_cluster_json(nodes, gpus), kUnusedProfile, trace)),
          rates(in.cluster, in.profiles),
          jobs(resolve_jobs(in.trace, in.cluster, in.profiles, rates, false)) {}
};

/// Seconds as engine time (whole microseconds).
constexpr Time s(double seconds) { return static_cast<Time>(seconds * 1'000'000); }

}  // namespace dlsim::test
