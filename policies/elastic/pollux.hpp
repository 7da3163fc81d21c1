#pragma once
// `pollux`: goodput-optimised co-adaptive scheduling (Qiao et al., "Pollux: Co-adaptive Cluster Scheduling
// for Goodput-Optimized Deep Learning", OSDI'21; petuum/adaptdl branch osdi21-artifact, simulator/pollux.py).
// Every `interval` seconds it re-plans every job's GPUs to maximise the power mean (p = −1) of the jobs'
// speedups, each speedup the job's goodput on its allocation ÷ its goodput on a fair share (⌈G/J⌉ GPUs on
// one node), scaled so that one node is 1, and multiplied by the restart factor
// max(age − restarts·delay, 0)/(age + delay) when the allocation changes (policies/elastic/README.md).
//
// The search: where Pollux runs a genetic algorithm over replicas per node, this policy solves the same
// objective exactly over allocations of Sia's shapes (1, 2, 4 … GPUs on one node, or whole nodes), by
// dynamic programming over jobs × GPUs: the objective is a sum of per-job terms under one capacity
// constraint. Deterministic: no random draws, ties to fewer GPUs and earlier jobs.
#include "policies/policy.hpp"

#include <cstdint>
#include <vector>

namespace dlsim {

class PolluxPolicy final : public Policy {
public:
    struct Options {
        double interval = 60;       ///< s between re-plans (decisions only at multiples of it)
        double p = -1;              ///< power-mean exponent (< 0: fairer; 0: geometric mean)
        double restart_delay = 30;  ///< s: the restart penalty's delay
        int max_nodes = 16;         ///< nodes one job may span (at most 250: shapes are indexed by a byte)
        int max_gpus = 64;          ///< GPUs one job may hold (the artifact's limit)
    };
    explicit PolluxPolicy(Options o) : o_(o) {}
    void decide(const ClusterView& view, const Changes& changes, Decisions& out) override;

    /// One allocation shape: `gpus` GPUs on `nodes` nodes (whole nodes when nodes > 1).
    struct Shape {
        int nodes = 0, gpus = 0;
        bool operator==(const Shape&) const = default;
    };
    /// The re-plan of one tick for the active jobs (in arrival order): each job's shape (gpus 0: none).
    /// Public for tests and the decision-time benchmark.
    std::vector<Shape> plan(const ClusterView& view, GpuTypeIdx type);
    /// The objective value of the last plan (the power mean, higher is better).
    double last_objective() const { return last_objective_; }

private:
    void apply(const ClusterView& view, GpuTypeIdx type, const std::vector<Shape>& shapes, Decisions& out);
    void grow(JobIdx j);

    Options o_;
    std::vector<JobIdx> active_;    // arrived and not finished, in arrival order
    std::vector<int> max_held_;     // per job: the most GPUs it has held (the exploration cap is twice this)
    std::vector<int> allocations_;  // per job: allocations it was given (first start included)
    double last_objective_ = 0;
    // Scratch reused across ticks.
    std::vector<Shape> shapes_;
    std::vector<double> cost_, speedup_;  // [job][shape]
    std::vector<double> best_, next_;   // DP over GPUs used
    std::vector<std::uint8_t> choice_;  // [job][gpus]: shape index chosen (0xff: none)
};

}  // namespace dlsim
