#pragma once
// `gavel-tj`: Gavel's max-sum-throughput policy over tuned rigid jobs, as Sia's artifact runs it for its
// "Gavel+TJ" baseline (Jayaram Subramanya et al., SOSP'23, Tables 3 and 4; github.com/siasosp23/artifacts,
// sia-simulator/gavel.py, cluster.py and policies/max_sum_throughput.py; Gavel: Narayanan et al., OSDI'20).
// "Tuned jobs": each job runs on exactly the GPU count and total batch size its workload row gives (the
// workload generator picked them per job as a configuration with 50-80% scaling efficiency); the policy
// never changes either. policies/elastic/README.md, "gavel-tj", states the rules and the deviations.
//
// Every `interval` seconds (360, at its multiples; nothing happens in between):
//   T[m,t]  = job m's optimizer steps/s on its g_m GPUs of type t filled node by node (ElasticView::predict at
//             the trace batch size: 1 / step time), times the harness's calibration 1/slowdown of its
//             application (cifar10 1/1.8, ncf 1/1.5, other applications 1/1.2; 1 for unknown models); a job
//             without goodput data: its profile rate. 0 where the job cannot run (more GPUs than the type has).
//   X       = argmax Σ T·x  s.t. x ≥ 0, Σ_t x[m,t] ≤ 1, Σ_m g_m·x[m,t] ≤ GPUs of t (ShareLp, MaxThroughput);
//             jobs with equal gangs and equal T rows get their mean (the symmetric point the artifact's
//             interior-point solver returns where the optimum is not unique), then x rounded to 1e-5.
//   f[m,t]  = time m ran on t ÷ Σ over all jobs ever of it, both since the start (no resets), every job seeded
//             with τ/2 on every type when first seen (and τ/2 added to the type's sum);
//   p[m,t]  = x / f (0 where x = 0).
//   Walk: all (job, type) pairs by (p, x) descending, ties in type order then arrival order; a job takes
//   its gang on the first type with that many GPUs left (jobs with x = 0 included: leftover GPUs are used).
//   Placement, per type, by decreasing gang: a job keeps its previous GPUs if none is taken yet, else takes
//   the lowest free GPUs in node order. A job whose nodes are unchanged keeps running; any other change is a
//   restart (the run's restart model charges it).
#include "policies/desired_state.hpp"
#include "policies/elastic/elastic_jobs.hpp"
#include "policies/policy.hpp"
#include "policies/rounds/share_lp.hpp"

#include <span>
#include <vector>

namespace dlsim {

class GavelTjPolicy final : public Policy {
public:
    struct Options {
        double interval = 360;  ///< s between rounds (Sia's run_experiment.sh: --interval=360)
        /// Weigh T by 1 / the job's calibration slowdown (run config `slowdowns`), as the artifact's LP does.
        bool calibrate = true;
    };
    explicit GavelTjPolicy(Options o);
    void decide(const ClusterView& view, const Changes& changes, Decisions& out) override;

    /// The last round's jobs (trace order) and X for them (job-major, after averaging and rounding).
    std::span<const JobIdx> round_jobs() const { return input_jobs_; }
    std::span<const double> last_x() const { return x_; }

private:
    void setup(const ClusterView& view);
    double throughput(const ClusterView& view, JobIdx j, GpuTypeIdx t) const;
    void allocate(const ClusterView& view);
    void walk_and_place(const ClusterView& view, Decisions& out);

    Options o_;
    ActiveJobs active_;
    ShareLp lp_;
    bool ready_ = false;
    std::size_t types_ = 0;
    std::vector<std::vector<GpuIdx>> gpus_of_type_;  // per type: its GPUs in node order
    std::vector<double> cluster_time_;       // per type: Σ over every job seen of its time there (seeds included)
    std::vector<double> job_time_;           // per JobIdx × type; < 0: not seen yet
    std::vector<std::vector<GpuIdx>> held_;  // per JobIdx: the GPUs it was given last round (empty: none)

    // Scratch, reused every round.
    ShareInput input_;
    std::vector<JobIdx> input_jobs_;
    std::vector<double> x_;
    std::vector<std::size_t> order_;
    struct Entry {
        double priority, x;
        std::size_t rank;  // type-major position: ties keep type order, then arrival order
        std::size_t job;   // index into input_jobs_
        GpuTypeIdx type;
    };
    std::vector<Entry> entries_;
    std::vector<int> chosen_type_;  // per job index: the type it runs on this round, −1 none
    std::vector<int> gpus_left_;    // per type, during the walk
    std::vector<std::size_t> on_type_;
    std::vector<char> taken_;
    std::vector<std::vector<GpuIdx>> next_;  // per job index: its GPUs this round
    std::vector<NodeShare> shares_;
    DesiredState desired_;
};

}  // namespace dlsim
