#pragma once
// The analytic centre of the block-structured polytope of Gavel's LP family, a tie-break for
// optima that are not unique.
//
// Why it exists. Gavel solves its LPs with ECOS, an interior-point solver; where the optimum is a face rather than
// a vertex (max-min fairness pins only the bottleneck jobs' level), ECOS returns approximately the analytic centre
// of that face, which spreads a non-bottleneck job's time over several GPU types. GLPK's simplex returns a vertex
// (the job entirely on one type). Gavel's published JCTs depend on the spread, so a caller that wants Gavel's
// allocations solves the LP with GLPK, turns the optimum into floors (below), and asks this module for the centre.
//
// The set P (M jobs × T types, x_{m,t} the fraction of wall time job m spends on g_m GPUs of type t):
//   x_{m,t} >= 0 where allowed(m, t), and x_{m,t} = 0 (not a variable) elsewhere;
//   u_m = 1 − Σ_t x_{m,t} >= 0                      (per job)
//   s_t = W_t − Σ_m g_m·x_{m,t} >= 0               (per type; W_t = +inf drops the row)
//   v_m = Σ_t a_{m,t}·x_{m,t} − b_m >= 0            (per job, optional "floor"; b_m = −inf drops the row)
// The centre maximizes the barrier
//   φ(x) = Σ_{allowed} log x_{m,t} + Σ_m log u_m + Σ_{t: W_t < inf} log s_t + Σ_{m with floor} log v_m,
// which is strictly concave, so the centre is unique whenever P has an interior. Callers: max-min fairness with
// a = c_m, b_m = z*·(1 − δ); finish-time fairness with a = T_m, b_m = R_m/(ρ*·D_m − age_m)·(1 − δ). δ (e.g. 1e-6)
// gives the bottleneck jobs, whose floor is tight on the whole optimal face, an interior to sit in. For max-min
// this centre is exactly the point of the LP's central path (max z/μ + barrier, z free) at z = z*·(1 − δ): on the
// level set of z the objective is constant, so the central-path point there maximizes the barrier alone. As δ → 0
// it tends to the analytic centre of the optimal face, the point an interior-point solver such as ECOS approaches.
//
// Method: damped Newton on −φ. With r = ∇φ,
//   r_{m,t} = 1/x_{m,t} − 1/u_m − g_m/s_t + a_{m,t}/v_m,
//   H = −∇²φ = blockdiag_m(B_m) + Σ_t (1/s_t²)·c_t·c_t^T,   B_m = diag(1/x_m²) + (1/u_m²)·1·1^T + (1/v_m²)·a_m·a_m^T,
// where c_t holds g_m at entry (m, t). The step Δ = H^{-1}·r comes from the Woodbury identity over the T capacity
// directions: with C = [c_1 … c_T] and S = diag(1/s_t²),
//   K = S^{-1} + C^T·B^{-1}·C = diag(s_t²) + Σ_m g_m²·B_m^{-1}   (T×T),   K·w = Σ_m g_m·B_m^{-1}·r_m,
//   Δ_m = B_m^{-1}·(r_m − g_m·w),
// so a step costs O(M·T³) (a Cholesky factor per job, one T×T solve) and never forms the MT×MT matrix.
// Newton decrement λ² = r·Δ. Steps: full when λ < 1/4 (quadratic region of a self-concordant barrier, inside the
// Dikin ellipsoid), else from min(1, 0.99·largest feasible step), halved until φ rises by >= τ·λ²/4 (Armijo).
// Stop when λ²/2 < tolerance (1e-10 by default); that last, already computed step is still taken, so the returned
// point's own decrement is about λ⁴.
//
// Start. The caller passes a point of P. If it is not strictly inside (an LP vertex: zeros, tight rows), it is
// mixed with a reference point p: x ← (1 − θ)·x + θ·p, where p_{m,t} = min(1/(k_m + 1), W_t/(2·G_t)) on allowed
// entries (k_m = job m's allowed types, G_t = Σ_{m allowed on t} g_m), which is strictly inside every row except
// perhaps the floors. Every row is affine in θ, so each gives an interval of θ where it is positive: rows where
// p is strictly inside give θ > θ_lo (θ_lo = 0 for a row the start satisfies), floors that p violates give
// θ < θ_hi (they need the start to satisfy them strictly). θ = (θ_lo + min(θ_hi, 1))/2. When the interval is empty
// (a floor that neither the start nor p satisfies strictly, W_t = 0 on an allowed entry, a floor with no positive
// room), the status is NoInterior and x is returned unchanged: the mixing step found no strictly feasible point
// (for floors that p violates that is not a proof that none exists, but for the callers above, whose vertex
// satisfies every floor with slack δ·z*, it is).
//
// Identical jobs. Jobs with the same gang, allowed types and floor row are interchangeable: P and φ are symmetric
// under swapping them, and φ is strictly concave with a unique maximiser, so the centre gives them the same x.
// A caller may therefore pass one job with multiplicity n for n such jobs: the barrier weighs its x, u and v
// terms by n and its capacity use is n·g·x. The Newton step keeps the form above with r̃_m the per-copy gradient
// (r_m = n_m·r̃_m): K = diag(s_t²) + Σ_m n_m·g_m²·B_m^{-1}, K·w = Σ_m n_m·g_m·B_m^{-1}·r̃_m,
// Δ_m = B_m^{-1}·(r̃_m − g_m·w), λ² = Σ_m n_m·r̃_m·Δ_m. Gavel's max-min LPs have hundreds of jobs but a few dozen
// such classes (one per model and gang), which makes a step that much cheaper. Multiplicity 1 is bit for bit
// the problem without multiplicities.
//
// Weighted floors. An interior-point solver's limit point maximizes the barrier of the problem as it was written
// for the solver, which need not be the plain φ. Gavel's finish-time fairness (cvxpy → ECOS) is min s subject to
// s >= (age_m + R_m·τ_m)/D_m (a linear row) and τ_m·θ_m >= 1 with θ_m = Σ_t T_{m,t}·x_{m,t} (cvxpy's inv_pos, one
// 3-dimensional second-order cone ‖(2, θ − τ)‖ <= θ + τ). ECOS's central path has s∘z = μ·e on each cone, so a
// second-order cone counts once, like one linear row: its barrier is ½·log((θ + τ)² − (θ − τ)² − 4), i.e.
// ½·log(τθ − 1) + const. On the optimal face (s = ρ*) the centre maximizes, per job, over τ as well:
//   max_τ log(c − kτ) + ½·log(τθ − 1) with c = ρ* − age/D, k = R/D,
// reached at τ = (θc + 2k)/(3kθ), where it equals 1.5·log(θ − k/c) − log θ + const. k/c = R/(ρ*·D − age) is the
// floor b, and θ − b = v: the job's term is 1.5·log v − log(v + b) instead of log v (floor_weight 1.5,
// rate_weight −1). Its Hessian along a is (1.5/v² − 1/θ²)·a·a^T, positive since θ > v when b > 0, so the
// problem keeps the form above with r_{m,t} gaining a_{m,t}·(w_v/v + w_r/θ) and B_m's floor term w_v/v² + w_r/θ².
//
// Deterministic (fixed loop order). A solver object keeps its buffers, so repeated solves of the same or a
// smaller size allocate nothing.
#include <cstddef>
#include <limits>
#include <span>
#include <vector>

