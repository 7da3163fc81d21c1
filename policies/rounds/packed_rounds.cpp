#include "policies/rounds/packed_rounds.hpp"

#include "models/base/input_error.hpp"
#include "policies/rounds/gavel_compat_round.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace dlsim {

namespace {

/// The same GPUs, whatever the shares (a packed job holds its GPUs at half share).
bool same_gpus(const Allocation& held, GpuTypeIdx t, std::span<const NodeShare> want) {
    if (held.gpu_type != t || held.shares.size() != want.size()) return false;
    return std::all_of(held.shares.begin(), held.shares.end(), [&](const NodeShare& s) {
        return std::any_of(want.begin(), want.end(),
                           [&](const NodeShare& w) { return w.node == s.node && w.gpus == s.gpus; });
    });
}

}  // namespace

PackedRoundScheduler::PackedRoundScheduler(RoundOptions options, std::unique_ptr<PackedShareSource> source)
    : options_(options),
      cycle_(to_time(options.round_s), to_time(options.reset_interval_s), options.gavel_compat, "packed rounds"),
      source_(std::move(source)) {}

void PackedRoundScheduler::setup(const ClusterView& view) {
    const Cluster& c = view.cluster();
    types_ = c.gpu_types.size();
    shares_.setup(types_, options_.round_s / 2);
    capacity_.assign(types_, 0);
    node_cursor_.assign(types_, 0);
    nodes_of_type_.assign(types_, {});
    for (NodeIdx n = 0; n < c.nodes.size(); ++n) nodes_of_type_[c.nodes[n].gpu_type].push_back(n);
    plan_free_.assign(c.nodes.size(), 0);
    input_.singles.capacities.resize(types_);
    for (GpuTypeIdx t = 0; t < types_; ++t) input_.singles.capacities[t] = c.gpus_of_type(t);
    ready_ = true;
}

void PackedRoundScheduler::grow_jobs(JobIdx j) {
    if (j < single_.size()) return;
    const std::size_t n = std::max<std::size_t>(j + 1, 2 * single_.size());
    single_.resize(n, kNone);
    units_of_.resize(n);
    accounted_.resize(n, 0);
    intended_partner_.resize(n, kNoPartner);
    picked_.resize(n, 0);
    wanted_.resize(n, 0);
    want_type_.resize(n, 0);
    want_partner_.resize(n, kNoPartner);
    want_nodes_begin_.resize(n, 0);
    want_nodes_size_.resize(n, 0);
    keep_.resize(n, 0);
    skip_.resize(n, 0);
}

std::uint32_t PackedRoundScheduler::new_unit(const ClusterView& view, JobIdx a, JobIdx b) {
    std::uint32_t u;
    if (!free_units_.empty()) {
        u = free_units_.back();
        free_units_.pop_back();
    } else {
        u = static_cast<std::uint32_t>(units_.size());
        units_.emplace_back();
        shares_.grow(units_.size());
        rate_.resize(units_.size() * types_ * 2, 0.0);
    }
    const JobInfo& ja = view.job(a);
    units_[u] = {a, b, ja.num_gpus, true};
    shares_.start_row(u);  // not in X until the next allocation
    for (GpuTypeIdx t = 0; t < types_; ++t) {
        const std::size_t c = cell(u, t);
        double& ra = rate_[c * 2];
        double& rb = rate_[c * 2 + 1];
        ra = rb = 0;
        const bool a_runs = (ja.runnable >> t & 1U) != 0 && view.cluster().gpus_of_type(t) >= ja.num_gpus;
        if (b == kNoPartner) {
            if (a_runs) ra = view.rates().rate(ja.model, t, ja.num_gpus);
            continue;
        }
        const JobInfo& jb = view.job(b);
        if (!a_runs || (jb.runnable >> t & 1U) == 0) continue;
        if (const auto packed = view.rates().pair(ja.model, jb.model, t)) {
            ra = (*packed)[0];
            rb = (*packed)[1];
        }
    }
    units_of_[a].push_back(u);
    if (b != kNoPartner) {
        units_of_[b].push_back(u);
        pair_units_[{a, b}] = u;
    }
    return u;
}

