#pragma once
// Gavel's allocation LPs (Narayanan et al., OSDI'20; stanford-futuredata/gavel scheduler/policies/) as one
// object that lives across rounds:
// the round mechanism (policies/round_scheduler) calls solve() with the jobs active now, and the object keeps
// one GLPK problem whose rows and columns follow the jobs (an arrival takes a departed job's rows and columns
// when there is one, otherwise new ones are appended; surplus departures lie dormant until reused or deleted in bulk;
// changed coefficients are set in place) and re-solves it from the previous basis (max-min: from the last phase-1
// optimum, by a capped dual simplex; share_lp.cpp, solve_max_min). Cold solves happen only at the first call, when the
// basis is lost (GLPK finds it singular), when the number of types changes, or with warm_start = false.
// A call that leaves the max-min or max-throughput LP unchanged (no arrival, departure, coefficient or capacity
// change; remaining work and age do not enter them) returns the last answer without solving (lp_solves = 0).
// Formulations and deviations from Gavel: share_lp.cpp's header comment.
//
// X: x_{m,t} is the fraction of wall time job m spends on g_m GPUs of type t, subject to (B):
//   x >= 0,  Σ_t x_{m,t} <= 1,  Σ_m g_m·x_{m,t} <= W_t,  and x_{m,t} = 0 where T_{m,t} = 0.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

namespace dlsim {

enum class ShareObjective {
    MaxMinFairness,      ///< gavel-las: max min_m Σ_t c_{m,t}·x_{m,t}, phase 2 for a deterministic vertex
    FinishTimeFairness,  ///< gavel-ftf: min max_m ρ_m(x), bisection on ρ over feasibility LPs, then phase 2
    Makespan,            ///< gavel-makespan: max y s.t. θ_m(x) >= R_m·y (exact), or Gavel's bisection
    MaxThroughput,       ///< gavel-max-throughput: max Σ_m θ_m(x), optionally normalised by T^prop
};

/// Heterogeneity-aware (Gavel's `_perf`) or agnostic: LAS sets T ≡ 1 where T > 0; FTF and makespan use the
/// reference type's column on every type (as Gavel's agnostic finish_time_fairness.py, its `v100` column).
enum class ThroughputView { Aware, Agnostic };

struct ShareOptions {
    ShareObjective objective = ShareObjective::MaxMinFairness;
    ThroughputView view = ThroughputView::Aware;
    std::size_t reference_type = 0;  ///< the agnostic FTF/makespan column (Gavel's `v100`)
    /// Agnostic view: each job's total time share is spread over the types in proportion to their GPU counts
    /// (a policy blind to types cannot prefer one; Gavel's interior-point solver lands at this symmetric point,
    /// where GLPK's simplex would return an arbitrary vertex). Feasible whenever the LP's point is.
    bool agnostic_spread = true;
    /// Where the optimum is not unique, return the analytic centre of the optimal face (policies/lp/
    /// analytic_centre.hpp) instead of the simplex's vertex: what Gavel's interior-point solver (ECOS) returns,
    /// which spreads a job that does not pin the objective over several types. Max-min, FTF and makespan (each
    /// job's objective row becomes a floor at the optimum less a 1e-6 relative slack); max-throughput keeps
    /// its vertex. FTF's floors carry the barrier weights of Gavel's cone program (1.5·log v − log θ per job:
    /// analytic_centre.hpp, "Weighted floors"), the others the plain log v. Replaces agnostic_spread when on.
    bool centre = false;
    bool gavel_makespan_bisection = false;  ///< Gavel's min_total_duration.py: bisection over [100, 1e6] s, factor 1.05
    bool normalize_throughput_sum = false;  ///< divide T_{m,t} by T^prop_m in the max-throughput objective
    double ftf_relative_tolerance = 1e-4;   ///< FTF: bisection on log ρ to this relative width
    /// FTF's denominator D_m = I_m + R_m/θ^iso_m (Gavel's finish_time_fairness.py at HEAD: I_m, the time the
    /// job's work so far would have taken in isolation), or with this set age_m + R_m/θ^iso_m: the time since
    /// arrival in both terms of ρ, as in Gavel's earlier finish_time_fairness.py (stanford-futuredata/gavel
    /// 076074c, `times_since_start` in `expected_time_isolated`). Fig. 8's notebook numbers match the latter:
    /// README "Gavel's policies".
    bool ftf_elapsed_denominator = false;
    /// false: every call starts its first LP from GLPK's standard basis (the FTF bookkeeping and the problem
    /// itself still persist). For tests and benchmarks comparing warm against cold.
    bool warm_start = true;
};

/// One active job. Its throughputs are in ShareInput::throughputs.
struct ShareJob {
    std::uint32_t key = 0;  ///< stable across calls (the engine's JobIdx); strictly increasing within one input
    int gang = 1;           ///< g_m
    double weight = 1.0;    ///< w_m (> 0)
    double remaining = 0;   ///< R_m, iterations left (FTF, makespan)
    double age = 0;         ///< seconds since arrival (FTF)
};

struct ShareInput {
    std::vector<double> capacities;  ///< W_t, GPUs of each type
    std::vector<ShareJob> jobs;      ///< ascending key
    /// Job-major [i·types + t]: aggregate iterations/s of job i on g_i GPUs of type t; 0 = cannot run there.
    std::vector<double> throughputs;

    std::size_t types() const { return capacities.size(); }
    double throughput(std::size_t i, std::size_t t) const { return throughputs[i * types() + t]; }
    void clear_jobs() {
        jobs.clear();
        throughputs.clear();
    }
};

struct ShareResult {
    std::size_t types = 0;
    std::vector<double> x;  ///< job-major, in the input's job order
    /// z* (LAS), ρ* (FTF: the bisection's smallest feasible ρ; ρ_hi of x^iso when it fell back to x^iso),
    /// T* in seconds (makespan: 1/y*, or the bisection's last feasible T), Σθ (throughput; Σ θ_m/T^prop_m with
    /// normalize_throughput_sum); 0 with no jobs to serve.
    double objective = 0;
    int lp_solves = 0;           ///< GLPK solves this call took (bisection steps and phase 2 included)
    int simplex_iterations = 0;  ///< summed over them
    bool cold = false;           ///< the call started from GLPK's standard basis

    double fraction(std::size_t job, std::size_t type) const { return x[job * types + type]; }
};

class ShareLp {
public:
    explicit ShareLp(ShareOptions options);
    ~ShareLp();
    ShareLp(ShareLp&&) noexcept;
    ShareLp& operator=(ShareLp&&) noexcept;

    /// The allocation for these jobs, warm-started from the last call. Throws InternalError on malformed
    /// input (keys not ascending, sizes that do not match, negative or non-finite numbers) or a GLPK failure.
    const ShareResult& solve(const ShareInput& input);
    const ShareOptions& options() const;

private:
    struct State;
    std::unique_ptr<State> state_;
};

std::string_view to_string(ShareObjective objective);

}  // namespace dlsim