namespace dlsim {

/// δ above: the callers lower each floor by this relative amount, so the jobs that pin the optimum keep an interior
/// (ShareLp's and the packed LP's centre tie-breaks).
constexpr double centre_floor_slack = 1e-6;

struct CentreProblem {
    static constexpr double no_floor = -std::numeric_limits<double>::infinity();
    static constexpr double no_capacity = std::numeric_limits<double>::infinity();

    std::size_t jobs = 0;
    std::size_t types = 0;
    std::vector<double> capacity;     ///< W_t (>= 0, or no_capacity), one per type
    std::vector<int> gang;            ///< g_m >= 1, one per job
    std::vector<char> allowed;        ///< [m·types + t]: x_{m,t} is a variable (else fixed at 0)
    std::vector<double> floor_coeff;  ///< a_{m,t}, [m·types + t], finite; may be empty when there are no floors
    std::vector<double> floor_rhs;    ///< b_m (finite, or no_floor); may be empty = no floors at all
    /// n_m >= 1: job m stands for n_m identical jobs (same gang, allowed types, floor row), which share one x_m
    /// (see "Identical jobs" above); may be empty = 1 each.
    std::vector<double> multiplicity;
    /// The floor terms' weights in φ (see "Weighted floors"): floor_weight·log v_m + rate_weight·log(v_m + b_m).
    /// 1 and 0 give the plain barrier above. Allowed: floor_weight > 0, rate_weight <= 0, their sum > 0, and when
    /// rate_weight < 0 every floor b_m > 0 (so that the term is concave and defined wherever v_m > 0).
    double floor_weight = 1.0;
    double rate_weight = 0.0;