std::uint32_t PackedRoundScheduler::pair_unit(const ClusterView& view, JobIdx a, JobIdx b) {
    if (a > b) std::swap(a, b);
    const auto it = pair_units_.find({a, b});
    return it != pair_units_.end() ? it->second : new_unit(view, a, b);
}

void PackedRoundScheduler::credit(std::uint32_t u, GpuTypeIdx t, Time from, Time to) {
    if (to <= from) return;
    const double seconds = to_seconds(to - from);
    shares_.credit(u, t, seconds);
}

void PackedRoundScheduler::account_finished(const ClusterView& view, JobIdx j) {
    const JobInfo& job = view.job(j);
    const Time to = std::min(job.finish, view.now());
    const JobIdx q = intended_partner_[j];
    if (q != kNoPartner && single_[q] != kNone && intended_partner_[q] == j) {
        // It finished packed: the pair's time; the survivor runs alone from here.
        const Time from = std::max({accounted_[j], accounted_[q], job.stint_start});
        credit(pair_unit(view, j, q), job.gpu_type, from, to);
        accounted_[q] = std::max(accounted_[q], to);
        intended_partner_[q] = kNoPartner;
    } else {
        credit(single_[j], job.gpu_type, std::max(accounted_[j], job.stint_start), to);
    }
    accounted_[j] = view.now();
}

void PackedRoundScheduler::account_running(const ClusterView& view, JobIdx j) {
    const JobInfo& job = view.job(j);
    const JobIdx p = view.allocation(j).partner;
    if (p == kNoPartner) {
        credit(single_[j], job.gpu_type, std::max(accounted_[j], job.stint_start), view.now());
        accounted_[j] = view.now();
    } else if (j < p) {  // once per pair
        const Time from = std::max({accounted_[j], accounted_[p], job.stint_start, view.job(p).stint_start});
        credit(pair_unit(view, j, p), job.gpu_type, from, view.now());
        accounted_[j] = accounted_[p] = view.now();
    }
}

void PackedRoundScheduler::add_job(const ClusterView& view, JobIdx j) {
    grow_jobs(j);
    single_[j] = new_unit(view, j, kNoPartner);
    accounted_[j] = view.now();
    intended_partner_[j] = kNoPartner;
    active_.insert(std::lower_bound(active_.begin(), active_.end(), j), j);
    cycle_.invalidate();
}

void PackedRoundScheduler::remove_job(JobIdx j) {
    const auto it = std::lower_bound(active_.begin(), active_.end(), j);
    if (it == active_.end() || *it != j) throw InternalError("packed rounds: a job finished that was not active");
    active_.erase(it);
    for (const std::uint32_t u : units_of_[j]) {
        Unit& unit = units_[u];
        unit.alive = false;
        if (unit.b != kNoPartner) {
            pair_units_.erase({unit.a, unit.b});
            auto& other = units_of_[unit.a == j ? unit.b : unit.a];
            other.erase(std::find(other.begin(), other.end(), u));
        }
        free_units_.push_back(u);
    }
    units_of_[j].clear();
    const JobIdx q = intended_partner_[j];
    if (q != kNoPartner && intended_partner_[q] == j) intended_partner_[q] = kNoPartner;
    intended_partner_[j] = kNoPartner;
    single_[j] = kNone;
    cycle_.invalidate();
}

void PackedRoundScheduler::reset_shares(Time now) {
    shares_.reset(now, live_units());
    ++stats_.resets;
}

const double* PackedRoundScheduler::pair_rates(const ClusterView& view, ModelIdx a, ModelIdx b, GpuTypeIdx t) {
    if (std::max(a, b) >= pair_cache_dim_) {  // a model beyond the table: start a larger one
        pair_cache_dim_ = std::max<std::size_t>(std::max(a, b) + 1, 2 * pair_cache_dim_);
        pair_cache_.assign(pair_cache_dim_ * pair_cache_dim_ * types_ * 2, std::numeric_limits<double>::quiet_NaN());
    }
    double* r = &pair_cache_[((a * pair_cache_dim_ + b) * types_ + t) * 2];
    if (std::isnan(r[0])) {
        const auto packed = view.rates().pair(a, b, t);
        r[0] = packed ? (*packed)[0] : -1.0;
        r[1] = packed ? (*packed)[1] : -1.0;
    }
    return r;
}

