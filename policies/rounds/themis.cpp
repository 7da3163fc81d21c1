#include "policies/rounds/themis.hpp"

#include "models/base/input_error.hpp"
#include "policies/type_choice.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <functional>
#include <limits>

namespace dlsim {

namespace {

/// lease_end_ of a running job whose expired lease is up for auction in this call.
constexpr Time kExpired = -1;
/// waiting_pos_ of a job that is not waiting.
constexpr std::uint32_t kNotWaiting = UINT32_MAX;
/// No standing excluded from an auction.
constexpr std::uint32_t kNoStanding = UINT32_MAX;
/// No type won.
constexpr GpuTypeIdx kNoType = std::numeric_limits<GpuTypeIdx>::max();

}  // namespace

ThemisPolicy::ThemisPolicy(double fairness, double lease_s, double margin_s, bool payments, bool full_walk)
    : fairness_(fairness), lease_(to_time(lease_s)), margin_(margin_s), payments_(payments), full_walk_(full_walk) {}

void ThemisPolicy::grow(JobIdx j) {
    if (j < active_pos_.size()) return;
    const std::size_t n = std::max<std::size_t>(j + 1, 2 * active_pos_.size());
    active_pos_.resize(n, 0);
    waiting_pos_.resize(n, kNotWaiting);
    arrival_.resize(n);
    lease_end_.resize(n, kExpired);
    declined_at_.resize(n, kNever);
}

void ThemisPolicy::track_changes(const ClusterView& view, const Changes& changes) {
    // The count's integral up to now, before this instant's completions and arrivals change the count.
    count_integral_ += static_cast<double>(active_.size()) * to_seconds(view.now() - integral_at_);
    integral_at_ = view.now();
    for (JobIdx j : changes.finished) {
        const std::uint32_t pos = active_pos_[j];
        active_[pos] = active_.back();
        active_pos_[active_[pos]] = pos;
        active_.pop_back();
    }
    for (JobIdx j : changes.arrived) {
        grow(j);
        const JobInfo& job = view.job(j);
        const GpuTypeIdx fastest = fastest_type(view, job);
        const double rate = view.rates().rate(job.model, fastest, job.num_gpus);
        arrival_[j] = {count_integral_, rate, job.work / rate,
                       static_cast<double>(view.cluster().gpus_of_type(fastest)), fastest};
        active_pos_[j] = static_cast<std::uint32_t>(active_.size());
        active_.push_back(j);
    }
    for (JobIdx j : changes.declined) declined_at_[j] = view.now();
    // The waiting set follows the jobs whose state may have changed: arrivals, the engine's requeues and
    // declines, and the jobs the last call started, renewed or let go.
    for (auto list : {changes.arrived, changes.requeued, changes.declined, std::span<const JobIdx>(touched_)})
        for (JobIdx j : list) sync_waiting(view, j);
    touched_.clear();
    if (waiting_.size() + view.running_jobs().size() != active_.size())
        throw InternalError(fmt::format("policy themis: {} jobs in the system, {} running and {} waiting known to it",
                                        active_.size(), view.running_jobs().size(), waiting_.size()));
}

void ThemisPolicy::sync_waiting(const ClusterView& view, JobIdx j) {
    const bool waits = view.job(j).state == JobState::Queued;
    if (waits == (waiting_pos_[j] != kNotWaiting)) return;
    if (waits) {
        waiting_pos_[j] = static_cast<std::uint32_t>(waiting_.size());
        waiting_.push_back(j);
    } else {
        const std::uint32_t pos = waiting_pos_[j];
        waiting_[pos] = waiting_.back();
        waiting_pos_[waiting_[pos]] = pos;
        waiting_.pop_back();
        waiting_pos_[j] = kNotWaiting;
    }
}

void ThemisPolicy::collect_expired_leases(const ClusterView& view) {
    // Pops the leases that ended by now, and the stale entries on top (their jobs stopped or were renewed).
    while (!leases_.empty()) {
        const auto [end, j] = leases_.front();
        const bool current = view.job(j).state == JobState::Running && lease_end_[j] == end;
        if (current && end > view.now()) break;
        std::pop_heap(leases_.begin(), leases_.end(), std::greater<>{});
        leases_.pop_back();
        if (current) {
            lease_end_[j] = kExpired;
            expired_.push_back(j);
        }
    }
}

void ThemisPolicy::grant_lease(Time now, JobIdx j, Time length) {
    lease_end_[j] = now + length;
    leases_.push_back({lease_end_[j], j});
    std::push_heap(leases_.begin(), leases_.end(), std::greater<>{});
}

double ThemisPolicy::restart_on(const ClusterView& view, JobIdx j, GpuTypeIdx t, const Allocation* from) const {
    const JobInfo& job = view.job(j);
    probe_.gpu_type = t;
    if (probe_.shares.empty()) probe_.shares.resize(1);  // once: the restart models read the GPU count
    probe_.shares[0] = {0, job.num_gpus, kWholeGpu};
    const RestartContext context{
        j, job.model, from, probe_, from != nullptr || job.first_start != kNever, from != nullptr};
    return to_seconds(view.restart_model().cost(context));
}

double ThemisPolicy::finish_on(const ClusterView& view, JobIdx j, GpuTypeIdx t) const {
    const JobInfo& job = view.job(j);
    const Time now = view.now();
    const double remaining = job.remaining_at(now);
    const double rate = view.rates().rate(job.model, t, job.num_gpus);
    if (job.state != JobState::Running) return restart_on(view, j, t, nullptr) + remaining / rate;
    const Allocation& held = view.allocation(j);
    if (held.gpu_type == t)  // a renewed lease: the same GPUs, only the rest of a restart still to run
        return to_seconds(std::max<Time>(0, job.progress_from - now)) + remaining / rate;
    return restart_on(view, j, t, &held) + margin_ + remaining / rate;  // a move: only for more than the margin
}

bool ThemisPolicy::best_type(const ClusterView& view, JobIdx j, std::span<const int> pool, GpuTypeIdx& type,
                             double& finish) const {
    const JobInfo& job = view.job(j);
    const bool running = job.state == JobState::Running;
    bool found = false;
    for (GpuTypeMask m = job.runnable; m != 0; m &= m - 1) {
        const auto t = static_cast<GpuTypeIdx>(std::countr_zero(m));
        if (pool[t] < job.num_gpus) continue;
        const double f = finish_on(view, j, t);
        // Ties: a running job stays where it is, else the first type in cluster order.
        if (!found || f < finish || (f == finish && running && t == job.gpu_type)) {
            type = t;
            finish = f;
            found = true;
        }
    }
    return found;
}

ThemisPolicy::Standing ThemisPolicy::standing(const ClusterView& view, const RateModel& rates, Time now,
                                              JobIdx j) const {
    const JobInfo& job = view.job(j);
    const Arrival& a = arrival_[j];
    const double age = to_seconds(now - job.submit);
    // Its equal share: 1/N̄ of its fastest type's GPUs, time-shared when fewer than its gang (as Metrics).
    const double nbar = age > 0 ? (count_integral_ - a.count_integral) / age : static_cast<double>(active_.size());
    const double ideal = a.alone * std::max(1.0, job.num_gpus * nbar / a.type_gpus);
    const bool running = job.state == JobState::Running;
    const double left = running ? to_seconds(std::max<Time>(0, job.progress_from - now)) +
                                      job.remaining_at(now) / rates.rate(job.model, job.gpu_type, job.alloc_gpus)
                                : job.remaining / a.fastest_rate;
    return {ideal > 0 ? (age + left) / ideal : 0.0, job.submit, j,
            running ? lease_end_[j] == kExpired : declined_at_[j] != now};
}

double ThemisPolicy::wait_finish(const ClusterView& view, JobIdx j) const {
    // Without GPUs now it waits (at least) a lease, then restarts on its fastest type.
    const JobInfo& job = view.job(j);
    const Arrival& a = arrival_[j];
    return to_seconds(view.now() - job.submit) + to_seconds(lease_) + restart_on(view, j, a.fastest, nullptr) +
           job.remaining_at(view.now()) / a.fastest_rate;
}

bool ThemisPolicy::bid(const ClusterView& view, std::uint32_t i, std::span<const int> pool, Bid& out) const {
    const Standing& s = standings_[i];
    GpuTypeIdx t = 0;
    double finish = 0;
    if (!best_type(view, s.job, pool, t, finish)) return false;
    const double age = to_seconds(view.now() - view.job(s.job).submit);
    const double gain = std::log(wait_finish(view, s.job) / (age + finish));
    if (!(gain > 0)) return false;
    out = {gain, s.submit, s.job, t, i};
    return true;
}

template <class Won>
void ThemisPolicy::greedy_auction(const ClusterView& view, std::uint32_t candidates, std::uint32_t excluded,
                                  std::vector<int>& pool, Won won) {
    const auto lower = [](const Bid& a, const Bid& b) {  // heap order: largest gain, then earlier, then trace order
        if (a.gain != b.gain) return a.gain < b.gain;
        if (a.submit != b.submit) return a.submit > b.submit;
        return a.job > b.job;
    };
    bids_.clear();
    for (std::uint32_t i = 0; i < candidates; ++i) {
        Bid b;
        if (i != excluded && standings_[i].bidder && bid(view, i, pool, b)) bids_.push_back(b);
    }
    std::make_heap(bids_.begin(), bids_.end(), lower);
    while (!bids_.empty()) {
        std::pop_heap(bids_.begin(), bids_.end(), lower);
        const Bid b = bids_.back();
        bids_.pop_back();
        if (pool[b.type] >= view.job(b.job).num_gpus) {
            pool[b.type] -= view.job(b.job).num_gpus;
            won(b.standing, b.type);
        } else if (Bid again; bid(view, b.standing, pool, again)) {  // its type was taken: bid on what is left
            bids_.push_back(again);
            std::push_heap(bids_.begin(), bids_.end(), lower);
        }
    }
}

void ThemisPolicy::charge_payments(const ClusterView& view, std::uint32_t candidates) {
    // The partial-allocation mechanism's hidden payment: winner w keeps its gang for the fraction
    // c_w = prod_{j != w} v_j(O) / v_j(O_-w) of the lease, v = 1/rho, O the auction's outcome and O_-w the
    // outcome without w, over the candidates that bid. T_id cancels: v_j(O) / v_j(O_-w) is the ratio of
    // j's finish times (its time to finish on what it won, or waiting a lease when it won nothing).
    const auto finish_in = [&](std::uint32_t i, GpuTypeIdx t) {
        const JobIdx j = standings_[i].job;
        if (t == kNoType) return wait_finish(view, j);
        return to_seconds(view.now() - view.job(j).submit) + finish_on(view, j, t);
    };
    finish_with_.resize(candidates);
    for (std::uint32_t i = 0; i < candidates; ++i)
        if (standings_[i].bidder) finish_with_[i] = finish_in(i, auction_type_[i]);
    for (std::size_t k = 0; k < auction_winners_.size(); ++k) {
        const std::uint32_t w = auction_winners_[k];
        other_pool_ = pool_before_;
        other_type_.assign(candidates, kNoType);
        greedy_auction(view, candidates, w, other_pool_, [&](std::uint32_t i, GpuTypeIdx t) { other_type_[i] = t; });
        double log_share = 0;
        for (std::uint32_t i = 0; i < candidates; ++i)
            if (i != w && standings_[i].bidder) log_share += std::log(finish_in(i, other_type_[i]) / finish_with_[i]);
        const double share = std::min(1.0, std::exp(log_share));
        winners_[k].lease = std::max<Time>(1, static_cast<Time>(std::llround(share * static_cast<double>(lease_))));
    }
}

void ThemisPolicy::take(const ClusterView& view, std::uint32_t i, GpuTypeIdx t) {
    pool_[t] -= view.job(standings_[i].job).num_gpus;
    record_win(i, t);
}

void ThemisPolicy::record_win(std::uint32_t i, GpuTypeIdx t) {
    standings_[i].won = true;
    winners_.push_back({standings_[i].job, t, lease_});
}

bool ThemisPolicy::pool_fits_smallest_gang() const {
    for (int free : pool_)
        if (free >= smallest_gang_) return true;
    return false;
}

void ThemisPolicy::auction(const ClusterView& view, Decisions& out) {
    const Time now = view.now();
    const std::size_t types = view.cluster().gpu_types.size();
    pool_.assign(types, 0);
    for (GpuTypeIdx t = 0; t < types; ++t) pool_[t] = view.free_gpus(t);
    for (JobIdx j : expired_) pool_[view.job(j).gpu_type] += view.job(j).alloc_gpus;

    const RateModel& rates = view.rates();
    standings_.clear();
    smallest_gang_ = std::numeric_limits<int>::max();
    for (JobIdx j : active_) {
        standings_.push_back(standing(view, rates, now, j));
        if (standings_.back().bidder) smallest_gang_ = std::min(smallest_gang_, view.job(j).num_gpus);
    }
    winners_.clear();
    // Nothing fits (an expired lease always fits its own GPUs): every lease still running is kept as is.
    if (pool_fits_smallest_gang()) {
        choose_winners(view);
    }
    emit_winners(view, out, false);
}

void ThemisPolicy::emit_winners(const ClusterView& view, Decisions& out, bool only_starts) {
    // Starts in order of submission (not of winning), so the fast path's starts are the auction's.
    std::sort(winners_.begin(), winners_.end(), [&](const Winner& a, const Winner& b) {
        const Time sa = view.job(a.job).submit, sb = view.job(b.job).submit;
        return sa != sb ? sa < sb : a.job < b.job;
    });
    if (only_starts) {  // every expired lease is renewed in place: the same actions, without the running jobs
        for (const Winner& w : winners_)
            if (view.job(w.job).state != JobState::Running) out.start(w.job, w.type, view.job(w.job).num_gpus);
    } else {  // leases still running are kept; expired leases that lost are preempted, those moving restarted
        desired_.clear();
        for (JobIdx j : view.running_jobs())
            if (lease_end_[j] != kExpired) desired_.keep(j);
        for (const Winner& w : winners_) desired_.want(w.job, w.type, view.job(w.job).num_gpus);
        desired_.emit(view, out);
    }
    for (const Winner& w : winners_) {
        grant_lease(view.now(), w.job, w.lease);
        touched_.push_back(w.job);
    }
    touched_.insert(touched_.end(), expired_.begin(), expired_.end());
}

bool ThemisPolicy::everyone_gets_the_best_type(const ClusterView& view) {
    // When every bidder's best type (where it finishes soonest among those the pool has room on) can hold
    // all who want it, with the expired leases on their own GPUs and the waiting jobs on free ones, the
    // auction's outcome is known without ranking anyone: whatever the order, each bidder gets its best
    // type at its turn, so each waiting job starts on its best type and each expired lease is renewed.
    const std::size_t types = view.cluster().gpu_types.size();
    pool_.assign(types, 0);
    for (GpuTypeIdx t = 0; t < types; ++t) pool_[t] = view.free_gpus(t);
    for (JobIdx j : expired_) pool_[view.job(j).gpu_type] += view.job(j).alloc_gpus;
    demand_.assign(types, 0);
    winners_.clear();
    for (JobIdx j : expired_) {
        GpuTypeIdx t = 0;
        double finish = 0;
        if (!best_type(view, j, pool_, t, finish) || t != view.job(j).gpu_type) return false;
        winners_.push_back({j, t, lease_});
    }
    for (JobIdx j : waiting_) {
        if (declined_at_[j] == view.now()) continue;
        GpuTypeIdx t = 0;
        double finish = 0;
        if (!best_type(view, j, pool_, t, finish)) return false;
        demand_[t] += view.job(j).num_gpus;
        if (demand_[t] > view.free_gpus(t)) return false;
        winners_.push_back({j, t, lease_});
    }
    return true;
}

void ThemisPolicy::choose_winners(const ClusterView& view) {
    const auto ahead = [](const Standing& a, const Standing& b) {  // more unfair first; ties: earlier, trace order
        if (a.rho != b.rho) return a.rho > b.rho;
        if (a.submit != b.submit) return a.submit < b.submit;
        return a.job < b.job;
    };
    // The ceil((1 - f) M) most unfair jobs (the epsilon keeps (1 - 0.7) x 10 = 3.0000000000000004 from
    // rounding up to 4).
    const std::size_t m = standings_.size();
    const auto offered = static_cast<std::size_t>(std::ceil((1.0 - fairness_) * static_cast<double>(m) - 1e-9));
    const std::size_t candidates = std::clamp<std::size_t>(offered, 1, m);
    const auto first = standings_.begin();
    const auto split = first + static_cast<std::ptrdiff_t>(candidates);
    if (candidates < m) std::nth_element(first, split, standings_.end(), ahead);

    // Greedy auction among the candidates' bids.
    if (payments_) {
        pool_before_ = pool_;
        auction_type_.assign(candidates, kNoType);
        auction_winners_.clear();
    }
    const auto in_auction = static_cast<std::uint32_t>(candidates);
    greedy_auction(view, in_auction, kNoStanding, pool_, [&](std::uint32_t i, GpuTypeIdx t) {
        record_win(i, t);
        if (payments_) {
            auction_type_[i] = t;
            auction_winners_.push_back(i);
        }
    });
    if (payments_ && !auction_winners_.empty()) charge_payments(view, in_auction);

    // Leftover, by rho descending, to every bidder still without GPUs (work conservation): first the
    // candidates whose bids lost, then the others (popped from a heap: usually few GPUs are left).
    // A running job stays on its own GPUs here (no reshuffle of the expired leases among themselves: moves
    // happen in the auction only), unless other jobs took them.
    auto leftover = [&](std::uint32_t i) {
        const Standing& s = standings_[i];
        if (!s.bidder || s.won) return;
        const JobInfo& job = view.job(s.job);
        GpuTypeIdx t = 0;
        double finish = 0;
        if (job.state == JobState::Running && pool_[job.gpu_type] >= job.num_gpus)
            take(view, i, job.gpu_type);
        else if (best_type(view, s.job, pool_, t, finish))
            take(view, i, t);
    };
    if (!pool_fits_smallest_gang()) return;
    std::sort(first, split, ahead);
    for (std::uint32_t i = 0; i < candidates && pool_fits_smallest_gang(); ++i) leftover(i);
    // Only the bidders that fit the pool now can fit later (it only shrinks): one pass sets them apart.
    const auto fits = [&](const Standing& s) {
        if (!s.bidder) return false;
        const JobInfo& job = view.job(s.job);
        for (GpuTypeMask types = job.runnable; types != 0; types &= types - 1)
            if (pool_[static_cast<GpuTypeIdx>(std::countr_zero(types))] >= job.num_gpus) return true;
        return false;
    };
    const auto fitting = std::partition(split, standings_.end(), fits);
    const auto behind = [&](const Standing& a, const Standing& b) { return ahead(b, a); };
    std::make_heap(split, fitting, behind);
    for (auto last = fitting; last != split && pool_fits_smallest_gang(); --last) {
        std::pop_heap(split, last, behind);
        leftover(static_cast<std::uint32_t>(last - 1 - first));
    }
}

void ThemisPolicy::decide(const ClusterView& view, const Changes& changes, Decisions& out) {
    track_changes(view, changes);
    collect_expired_leases(view);
    const std::size_t waiting = waiting_.size();
    bool free = false;
    for (GpuTypeIdx t = 0; t < view.cluster().gpu_types.size() && !free; ++t) free = view.free_gpus(t) > 0;
    // An auction can change something when a waiting job may get GPUs, or when an expired lease may be
    // lost to a waiting job or moved to free GPUs of a better type.
    if ((waiting > 0 && free) || (!expired_.empty() && (waiting > 0 || free))) {
        if (!full_walk_ && everyone_gets_the_best_type(view)) {
            emit_winners(view, out, true);
        } else {
            auction(view, out);
        }
    } else {
        for (JobIdx j : expired_) grant_lease(view.now(), j, lease_);  // nobody bids against them: renewed in place
    }
    expired_.clear();
    // Every `lease` seconds (on a grid from time 0) while jobs run: expired leases are auctioned at the
    // first decision after their end, so lease ends cost no call of their own.
    if (!view.running_jobs().empty() || !out.actions.empty()) out.next_call = (view.now() / lease_ + 1) * lease_;
    // Leases cut short by a payment end between the grid's decisions: each end is a decision of its own.
    if (payments_ && !leases_.empty()) out.next_call = std::min(out.next_call, leases_.front().first);
}

}  // namespace dlsim
