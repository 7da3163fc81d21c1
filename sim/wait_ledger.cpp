#include "sim/wait_ledger.hpp"

#include <algorithm>
#include <bit>

namespace dlsim {

WaitLedger::WaitLedger(std::size_t jobs, const std::vector<Observer*>& observers)
    : observers_(observers), totals_(jobs, Totals{}), jobs_(jobs) {
    segments_.push_back({0, WaitReason::None, Totals{}});
}

void WaitLedger::queued(JobIdx j) {
    jobs_[j].queue_pos = static_cast<std::uint32_t>(queued_.size());
    queued_.push_back(j);
    fresh_.push_back(j);
}

void WaitLedger::started(Time now, JobIdx j, const JobInfo& job) {
    JobWait& w = jobs_[j];
    const std::uint32_t pos = w.queue_pos;
    if (pos == kNotQueued) return;
    queued_[pos] = queued_.back();
    jobs_[queued_[pos]].queue_pos = pos;
    queued_.pop_back();
    w.queue_pos = kNotQueued;
    const WaitReason from = close(now, j);
    w.reason = WaitReason::None;
    w.named = kNobody;
    if (from != WaitReason::None)
        for (Observer* o : observers_) o->on_wait(now, j, job, from, WaitReason::None, kNobody, false);
}

WaitReason WaitLedger::close(Time now, JobIdx j) {
    JobWait& w = jobs_[j];
    const Time since = w.since;
    w.since = now;
    if (w.in_rest) {
        w.in_rest = false;
        --rest_jobs_;
        const std::size_t last = segments_.size() - 1;
        if (w.segment == last) {  // the common reason did not change while it followed it
            if (rest_reason_ != WaitReason::None) totals_[j][static_cast<std::size_t>(rest_reason_)] += now - since;
            return rest_reason_;
        }
        const Totals at_join = rest_totals_at(w.segment, since), at_leave = rest_totals_at(last, now);
        for (std::size_t r = 0; r < kWaitReasons; ++r) totals_[j][r] += at_leave[r] - at_join[r];
        return rest_reason_;
    }
    if (w.reason != WaitReason::None) totals_[j][static_cast<std::size_t>(w.reason)] += now - since;
    return w.reason;
}

WaitLedger::Totals WaitLedger::rest_totals_at(std::size_t k, Time t) const {
    const Segment& s = segments_[k];
    Totals at = s.before;
    if (s.reason != WaitReason::None) at[static_cast<std::size_t>(s.reason)] += t - s.start;
    return at;
}

void WaitLedger::assign(Time now, JobIdx j, const JobInfo& job, WaitReason r, JobIdx named) {
    JobWait& w = jobs_[j];
    if (!w.in_rest && w.reason == r && w.named == named) return;
    const WaitReason from = close(now, j);
    w.reason = r;
    w.named = named;
    for (Observer* o : observers_) o->on_wait(now, j, job, from, r, named, false);
}

void WaitLedger::join_rest(Time now, JobIdx j, const JobInfo& job) {
    JobWait& w = jobs_[j];
    if (w.in_rest) return;
    const WaitReason from = close(now, j);
    w.reason = WaitReason::None;
    w.named = kNobody;
    w.in_rest = true;
    w.segment = static_cast<std::uint32_t>(segments_.size() - 1);
    ++rest_jobs_;
    for (Observer* o : observers_) o->on_wait(now, j, job, from, rest_reason_, rest_named_, true);
}

void WaitLedger::set_rest(Time now, WaitReason r, JobIdx named) {
    if (r == rest_reason_ && named == rest_named_) return;
    const WaitReason from = rest_reason_;
    if (r != from) segments_.push_back({now, r, rest_totals_at(segments_.size() - 1, now)});
    rest_reason_ = r;
    rest_named_ = named;
    if (rest_jobs_ != 0)
        for (Observer* o : observers_) o->on_wait_rest(now, from, r, named, rest_jobs_);
}

WaitReason WaitLedger::default_reason(const ClusterView& view, const JobInfo& job) {
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
        if (n.job >= jobs_.size() || n.reason >= WaitReason::None) return n.job;
        if (jobs_[n.job].queue_pos == kNotQueued) {
            if (view.job(n.job).state == JobState::Running && view.job(n.job).stint_start == now) continue;
            return n.job;  // neither queued nor started by this answer
        }
        if (n.named != kNobody && n.named >= jobs_.size()) return n.job;
        jobs_[n.job].stamp = stamp_;
        assign(now, n.job, view.job(n.job), n.reason, n.named);
        next_own_.push_back(n.job);
    }
    // A declined start is a fact the policy may not know of: it overrides the common reason.
    for (JobIdx j : declined)
        if (jobs_[j].queue_pos != kNotQueued && jobs_[j].stamp != stamp_) {
            jobs_[j].stamp = stamp_;
            assign(now, j, view.job(j), WaitReason::Fragmentation, kNobody);
            next_own_.push_back(j);
        }
    if (answer.rest_named != kNobody && answer.rest_named >= jobs_.size()) return answer.rest_named;
    if (answer.keep_waits) {
        // The others keep their reasons (and the common one stands): only the newcomers are settled, each
        // on its own, and the jobs with reasons of their own stay listed.
        for (JobIdx j : fresh_)
            if (jobs_[j].queue_pos != kNotQueued && jobs_[j].stamp != stamp_) {
                jobs_[j].stamp = stamp_;
                const JobInfo& job = view.job(j);
                assign(now, j, job,
                       answer.rest_reason != WaitReason::None ? answer.rest_reason : default_reason(view, job),
                       answer.rest_reason != WaitReason::None ? answer.rest_named : kNobody);
                next_own_.push_back(j);
            }
        own_.insert(own_.end(), next_own_.begin(), next_own_.end());
        fresh_.clear();
        return kNobody;
    }
    if (answer.rest_reason != WaitReason::None) {
        set_rest(now, answer.rest_reason, answer.rest_named);
        for (auto list : {std::span<const JobIdx>(own_), std::span<const JobIdx>(fresh_)})
            for (JobIdx j : list)
                if (jobs_[j].queue_pos != kNotQueued && jobs_[j].stamp != stamp_) join_rest(now, j, view.job(j));
    } else {
        for (JobIdx j : queued_)
            if (jobs_[j].stamp != stamp_) {
                const JobInfo& job = view.job(j);
                assign(now, j, job, default_reason(view, job), kNobody);
                next_own_.push_back(j);
            }
    }
    own_.swap(next_own_);
    fresh_.clear();
    return kNobody;
}

}  // namespace dlsim
