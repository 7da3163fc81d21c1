#pragma once
// `LinearProgram`: a small owning wrapper over one GLPK problem (glp_prob), the solver of Gavel's LP family
// (POLICIES.md §8; Gavel itself uses cvxpy/ECOS). Columns and rows are 0-based here (GLPK's are 1-based).
//   - Warm start: after the first solve, `solve()` runs the simplex from the previous basis, so a re-solve
//     after changing a coefficient, a bound or the objective costs a few pivots. Presolve stays off because
//     GLPK's presolver discards the basis. The first solve and the first after `reset_basis()` start cold,
//     from GLPK's standard basis.
//   - GLPK prints nothing (terminal output off, message level off).
//   - Deterministic: GLPK's simplex has no randomness, so the same calls give the same vertex.
//   - Failures never abort: indices, bounds and values are checked here before GLPK sees them (GLPK aborts
//     the process on a bad argument), and a non-zero simplex return code throws InternalError naming it.
//     A simplex failure on a warm basis (singular, ill-conditioned) is retried once from a cold basis.
// GLPK keeps its environment per thread, so problems on different threads are independent.
#include <limits>
#include <memory>
#include <span>
#include <utility>

struct glp_prob;

namespace dlsim {

enum class LpSense { Maximize, Minimize };

enum class LpStatus { Optimal, Infeasible, Unbounded, Error };

/// "optimal", "infeasible", "unbounded", "error".
const char* to_string(LpStatus status);

/// One non-zero of a row: (column, coefficient).
using LpTerm = std::pair<int, double>;

class LinearProgram {
public:
    static constexpr double infinity = std::numeric_limits<double>::infinity();

    explicit LinearProgram(LpSense sense);
    ~LinearProgram();
    LinearProgram(LinearProgram&&) noexcept;
    LinearProgram& operator=(LinearProgram&&) noexcept;
    LinearProgram(const LinearProgram&) = delete;
    LinearProgram& operator=(const LinearProgram&) = delete;

    /// A variable lower <= x <= upper (either may be ±infinity; lower == upper fixes it) with objective
    /// coefficient `objective`. Returns its column index.
    int add_column(double lower, double upper, double objective);
    /// A constraint lower <= Σ coefficient·x[column] <= upper. Each column at most once; zero terms are dropped.
    /// Returns its row index.
    int add_row(double lower, double upper, std::span<const LpTerm> terms);

    /// Changes one matrix entry in place (0 removes it); keeps the basis.
    void set_coefficient(int row, int column, double value);
    void set_column_bounds(int column, double lower, double upper);
    void set_row_bounds(int row, double lower, double upper);
    void set_objective(int column, double coefficient);
    void set_sense(LpSense sense);
    /// The next solve starts cold (GLPK's standard basis).
    void reset_basis();

    int columns() const;
    int rows() const;

    /// Runs the primal simplex. Throws InternalError on a GLPK failure.
    LpStatus solve();
    /// Valid after a solve that returned Optimal.
    double objective_value() const;
    double column_value(int column) const;
    /// Simplex iterations of the last solve (0 when the previous basis was already optimal).
    int last_iterations() const { return last_iterations_; }

private:
    struct Deleter {
        void operator()(glp_prob* problem) const;
    };
    void check_column(int column, const char* what) const;
    void check_row(int row, const char* what) const;
    int run_simplex();

    std::unique_ptr<glp_prob, Deleter> problem_;
    bool has_basis_ = false;
    int last_iterations_ = 0;
};

}  // namespace dlsim
