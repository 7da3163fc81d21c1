#pragma once
// The analytic centre of a polytope given by sparse rows: P = {x >= 0, s_k = rhs_k + Σ_i a_{k,i}·x_i >= 0}, the
// maximiser of φ(x) = Σ_i log x_i + Σ_k log s_k. The tie-break of the packed max-min LP (packed_share.hpp),
// whose pair columns tie two jobs' rows together, so AnalyticCentre's one-block-per-job form does not fit it.
//
// Method: damped Newton on −φ. With g = ∇φ (g_i = 1/x_i + Σ_k a_{k,i}/s_k) and
//   H = −∇²φ = diag(1/x²) + Σ_k a_k·a_k^T/s_k²,
// the step Δ = H^{-1}·g comes from the Woodbury identity over the rows:
//   K = diag(s²) + A·diag(x²)·A^T  (rows × rows, dense Cholesky),  K·w = A·diag(x²)·g,  Δ = diag(x²)·(g − A^T·w),
// so a step costs O(nnz·(entries per column)) to form K plus O(rows³), and never forms the n×n matrix. For the
// packed LP the rows are each job's share and floor and each type's capacity (2M + T), a column has at most 5
// entries, and n is the number of single and pair columns.
// Newton decrement λ² = g·Δ. Steps: full when λ² < 1/16, else from min(1, 0.99·largest feasible step), halved
// until φ rises by >= λ²·step/4 (Armijo). Stop when λ²/2 < 1e-10 (that last step still taken) or after 100 steps.
//
// Start: the caller's point (an LP vertex: zeros, tight rows) mixed with a reference point r that is strictly
// inside x >= 0 and every row except perhaps some floors: x ← (1 − θ)·x + θ·r. Every slack is affine in θ; a row
// that r violates needs the start strictly inside it and bounds θ from above. θ = min(1/2, half that bound).
//
// Deterministic (fixed loop order); the buffers are kept, so repeated solves of the same or a smaller size
// allocate nothing.
#include <cstddef>
#include <cstdint>
#include <vector>

namespace dlsim {

/// The rows in CSR form, built row by row: add() the entries of a row, then end_row(rhs).
struct RowCentreProblem {
    std::size_t variables = 0;
    std::vector<double> rhs;             ///< per row
    std::vector<std::size_t> row_start;  ///< rows + 1 offsets into the entries
    std::vector<std::uint32_t> entry_variable;
    std::vector<double> entry_coef;

    std::size_t rows() const { return rhs.size(); }
    void clear(std::size_t n) {
        variables = n;
        rhs.clear();
        row_start.assign(1, 0);
        entry_variable.clear();
        entry_coef.clear();
    }
    void add(std::uint32_t variable, double coef) {
        entry_variable.push_back(variable);
        entry_coef.push_back(coef);
    }
    void end_row(double row_rhs) {
        rhs.push_back(row_rhs);
        row_start.push_back(entry_variable.size());
    }
};

class RowCentre {
public:
    struct Outcome {
        bool interior = false;   ///< false: no strictly feasible mix of x and the reference; x is unchanged
        bool converged = false;  ///< λ²/2 < 1e-10
        int newton_steps = 0;
    };

    /// x: in, a point of P (x >= 0, every slack >= 0); out, the centre. `reference`: strictly positive, strictly
    /// inside every row that x does not satisfy strictly.
    Outcome solve(const RowCentreProblem& problem, const std::vector<double>& reference, std::vector<double>& x);

private:
    void slacks(const RowCentreProblem& problem, const std::vector<double>& x, std::vector<double>& s) const;
    double barrier(const std::vector<double>& x, const std::vector<double>& s) const;
    /// trial_ = x + length·step_ and, when it is strictly positive, its slacks in trial_slack_; true when the
    /// trial point is strictly inside P.
    bool trial_point(const RowCentreProblem& problem, const std::vector<double>& x, double length);

    // Buffers, reused across calls.
    std::vector<double> slack_, reference_slack_, gradient_, step_, trial_, trial_slack_, slack_step_;
    std::vector<double> k_matrix_, k_rhs_;
    std::vector<std::size_t> column_start_, column_fill_;  // CSC copy of the rows: per variable its (row, coef)
    std::vector<std::uint32_t> column_row_;
    std::vector<double> column_coef_;
};

}  // namespace dlsim
