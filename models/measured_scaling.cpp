#include "models/measured_scaling.hpp"

#include <algorithm>
#include <cmath>

namespace dlsim {

std::vector<double> measured_intra_bandwidths(const Cluster& cluster, const ProfileSet& profiles,
                                              const std::vector<CommModel>& comm) {
    const std::size_t types = cluster.gpu_types.size();
    std::vector<double> out(profiles.models.size() * types, 0);
    std::vector<double> estimates;
    for (std::size_t m = 0; m < profiles.models.size(); ++m) {
        const double bytes = comm[m].gradient_bytes, gamma = comm[m].gamma;
        if (bytes <= 0) continue;
        for (std::size_t t = 0; t < types; ++t) {
            const std::map<int, double>* points = find_type_entry(profiles.models[m].throughput_n, cluster.gpu_types[t]);
            const double* x1 = find_type_entry(profiles.models[m].throughput, cluster.gpu_types[t]);
            if (points == nullptr || x1 == nullptr || *x1 <= 0) continue;
            estimates.clear();
            const double t_comp = 1 / *x1;
            for (const auto& [n, xn] : *points) {
                if (n < 2 || !(xn > 0)) continue;  // 0: infeasible there
                const double t_iter = n / xn;
                const double t_comm =
                    t_iter <= t_comp ? 0 : std::pow(std::pow(t_iter, gamma) - std::pow(t_comp, gamma), 1 / gamma);
                estimates.push_back(t_comm > 0 ? 2.0 * (n - 1) / n * bytes / t_comm : kUnlimited);
            }
            if (estimates.empty()) continue;
            std::sort(estimates.begin(), estimates.end());
            out[m * types + t] = estimates[(estimates.size() - 1) / 2];
        }
    }
    return out;
}

}  // namespace dlsim