    bool has_floor(std::size_t job) const { return !floor_rhs.empty() && floor_rhs[job] != no_floor; }
    double copies(std::size_t job) const { return multiplicity.empty() ? 1.0 : multiplicity[job]; }
    /// n_m·g_m: the GPUs per unit of x_{m,t} that job m (with its copies) takes from type t's capacity.
    double load(std::size_t job) const { return copies(job) * gang[job]; }
};

enum class CentreStatus {
    Converged,   ///< λ²/2 < tolerance: x is the centre
    StepLimit,   ///< step cap reached: x is the last iterate (strictly inside, φ higher than at the start)
    Stalled,     ///< the line search found no ascent (rounding): x is the last iterate, as for StepLimit
    NoInterior,  ///< the mixing step found no strictly feasible point: x is the input, unchanged
};

/// "converged", "step-limit", "stalled", "no-interior".
const char* to_string(CentreStatus status);

struct CentreOptions {
    double decrement_tolerance = 1e-10;  ///< stop when λ²/2 is below this
    int max_newton_steps = 100;
};

class AnalyticCentre {
public:
    struct Outcome {
        CentreStatus status = CentreStatus::NoInterior;
        int newton_steps = 0;  ///< steps taken (the last, converged one included)
        double decrement = 0;  ///< λ²/2 of the last step computed
        double mixing = 0;     ///< θ of the mixing step (0: the start was strictly inside)

        bool ok() const { return status == CentreStatus::Converged; }
    };

    AnalyticCentre() = default;
    explicit AnalyticCentre(CentreOptions options) : options_(options) {}

    /// x (size jobs·types, job-major): in, a point of P (entries not allowed are ignored); out, the centre, with 0
    /// on the entries not allowed. Throws InternalError on malformed input (sizes, gang < 1, NaN, negative W).
    Outcome solve(const CentreProblem& problem, std::vector<double>& x);

    /// The pieces of one Newton step, public for tests: at a strictly feasible x, the gradient r = ∇φ(x) and
    /// the step Δ = H^{-1}·r (Woodbury). Returns λ² = r·Δ. Entries not allowed are 0 in both.
    double newton_direction(const CentreProblem& problem, std::span<const double> x, std::vector<double>& gradient,
                            std::vector<double>& step);

private:
    void prepare(const CentreProblem& problem, std::size_t x_size);
    bool compute_slacks(const CentreProblem& problem, std::span<const double> x);
    double barrier_value(const CentreProblem& problem, std::span<const double> x);
    double direction(const CentreProblem& problem, std::span<const double> x);
    double largest_feasible_step(const CentreProblem& problem, std::span<const double> x);
    bool make_strictly_feasible(const CentreProblem& problem, std::vector<double>& x, double& theta);

    CentreOptions options_;
    // Buffers, reused across calls.
    std::vector<double> job_slack_;           // u_m
    std::vector<double> floor_slack_;         // v_m (1 where no floor)
    std::vector<double> type_slack_;          // s_t
    std::vector<double> trial_type_slack_;    // scratch, T
    std::vector<double> gradient_;            // r
    std::vector<double> step_;                // Δ
    std::vector<double> trial_;               // x + τΔ
    std::vector<double> inverses_;            // per job, B_m^{-1} on its allowed types (T×T slot)
    std::vector<double> factor_;              // scratch, T×T: one job's Cholesky factor
    std::vector<double> lower_inverse_;       // scratch, T×T: its inverse
    std::vector<double> inner_;               // per job, B_m^{-1}·r_m
    std::vector<std::size_t> allowed_types_;  // per job, its allowed types in order (T slot)
    std::vector<std::size_t> allowed_count_;
    std::vector<double> capacity_matrix_;  // K, then its Cholesky factor
    std::vector<double> capacity_rhs_;     // C^T·B^{-1}·r, then w
    std::vector<double> gang_total_;       // G_t = Σ_{m allowed on t} g_m (mixing step)
};

}  // namespace dlsim