void PackedRoundScheduler::recompute_allocation(const ClusterView& view) {
    const Time now = view.now();
    shares_.entitle(now, live_units());  // the X that held until now
    input_.clear();
    submit_.clear();
    ShareInput& singles = input_.singles;
    for (const JobIdx j : active_) {
        const JobInfo& job = view.job(j);
        singles.jobs.push_back({j, job.num_gpus, job.weight, job.remaining_at(now), to_seconds(now - job.submit)});
        for (GpuTypeIdx t = 0; t < types_; ++t) singles.throughputs.push_back(rate(single_[j], t, 0));
        submit_.push_back(job.submit);
    }
    // Candidate pairs: single-GPU jobs (the profile's pair rates are per GPU) with a normalised sum above 1.
    double rates[2 * 8];
    const std::size_t n = active_.size();
    if (view.rates().has_pairs() && types_ <= 8)
        for (std::uint32_t i = 0; i < n; ++i) {
            const JobInfo& ji = view.job(active_[i]);
            if (ji.num_gpus != 1 || ji.model == kNoModel) continue;
            for (std::uint32_t k = i + 1; k < n; ++k) {
                const JobInfo& jk = view.job(active_[k]);
                if (jk.num_gpus != 1 || jk.model == kNoModel) continue;
                double best = 0;
                for (GpuTypeIdx t = 0; t < types_; ++t) {
                    rates[2 * t] = rates[2 * t + 1] = 0;
                    const double ti = singles.throughput(i, t), tk = singles.throughput(k, t);
                    if (!(ti > 0) || !(tk > 0)) continue;
                    const double* packed = pair_rates(view, ji.model, jk.model, t);
                    if (!(packed[0] > 0) || !(packed[1] > 0)) continue;
                    rates[2 * t] = packed[0];
                    rates[2 * t + 1] = packed[1];
                    best = std::max(best, rates[2 * t] / ti + rates[2 * t + 1] / tk);
                }
                if (!(best > 1.0)) continue;
                input_.pairs.emplace_back(i, k);
                input_.pair_rates.insert(input_.pair_rates.end(), rates, rates + 2 * types_);
            }
        }
    const PackedShare& x = source_->allocate(input_, submit_);
    if (x.x_single.size() != n * types_ || x.x_pair.size() != input_.pairs.size() * types_)
        throw InternalError("packed rounds: allocation of the wrong size");
    for (std::uint32_t u = 0; u < units_.size(); ++u)
        if (units_[u].alive) {
            shares_.set_in_allocation(u, true);  // every job is in X; a pair outside it has x = 0
            for (GpuTypeIdx t = 0; t < types_; ++t) shares_.set_x(u, t, 0);
        }
    const auto grid = [](double v) { return std::round(v * 1e9) / 1e9; };  // ties stay ties (round_scheduler: 1e-6)
    for (std::size_t i = 0; i < n; ++i)
        for (GpuTypeIdx t = 0; t < types_; ++t) shares_.set_x(single_[active_[i]], t, grid(x.x_single[i * types_ + t]));
    for (std::size_t p = 0; p < input_.pairs.size(); ++p) {
        bool any = false;
        for (GpuTypeIdx t = 0; t < types_; ++t) any = any || grid(x.x_pair[p * types_ + t]) > 0;
        if (!any) continue;
        const std::uint32_t u = pair_unit(view, active_[input_.pairs[p].first], active_[input_.pairs[p].second]);
        shares_.set_in_allocation(u, true);
        for (GpuTypeIdx t = 0; t < types_; ++t) shares_.set_x(u, t, grid(x.x_pair[p * types_ + t]));
    }
    cycle_.allocated();
    ++stats_.allocations;
}

bool PackedRoundScheduler::can_run(std::uint32_t u, GpuTypeIdx t) const {
    return rate(u, t, 0) > 0 && (units_[u].b == kNoPartner || rate(u, t, 1) > 0);
}

double PackedRoundScheduler::priority(std::uint32_t u, GpuTypeIdx t) const {
    return shares_.priority(u, t, can_run(u, t));
}

