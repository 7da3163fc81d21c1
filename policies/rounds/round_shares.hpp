#pragma once
// Gavel's time shares (Gavel's scheduler/scheduler.py: _update_priorities and _reset_time_run_so_far),
// the bookkeeping behind a round's priorities. Shared by the round mechanism (policies/round_scheduler), whose
// rows are its jobs' slots, and its space-sharing form (policies/packed_rounds), whose rows are units of one
// or two jobs. Per row and GPU type (a cell):
//   x         the row's share of the type in X (a row not in X waits for the next allocation),
//   received  the time it ran on the type since the last reset, seeded with τ/2 at each reset and when the row
//             starts,
//   entitled  Σ x·time over the allocations that held since the last reset,
//   deficit   Σ over the resets of entitled − (received − τ/2): the walk's tie-break after the priority,
// and per type the sum of the received times (a row's starting seed is not counted: Gavel's add_job).
// The priority of a cell is x ÷ (received / Σ received), the walk's key.
#include "models/base/sim_time.hpp"

#include <algorithm>
#include <cstddef>
#include <vector>

namespace dlsim {

class RoundShares {
public:
    /// `types` GPU types, τ/2 in seconds. Clears the types' sums (rows are sized by grow()).
    void setup(std::size_t types, double half_round_s) {
        types_ = types;
        half_round_ = half_round_s;
        sum_.assign(types, 0.0);
    }
    /// Room for `rows` rows; new cells are zero and not in X.
    void grow(std::size_t rows) {
        for (auto* v : {&x_, &received_, &deficit_, &entitled_}) v->resize(rows * types_, 0.0);
        in_allocation_.resize(rows, 0);
    }
    /// A row starts (a job arrives, a unit is made): received τ/2 on every type, nothing else, not in X.
    void start_row(std::size_t row) {
        for (std::size_t c = row * types_; c < (row + 1) * types_; ++c) {
            x_[c] = deficit_[c] = entitled_[c] = 0;
            received_[c] = half_round_;
        }
        in_allocation_[row] = 0;
    }
    /// The row ran `seconds` on type t.
    void credit(std::size_t row, std::size_t t, double seconds) {
        received_[row * types_ + t] += seconds;
        sum_[t] += seconds;
    }
    void set_x(std::size_t row, std::size_t t, double x) { x_[row * types_ + t] = x; }
    void set_in_allocation(std::size_t row, bool in) { in_allocation_[row] = in; }
    bool in_allocation(std::size_t row) const { return in_allocation_[row] != 0; }
    /// The row's share of type t in the current X; 0 for a row not in it (the walk's last key).
    double x(std::size_t row, std::size_t t) const { return in_allocation_[row] ? x_[row * types_ + t] : 0.0; }
    double deficit(std::size_t row, std::size_t t) const { return deficit_[row * types_ + t]; }

    /// The walk's key for the row on type t; 0 when it is not in X, has no share there or cannot run there.
    /// Before any time on the type has been received: x·1e9 (Gavel divides by zero into its largest float).
    double priority(std::size_t row, std::size_t t, bool runnable) const {
        const std::size_t c = row * types_ + t;
        if (!in_allocation_[row] || !(x_[c] > 0) || !runnable) return 0;
        const double f = sum_[t] > 0 ? received_[c] / sum_[t] : 0.0;
        return f > 0 ? x_[c] / f : x_[c] * 1e9;
    }

    /// Adds x·(time since the last call) to the entitlement of every live row in X (the X that held until now).
    /// `live`: the rows in use, a range of row indices (reset goes over it twice).
    template <class Rows>
    void entitle(Time now, Rows&& live) {
        const double elapsed = to_seconds(now - entitled_since_);
        if (elapsed > 0)
            for (const std::size_t row : live)
                if (in_allocation_[row])
                    for (std::size_t c = row * types_; c < (row + 1) * types_; ++c) entitled_[c] += x_[c] * elapsed;
        entitled_since_ = now;
    }
    /// The reset: deficits settled (entitlement − time received beyond the seed), the shares reseeded with τ/2.
    template <class Rows>
    void reset(Time now, Rows&& live) {
        entitle(now, live);
        std::fill(sum_.begin(), sum_.end(), 0.0);
        for (const std::size_t row : live)
            for (std::size_t t = 0; t < types_; ++t) {
                const std::size_t c = row * types_ + t;
                deficit_[c] += entitled_[c] - (received_[c] - half_round_);
                entitled_[c] = 0;
                received_[c] = half_round_;
                sum_[t] += half_round_;
            }
        last_reset_ = now;
        reset_once_ = true;
    }
    Time last_reset() const { return last_reset_; }  ///< 0 before the first reset
    bool reset_once() const { return reset_once_; }

private:
    std::size_t types_ = 0;
    double half_round_ = 0;
    std::vector<double> x_, received_, deficit_, entitled_;  // per cell (row·types + t)
    std::vector<char> in_allocation_;                        // per row
    std::vector<double> sum_;                                // per type: Σ received since the last reset
    Time last_reset_ = 0;
    Time entitled_since_ = 0;
    bool reset_once_ = false;
};

}  // namespace dlsim
