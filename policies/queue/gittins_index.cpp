#include "policies/queue/gittins_index.hpp"

#include <algorithm>
#include <cmath>

namespace dlsim {

namespace {

void fill_prefix(const std::vector<double>& sample, std::vector<double>& prefix) {
    prefix.resize(sample.size() + 1);
    prefix[0] = 0;
    for (std::size_t l = 0; l < sample.size(); ++l) prefix[l + 1] = prefix[l] + sample[l];
}

}  // namespace

ServiceDistribution::ServiceDistribution(double prior_max) {
    sample_.resize(kPriorPoints);
    for (std::size_t m = 0; m < kPriorPoints; ++m)
        sample_[m] = (static_cast<double>(m) + 0.5) * prior_max / static_cast<double>(kPriorPoints);
    fill_prefix(sample_, prefix_);
}

bool ServiceDistribution::refresh() {
    const std::size_t finished = finished_ + pending_.size();
    if (finished < std::max(kMinFinished, finished_ + (finished_ + 7) / 8)) return false;
    std::sort(pending_.begin(), pending_.end());
    if (prior_) {
        sample_.swap(pending_);
        prior_ = false;
    } else {
        const auto middle = static_cast<std::ptrdiff_t>(sample_.size());
        sample_.insert(sample_.end(), pending_.begin(), pending_.end());
        std::inplace_merge(sample_.begin(), sample_.begin() + middle, sample_.end());
    }
    pending_.clear();
    finished_ = finished;
    fill_prefix(sample_, prefix_);
    return true;
}

double ServiceDistribution::gittins(double a, double delta, bool compat) const {
    const std::size_t n = sample_.size();
    const auto i = static_cast<std::size_t>(std::upper_bound(sample_.begin(), sample_.end(), a) - sample_.begin());
    if (i == n) return 0;
    const std::size_t k =
        std::isinf(delta) ? n
                          : static_cast<std::size_t>(std::upper_bound(sample_.begin() + static_cast<std::ptrdiff_t>(i),
                                                                      sample_.end(), a + delta) -
                                                     sample_.begin());
    if (k == i) return 0;
    const double done = prefix_[k] - prefix_[i] - (compat ? 0.0 : a * static_cast<double>(k - i));
    const double rest = k == n ? 0.0 : delta * static_cast<double>(n - k);
    return static_cast<double>(k - i) / (done + rest);
}

}  // namespace dlsim
