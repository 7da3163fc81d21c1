#pragma once
// `tiresias-elastic` and `las-elastic`: a rigid queue policy (tiresias, las) whose running elastic jobs
// also take the GPUs no waiting job can use (policies/elastic/README.md, "Elastic tiresias and las").
//
// The queue policy decides exactly as it does alone, on a view where every job holds only the GPUs it
// asked for (its trace gang; the GPUs it was given on top look free, and its attained service counts its
// gang). Then:
//   - Before a start on a GPU type needs GPUs that grown jobs hold (more than are really free once the
//     policy's own preemptions apply), or names exact GPUs, every job grown on that type shrinks back to its
//     gang, keeping the GPUs it was placed on first: a waiting job is never refused for them.
//   - Every `interval` seconds (at its multiples), when the queue policy starts and preempts nothing, the
//     free GPUs go one at a time to the running elastic job with the largest goodput gain from one more GPU
//     (the elastic model's prediction at its batch size), up to its max_gpus; ties to the earlier job in
//     trace order.
// Growth only at ticks bounds resizes to one per job per interval.
#include "policies/policy.hpp"

#include <memory>
#include <vector>

namespace dlsim {

class ElasticQueuePolicy final : public Policy {
public:
    ElasticQueuePolicy(std::unique_ptr<Policy> inner, double interval);
    void decide(const ClusterView& view, const Changes& changes, Decisions& out) override;

    /// The view the queue policy sees: grown jobs trimmed to their gangs, the GPUs beyond free.
    class GangView final : public ClusterView {
    public:
        void reset(const ClusterView& real);
        bool trimmed(JobIdx j) const { return j < slot_.size() && slot_[j] >= 0; }
        Time now() const override { return real_->now(); }
        const Cluster& cluster() const override { return real_->cluster(); }
        const RateModel& rates() const override { return real_->rates(); }
        const JobInfo& job(JobIdx j) const override;
        const Allocation& allocation(JobIdx j) const override;
        int free_gpus(GpuTypeIdx t) const override { return real_->free_gpus(t) + extra_type_[t]; }
        int free_gpus_on(NodeIdx n) const override { return real_->free_gpus_on(n) + extra_node_[n]; }
        NodeIdx node_with_free(GpuTypeIdx t, int k) const override;
        std::span<const JobIdx> running_jobs() const override { return real_->running_jobs(); }
        const RestartModel& restart_model() const override { return real_->restart_model(); }
        const PerformanceModel& performance() const override { return real_->performance(); }
        const ElasticView* elastic() const override { return real_->elastic(); }

    private:
        const ClusterView* real_ = nullptr;
        std::vector<int> slot_;  // per job: index into infos_/allocs_, or -1
        std::vector<JobIdx> trimmed_;
        std::vector<JobInfo> infos_;
        std::vector<Allocation> allocs_;
        std::vector<int> extra_type_, extra_node_;
    };

private:
    void grow(const ClusterView& view, Decisions& out);

    std::unique_ptr<Policy> inner_;
    Time interval_;
    Time inner_next_ = kNever;  // the queue policy's own timer
    GangView gangs_;
    Decisions inner_out_;
    std::vector<JobIdx> resized_, declined_;  // resized by this wrapper in the last call; declines to pass on
    std::vector<int> need_, targets_;
    std::vector<char> exact_;  // per type: a start names exact GPUs
    std::vector<std::size_t> order_;
};

}  // namespace dlsim
