#pragma once
// Gavel's max-min fairness allocation ("LAS", `max_min_fairness` / `_perf`; stanford-futuredata/gavel
// scheduler/policies/max_min_fairness.py and proportional.py), on GLPK
// instead of Gavel's cvxpy/ECOS. x_{m,t} is the fraction of wall time job m spends on g_m GPUs of type t.
//   maximize z  s.t.  z <= Σ_t c_{m,t}·x_{m,t} (every job m),  Σ_t x_{m,t} <= 1,  Σ_m g_m·x_{m,t} <= W_t,  x >= 0,
//   c_{m,t} = g_m·T_{m,t} / (w_m·T^prop_m),  T^prop_m = Σ_t T_{m,t}·W_t / Σ_t W_t  (Gavel's code, not the paper).
// Deviations from Gavel:
//   - x_{m,t} has upper bound 0 where T_{m,t} = 0 (Gavel lets such time be wasted).
//   - Phase 2: z is held at >= z*·(1 − 1e-7) and Σ c_{m,t}·x_{m,t} is maximized, warm-started
//     from phase 1, so the vertex is deterministic (column order m-major, then t). ECOS returns a point near the
//     analytic centre instead, so X differs from Gavel's even at the same z*.
//   - A job with T^prop_m = 0 (no throughput on any type that has GPUs) cannot be served at all; Gavel divides
//     by zero. Here it gets x = 0 and takes no part in the minimum, so it does not pin z* at 0.
// Agnostic mode (Gavel's `max_min_fairness`, no `_perf`): T ≡ 1 on every type where T_{m,t} > 0, so a job on
// g GPUs gets 1/g of a one-GPU job's time fraction.
#include <cstddef>
#include <vector>

namespace dlsim {

struct MaxMinJob {
    int gang = 1;                     ///< g_m, GPUs the job runs on
    double weight = 1.0;              ///< w_m, priority weight (> 0)
    std::vector<double> throughputs;  ///< T_{m,t} per type; 0 = cannot run on that type
};

enum class ThroughputMode { Measured, Agnostic };

struct MaxMinShare {
    std::size_t types = 0;
    double z = 0.0;                 ///< z*, the phase-1 optimum (0 when no job can be served)
    std::vector<double> fractions;  ///< x_{m,t}, job-major: fractions[m·types + t]

    double fraction(std::size_t job, std::size_t type) const { return fractions[job * types + type]; }
};

/// Solves the two phases. `capacities[t]` = W_t (GPUs of type t, >= 0); every job has one throughput per type.
/// Throws InternalError on malformed input (gang < 1, weight <= 0, negative or non-finite numbers, size
/// mismatch) or when GLPK does not reach an optimum.
MaxMinShare solve_max_min_share(const std::vector<MaxMinJob>& jobs, const std::vector<double>& capacities,
                                ThroughputMode mode);

}  // namespace dlsim
