#include "policies/rounds/round_scheduler.hpp"

#include "models/base/input_error.hpp"
#include "policies/rounds/gavel_compat_round.hpp"

#include <algorithm>
#include <cmath>

namespace dlsim {

RoundScheduler::RoundScheduler(RoundOptions options, std::unique_ptr<ShareSource> source)
    : options_(options),
      cycle_(to_time(options.round_s), to_time(options.reset_interval_s), options.gavel_compat, "round scheduler"),
      source_(std::move(source)),
      rng_(options.seed, "gavel-type-order") {}

void RoundScheduler::setup(const ClusterView& view) {
    const Cluster& c = view.cluster();
    types_ = c.gpu_types.size();
    shares_.setup(types_, options_.round_s / 2);
    capacity_.assign(types_, 0);
    node_cursor_.assign(types_, 0);
    type_order_.resize(types_);
    for (GpuTypeIdx t = 0; t < types_; ++t) type_order_[t] = t;
    nodes_of_type_.assign(types_, {});
    for (NodeIdx n = 0; n < c.nodes.size(); ++n) nodes_of_type_[c.nodes[n].gpu_type].push_back(n);
    plan_free_.assign(c.nodes.size(), 0);
    input_.capacities.resize(types_);
    for (GpuTypeIdx t = 0; t < types_; ++t) input_.capacities[t] = c.gpus_of_type(t);
    ready_ = true;
}

std::uint32_t RoundScheduler::take_slot(JobIdx j) {
    if (j >= slot_of_.size()) slot_of_.resize(std::max<std::size_t>(j + 1, 2 * slot_of_.size()), kNoSlot);
    std::uint32_t slot;
    if (!free_slots_.empty()) {
        slot = free_slots_.back();
        free_slots_.pop_back();
        picked_[slot] = skip_[slot] = 0;
    } else {
        slot = static_cast<std::uint32_t>(accounted_.size());
        accounted_.push_back(0);
        picked_.push_back(0);
        skip_.push_back(0);
        throughput_.resize(accounted_.size() * types_, 0.0);
        shares_.grow(accounted_.size());
    }
    slot_of_[j] = slot;
    return slot;
}

void RoundScheduler::account(const ClusterView& view, JobIdx j) {
    const JobInfo& job = view.job(j);
    const Time from = std::max(accounted_[slot_of_[j]], job.stint_start);
    const Time to = job.state == JobState::Finished ? std::min(job.finish, view.now()) : view.now();
    if (to > from) {
        const double seconds = to_seconds(to - from);
        shares_.credit(slot_of_[j], job.gpu_type, seconds);
    }
    accounted_[slot_of_[j]] = view.now();
}

void RoundScheduler::add_job(const ClusterView& view, JobIdx j) {
    take_slot(j);
    const JobInfo& job = view.job(j);
    active_.insert(std::lower_bound(active_.begin(), active_.end(), j), j);
    for (GpuTypeIdx t = 0; t < types_; ++t) {
        const std::size_t c = cell(j, t);
        const bool can_run = (job.runnable >> t & 1U) != 0 && view.cluster().gpus_of_type(t) >= job.num_gpus;
        throughput_[c] = can_run ? view.rates().rate(job.model, t, job.num_gpus) : 0.0;
    }
    shares_.start_row(slot_of_[j]);
    accounted_[slot_of_[j]] = view.now();
    cycle_.invalidate();
}

void RoundScheduler::remove_job(JobIdx j) {
    const auto it = std::lower_bound(active_.begin(), active_.end(), j);
    if (it == active_.end() || *it != j) throw InternalError("round scheduler: a job finished that was not active");
    active_.erase(it);
    free_slots_.push_back(slot_of_[j]);
    slot_of_[j] = kNoSlot;
    cycle_.invalidate();
}

void RoundScheduler::reset_shares(Time now) {
    shares_.reset(now, live_slots());
    ++stats_.resets;
}

void RoundScheduler::recompute_allocation(const ClusterView& view) {
    const Time now = view.now();
    shares_.entitle(now, live_slots());  // the X that held until now
    input_.clear_jobs();
    submit_.clear();
    for (const JobIdx j : active_) {
        const JobInfo& job = view.job(j);
        input_.jobs.push_back({j, job.num_gpus, job.weight, job.remaining_at(now), to_seconds(now - job.submit)});
        for (GpuTypeIdx t = 0; t < types_; ++t) input_.throughputs.push_back(throughput_[cell(j, t)]);
        submit_.push_back(job.submit);
    }
    const std::span<const double> x = source_->allocate(input_, submit_);
    if (x.size() != active_.size() * types_) throw InternalError("round scheduler: allocation of the wrong size");
    for (std::size_t i = 0; i < active_.size(); ++i) {
        const JobIdx j = active_[i];
        // On a 1e-6 grid: equal shares stay equal. Neither solver noise nor the LPs' phase 2, which may move a
        // share by its 1e-7 relative slack, may break the ties between them (the walk breaks them by arrival).
        for (GpuTypeIdx t = 0; t < types_; ++t)
            shares_.set_x(slot_of_[j], t, std::round(x[i * types_ + t] * 1e6) / 1e6);
        shares_.set_in_allocation(slot_of_[j], true);
    }
    cycle_.allocated();
    ++stats_.allocations;
}

void RoundScheduler::shuffle_type_order() {
    if (!options_.type_aware)  // Fisher-Yates, as Gavel shuffles its worker types for agnostic policies
        for (std::size_t i = types_; i > 1; --i) std::swap(type_order_[i - 1], type_order_[rng_.below(i)]);
}

double RoundScheduler::priority(JobIdx j, GpuTypeIdx t) const {
    return shares_.priority(slot_of_[j], t, throughput_[cell(j, t)] > 0);
}

void RoundScheduler::walk(const ClusterView& view, bool waiting_only) {
    ++walk_stamp_;
    picks_.clear();
    shuffle_type_order();
    for (GpuTypeIdx t = 0; t < types_; ++t)
        capacity_[t] = waiting_only ? view.free_gpus(t) : view.cluster().gpus_of_type(t);
    const bool skip_zero = options_.gavel_compat && options_.fifo;
    for (const GpuTypeIdx t : type_order_) {
        if (capacity_[t] == 0) continue;
        entries_.clear();
        for (const JobIdx j : active_) {
            const std::size_t c = cell(j, t);
            if (!(throughput_[c] > 0)) continue;
            const JobInfo& job = view.job(j);
            if (waiting_only && (job.state != JobState::Queued || skip_[slot_of_[j]] == call_stamp_)) continue;
            const std::uint32_t slot = slot_of_[j];
            const double p = priority(j, t);
            if (skip_zero && !(p > 0)) continue;  // passed over below anyway: keep it out of the heap
            entries_.push_back({p, shares_.deficit(slot, t), shares_.x(slot, t), job.submit, j});
        }
        // Highest priority first. The walk stops once the type is full, usually after a few dozen of hundreds of
        // entries: a heap pops them in the order a sort would give (the order is total) without sorting the rest.
        const auto after = [](const Entry& a, const Entry& b) {
            if (a.priority != b.priority) return a.priority < b.priority;
            if (a.deficit != b.deficit) return a.deficit < b.deficit;
            if (a.x != b.x) return a.x < b.x;
            return a.submit != b.submit ? a.submit > b.submit : a.job > b.job;
        };
        std::make_heap(entries_.begin(), entries_.end(), after);
        for (auto end = entries_.end(); end != entries_.begin() && capacity_[t] > 0; --end) {
            std::pop_heap(entries_.begin(), end, after);
            const Entry& e = *(end - 1);
            if (picked_[slot_of_[e.job]] == walk_stamp_) continue;  // one type per job
            const int g = view.job(e.job).num_gpus;
            if (g > capacity_[t]) continue;
            capacity_[t] -= g;
            picked_[slot_of_[e.job]] = walk_stamp_;
            picks_.push_back({e.job, t, g});
        }
    }
}

void RoundScheduler::decide(const ClusterView& view, const Changes& changes, Decisions& out) {
    if (!ready_) setup(view);
    ++call_stamp_;
    for (const JobIdx j : changes.declined)
        if (j < slot_of_.size() && slot_of_[j] != kNoSlot) skip_[slot_of_[j]] = call_stamp_;  // not again now
    for (const JobIdx j : changes.finished) {
        account(view, j);
        remove_job(j);
    }
    for (const JobIdx j : changes.requeued) account(view, j);
    for (const JobIdx j : view.running_jobs()) account(view, j);
    for (const JobIdx j : changes.arrived) add_job(view, j);
    round_began_ = false;
    cycle_.step(*this, view, changes.timer, !active_.empty(), shares_, out);
    // A job left out of a round has spent its time share for it; one that arrived during a round waits for
    // the next round (a job this call starts is not waiting: its note is ignored).
    if (!round_began_)
        for (const JobIdx j : changes.arrived) out.wait(j, WaitReason::PolicyTimer);
    out.wait_rest(WaitReason::Share);
}

void RoundScheduler::boundary_round(const ClusterView& view, Decisions& out) {
    round_began_ = true;
    walk(view, false);
    ++stats_.rounds;
    desired_.clear();
    for (const Pick& p : picks_) {
        const JobInfo& job = view.job(p.job);
        if (job.state == JobState::Running && job.gpu_type == p.type && job.alloc_gpus == p.gpus) {
            desired_.keep(p.job);  // the lease is renewed: same GPUs, no restart
            ++stats_.lease_renewals;
        } else {
            desired_.want(p.job, p.type, p.gpus);
        }
    }
    desired_.emit(view, out, StopCause::RoundEnd);
}

void RoundScheduler::fill_round(const ClusterView& view, Decisions& out) {
    walk(view, true);
    ++stats_.fills;
    for (const Pick& p : picks_) out.start(p.job, p.type, p.gpus);
}

void RoundScheduler::place_compat(const ClusterView& view) {
    const Cluster& cluster = view.cluster();
    nodes_.clear();
    for (NodeIdx n = 0; n < cluster.nodes.size(); ++n) plan_free_[n] = cluster.nodes[n].gpus;
    std::fill(node_cursor_.begin(), node_cursor_.end(), 0);
    // Gavel assigns type by type, larger gangs first (stable: walk order within a gang size).
    pick_order_.resize(picks_.size());
    for (std::uint32_t i = 0; i < picks_.size(); ++i) pick_order_[i] = i;
    std::sort(pick_order_.begin(), pick_order_.end(), [&](std::uint32_t a, std::uint32_t b) {
        if (picks_[a].type != picks_[b].type) return picks_[a].type < picks_[b].type;
        return picks_[a].gpus != picks_[b].gpus ? picks_[a].gpus > picks_[b].gpus : a < b;
    });
    for (std::size_t begin = 0; begin < pick_order_.size();) {
        std::size_t end = begin;
        while (end < pick_order_.size() && picks_[pick_order_[end]].type == picks_[pick_order_[begin]].type &&
               picks_[pick_order_[end]].gpus == picks_[pick_order_[begin]].gpus)
            ++end;
        // Leases first: a job keeps its GPUs if none of them went to a larger gang (or an earlier lease).
        for (std::size_t k = begin; k < end; ++k) {
            Pick& p = picks_[pick_order_[k]];
            const JobInfo& job = view.job(p.job);
            if (job.state != JobState::Running || job.gpu_type != p.type) continue;
            const Allocation& held = view.allocation(p.job);
            if (!std::all_of(held.shares.begin(), held.shares.end(),
                             [&](const NodeShare& s) { return plan_free_[s.node] >= s.gpus; }))
                continue;
            p.nodes_begin = static_cast<std::uint32_t>(nodes_.size());
            for (const NodeShare& s : held.shares) {
                plan_free_[s.node] -= s.gpus;
                nodes_.push_back(s);
            }
            p.nodes_size = static_cast<std::uint32_t>(held.shares.size());
            p.placed = true;
        }
        // Then the lowest free GPUs in node order (Gavel's server walk never goes back, so this is the same).
        for (std::size_t k = begin; k < end; ++k) {
            Pick& p = picks_[pick_order_[k]];
            if (p.placed || !shares_.in_allocation(slot_of_[p.job])) continue;  // not in X: never placed (Gavel)
            const std::vector<NodeIdx>& nodes = nodes_of_type_[p.type];
            std::size_t& cursor = node_cursor_[p.type];
            p.nodes_begin = static_cast<std::uint32_t>(nodes_.size());
            if (!gavel_take_lowest_free(nodes, cursor, plan_free_, p.gpus, nodes_))
                throw InternalError("round scheduler: a selected gang found no GPUs");
            p.nodes_size = static_cast<std::uint32_t>(nodes_.size() - p.nodes_begin);
            p.placed = true;
        }
        begin = end;
    }
}

// A FIFO round in which every running job runs on a type where it has x > 0 and no waiting job has a positive
// priority anywhere (not yet in X, or x = 0 on every type it can use): the walk would select exactly the
// running jobs (FIFO passes over priority 0, and what runs fits), each keeping its GPUs, so the round renews
// every lease and emits nothing. Gavel's light-load rounds are nearly all like this, including those in which
// a new job waits for the reset gate; this skips their walk (the type order is still shuffled, as the walk
// would, so that later walks see the same order).
Time RoundScheduler::renew_only_round(const ClusterView& view) {
    round_began_ = true;  // (a round that renews every lease; kNever below: the walk's round begins instead)
    if (!options_.fifo) return kNever;
    const std::span<const JobIdx> running = view.running_jobs();
    if (running.empty()) return kNever;  // no lease to renew (the walk path also wakes up for the reset gate)
    if (running.size() != active_.size())
        for (const JobIdx j : active_) {
            if (view.job(j).state == JobState::Running) continue;
            for (GpuTypeIdx t = 0; t < types_; ++t)
                if (priority(j, t) > 0) return kNever;  // the walk may start it
        }
    const Time now = view.now();
    const double tau = options_.round_s;
    Time end = kNever;
    for (const JobIdx j : running) {
        const JobInfo& job = view.job(j);
        const std::size_t c = cell(j, job.gpu_type);
        if (!(priority(j, job.gpu_type) > 0)) return kNever;  // not in X, no share there, or cannot run there
        const Time finish = gavel_micro_task_end(now, throughput_[c], job.remaining_at(now), tau, cycle_.round());
        end = end == kNever ? finish : std::max(end, finish);
    }
    if (running.size() != active_.size()) shuffle_type_order();
    ++stats_.rounds;
    stats_.lease_renewals += running.size();
    return end;
}

Time RoundScheduler::compat_round(const ClusterView& view, Decisions& out) {
    round_began_ = true;
    walk(view, false);
    ++stats_.rounds;
    place_compat(view);
    desired_.clear();
    const Time now = view.now();
    Time end = kNever;
    const double tau = options_.round_s;
    for (const Pick& p : picks_) {
        if (!p.placed) {
            ++stats_.unplaced;
            continue;
        }
        const auto nodes = std::span<const NodeShare>(nodes_).subspan(p.nodes_begin, p.nodes_size);
        const JobInfo& job = view.job(p.job);
        if (job.state == JobState::Running && view.allocation(p.job).same_place(p.type, nodes)) ++stats_.lease_renewals;
        desired_.want(p.job, p.type, p.gpus, nodes);
        const Time finish =
            gavel_micro_task_end(now, throughput_[cell(p.job, p.type)], job.remaining_at(now), tau, cycle_.round());
        end = end == kNever ? finish : std::max(end, finish);
    }
    desired_.emit(view, out, StopCause::RoundEnd);
    return end;
}

}  // namespace dlsim
