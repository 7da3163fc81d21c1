#include "policies/desired_state.hpp"

#include <fmt/format.h>

#include "models/base/input_error.hpp"

namespace dlsim {

void DesiredState::clear() {
    wishes_.clear();
    nodes_.clear();
    ++stamp_;
}

void DesiredState::mark(JobIdx j) {
    if (j >= wanted_.size()) wanted_.resize(std::max<std::size_t>(j + 1, 2 * wanted_.size()), 0);
    if (wanted_[j] == stamp_) throw InternalError(fmt::format("desired state: job {} wanted twice", j));
    wanted_[j] = stamp_;
}

void DesiredState::want(JobIdx j, GpuTypeIdx t, int n, std::span<const NodeShare> nodes) {
    mark(j);
    wishes_.push_back({j, t, n, static_cast<std::uint32_t>(nodes_.size()), static_cast<std::uint32_t>(nodes.size())});
    nodes_.insert(nodes_.end(), nodes.begin(), nodes.end());
}

DesiredState::Fate DesiredState::fate(const ClusterView& view, const Wish& w) const {
    const JobInfo& job = view.job(w.job);
    if (job.state != JobState::Running) return Fate::Start;
    const Allocation& now = view.allocation(w.job);
    if (now.gpu_type != w.gpu_type || (w.nodes_size > 0 && !now.same_place(w.gpu_type, nodes(w)))) return Fate::Move;
    if (w.num_gpus < job.alloc_gpus) return Fate::Shrink;
    if (w.num_gpus > job.alloc_gpus) return Fate::Grow;
    return Fate::Keep;
}

void DesiredState::emit(const ClusterView& view, Decisions& out, StopCause unwanted) {
    fates_.clear();
    for (const Wish& w : wishes_) fates_.push_back(fate(view, w));
    for (JobIdx j : view.running_jobs())
        if (j >= wanted_.size() || wanted_[j] != stamp_) out.preempt(j, unwanted);
    for (std::size_t i = 0; i < wishes_.size(); ++i)
        if (fates_[i] == Fate::Move) out.preempt(wishes_[i].job);
    for (std::size_t i = 0; i < wishes_.size(); ++i)
        if (fates_[i] == Fate::Shrink) out.resize(wishes_[i].job, wishes_[i].num_gpus);
    for (std::size_t i = 0; i < wishes_.size(); ++i) {
        const Wish& w = wishes_[i];
        if (fates_[i] == Fate::Start || fates_[i] == Fate::Move)
            out.start(w.job, w.gpu_type, w.num_gpus, nodes(w));
        else if (fates_[i] == Fate::Grow)
            out.resize(w.job, w.num_gpus);
    }
}

}  // namespace dlsim
