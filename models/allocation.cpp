#include "models/allocation.hpp"

#include <algorithm>

namespace dlsim {

bool Allocation::same_place(GpuTypeIdx t, std::span<const NodeShare> other) const {
    if (t != gpu_type || other.size() != shares.size()) return false;
    // Allocations span a handful of nodes: a quadratic match beats sorting copies.
    return std::all_of(other.begin(), other.end(), [&](const NodeShare& s) {
        return std::find(shares.begin(), shares.end(), s) != shares.end();
    });
}

}  // namespace dlsim
