#include "policies/elastic/afs.hpp"

#include <algorithm>
#include <limits>

namespace dlsim {

namespace {
constexpr double kNeverDone = std::numeric_limits<double>::infinity();
}  // namespace

int AfsPolicy::next_count(std::size_t i, int k) const {
    if (k == 0) return first_[i];
    return k < cap_[i] ? k + 1 : 0;
}

double AfsPolicy::time_on(const ClusterView& view, std::size_t i, int k) const {
    if (k <= 0) return kNeverDone;
    const JobIdx j = active_.jobs()[i];
    double speed = 0;
    if (elastic_[i]) {
        speed = view.elastic()->predict(j, type_, nodes_for(k, per_node_), k).goodput;
    } else {
        speed = view.rates().rate(view.job(j).model, type_, k);
    }
    if (!(speed > 0)) return kNeverDone;
    return remaining_[i] / speed + eps_;
}

void AfsPolicy::refresh(const ClusterView& view, std::size_t i, int free) {
    const int next = next_count(i, counts_[i]);
    r_now_[i] = time_on(view, i, counts_[i]);
    r_next_[i] = next > 0 ? time_on(view, i, next) : kNeverDone;
    eligible_[i] = next > 0 && next - counts_[i] <= free && r_next_[i] < kNeverDone;
}

bool AfsPolicy::first_wins(std::size_t a, std::size_t b) const {
    // l: the one with the shorter remaining time now (the candidate a on ties); h: the other.
    const bool a_low = r_now_[a] <= r_now_[b];
    const std::size_t l = a_low ? a : b, h = a_low ? b : a;
    bool l_wins = false;
    if (r_now_[l] == kNeverDone) {
        // Neither holds GPUs: the faster after its step (larger s = 1/r) wins; the candidate on ties.
        if (r_next_[a] == r_next_[b]) return true;
        return r_next_[a] < r_next_[b];
    }
    // r_l(k_l)/r_l(k_l+1) + r_h(k_h+1)/r_h(k_h) > 2, where r_h(0) = infinity makes the second term 0.
    const double h_term = r_now_[h] == kNeverDone ? 0 : r_next_[h] / r_now_[h];
    l_wins = r_now_[l] / r_next_[l] + h_term > 2;
    return l_wins == (l == a);
}

void AfsPolicy::tournament(const ClusterView& view, int free) {
    while (free > 0) {
        std::size_t winner = 0;
        bool any = false;
        for (std::size_t i : order_) {
            if (!eligible_[i]) continue;
            if (!any) {
                winner = i;
                any = true;
            } else if (!first_wins(winner, i)) {
                winner = i;
            }
        }
        if (!any) return;
        const int next = next_count(winner, counts_[winner]);
        free -= next - counts_[winner];
        counts_[winner] = next;
        // The winner's times change; every job's step may no longer fit.
        refresh(view, winner, free);
        for (std::size_t i : order_)
            if (eligible_[i] && next_count(i, counts_[i]) - counts_[i] > free) eligible_[i] = 0;
    }
}

void AfsPolicy::decide(const ClusterView& view, const Changes& changes, Decisions& out) {
    active_.update(view, changes);
    if (active_.empty()) return;
    now_ = view.now();
    out.next_call = (now_ / interval_ + 1) * interval_;

    const Cluster& cluster = view.cluster();
    type_ = elastic_pool_type(cluster);
    per_node_ = gpus_per_node(cluster, type_);
    const auto jobs = active_.jobs();
    const std::size_t n = jobs.size();
    counts_.assign(n, 0);
    first_.assign(n, 0);
    cap_.assign(n, 0);
    remaining_.assign(n, 0);
    r_now_.assign(n, kNeverDone);
    r_next_.assign(n, kNeverDone);
    elastic_.assign(n, 0);
    eligible_.assign(n, 0);
    order_.clear();
    for (std::size_t i = 0; i < n; ++i) {
        const JobInfo& job = view.job(jobs[i]);
        if (!((job.runnable >> type_) & 1)) continue;
        elastic_[i] = is_elastic(view, jobs[i]) ? 1 : 0;
        first_[i] = elastic_[i] ? job.min_gpus : job.num_gpus;
        cap_[i] = elastic_[i] ? job.max_gpus : job.num_gpus;
        remaining_[i] = job.remaining_at(now_);
        order_.push_back(i);
    }
    std::stable_sort(order_.begin(), order_.end(),
                     [&](std::size_t a, std::size_t b) { return view.job(jobs[a]).submit < view.job(jobs[b]).submit; });
    int free = cluster.gpus_of_type(type_);
    for (std::size_t i : order_) refresh(view, i, free);

    if (variant_ == AfsVariant::OneEach) {
        // One step to every job first, shortest r after it first (list order among equals), while it fits.
        by_r_.assign(order_.begin(), order_.end());
        std::stable_sort(by_r_.begin(), by_r_.end(),
                         [&](std::size_t a, std::size_t b) { return r_next_[a] < r_next_[b]; });
        for (std::size_t i : by_r_)
            if (eligible_[i] && first_[i] <= free) {
                counts_[i] = first_[i];
                free -= first_[i];
            }
        for (std::size_t i : order_) refresh(view, i, free);
    }
    tournament(view, free);
    applier_.apply(view, jobs, counts_, type_, false, out);
}

}  // namespace dlsim