void PackedRoundScheduler::walk(const ClusterView& view, bool waiting_only) {
    ++walk_stamp_;
    picks_.clear();
    for (GpuTypeIdx t = 0; t < types_; ++t)
        capacity_[t] = waiting_only ? view.free_gpus(t) : view.cluster().gpus_of_type(t);
    for (GpuTypeIdx t = 0; t < types_; ++t) {  // the cluster's type order (heterogeneity-aware policies only)
        if (capacity_[t] == 0) continue;
        entries_.clear();
        for (std::uint32_t u = 0; u < units_.size(); ++u) {
            const Unit& unit = units_[u];
            if (!unit.alive || !can_run(u, t)) continue;
            if (waiting_only &&
                (unit.b != kNoPartner || view.job(unit.a).state != JobState::Queued || skip_[unit.a] == call_stamp_))
                continue;
            Time submit = view.job(unit.a).submit;
            if (unit.b != kNoPartner) submit = std::min(submit, view.job(unit.b).submit);
            entries_.push_back({priority(u, t), shares_.deficit(u, t), shares_.x(u, t), submit, unit.a, unit.b, u});
        }
        // Highest priority first, popped from a heap: the walk stops once the type is full (as RoundScheduler).
        const auto after = [](const Entry& a, const Entry& b) {
            if (a.priority != b.priority) return a.priority < b.priority;
            if (a.deficit != b.deficit) return a.deficit < b.deficit;
            if (a.x != b.x) return a.x < b.x;
            if (a.submit != b.submit) return a.submit > b.submit;
            return a.a != b.a ? a.a > b.a : a.b > b.b;
        };
        const bool skip_zero = options_.gavel_compat && options_.fifo;
        std::make_heap(entries_.begin(), entries_.end(), after);
        for (auto end = entries_.end(); end != entries_.begin() && capacity_[t] > 0; --end) {
            std::pop_heap(entries_.begin(), end, after);
            const Entry& e = *(end - 1);
            if (picked_[e.a] == walk_stamp_ || (e.b != kNoPartner && picked_[e.b] == walk_stamp_)) continue;
            if (skip_zero && !(e.priority > 0)) continue;
            const int g = units_[e.unit].gang;
            if (g > capacity_[t]) continue;
            capacity_[t] -= g;
            picked_[e.a] = walk_stamp_;
            if (e.b != kNoPartner) picked_[e.b] = walk_stamp_;
            picks_.push_back({e.unit, t});
        }
    }
}

void PackedRoundScheduler::place(const ClusterView& view) {
    const Cluster& cluster = view.cluster();
    nodes_.clear();
    for (NodeIdx n = 0; n < cluster.nodes.size(); ++n) plan_free_[n] = cluster.nodes[n].gpus;
    std::fill(node_cursor_.begin(), node_cursor_.end(), 0);
    pick_order_.resize(picks_.size());
    for (std::uint32_t i = 0; i < picks_.size(); ++i) pick_order_[i] = i;
    const auto gang = [&](const Pick& p) { return units_[p.unit].gang; };
    std::sort(pick_order_.begin(), pick_order_.end(), [&](std::uint32_t a, std::uint32_t b) {
        if (picks_[a].type != picks_[b].type) return picks_[a].type < picks_[b].type;
        return gang(picks_[a]) != gang(picks_[b]) ? gang(picks_[a]) > gang(picks_[b]) : a < b;
    });
    for (std::size_t begin = 0; begin < pick_order_.size();) {
        std::size_t end = begin;
        while (end < pick_order_.size() && picks_[pick_order_[end]].type == picks_[pick_order_[begin]].type &&
               gang(picks_[pick_order_[end]]) == gang(picks_[pick_order_[begin]]))
            ++end;
        // Leases first: the GPUs a member holds on the type (alone or packed), if none went to another unit.
        for (std::size_t k = begin; k < end; ++k) {
            Pick& p = picks_[pick_order_[k]];
            const Unit& unit = units_[p.unit];
            for (const JobIdx m : {unit.a, unit.b}) {
                if (p.placed || m == kNoPartner) continue;
                const JobInfo& job = view.job(m);
                if (job.state != JobState::Running || job.gpu_type != p.type || job.alloc_gpus != unit.gang) continue;
                const Allocation& held = view.allocation(m);
                if (!std::all_of(held.shares.begin(), held.shares.end(),
                                 [&](const NodeShare& s) { return plan_free_[s.node] >= s.gpus; }))
                    continue;
                p.nodes_begin = static_cast<std::uint32_t>(nodes_.size());
                for (const NodeShare& s : held.shares) {
                    plan_free_[s.node] -= s.gpus;
                    nodes_.push_back({s.node, s.gpus});
                }
                p.nodes_size = static_cast<std::uint32_t>(held.shares.size());
                p.placed = true;
            }
        }
        for (std::size_t k = begin; k < end; ++k) {
            Pick& p = picks_[pick_order_[k]];
            if (p.placed || !shares_.in_allocation(p.unit)) continue;  // not in X: never placed (Gavel)
            const std::vector<NodeIdx>& nodes = nodes_of_type_[p.type];
            std::size_t& cursor = node_cursor_[p.type];
            p.nodes_begin = static_cast<std::uint32_t>(nodes_.size());
            if (!gavel_take_lowest_free(nodes, cursor, plan_free_, units_[p.unit].gang, nodes_))
                throw InternalError("packed rounds: a selected unit found no GPUs");
            p.nodes_size = static_cast<std::uint32_t>(nodes_.size() - p.nodes_begin);
            p.placed = true;
        }
        begin = end;
    }
}

