#pragma once
// `vc-quota`: virtual clusters with GPU quotas, the way Helios (Hu et al., SC'21) and Philly (Jeon et al., ATC'19)
// partition a cluster, and HiveD (Zhao et al., OSDI'20, github.com/microsoft/hivedscheduler) lends idle quota.
//   - Quotas count GPUs per VC: a total over all types, or per GPU type; a job's VC is the trace's `vc`
//     (jobs without one form the VC ""). A job is *guaranteed* while its VC's guaranteed jobs plus it stay
//     within the quota (on its type, and in total).
//   - mode=hard (Helios): a VC never uses more than its quota. Deviation: Helios gives each VC a node set;
//     here the quota is a GPU count and the placer may use any node of the type (no partition of nodes).
//   - mode=borrow (HiveD): a job beyond its VC's quota runs *opportunistically* on idle GPUs (of any VC's
//     quota). When a VC's job waits at its queue's head, its quota has room for it, and the free GPUs do not
//     suffice, opportunistic jobs are preempted (reclaim=youngest: the most recently started first, any
//     VC's, on the type the job takes) until it fits, at that instant. A running opportunistic job becomes
//     guaranteed as soon as its own VC's quota has room for it (oldest first), so it is not taken away while
//     its VC is within its quota. Guaranteed jobs are never preempted and opportunistic jobs never preempt,
//     so nothing swaps back and forth; the reclaim is a guarantee, not a trade of time, so the preemptive policies'
//     restart-cost margin does not gate it (HiveD's semantics).
//   - Inside a VC: FIFO by (submit, trace order), strict (a VC's head blocks its later jobs, as Helios's
//     per-VC fifo); across VCs, heads are served in (submit, trace order). In borrow mode a first pass starts
//     what fits within quotas (reclaiming where needed), a second lends the remaining idle GPUs, so a job
//     is never lent GPUs that a guaranteed job takes back at the same instant. No `inner` policy choice yet.
// Cost per call: O((changes + starts + preemptions) × log n + VCs), plus the opportunistic jobs scanned on
// a reclaim.
#include "policies/policy.hpp"
#include "policies/tenants.hpp"
#include "policies/type_choice.hpp"

#include <climits>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace dlsim {

/// One VC's quota: per GPU type and in total; kNoLimit where the other form bounds it.
struct VcQuota {
    static constexpr int kNoLimit = INT_MAX;
    std::vector<int> per_type;  ///< [type]
    int total = kNoLimit;
};

/// vc-quota's quotas by VC id (Tenants): from the JSON file `path` ({"vcA": 16, "vcB": {"V100": 8}}), or
/// (path "") each VC's share of the trace's GPU-seconds × the cluster's GPUs, rounded by largest remainder
/// (ties to the lower VC id) so they sum to the cluster's GPUs. A VC absent from the file gets 0. With
/// `hard`, a VC that has jobs and a zero quota is an InputError (its jobs could never run).
std::vector<VcQuota> resolve_vc_quotas(const std::string& path, const Cluster& cluster, const Tenants& tenants,
                                       bool hard);

class VcQuotaPolicy final : public Policy {
public:
    VcQuotaPolicy(TypeOrder order, bool borrow, std::vector<VcQuota> quotas, std::vector<std::string> vc_names);
    void decide(const ClusterView& view, const Changes& changes, Decisions& out) override;

private:
    enum class Kind : std::uint8_t { None, Guaranteed, Opportunistic };
    struct Held {  // what a job this policy started holds, as the policy counts it
        Kind kind = Kind::None;
        GpuTypeIdx type = 0;
        Time since = 0;
        std::uint32_t call = 0;     // the call that started it (not reclaimed in that call)
        std::uint32_t evicted = 0;  // the call that reclaimed it (not restarted in that call)
    };
    struct Vc {
        VcQuota quota;
        std::vector<int> used;  // [type] GPUs of its guaranteed jobs
        int used_total = 0;
        std::set<std::pair<Time, JobIdx>> queue;     // waiting, by (submit, trace order)
        std::set<std::pair<Time, JobIdx>> borrowed;  // its opportunistic running jobs, by (start, id)
        bool freed = false;                          // its guaranteed use dropped since the last call
    };
    /// GPUs of type t its quota still has room for.
    int room(const Vc& vc, GpuTypeIdx t) const;
    Held& held(JobIdx j);
    void enqueue(const ClusterView& view, JobIdx j);
    void release(const ClusterView& view, JobIdx j);
    void start(const ClusterView& view, JobIdx j, GpuTypeIdx t, Kind kind, Decisions& out);
    /// Turns running opportunistic jobs of VCs with room back into guaranteed ones (oldest first).
    void promote(const ClusterView& view);
    /// Pass 1: starts within quota, reclaiming lent GPUs (borrow); leaves blocked VCs in blocked_.
    void serve_guaranteed(const ClusterView& view, Decisions& out);
    /// Pass 2 (borrow): lends idle GPUs to blocked VCs' jobs in head order.
    void lend(const ClusterView& view, Decisions& out);
    /// Preempts opportunistic jobs on type t, youngest first (not this call's), until `need` GPUs are free.
    /// Frees `need` GPUs of type t for job `for_job` by preempting lent jobs (cause: quota, for it).
    void reclaim(const ClusterView& view, JobIdx for_job, GpuTypeIdx t, int need, Decisions& out);
    /// Every queued job's wait reason: quota or resources for a VC's head, head-of-line behind it for the rest.
    void explain(const ClusterView& view, Decisions& out) const;

    TypeOrder order_;
    bool borrow_;
    std::vector<std::string> vc_names_;  // for messages
    std::vector<Vc> vcs_;
    std::vector<Held> held_;                            // per job
    std::set<std::tuple<Time, JobIdx>> opportunistic_;  // every VC's opportunistic running jobs, by (start, id)
    std::vector<int> lent_;                             // [type] GPUs they hold
    std::vector<std::uint32_t> freed_vcs_;              // VCs with Vc::freed set
    std::vector<int> available_, fit_;                  // scratch per type
    std::vector<std::tuple<Time, JobIdx, std::uint32_t>> heads_;  // scratch: (submit, job, VC) min-heap
    std::vector<std::uint32_t> blocked_;                          // scratch: VCs whose head pass 1 could not start
    std::uint32_t call_ = 0;
};

}  // namespace dlsim
