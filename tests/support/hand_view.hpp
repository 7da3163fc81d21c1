#pragma once
// Driving a policy by hand in tests: a ClusterView over jobs and allocations the test keeps itself, on a
// cluster and profile given as JSON. Free GPUs are derived from the allocations; a test derives from it to
// add its own jobs and its own ElasticView (ClusterView::elastic()).
#include "models/cluster.hpp"
#include "models/performance_model.hpp"
#include "models/profile.hpp"
#include "models/rate_model.hpp"
#include "models/restart_model.hpp"
#include "policies/cluster_view.hpp"

#include <span>
#include <utility>
#include <vector>

namespace dlsim::test {

class HandView : public ClusterView {
public:
    HandView(const char* cluster_json, const char* profile_json)
        : cluster_(parse_cluster(cluster_json, "cluster.json")),
          profiles_(parse_profiles(profile_json, "profile.json")),
          rates_(cluster_, profiles_),
          performance_(rates_) {}
    Time now() const override { return to_time(now_s); }
    const Cluster& cluster() const override { return cluster_; }
    const RateModel& rates() const override { return rates_; }
    const JobInfo& job(JobIdx j) const override { return jobs.at(j); }
    const Allocation& allocation(JobIdx j) const override { return allocs.at(j); }
    int free_gpus(GpuTypeIdx t) const override {
        int free = 0;
        for (NodeIdx n = 0; n < cluster_.nodes.size(); ++n)
            if (cluster_.nodes[n].gpu_type == t) free += free_gpus_on(n);
        return free;
    }
    int free_gpus_on(NodeIdx n) const override {
        int used = 0;
        for (const auto& a : allocs)
            for (const NodeShare& s : a.shares)
                if (s.node == n) used += s.gpus;
        return cluster_.nodes[n].gpus - used;
    }
    /// The first node of type t with exactly k GPUs free.
    NodeIdx node_with_free(GpuTypeIdx t, int k) const override {
        for (NodeIdx n = 0; n < cluster_.nodes.size(); ++n)
            if (cluster_.nodes[n].gpu_type == t && free_gpus_on(n) == k) return n;
        return kNoNode;
    }
    std::span<const JobIdx> running_jobs() const override { return running; }
    const RestartModel& restart_model() const override { return restart_; }
    const PerformanceModel& performance() const override { return performance_; }

    /// Job j runs on these shares of type t.
    void run(JobIdx j, GpuTypeIdx t, std::vector<NodeShare> shares) {
        jobs[j].state = JobState::Running;
        jobs[j].gpu_type = t;
        allocs[j].gpu_type = t;
        allocs[j].shares = std::move(shares);
        jobs[j].alloc_gpus = allocs[j].num_gpus();
        running.push_back(j);
    }

    double now_s = 0;
    std::vector<JobInfo> jobs;
    std::vector<Allocation> allocs;  // per job (empty: holds nothing)
    std::vector<JobIdx> running;

private:
    Cluster cluster_;
    ProfileSet profiles_;
    RateModel rates_;
    FixedRestart restart_{0};
    IsolatedPerformance performance_;
};

}  // namespace dlsim::test
