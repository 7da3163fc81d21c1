#pragma once
// `sia`: heterogeneity-aware, goodput-optimised scheduling (Jayaram Subramanya et al., "Sia:
// Heterogeneity-aware, goodput-optimized ML-cluster scheduling", SOSP'23; github.com/siasosp23/artifacts,
// sia-simulator/sia.py). Every `interval` seconds it re-plans the whole cluster: each job gets at most one
// configuration (GPU type, nodes, GPUs), chosen by an integer program over a goodput matrix normalised per
// job (policies/elastic/README.md, "sia"):
//   G[i,c]  = job i's goodput on configuration c (ElasticView::predict: the per-type Pollux model with the
//             batch size chosen by the run), divided by the row's smallest non-zero entry, and times the
//             restart factor r_i = max(T − N·S, 0)/(T + S) (1 while T < S; T = age, N = restarts, S = the
//             model's restart penalty) on every entry but the job's current configuration;
//   A[i,c]  = round(G^p, 2), at most `clip`;
//   minimise Σ A·x + λ_n·(J − Σ x)  (p < 0; maximise for p > 0)
//   s.t.     Σ_c x[i,c] ≤ 1 per job, Σ_{c of type t} gpus(c)·x[i,c] ≤ GPUs of type t, x binary,
// solved with GLPK's branch-and-cut (glp_intopt). A job still paying its restart keeps its configuration
// (the artifact's preserve_ckpt_allocs). Jobs without goodput data are rigid: their gang on any type.
#include "policies/policy.hpp"

#include <vector>

namespace dlsim {

class SiaPolicy final : public Policy {
public:
    struct Options {
        double interval = 60;              ///< s between re-plans (decisions only at multiples of it)
        double p = -0.5;                   ///< fairness exponent of the normalised goodputs
        double lambda_n = 1.1;             ///< the objective's charge per job left without GPUs
        double clip = 3000;                ///< largest A entry
        int max_gpus = 64;                 ///< GPUs one configuration may hold (Sia's configuration tables end at 64)
        bool preserve_ckpt_allocs = true;  ///< a job still restarting keeps its configuration
        /// Per ModelIdx: the restart penalty S in seconds the policy assumes (Sia's get_restart_penalty).
        std::vector<double> restart_penalty;
        double default_penalty = 30;  ///< S for a model not listed
    };
    explicit SiaPolicy(Options o) : o_(std::move(o)) {}
    void decide(const ClusterView& view, const Changes& changes, Decisions& out) override;

    /// One configuration: `gpus` GPUs of `type` on `nodes` nodes (whole nodes when nodes > 1).
    struct Config {
        GpuTypeIdx type = 0;
        int nodes = 0, gpus = 0;
        bool operator==(const Config&) const = default;
    };
    /// The configurations of a cluster: per type, 1, 2, 4 … GPUs on one node (and the whole node), then k
    /// whole nodes, k up to the type's nodes and k × node size up to max_gpus.
    std::vector<Config> configs(const Cluster& cluster) const;
    /// The re-plan of one tick for the active jobs (trace order): each job's configuration index into
    /// configs(), or −1 for none. Public for tests and benchmarks.
    std::vector<int> plan(const ClusterView& view);
    std::span<const JobIdx> active() const { return active_; }
    /// The objective value of the last plan (Σ A·x + λ_n·(J − Σ x)).
    double last_objective() const { return last_objective_; }
    /// The restart penalty the policy assumes for a model named `model` (Sia's table: cifar 30, imagenet 250,
    /// bert 120, yolov3 45, deepspeech 25, else 30 s; matched as substrings of the lower-cased name).
    static double sia_restart_penalty(std::string_view model);

private:
    void apply(const ClusterView& view, const std::vector<int>& choice, Decisions& out);
    void grow(JobIdx j);
    double penalty(ModelIdx m) const {
        return m < o_.restart_penalty.size() ? o_.restart_penalty[m] : o_.default_penalty;
    }

    Options o_;
    std::vector<JobIdx> active_;
    std::vector<Config> configs_;
    std::vector<int> allocations_;  // per job: allocations given (first start included)
    double last_objective_ = 0;
};

}  // namespace dlsim
