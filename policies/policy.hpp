#pragma once
// The policy interface: what changed since the last call plus a read-only view in, decisions out.
#include "policies/cluster_view.hpp"
#include "policies/reasons.hpp"

#include <span>
#include <vector>

namespace dlsim {

/// What happened since the policy's last call, in event order.
struct Changes {
    std::span<const JobIdx> arrived;   ///< newly queued jobs, by (submit time, trace order)
    std::span<const JobIdx> finished;  ///< jobs that completed
    bool timer = false;                ///< the policy's own timer fired
    /// Jobs the engine itself put back in the queue (a move whose new place could not be found; later,
    /// failures): a policy that keeps its own waiting set must take them back.
    std::span<const JobIdx> requeued;
    /// Starts and resizes of the last call that the placer could not fit (fragmentation): the jobs are
    /// as they were (a declined start stays queued). The engine calls the policy once more at the same
    /// instant with them; what is declined again in that call is reported at the next call.
    std::span<const JobIdx> declined;
};

/// A placer a policy prefers for one start or move, instead of the run's (`--placement`): the built-in
/// placers by their registry names. An explicit placement overrides both.
enum class PlacerChoice : std::uint8_t { Run, Consolidated, Spread, TopologyAware, StrictLocality };
/// The registry names of the choices, indexed by PlacerChoice: policies/placement/register.cpp registers the
/// placers under exactly these names.
inline constexpr const char* kPlacerChoiceNames[] = {"", "consolidated", "spread", "topology-aware", "strict-locality"};
inline constexpr const char* placer_choice_name(PlacerChoice c) { return kPlacerChoiceNames[static_cast<int>(c)]; }

struct Action {
    enum class Kind : std::uint8_t { Start, Preempt, Resize, Migrate, Pack };
    Kind kind;
    JobIdx job;
    GpuTypeIdx gpu_type = 0;
    int num_gpus = 0;
    /// An explicit placement: Decisions::placements[placement_begin, +placement_size); none = the placer's.
    std::uint32_t placement_begin = 0, placement_size = 0;
    PlacerChoice placer = PlacerChoice::Run;
    JobIdx partner = kNoPartner;  ///< Pack: the running job whose GPUs `job` shares; Preempt: the job named by `cause`
    StopCause cause = StopCause::Unstated;  ///< Preempt: why
};

/// The reason a policy gives for one job it leaves queued, naming a job where the reason does (kNobody else).
struct WaitNote {
    JobIdx job;
    WaitReason reason;
    JobIdx named = kNobody;
};

/// A policy's answer. The engine applies the actions in order and checks each one: an action that breaks
/// the rules (a start of a job that is not queued, more GPUs than are free, GPUs of another type, an
/// explicit placement on busy GPUs, a resize of a rigid job, a pack that breaks the rules of `pack`) is
/// an invalid decision.
struct Decisions {
    std::vector<Action> actions;
    std::vector<NodeShare> placements;  ///< storage for the actions' explicit placements
    Time next_call = kNever;            ///< call me again at this time (a policy timer), or kNever
    /// Why jobs stay queued (optional): each call's answer replaces the last. A queued job named in `waits`
    /// waits for that reason; every other queued job for `rest_reason` if given (WaitReason::None: not
    /// given), else for the reason the engine derives (sim/wait_ledger.hpp). `rest_reason` costs O(1) however
    /// long the queue: a strict queue says "everyone else is behind the head" without listing them.
    std::vector<WaitNote> waits;
    WaitReason rest_reason = WaitReason::None;
    JobIdx rest_named = kNobody;
    /// This answer changes no reason (a policy between the ticks of its timer): the jobs queued before it
    /// keep theirs, the jobs queued since the last answer get `rest_reason` (or the engine's default), and
    /// the jobs named by `waits` what they name. Costs O(jobs queued since), not O(queue).
    bool keep_waits = false;

