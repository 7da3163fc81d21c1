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
//
// Which GPUs: by default one pool, the type with the most GPUs (Pollux's artifact has one type). With
// `types = unaware` it schedules every node of every type as Sia's artifact runs its Pollux baseline on a
// heterogeneous cluster (Jayaram Subramanya et al., SOSP'23; siasosp23/artifacts sia-simulator/
// cluster_unaware.py, pollux_unaware.py, job.py): the nodes cut into units of the smallest node's GPU count,
// one type-blind goodput belief per job, each job placed on one type and rated there by the engine
// (policies/elastic/README.md).
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
        bool type_unaware = false;  ///< every type as one pool of units, type-blind beliefs (Sia's harness)
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
    /// The re-plan over every type as Sia's harness runs Pollux (Options::type_unaware): shapes count units
    /// of the smallest node's GPUs, nodes = units. Public for tests.
    std::vector<Shape> plan_unaware(const ClusterView& view);
    /// The objective value of the last plan (the power mean, higher is better).
    double last_objective() const { return last_objective_; }

private:
    /// The GPUs one plan shares out: `total` GPUs in `units` nodes (or units) of `unit` GPUs; `type` the
    /// pool's type, or kAnyType for every type (type-blind beliefs); `job_cap` GPUs one job may hold.
    static constexpr GpuTypeIdx kAnyType = ~GpuTypeIdx{0};
    struct Pool {
        GpuTypeIdx type = 0;
        int total = 0, unit = 0, units = 0, job_cap = 0;
    };
    std::vector<Shape> plan_pool(const ClusterView& view, const Pool& pool);
    Pool unaware_pool(const Cluster& cluster) const;
    void apply_unaware(const ClusterView& view, const Pool& pool, const std::vector<Shape>& shapes, Decisions& out);
    void apply(const ClusterView& view, GpuTypeIdx type, const std::vector<Shape>& shapes, Decisions& out);
    void grow(JobIdx j);

    Options o_;
    std::vector<JobIdx> active_;      // arrived and not finished, in arrival order
    std::vector<int> max_held_;       // per job: the most GPUs it has held (the exploration cap is twice this)
    std::vector<int> allocations_;    // per job: allocations it was given (first start included)
    std::vector<GpuTypeIdx> belief_;  // per job: the type its belief is measured on (kAnyType: not yet run)
    double last_objective_ = 0;
    // Scratch reused across ticks.
    std::vector<Shape> shapes_;
    std::vector<double> cost_, speedup_;  // [job][shape]
    std::vector<double> best_, next_;     // DP over GPUs used
    std::vector<std::uint8_t> choice_;    // [job][gpus]: shape index chosen (0xff: none)
    std::vector<int> free_;               // per node: free GPUs as the planned actions apply
    std::vector<NodeShare> where_;
    std::vector<int> free_units_;     // per type: free whole units
    std::vector<std::size_t> order_;  // the changed jobs in the order they are applied
};

}  // namespace dlsim