void PackedRoundScheduler::emit(const ClusterView& view, Decisions& out) {
    ++emit_stamp_;
    for (const Pick& p : picks_) {
        const Unit& unit = units_[p.unit];
        for (const JobIdx m : {unit.a, unit.b}) {
            if (m == kNoPartner) continue;
            keep_[m] = 0;
            if (!p.placed) continue;
            wanted_[m] = emit_stamp_;
            want_type_[m] = p.type;
            want_partner_[m] = m == unit.a ? unit.b : unit.a;
            want_nodes_begin_[m] = p.nodes_begin;
            want_nodes_size_[m] = p.nodes_size;
        }
    }
    const auto keepable = [&](JobIdx m) {
        return wanted_[m] == emit_stamp_ && view.job(m).state == JobState::Running &&
               same_gpus(view.allocation(m), want_type_[m],
                         std::span<const NodeShare>(nodes_).subspan(want_nodes_begin_[m], want_nodes_size_[m]));
    };
    // 1. Everything that does not stay exactly as it is leaves its GPUs first.
    for (const JobIdx j : view.running_jobs()) {
        const JobIdx p = view.allocation(j).partner;
        keep_[j] = keepable(j) && (p == kNoPartner || want_partner_[j] == p || !keepable(p));
        if (!keep_[j]) {
            out.preempt(j, StopCause::RoundEnd);
            intended_partner_[j] = kNoPartner;
        }
    }
    // 2. Starts and packs, in walk order, on the planned GPUs.
    for (const Pick& p : picks_) {
        if (!p.placed) {
            ++stats_.unplaced;
            continue;
        }
        emit_pick(p, std::span<const NodeShare>(nodes_).subspan(p.nodes_begin, p.nodes_size), out);
    }
}

void PackedRoundScheduler::emit_default(const ClusterView& view, Decisions& out) {
    ++emit_stamp_;
    const auto holds = [&](JobIdx m, GpuTypeIdx t, int g) {
        const JobInfo& job = view.job(m);
        return job.state == JobState::Running && job.gpu_type == t && job.alloc_gpus == g;
    };
    // Who stays: a single on its type; a pair packed together; else a pair's running member (the leader).
    for (const JobIdx j : view.running_jobs()) keep_[j] = 0;
    for (const Pick& p : picks_) {
        const Unit& unit = units_[p.unit];
        for (const JobIdx m : {unit.a, unit.b})
            if (m != kNoPartner) {
                wanted_[m] = emit_stamp_;
                want_partner_[m] = m == unit.a ? unit.b : unit.a;
            }
        if (unit.b == kNoPartner) {
            keep_[unit.a] = holds(unit.a, p.type, unit.gang);
        } else if (view.allocation(unit.a).partner == unit.b && holds(unit.a, p.type, unit.gang)) {
            keep_[unit.a] = keep_[unit.b] = 1;
        } else if (holds(unit.a, p.type, unit.gang)) {
            keep_[unit.a] = 1;
        } else if (holds(unit.b, p.type, unit.gang)) {
            keep_[unit.b] = 1;
        }
    }
    // Two kept jobs packed together that are not to stay together: the later one leaves (and restarts).
    for (const JobIdx j : view.running_jobs()) {
        const JobIdx p = view.allocation(j).partner;
        if (keep_[j] && p != kNoPartner && keep_[p] && want_partner_[j] != p) keep_[std::max(j, p)] = 0;
    }
    for (const JobIdx j : view.running_jobs())
        if (!keep_[j]) {
            out.preempt(j, StopCause::RoundEnd);
            intended_partner_[j] = kNoPartner;
        }
    for (const Pick& p : picks_) emit_pick(p, {}, out);  // the run's placer places the starts
}

