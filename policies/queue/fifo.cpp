#include "policies/queue/fifo.hpp"

#include "models/packed_performance.hpp"

#include <algorithm>
#include <bit>
#include <optional>

namespace dlsim {

void FifoPolicy::take_back(const ClusterView& view, const Changes& changes) {
    const auto before = [&](JobIdx a, JobIdx b) {
        return view.job(a).submit != view.job(b).submit ? view.job(a).submit < view.job(b).submit : a < b;
    };
    for (auto list : {changes.declined, changes.requeued})
        for (JobIdx j : list) queue_.insert(std::lower_bound(queue_.begin(), queue_.end(), j, before), j);
}

void FifoPolicy::decide(const ClusterView& view, const Changes& changes, Decisions& out) {
    for (JobIdx j : changes.arrived) queue_.push_back(j);  // (a range insert costs more per call)
    // Declined starts (and jobs the engine requeued) go back to their place in arrival order: a declined
    // head blocks the queue until the placer can fit it (strict).
    if (!changes.declined.empty() || !changes.requeued.empty()) take_back(view, changes);
    const std::size_t types = view.cluster().gpu_types.size();
    available_.resize(types);
    for (GpuTypeIdx t = 0; t < types; ++t) available_[t] = view.free_gpus(t);
    // Walk from the head; stop at the first job that does not fit (head-of-line blocking).
    while (!queue_.empty()) {
        const JobIdx j = queue_.front();
        const JobInfo& job = view.job(j);
        auto t = pick_type(view, job, order_, available_);
        if (!t) break;
        out.start(j, *t, job.num_gpus);
        available_[*t] -= job.num_gpus;
        queue_.pop_front();
    }
    if (space_sharing_ && !queue_.empty() && view.rates().has_pairs()) pack_heads(view, out);
    if (queue_.empty()) return;
    // Why the rest waits: the head waits for GPUs; strictly, everyone else waits behind it; with EASY,
    // a job that would fit now but would delay the head's reservation waits for that reservation.
    out.wait(queue_.front(), WaitReason::Resources);
    if (easy_ && queue_.size() > 1) {
        out.wait_rest(WaitReason::Resources);
        backfill(view, out);
    } else {
        out.wait_rest(WaitReason::HeadOfLine, queue_.front());
    }
}

void FifoPolicy::pack_heads(const ClusterView& view, Decisions& out) {
    partners_.clear();
    while (!queue_.empty()) {
        const JobIdx j = queue_.front();
        const JobInfo& job = view.job(j);
        if (job.num_gpus != 1 || job.min_gpus != job.max_gpus) return;
        JobIdx best = kNoPartner;
        double best_sum = kPackingThreshold;
        for (JobIdx r : view.running_jobs()) {
            const JobInfo& other = view.job(r);
            if (other.alloc_gpus != 1 || other.min_gpus != other.max_gpus || view.allocation(r).packed() ||
                !((job.runnable >> other.gpu_type) & 1) ||
                std::find(partners_.begin(), partners_.end(), r) != partners_.end())
                continue;
            const auto f = PackedPerformance::factors(view.rates(), job.model, other.model, other.gpu_type);
            if (!f) continue;
            const double sum = (*f)[0] + (*f)[1];
            if (sum > best_sum || (sum == best_sum && best != kNoPartner && r < best)) {
                best_sum = sum;
                best = r;
            }
        }
        if (best == kNoPartner) return;  // strict: nothing overtakes the head
        out.pack(j, best);
        partners_.push_back(best);
        queue_.pop_front();
    }
}

void FifoPolicy::backfill(const ClusterView& view, Decisions& out) {
    const Time now = view.now();
    const JobInfo& head = view.job(queue_.front());
    // The head's reservation: on each type it may use, the earliest estimated instant enough GPUs are free.
    std::optional<GpuTypeIdx> where;
    Time shadow = kNever;
    int extra = 0;
    for (GpuTypeMask m = head.runnable; m != 0; m &= m - 1) {
        const auto t = static_cast<GpuTypeIdx>(std::countr_zero(m));
        ends_.clear();
        for (JobIdx r : view.running_jobs()) {
            const JobInfo& job = view.job(r);
            if (job.gpu_type != t) continue;
            // Estimated end: its start plus the estimate of its run there (the truth × the multiplier), or
            // now if that has passed (an under-estimated job is expected to end any moment).
            const double run = estimate_multiplier(r) * static_cast<double>(job.finish - job.stint_start);
            const Time end = job.finish == kNever ? kNever : std::max(now, job.stint_start + static_cast<Time>(run));
            ends_.emplace_back(end, job.alloc_gpus);
        }
        std::sort(ends_.begin(), ends_.end());
        int free = available_[t];
        for (const auto& [end, gpus] : ends_) {
            if (free >= head.num_gpus) break;
            free += gpus;
            if (free >= head.num_gpus && end < shadow) {
                shadow = end;
                where = t;
                extra = free - head.num_gpus;
            }
        }
    }
    int free_now = 0;
    for (int a : available_) free_now += a;
    for (auto it = std::next(queue_.begin()); it != queue_.end() && free_now > 0;) {
        const JobIdx j = *it;
        const JobInfo& job = view.job(j);
        const auto t = pick_type(view, job, order_, available_);
        bool start = t.has_value();
        if (start && where && *t == *where) {
            const double seconds =
                estimate_multiplier(j) * job.remaining_at(now) / view.rates().rate(job.model, *t, job.num_gpus);
            const bool ends_in_time = shadow != kNever && now + to_time(seconds) <= shadow;
            start = ends_in_time || job.num_gpus <= extra;
            if (start && !ends_in_time) extra -= job.num_gpus;
        }
        if (!start) {
            if (t) out.wait(j, WaitReason::Reserved, queue_.front());
            ++it;
            continue;
        }
        out.start(j, *t, job.num_gpus);
        available_[*t] -= job.num_gpus;
        free_now -= job.num_gpus;
        it = queue_.erase(it);
    }
}

}  // namespace dlsim
