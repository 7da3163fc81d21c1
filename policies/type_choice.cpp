#include "policies/type_choice.hpp"

#include "models/base/input_error.hpp"

#include <bit>

namespace dlsim {

TypeOrder parse_type_order(const std::string& value) {
    if (value == "fastest") return TypeOrder::Fastest;
    if (value == "spec") return TypeOrder::Spec;
    throw InputError("parameter type_order: expected fastest or spec, got '" + value + "'");
}

std::optional<GpuTypeIdx> pick_type(const ClusterView& view, const JobInfo& j, TypeOrder order,
                                    std::span<const int> available) {
    std::optional<GpuTypeIdx> best;
    double best_rate = 0;
    for (GpuTypeMask m = j.runnable; m != 0; m &= m - 1) {
        const auto t = static_cast<GpuTypeIdx>(std::countr_zero(m));
        if (available[t] < j.num_gpus) continue;
        if (order == TypeOrder::Spec) return t;
        const double r = view.rates().rate(j.model, t, j.num_gpus);  // the gang's rate: measured multi-GPU rates may rank types differently
        if (!best || r > best_rate) { best = t; best_rate = r; }
    }
    return best;
}

GpuTypeIdx fastest_type(const ClusterView& view, const JobInfo& j) {
    GpuTypeIdx best = 0;
    double best_rate = -1;
    for (GpuTypeMask m = j.runnable; m != 0; m &= m - 1) {
        const auto t = static_cast<GpuTypeIdx>(std::countr_zero(m));
        const double r = view.rates().rate(j.model, t, j.num_gpus);  // the gang's rate: measured multi-GPU rates may rank types differently
        if (r > best_rate) { best = t; best_rate = r; }
    }
    return best;
}

}  // namespace dlsim
