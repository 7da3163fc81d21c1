#pragma once
// Where the round mechanism (policies/round_scheduler) gets its allocation X from: Gavel's LPs
// (policies/lp/share_lp) or Gavel's FIFO allocation (policies/fifo_share). One object per policy
// instance, kept across calls (the LP stays warm, Gavel's agnostic FIFO keeps its earlier choices).
#include "models/base/sim_time.hpp"
#include "policies/rounds/share_lp.hpp"

#include <span>

namespace dlsim {

class ShareSource {
public:
    virtual ~ShareSource() = default;
    /// X for `input`'s jobs (job-major, in input order: x[i·types + t]); `submit[i]` is job i's arrival time
    /// (FIFO's order). The span stays valid until the next call.
    virtual std::span<const double> allocate(const ShareInput& input, std::span<const Time> submit) = 0;
};

/// Gavel's LP policies (max-min fairness, finish-time fairness, makespan, max-sum throughput) through ShareLp.
class LpShareSource final : public ShareSource {
public:
    explicit LpShareSource(ShareOptions options) : lp_(options) {}
    std::span<const double> allocate(const ShareInput& input, std::span<const Time>) override {
        return lp_.solve(input).x;
    }

private:
    ShareLp lp_;
};

}  // namespace dlsim