    /// Start queued job j on n GPUs of type t; `nodes` (optional) says exactly where, else the placer does.
    void start(JobIdx j, GpuTypeIdx t, int n, std::span<const NodeShare> nodes = {}) {
        actions.push_back({Action::Kind::Start, j, t, n, 0, 0, PlacerChoice::Run});
        store(nodes);
    }
    /// Start queued job j on n GPUs of type t where the named placer puts it (a placement preference).
    void start(JobIdx j, GpuTypeIdx t, int n, PlacerChoice placer) {
        actions.push_back({Action::Kind::Start, j, t, n, 0, 0, placer});
        store({});
    }
    /// Space sharing: start queued job j on exactly the GPUs running job `partner` holds (same type, count
    /// and nodes); both then hold them at half share (kHalfGpu) and run at their measured pair rates
    /// (RateModel::pair). Invalid unless j is queued and rigid, `partner` runs alone (not packed) on as many
    /// GPUs as j's gang and is rigid, j may use its type, and the profile measured the pair there. When
    /// either leaves (finish, preemption, move), the other keeps the GPUs alone at its isolated rate.
    void pack(JobIdx j, JobIdx partner) {
        actions.push_back({Action::Kind::Pack, j, 0, 0, 0, 0, PlacerChoice::Run, partner});
    }
    /// Stop running job j; it goes back to the queue with its progress kept. `cause` says why (Displaced and
    /// Quota name the job `by`); unstated, the engine derives it after the call: Moved if j runs again at
    /// once, Displaced by the job that took its GPUs, else Policy.
    void preempt(JobIdx j, StopCause cause = StopCause::Unstated, JobIdx by = kNobody) {
        actions.push_back({Action::Kind::Preempt, j, 0, 0, 0, 0, PlacerChoice::Run, by, cause});
    }
    /// Queued job j stays queued for `reason` (naming job `named` where the reason does).
    void wait(JobIdx j, WaitReason reason, JobIdx named = kNobody) { waits.push_back({j, reason, named}); }
    /// Every queued job not named by wait() in this answer stays queued for `reason`.
    void wait_rest(WaitReason reason, JobIdx named = kNobody) {
        rest_reason = reason;
        rest_named = named;
    }
    /// Run elastic job j on n GPUs of its current type from now on: on `nodes` if given (exactly n GPUs of
    /// that type; its own GPUs count as free), else where the placer re-places it.
    void resize(JobIdx j, int n, std::span<const NodeShare> nodes = {}) {
        actions.push_back({Action::Kind::Resize, j, 0, n, 0, 0, PlacerChoice::Run});
        store(nodes);
    }
    /// Move running job j to type t, to `nodes` if given (else the placer decides), keeping its GPU count.
    void migrate(JobIdx j, GpuTypeIdx t, std::span<const NodeShare> nodes = {}) {
        actions.push_back({Action::Kind::Migrate, j, t, 0, 0, 0, PlacerChoice::Run});
        store(nodes);
    }
    /// Move running job j to type t where the named placer puts it.
    void migrate(JobIdx j, GpuTypeIdx t, PlacerChoice placer) {
        actions.push_back({Action::Kind::Migrate, j, t, 0, 0, 0, placer});
        store({});
    }
    std::span<const NodeShare> placement(const Action& a) const {
        return std::span<const NodeShare>(placements).subspan(a.placement_begin, a.placement_size);
    }
    void clear() {
        actions.clear();
        placements.clear();
        next_call = kNever;
        waits.clear();
        rest_reason = WaitReason::None;
        rest_named = kNobody;
        keep_waits = false;
    }

private:
    void store(std::span<const NodeShare> nodes) {
        actions.back().placement_begin = static_cast<std::uint32_t>(placements.size());
        actions.back().placement_size = static_cast<std::uint32_t>(nodes.size());
        placements.insert(placements.end(), nodes.begin(), nodes.end());
    }
};

class Policy {
public:
    virtual ~Policy() = default;
    /// Called once per instant at which something changed, after all of that instant's events (and once
    /// more at the same instant when starts were declined).
    virtual void decide(const ClusterView& view, const Changes& changes, Decisions& out) = 0;
};

/// Maps "n GPUs of type t" onto nodes. The engine then takes the lowest free GPUs on each node.
class Placer {
public:
    virtual ~Placer() = default;
    /// Fills `out` (cleared first); false if the free GPUs of type t cannot hold n.
    virtual bool place(const ClusterView& view, GpuTypeIdx t, int n, std::vector<NodeShare>& out) = 0;
    /// The same for a given job (what the engine calls): a placer that weighs the job's own speed on each
    /// candidate (topology-aware) overrides this; the others place by GPU counts alone.
    virtual bool place_job(const ClusterView& view, JobIdx, GpuTypeIdx t, int n, std::vector<NodeShare>& out) {
        return place(view, t, n, out);
    }
};

}  // namespace dlsim