// One selected unit, after the preemptions: a kept single renews its lease, a waiting one starts; a pair
// keeps what stays together, packs a member onto the one that stays, or starts one and packs the other.
// `nodes`: where a start goes (compat: the planned GPUs; empty: the placer decides).
void PackedRoundScheduler::emit_pick(const Pick& p, std::span<const NodeShare> nodes, Decisions& out) {
    const Unit& unit = units_[p.unit];
    if (unit.b == kNoPartner) {
        if (keep_[unit.a])
            ++stats_.lease_renewals;
        else
            out.start(unit.a, p.type, unit.gang, nodes);
        intended_partner_[unit.a] = kNoPartner;
        return;
    }
    ++stats_.packed_picks;
    const bool ka = keep_[unit.a] != 0, kb = keep_[unit.b] != 0;
    if (ka && kb) {
        ++stats_.lease_renewals;
    } else if (ka) {
        out.pack(unit.b, unit.a);
    } else if (kb) {
        out.pack(unit.a, unit.b);
    } else {
        out.start(unit.a, p.type, unit.gang, nodes);
        out.pack(unit.b, unit.a);
    }
    if (!(ka && kb)) ++stats_.packs;
    intended_partner_[unit.a] = unit.b;
    intended_partner_[unit.b] = unit.a;
}

void PackedRoundScheduler::decide(const ClusterView& view, const Changes& changes, Decisions& out) {
    if (!ready_) setup(view);
    ++call_stamp_;
    for (const JobIdx j : changes.declined)
        if (j < skip_.size()) skip_[j] = call_stamp_;  // not again in this call
    for (const JobIdx j : changes.finished) {
        account_finished(view, j);
        remove_job(j);
    }
    for (const JobIdx j : view.running_jobs()) account_running(view, j);
    for (const JobIdx j : changes.arrived) add_job(view, j);
    cycle_.step(*this, view, changes.timer, !active_.empty(), shares_, out);
    out.wait_rest(WaitReason::Share);  // a job left out of the round has spent its time share
}

void PackedRoundScheduler::boundary_round(const ClusterView& view, Decisions& out) {
    walk(view, false);
    ++stats_.rounds;
    emit_default(view, out);
}

void PackedRoundScheduler::fill_round(const ClusterView& view, Decisions& out) {
    walk(view, true);
    ++stats_.fills;
    for (const Pick& p : picks_) {
        out.start(units_[p.unit].a, p.type, units_[p.unit].gang);
        intended_partner_[units_[p.unit].a] = kNoPartner;
    }
}

// The round lasts until its longest micro-task: min(⌊r·τ⌋, R)/r at each member's rate r.
Time PackedRoundScheduler::compat_round(const ClusterView& view, Decisions& out) {
    walk(view, false);
    ++stats_.rounds;
    place(view);
    emit(view, out);
    const Time now = view.now();
    Time end = kNever;
    const double tau = options_.round_s;
    for (const Pick& p : picks_) {
        if (!p.placed) continue;
        const Unit& unit = units_[p.unit];
        for (int k = 0; k < 2; ++k) {
            const JobIdx m = k == 0 ? unit.a : unit.b;
            if (m == kNoPartner) continue;
            const Time finish =
                gavel_micro_task_end(now, rate(p.unit, p.type, k), view.job(m).remaining_at(now), tau, cycle_.round());
            end = end == kNever ? finish : std::max(end, finish);
        }
    }
    return end;
}

}  // namespace dlsim
