#include "policies/queue/srtf.hpp"

#include <algorithm>
#include <bit>
#include <limits>

namespace dlsim {

SrtfPolicy::Key SrtfPolicy::key(const ClusterView& view, JobIdx j) {
    const JobInfo& job = view.job(j);
    // The best-case rate is fixed per job: computed once, at its first ranking.
    if (j >= best_rate_.size()) best_rate_.resize(std::max<std::size_t>(j + 1, 2 * best_rate_.size()), 0.0);
    if (best_rate_[j] == 0) best_rate_[j] = view.rates().rate(job.model, fastest_type(view, job), job.num_gpus);
    const double seconds = job.remaining_at(view.now()) / best_rate_[j];
    return {gpu_weighted_ ? seconds * job.num_gpus : seconds, job.submit, j};
}

double SrtfPolicy::cost_of(const ClusterView& view, JobIdx j) const {
    const double seconds = displacement_.seconds(view, j);
    return gpu_weighted_ ? seconds * view.job(j).alloc_gpus : seconds;
}

void SrtfPolicy::add_waiting(const ClusterView& view, JobIdx j) {
    if (waiting_.insert(key(view, j)).second) ++waiting_gangs_[view.job(j).num_gpus];
}

void SrtfPolicy::erase_waiting(std::set<Key>::iterator it, int gang) {
    if (auto g = waiting_gangs_.find(gang); --g->second == 0) waiting_gangs_.erase(g);
    waiting_.erase(it);
}

void SrtfPolicy::decide(const ClusterView& view, const Changes& changes, Decisions& out) {
    for (JobIdx j : changes.arrived) add_waiting(view, j);
    // Starts the engine declined and moves it could not place: back to waiting (a job selected from
    // waiting_ left it; a declined move was running and never was in it).
    for (auto list : {changes.declined, changes.requeued})
        for (JobIdx j : list)
            if (view.job(j).state == JobState::Queued) add_waiting(view, j);
    if (tick_ > 0 && view.now() % tick_ != 0) {
        out.next_call = (view.now() / tick_ + 1) * tick_;
        out.keep_waits = true;  // nothing starts before the next tick: newcomers wait for it
        out.wait_rest(WaitReason::PolicyTimer);
        return;
    }

    ++stamp_;
    longest_known_ = false;
    preempt_.clear();
    requeue_.clear();
    starts_.clear();
    holding_.clear();
    cannot_displace_.clear();
    const std::size_t types = view.cluster().gpu_types.size();
    free_.resize(types);
    for (GpuTypeIdx t = 0; t < types; ++t) free_[t] = view.free_gpus(t);

    // Stale heap entries (jobs that finished, were preempted or moved) are dropped when they reach a top;
    // when they outnumber the live ones the heaps are rebuilt from the running jobs.
    held_.resize(types);
    std::size_t entries = 0;
    for (const auto& h : held_) entries += h.size();
    if (entries > 2 * view.running_jobs().size() + 64) {
        for (auto& h : held_) h.clear();
        for (JobIdx j : view.running_jobs())
            held_[view.job(j).gpu_type].push_back({key(view, j), view.job(j).stint_start});
        for (auto& h : held_) std::make_heap(h.begin(), h.end());
    }

    // move_up=ahead: running jobs ranked ahead of every waiting job take freed faster GPUs first.
    if (migrate_ && up_ahead_) move_up(view, true);
    fill(view, true);
    // GPUs no waiting job could use may take running jobs up; what those free may start a waiting job.
    if (migrate_ && move_up(view, false)) fill(view, false);
    emit(out);
    for (const auto& [t, h] : holding_) {
        held_[t].push_back(h);
        std::push_heap(held_[t].begin(), held_[t].end());
    }
    // After the walk, which must not meet them among the waiting: the displaced jobs that did not move.
    for (JobIdx j : requeue_) add_waiting(view, j);
}

void SrtfPolicy::fill(const ClusterView& view, bool displace) {
    unvisited_ = waiting_gangs_;
    for (auto it = waiting_.begin(); it != waiting_.end();) {
        const int most_free = *std::max_element(free_.begin(), free_.end());
        const bool may_fit = !unvisited_.empty() && unvisited_.begin()->first <= most_free;
        // Nothing left fits the free GPUs; later jobs are longer, so once this one cannot displace
        // anyone neither can they.
        if (!may_fit && (!displace || !(std::get<0>(*it) < longest_running(view)))) break;
        const JobIdx j = std::get<2>(*it);
        const JobInfo& job = view.job(j);
        if (auto u = unvisited_.find(job.num_gpus); --u->second == 0) unvisited_.erase(u);
        bool placed = false;
        if (auto t = pick_type(view, job, order_, free_)) {
            free_[*t] -= job.num_gpus;
            start(j, *t, job.num_gpus, *it, view.now());
            placed = true;
        } else if (displace && std::get<0>(*it) < longest_running(view)) {
            // A later job of the same gang and types is longer: where this one failed, it fails too.
            const std::pair<int, GpuTypeMask> kind{job.num_gpus, job.runnable};
            if (std::find(cannot_displace_.begin(), cannot_displace_.end(), kind) == cannot_displace_.end()) {
                placed = displace_for(view, *it);
                if (!placed) cannot_displace_.push_back(kind);
            }
        }
        if (placed) {
            const auto next = std::next(it);
            erase_waiting(it, job.num_gpus);
            it = next;
        } else {
            ++it;
        }
    }
}

const SrtfPolicy::Held* SrtfPolicy::longest_on(const ClusterView& view, GpuTypeIdx t) {
    auto& heap = held_[t];
    while (!heap.empty()) {
        const Held top = heap.front();
        const JobIdx j = std::get<2>(top.key);
        const JobInfo& job = view.job(j);
        const bool stale =
            job.state != JobState::Running || job.gpu_type != t || job.stint_start != top.since || touched(j);
        std::pop_heap(heap.begin(), heap.end());
        heap.pop_back();
        if (stale) continue;
        // Keys only fall: the stored one bounds it from above. Back in with the true key; on top again,
        // it is the longest.
        const Key now_key = key(view, j);
        heap.push_back({now_key, top.since});
        std::push_heap(heap.begin(), heap.end());
        if (!(now_key < top.key)) return &heap.front();
    }
    return nullptr;
}

double SrtfPolicy::longest_running(const ClusterView& view) {
    if (!longest_known_) {
        longest_known_ = true;
        longest_ = -std::numeric_limits<double>::infinity();
        for (GpuTypeIdx t = 0; t < held_.size(); ++t)
            if (const Held* h = longest_on(view, t)) longest_ = std::max(longest_, std::get<0>(h->key));
    }
    return longest_;
}

void SrtfPolicy::hold(GpuTypeIdx t, const Key& k, Time now) {
    // Into the heaps after the call: until the engine applies it, the job is not running there, and
    // longest_on would drop the entry as stale (nor may a job started in this call be displaced in it).
    holding_.push_back({t, {k, now}});
}

void SrtfPolicy::touch(JobIdx j) {
    if (j >= touched_.size()) touched_.resize(std::max<std::size_t>(j + 1, 2 * touched_.size()), 0);
    touched_[j] = stamp_;
}

bool SrtfPolicy::touched(JobIdx j) const { return j < touched_.size() && touched_[j] == stamp_; }

void SrtfPolicy::start(JobIdx j, GpuTypeIdx t, int n, const Key& k, Time now) {
    starts_.push_back({j, t, n});
    hold(t, k, now);
}

void SrtfPolicy::move(const ClusterView& view, JobIdx j, GpuTypeIdx t, Time now) {
    const JobInfo& job = view.job(j);
    preempt_.push_back(j);
    start(j, t, job.alloc_gpus, key(view, j), now);
    touch(j);
}

bool SrtfPolicy::displace_for(const ClusterView& view, const Key& w) {
    const JobIdx wj = std::get<2>(w);
    const JobInfo& job = view.job(wj);
    const int g = job.num_gpus;
    // The types it may run on, in the order it prefers them.
    GpuTypeIdx order[64];
    std::size_t n = 0;
    for (GpuTypeMask m = job.runnable; m != 0; m &= m - 1) order[n++] = static_cast<GpuTypeIdx>(std::countr_zero(m));
    if (order_ != TypeOrder::Spec)
        std::stable_sort(order, order + n, [&](GpuTypeIdx a, GpuTypeIdx b) {
            const double ra = view.rates().rate(job.model, a, g), rb = view.rates().rate(job.model, b, g);
            // Equally fast types in pick_type's tie order: the most free GPUs first under type_ties=most_free.
            return ra > rb || (ra == rb && order_ == TypeOrder::Fastest && more_room(view.cluster(), free_, a, b));
        });
    for (std::size_t i = 0; i < n; ++i) {
        const GpuTypeIdx t = order[i];
        auto& heap = held_[t];
        chosen_.clear();
        int got = free_[t];
        double owed = 0;  // what the displacement must gain, summed over the victims
        while (got < g) {
            const Held* top = longest_on(view, t);
            if (top == nullptr || !(std::get<0>(top->key) > std::get<0>(w))) break;
            const Held v = *top;
            std::pop_heap(heap.begin(), heap.end());
            heap.pop_back();
            chosen_.push_back(v);
            got += view.job(std::get<2>(v.key)).alloc_gpus;
            owed += std::get<0>(w) + cost_of(view, std::get<2>(v.key));
        }
        if (got < g || !(std::get<0>(chosen_.front().key) > owed)) {
            for (const Held& v : chosen_) {
                heap.push_back(v);
                std::push_heap(heap.begin(), heap.end());
            }
            continue;
        }
        free_[t] = got - g;
        start(wj, t, g, w, view.now());
        for (const Held& v : chosen_) {
            const JobIdx vj = std::get<2>(v.key);
            const JobInfo& victim = view.job(vj);
            if (free_[t] >= victim.alloc_gpus) {  // an earlier, smaller victim fits what is left: it stays
                free_[t] -= victim.alloc_gpus;
                heap.push_back(v);
                std::push_heap(heap.begin(), heap.end());
                continue;
            }
            std::optional<GpuTypeIdx> elsewhere;
            if (migrate_) elsewhere = pick_type(view, victim, order_, free_);
            if (elsewhere) {  // a move instead of a preemption
                free_[*elsewhere] -= victim.alloc_gpus;
                move(view, vj, *elsewhere, view.now());
            } else {
                preempt_.push_back(vj);
                requeue_.push_back(vj);
                touch(vj);
            }
        }
        return true;
    }
    return false;
}

bool SrtfPolicy::move_up(const ClusterView& view, bool ahead) {
    // Only where another type has idle GPUs can a job move up.
    if (free_.size() < 2 || *std::max_element(free_.begin(), free_.end()) == 0) return false;
    by_rank_.clear();
    for (JobIdx j : view.running_jobs())
        if (!touched(j)) by_rank_.push_back(key(view, j));
    std::sort(by_rank_.begin(), by_rank_.end());
    // Ahead of the waiting jobs, what a mover leaves goes to them, not to another mover (one move per
    // freed GPU, no cascade down the types).
    released_.assign(free_.size(), 0);
    bool moved = false;
    for (const Key& k : by_rank_) {
        if (ahead && !waiting_.empty() && !(k < *waiting_.begin())) break;
        const JobIdx j = std::get<2>(k);
        const JobInfo& job = view.job(j);
        const auto to = pick_type(view, job, order_, free_);
        if (!to || *to == job.gpu_type) continue;
        const double left = job.remaining_at(view.now());
        const double there = view.rates().rate(job.model, *to, job.num_gpus);
        // Stalled where it is, or sooner done there by more than the restart cost plus the margin.
        if (job.rate > 0 && !(left / job.rate - left / there > displacement_.seconds(view, j))) continue;
        free_[*to] -= job.alloc_gpus;
        (ahead ? released_ : free_)[job.gpu_type] += job.alloc_gpus;
        move(view, j, *to, view.now());
        moved = true;
    }
    for (std::size_t t = 0; t < free_.size(); ++t) free_[t] += released_[t];
    return moved;
}

void SrtfPolicy::emit(Decisions& out) const {
    // Every GPU that changes hands is released before any start, as the desired-state helper does.
    for (JobIdx j : preempt_) out.preempt(j);
    for (const Wish& w : starts_) out.start(w.job, w.gpu_type, w.num_gpus);
    // The fill starts every waiting job that fits the free GPUs: those left do not.
    out.wait_rest(WaitReason::Resources);
}

}  // namespace dlsim
