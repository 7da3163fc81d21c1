#include "sim/held_gpus.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace dlsim {

void HeldGpus::take(JobIdx j, const Allocation& a) {
    std::vector<GpuIdx>& ever = ever_[j];
    for (const GpuSlots::Held& h : slots_.take(j, a)) {
        const GpuIdx g = slots_.global(h);
        const auto at = std::lower_bound(ever.begin(), ever.end(), g);
        if (at == ever.end() || *at != g) ever.insert(at, g);
    }
}

std::string interval_set(const std::vector<GpuIdx>& sorted) {
    std::string out;
    for (std::size_t i = 0; i < sorted.size();) {
        std::size_t k = i;
        while (k + 1 < sorted.size() && sorted[k + 1] == sorted[k] + 1) ++k;
        out += out.empty() ? "" : " ";
        out += k == i ? fmt::format("{}", sorted[i]) : fmt::format("{}-{}", sorted[i], sorted[k]);
        i = k + 1;
    }
    return out;
}

}  // namespace dlsim
