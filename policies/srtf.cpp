#include "policies/srtf.hpp"

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

void SrtfPolicy::decide(const ClusterView& view, const Changes& changes, Decisions& out) {
    for (JobIdx j : changes.arrived) add_waiting(view, j);
    // Starts the engine declined and moves it could not place: back to waiting (a job selected from
    // waiting_ left it; a declined move was running and never was in it).
    for (auto list : {changes.declined, changes.requeued})
        for (JobIdx j : list)
            if (view.job(j).state == JobState::Queued) add_waiting(view, j);
    if (tick_ > 0 && view.now() % tick_ != 0) {
        out.next_call = (view.now() / tick_ + 1) * tick_;
        return;
    }

    ++stamp_;
    ranked_ = false;
    to_preempt_.clear();
    desired_.clear();
    const std::size_t types = view.cluster().gpu_types.size();
    free_.resize(types);
    for (GpuTypeIdx t = 0; t < types; ++t) free_[t] = view.free_gpus(t);

    // move_up=ahead: running jobs ranked ahead of every waiting job take freed faster GPUs first.
    if (migrate_ && up_ahead_) move_up(view, true);
    fill(view, true);
    // GPUs no waiting job could use may take running jobs up; what those free may start a waiting job.
    if (migrate_ && move_up(view, false)) fill(view, false);

    for (JobIdx j : view.running_jobs())
        if (j >= touched_.size() || touched_[j] != stamp_) desired_.keep(j);
    // After the walk, which must not meet them among the waiting.
    for (JobIdx j : to_preempt_) add_waiting(view, j);
    desired_.emit(view, out);
}

void SrtfPolicy::fill(const ClusterView& view, bool displace) {
    unvisited_ = waiting_gangs_;
    for (auto it = waiting_.begin(); it != waiting_.end();) {
        const int most_free = *std::max_element(free_.begin(), free_.end());
        const bool may_fit = !unvisited_.empty() && unvisited_.begin()->first <= most_free;
        if (!may_fit) {
            // Nothing left fits the free GPUs; later jobs are longer, so once this one cannot displace
            // anyone neither can they.
            if (!displace) break;
            rank_running(view);
            if (!(std::get<0>(*it) < longest_running_)) break;
        }
        const JobIdx j = std::get<2>(*it);
        const JobInfo& job = view.job(j);
        if (auto u = unvisited_.find(job.num_gpus); --u->second == 0) unvisited_.erase(u);
        bool placed = false;
        if (auto t = pick_type(view, job, order_, free_)) {
            free_[*t] -= job.num_gpus;
            desired_.want(j, *t, job.num_gpus);
            placed = true;
        } else if (displace) {
            rank_running(view);
            placed = std::get<0>(*it) < longest_running_ && displace_for(view, *it);
        }
        if (placed) {
            if (auto g = waiting_gangs_.find(job.num_gpus); --g->second == 0) waiting_gangs_.erase(g);
            it = waiting_.erase(it);
        } else {
            ++it;
        }
    }
}

void SrtfPolicy::rank_running(const ClusterView& view) {
    if (ranked_) return;
    ranked_ = true;
    victims_.resize(view.cluster().gpu_types.size());
    for (auto& heap : victims_) heap.clear();
    longest_running_ = -std::numeric_limits<double>::infinity();
    for (JobIdx j : view.running_jobs()) {
        const Key k = key(view, j);
        victims_[view.job(j).gpu_type].push_back(k);
        longest_running_ = std::max(longest_running_, std::get<0>(k));
    }
    for (auto& heap : victims_) std::make_heap(heap.begin(), heap.end());  // longest (then latest) first
}

bool SrtfPolicy::displace_for(const ClusterView& view, const Key& w) {
    const JobIdx wj = std::get<2>(w);
    const JobInfo& job = view.job(wj);
    const int g = job.num_gpus;
    // The types it may run on, in the order it prefers them.
    GpuTypeIdx order[64];
    std::size_t n = 0;
    for (GpuTypeMask m = job.runnable; m != 0; m &= m - 1) order[n++] = static_cast<GpuTypeIdx>(std::countr_zero(m));
    if (order_ == TypeOrder::Fastest)
        std::stable_sort(order, order + n, [&](GpuTypeIdx a, GpuTypeIdx b) {
            return view.rates().single(job.model, a) > view.rates().single(job.model, b);
        });
    for (std::size_t i = 0; i < n; ++i) {
        const GpuTypeIdx t = order[i];
        auto& heap = victims_[t];
        chosen_.clear();
        int got = free_[t];
        double owed = 0;  // what the displacement must gain, summed over the victims
        while (got < g && !heap.empty() && std::get<0>(heap.front()) > std::get<0>(w)) {
            std::pop_heap(heap.begin(), heap.end());
            const Key v = heap.back();
            heap.pop_back();
            chosen_.push_back(v);
            got += view.job(std::get<2>(v)).alloc_gpus;
            owed += std::get<0>(w) + cost_of(view, std::get<2>(v));
        }
        if (got < g || !(std::get<0>(chosen_.front()) > owed)) {
            for (const Key& v : chosen_) {
                heap.push_back(v);
                std::push_heap(heap.begin(), heap.end());
            }
            continue;
        }
        free_[t] = got - g;
        desired_.want(wj, t, g);
        for (const Key& v : chosen_) {
            const JobIdx vj = std::get<2>(v);
            const JobInfo& victim = view.job(vj);
            if (free_[t] >= victim.alloc_gpus) {  // an earlier, smaller victim fits what is left: it stays
                free_[t] -= victim.alloc_gpus;
                continue;
            }
            if (vj >= touched_.size()) touched_.resize(std::max<std::size_t>(vj + 1, 2 * touched_.size()), 0);
            touched_[vj] = stamp_;
            std::optional<GpuTypeIdx> elsewhere;
            if (migrate_) elsewhere = pick_type(view, victim, order_, free_);
            if (elsewhere) {
                free_[*elsewhere] -= victim.alloc_gpus;
                desired_.want(vj, *elsewhere, victim.alloc_gpus);  // a move instead of a preemption
            } else {
                to_preempt_.push_back(vj);
            }
        }
        return true;
    }
    return false;
}

bool SrtfPolicy::move_up(const ClusterView& view, bool ahead) {
    if (*std::max_element(free_.begin(), free_.end()) == 0) return false;
    by_rank_.clear();
    for (JobIdx j : view.running_jobs())
        if (j >= touched_.size() || touched_[j] != stamp_) by_rank_.push_back(key(view, j));
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
        if (j >= touched_.size()) touched_.resize(std::max<std::size_t>(j + 1, 2 * touched_.size()), 0);
        touched_[j] = stamp_;
        desired_.want(j, *to, job.alloc_gpus);
        moved = true;
    }
    for (std::size_t t = 0; t < free_.size(); ++t) free_[t] += released_[t];
    return moved;
}

}  // namespace dlsim
