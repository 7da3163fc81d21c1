#pragma once
// The policy interface: what changed since the last call plus a read-only view in, decisions out.
#include "policies/cluster_view.hpp"

#include <span>
#include <vector>

namespace dlsim {

/// What happened since the policy's last call, in event order.
struct Changes {
    std::span<const JobIdx> arrived;   ///< newly queued jobs, by (submit time, trace order)
    std::span<const JobIdx> finished;  ///< jobs that completed
    bool timer = false;                ///< the policy's own timer fired
};

struct Action {
    enum class Kind : std::uint8_t { Start, Preempt };
    Kind kind;
    JobIdx job;
    GpuTypeIdx gpu_type = 0;
    int num_gpus = 0;
};

/// A policy's answer. The engine applies the actions in order and checks each one.
struct Decisions {
    std::vector<Action> actions;
    Time next_call = kNever;  ///< call me again at this time (a policy timer), or kNever

    void start(JobIdx j, GpuTypeIdx t, int n) { actions.push_back({Action::Kind::Start, j, t, n}); }
    void preempt(JobIdx j) { actions.push_back({Action::Kind::Preempt, j, 0, 0}); }
    void clear() { actions.clear(); next_call = kNever; }
};

class Policy {
public:
    virtual ~Policy() = default;
    /// Called once per instant at which something changed, after all of that instant's events.
    virtual void decide(const ClusterView& view, const Changes& changes, Decisions& out) = 0;
};

/// One node's part of a placement.
struct NodeShare {
    NodeIdx node;
    int gpus;
};

/// Maps "n GPUs of type t" onto nodes. The engine then takes the lowest free GPUs on each node.
class Placer {
public:
    virtual ~Placer() = default;
    /// Fills `out` (cleared first); false if the free GPUs of type t cannot hold n.
    virtual bool place(const ClusterView& view, GpuTypeIdx t, int n, std::vector<NodeShare>& out) = 0;
};

}  // namespace dlsim
