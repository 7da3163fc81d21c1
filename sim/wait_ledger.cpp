#include "sim/wait_ledger.hpp"

#include <algorithm>
#include <bit>

namespace dlsim {

namespace {
constexpr std::uint32_t kNotQueued = UINT32_MAX;
}  // namespace

WaitLedger::WaitLedger(std::size_t jobs, const std::vector<Observer*>& observers)
    : observers_(observers),
      totals_(jobs, Totals{}),
      reason_(jobs, WaitReason::None),
      named_(jobs, kNobody),
      since_(jobs, 0),
      in_rest_(jobs, 0),
      stamp_of_(jobs, 0),
      queue_pos_(jobs, kNotQueued) {
    segments_.push_back({0, WaitReason::None, Totals{}});
}

void WaitLedger::queued(JobIdx j) {
    queue_pos_[j] = static_cast<std::uint32_t>(queued_.size());
    queued_.push_back(j);
    fresh_.push_back(j);
}

void WaitLedger::started(Time now, JobIdx j, const JobInfo& job) {
    const std::uint32_t pos = queue_pos_[j];
    if (pos == kNotQueued) return;
    queued_[pos] = queued_.back();
    queue_pos_[queued_[pos]] = pos;
    queued_.pop_back();
    queue_pos_[j] = kNotQueued;
    const WaitReason from = close(now, j);
    reason_[j] = WaitReason::None;
    named_[j] = kNobody;
    if (from != WaitReason::None)
        for (Observer* o : observers_) o->on_wait(now, j, job, from, WaitReason::None, kNobody, false);
}

WaitReason WaitLedger::close(Time now, JobIdx j) {
    if (in_rest_[j]) {
        const Totals at_join = rest_totals_at(since_[j]), at_leave = rest_totals_at(now);
        for (std::size_t r = 0; r < kWaitReasons; ++r) totals_[j][r] += at_leave[r] - at_join[r];
        in_rest_[j] = 0;
        --rest_jobs_;
        since_[j] = now;
        return rest_reason_;
    }
    const WaitReason from = reason_[j];
    if (from != WaitReason::None) totals_[j][static_cast<std::size_t>(from)] += now - since_[j];
    since_[j] = now;
    return from;
}

WaitLedger::Totals WaitLedger::rest_totals_at(Time t) const {
    // The last segment starting at or before t (the first one starts at 0).
    const auto after =
        std::upper_bound(segments_.begin(), segments_.end(), t, [](Time x, const Segment& s) { return x < s.start; });
    const Segment& s = *std::prev(after);
    Totals at = s.before;
    if (s.reason != WaitReason::None) at[static_cast<std::size_t>(s.reason)] += t - s.start;
    return at;
}

void WaitLedger::assign(Time now, JobIdx j, const JobInfo& job, WaitReason r, JobIdx named) {
    if (!in_rest_[j] && reason_[j] == r && named_[j] == named) return;
    const WaitReason from = close(now, j);
    reason_[j] = r;
    named_[j] = named;
    for (Observer* o : observers_) o->on_wait(now, j, job, from, r, named, false);
}

void WaitLedger::join_rest(Time now, JobIdx j, const JobInfo& job) {
    if (in_rest_[j]) return;
    const WaitReason from = close(now, j);
    reason_[j] = WaitReason::None;
    named_[j] = kNobody;
    in_rest_[j] = 1;
    ++rest_jobs_;
    for (Observer* o : observers_) o->on_wait(now, j, job, from, rest_reason_, rest_named_, true);
}

void WaitLedger::set_rest(Time now, WaitReason r, JobIdx named) {
    if (r == rest_reason_ && named == rest_named_) return;
    const WaitReason from = rest_reason_;
    if (r != from) segments_.push_back({now, r, rest_totals_at(now)});
    rest_reason_ = r;
    rest_named_ = named;
    if (rest_jobs_ != 0)
        for (Observer* o : observers_) o->on_wait_rest(now, from, r, named, rest_jobs_);
}

WaitReason WaitLedger::default_reason(const ClusterView& view, const JobInfo& job, bool declined) {
    if (declined) return WaitReason::Fragmentation;
    int most_free = 0;
    for (GpuTypeMask m = job.runnable; m != 0; m &= m - 1)
        most_free = std::max(most_free, view.free_gpus(static_cast<GpuTypeIdx>(std::countr_zero(m))));
    if (most_free < job.min_gpus) return job.min_gpus < job.max_gpus ? WaitReason::ElasticMin : WaitReason::Resources;
    return WaitReason::Policy;
}

JobIdx WaitLedger::settle(const ClusterView& view, const Decisions& answer, std::span<const JobIdx> declined) {
    const Time now = view.now();
    ++stamp_;
    next_own_.clear();
    for (const WaitNote& n : answer.waits) {
        if (n.job >= queue_pos_.size() || n.reason >= WaitReason::None) return n.job;
        if (queue_pos_[n.job] == kNotQueued) {
            if (view.job(n.job).state == JobState::Running && view.job(n.job).stint_start == now) continue;
            return n.job;  // neither queued nor started by this answer
        }
        if (n.named != kNobody && n.named >= queue_pos_.size()) return n.job;
        stamp_of_[n.job] = stamp_;
        assign(now, n.job, view.job(n.job), n.reason, n.named);
        next_own_.push_back(n.job);
    }
    // A declined start is a fact the policy may not know of: it overrides the common reason.
    for (JobIdx j : declined)
        if (queue_pos_[j] != kNotQueued && stamp_of_[j] != stamp_) {
            stamp_of_[j] = stamp_;
            assign(now, j, view.job(j), WaitReason::Fragmentation, kNobody);
            next_own_.push_back(j);
        }
    if (answer.rest_named != kNobody && answer.rest_named >= queue_pos_.size()) return answer.rest_named;
    if (answer.rest_reason != WaitReason::None) {
        set_rest(now, answer.rest_reason, answer.rest_named);
        for (auto list : {std::span<const JobIdx>(own_), std::span<const JobIdx>(fresh_)})
            for (JobIdx j : list)
                if (queue_pos_[j] != kNotQueued && stamp_of_[j] != stamp_) join_rest(now, j, view.job(j));
    } else {
        for (JobIdx j : queued_)
            if (stamp_of_[j] != stamp_) {
                const JobInfo& job = view.job(j);
                assign(now, j, job, default_reason(view, job, false), kNobody);
                next_own_.push_back(j);
            }
    }
    own_.swap(next_own_);
    fresh_.clear();
    return kNobody;
}

}  // namespace dlsim
