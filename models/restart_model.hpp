#pragma once
// What a change of allocation costs a job (MODELLING.md §5, POLICIES.md §15): while restarting, the job
// holds its new GPUs and makes no progress. The engine asks at every start, resize and migration.
#include "models/allocation.hpp"
#include "models/base/sim_time.hpp"
#include "models/rate_model.hpp"

namespace dlsim {

struct RestartContext {
    JobIdx job;
    ModelIdx model;
    const Allocation* from;  ///< what it held until now; nullptr when it was queued
    const Allocation& to;    ///< what it holds from now on
    bool ran_before;         ///< it held GPUs at some earlier time (a restart, not a first start)
};

class RestartModel {
public:
    virtual ~RestartModel() = default;
    /// Microseconds without progress at the start of the new allocation.
    virtual Time cost(const RestartContext& c) const = 0;
};

/// `--restart-cost S`: S on every start after a preemption, every resize and every migration; nothing on
/// a first start or when the job keeps exactly the same GPUs (a renewed lease).
class FixedRestart final : public RestartModel {
public:
    explicit FixedRestart(Time cost) : cost_(cost) {}
    Time cost(const RestartContext& c) const override {
        if (c.from == nullptr) return c.ran_before ? cost_ : 0;
        return c.from->same_place(c.to) ? 0 : cost_;
    }

private:
    Time cost_;
};

}  // namespace dlsim
