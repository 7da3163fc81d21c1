#pragma once
// Driving a placer by hand in tests: a cluster, the state of its GPUs, the read-only view the engine
// would hand a placer, and placements as comparable, printable values. The clusters the placer tests
// share (kTwoRacks, kOneModelProfile) are in cluster_fixtures.hpp.
#include "models/cluster.hpp"
#include "models/profile.hpp"
#include "models/rate_model.hpp"
#include "policies/cluster_view.hpp"
#include "sim/cluster_state.hpp"
#include "tests/support/cluster_fixtures.hpp"

#include <algorithm>
#include <compare>
#include <ostream>
#include <span>
#include <string>
#include <vector>

namespace dlsim::test {

/// A read-only view over a ClusterState, as the engine gives policies and placers.
class FakeView final : public ClusterView {
public:
    FakeView(const Cluster& c, const RateModel& r, const ClusterState& s) : c_(c), r_(r), s_(s), performance_(r) {}
    Time now() const override { return 0; }
    const Cluster& cluster() const override { return c_; }
    const RateModel& rates() const override { return r_; }
    const JobInfo& job(JobIdx j) const override { return jobs.at(j); }
    const Allocation& allocation(JobIdx) const override { return none_; }
    const RestartModel& restart_model() const override { return restart_; }
    const PerformanceModel& performance() const override { return performance_; }
    int free_gpus(GpuTypeIdx t) const override { return s_.free_gpus(t); }
    int free_gpus_on(NodeIdx n) const override { return s_.free_on(n); }
    NodeIdx node_with_free(GpuTypeIdx t, int k) const override { return s_.node_with_free(t, k); }
    std::span<const JobIdx> running_jobs() const override { return {}; }

    std::vector<JobInfo> jobs;

private:
    const Cluster& c_;
    const RateModel& r_;
    const ClusterState& s_;
    Allocation none_;
    FixedRestart restart_{0};
    IsolatedPerformance performance_;
};

/// A cluster, its profiles, the state of its GPUs and a view over them.
struct World {
    World(const std::string& cluster_json, const std::string& profile_json)
        : cluster(parse_cluster(cluster_json, "cluster.json")),
          profiles(parse_profiles(profile_json, "profile.json")),
          rates(cluster, profiles),
          state(cluster),
          view(cluster, rates, state),
          heads(64, ClusterState::kNoGpu) {}
    World(const World&) = delete;
    World& operator=(const World&) = delete;

    /// Job j takes k GPUs of node n.
    void take(NodeIdx n, int k, JobIdx j) { state.allocate(n, k, j, heads.at(j)); }

    Cluster cluster;
    ProfileSet profiles;
    RateModel rates;
    ClusterState state;
    FakeView view;
    std::vector<GpuIdx> heads;  // per job: its GPU chain
};

/// One node's part of a placement, comparable and printable (NodeShare is neither).
struct Share {
    NodeIdx node;
    int gpus;
    auto operator<=>(const Share&) const = default;
};
inline std::ostream& operator<<(std::ostream& os, const Share& s) { return os << "node " << s.node << ": " << s.gpus; }
using Shares = std::vector<Share>;

inline Shares shares(const std::vector<NodeShare>& out) {
    Shares s;
    for (const auto& x : out) s.push_back({x.node, x.gpus});
    return s;
}

inline Shares sorted(Shares s) {
    std::sort(s.begin(), s.end());
    return s;
}

}  // namespace dlsim::test
