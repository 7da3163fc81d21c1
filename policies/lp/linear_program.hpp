#pragma once
// `LinearProgram`: a small owning wrapper over one GLPK problem (glp_prob), the solver of Gavel's LP family
// (Gavel itself uses cvxpy/ECOS). Columns and rows are 0-based here (GLPK's are 1-based).
//   - Warm start: after the first solve, `solve()` runs the simplex from the previous basis, so a re-solve
//     after changing a coefficient, a bound or the objective costs a few pivots. Presolve stays off because
//     GLPK's presolver discards the basis. The first solve and the first after `reset_basis()` start cold,
//     from GLPK's standard basis.
//   - GLPK prints nothing (terminal output off, message level off).
//   - Deterministic: GLPK's simplex has no randomness, so the same calls give the same vertex.
//   - Failures never abort: indices, bounds and values are checked here before GLPK sees them (GLPK aborts
//     the process on a bad argument), and a non-zero simplex return code throws InternalError naming it.
//     A simplex failure on a warm basis (invalid, singular, ill-conditioned) is retried once from a cold basis.
//     A stall (GLPK's primal simplex can cycle on a degenerate vertex) hits a pivot cap and is retried from a
//     cold basis with textbook pricing and ratio test, then with GLPK's presolver: a solve never hangs.
//   - Deletion keeps the basis usable: before GLPK removes rows and columns, every deleted column that is basic
//     is pivoted out (replaced by the nonbasic variable with the largest tableau entry in its row) and every
//     deleted row whose auxiliary is nonbasic gets it pivoted in, so the remaining statuses form a basis of the
//     smaller problem (same count, nonsingular). It may be primal/dual infeasible; the next solve repairs that.
//     Where no usable pivot exists the next solve starts cold.
// GLPK keeps its environment per thread, so problems on different threads are independent.
#include <limits>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

struct glp_prob;

namespace dlsim {

enum class LpSense { Maximize, Minimize };

/// A lexicographic solve's phase 2 may lower phase 1's optimal level by this relative amount, so
/// that phase 1's point stays feasible under round-off.
constexpr double phase2_relative_slack = 1e-7;

enum class LpStatus { Optimal, Infeasible, Unbounded, Error };

/// Primal simplex, or dual simplex falling back to primal (GLPK's GLP_DUALP). After changes to row or column
/// bounds only, the previous optimal basis stays dual feasible, so the dual method re-solves in a few pivots.
/// DualFirst: the dual simplex (textbook pricing) from the current basis, capped at a few pivots
/// (set_dual_pivot_cap, default 100); if it does not reach the optimum within them, the primal simplex from the
/// same starting basis. For re-solves whose start is usually dual feasible (new rows violated, columns fixed) but
/// not always: GLPK's dual simplex from a basis that is not dual feasible can take as many pivots as a cold solve.
enum class LpMethod { Primal, DualPrimal, DualFirst };

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

    /// Changes one matrix entry in place (0 removes it); keeps the basis. O(row length).
    void set_coefficient(int row, int column, double value);
    /// Replaces a whole row's (column's) coefficients; each index at most once, zeros dropped. Keeps the basis
    /// statuses (GLPK refactorizes at the next solve). O(terms + old length).
    void set_row_terms(int row, std::span<const LpTerm> terms);
    void set_column_terms(int column, std::span<const LpTerm> terms);
    /// Deletes rows (columns), each index at most once, in any order; the others keep their relative order and
    /// are renumbered 0.. upwards. The basis is kept (see the header comment).
    void delete_rows(std::span<const int> rows);
    void delete_columns(std::span<const int> columns);
    /// Both at once (one pass of basis preparation, preferring the deleted rows' auxiliaries as replacements).
    void delete_rows_and_columns(std::span<const int> rows, std::span<const int> columns);
    void set_column_bounds(int column, double lower, double upper);
    void set_row_bounds(int row, double lower, double upper);
    void set_objective(int column, double coefficient);
    void set_sense(LpSense sense);
    void set_method(LpMethod method) { method_ = method; }
    void set_dual_pivot_cap(int pivots) { dual_pivot_cap_ = pivots > 0 ? pivots : 1; }
    /// GLPK's relative primal feasibility tolerance (tol_bnd, default 1e-7). Bisections that decide on
    /// feasibility tighten it so that a bound violated by less than the tolerance does not pass as feasible.
    void set_primal_tolerance(double tolerance);
    /// The next solve starts cold (GLPK's standard basis).
    void reset_basis();
    /// Basis statuses, for callers that know their problem's structure: is a row's auxiliary (a column) basic,
    /// and make it basic or nonbasic (at its lower bound, else upper, else free). The caller keeps the number of
    /// basic variables equal to rows() and the basis nonsingular; if not, the next solve falls back cold.
    bool row_basic(int row) const;
    bool column_basic(int column) const;
    void set_row_basic(int row, bool basic);
    void set_column_basic(int column, bool basic);

    /// Every variable's basis status (GLPK's GLP_BS/NL/NU/NF/NS), rows then columns: a snapshot to return to a
    /// basis known to be good for another objective (e.g. a two-phase LP resumes phase 1 from the last phase-1
    /// optimum). A nonbasic status that no longer fits a variable's bounds is corrected by GLPK.
    struct BasisSnapshot {
        std::vector<signed char> status;
        bool empty() const { return status.empty(); }
    };
    void save_basis(BasisSnapshot& snapshot) const;
    /// False (and nothing changed) when the snapshot is empty or was taken with other numbers of rows or columns.
    bool restore_basis(const BasisSnapshot& snapshot);

    int columns() const;
    int rows() const;

    /// Runs the primal simplex. Throws InternalError on a GLPK failure.
    LpStatus solve();
    /// For a program known to have an optimum (feasible and bounded, e.g. a max-min level over x = 0): a warm
    /// solve that ends infeasible or unbounded is GLPK failing numerically from that basis (seen once, on the
    /// packed max-min LP from a restored basis), so it is solved again from a cold basis. Returns the final
    /// status.
    LpStatus solve_expecting_optimum();
    /// Valid after a solve that returned Optimal.
    double objective_value() const;
    double column_value(int column) const;
    /// Right after an optimal solve (before any change to the program): true when the current vertex also
    /// optimises `secondary` (one coefficient per column, in the program's sense) over the solved objective's
    /// optimal face, so that a second phase with that objective would start optimal and can be skipped. The
    /// classic lexicographic test at the basis: every nonbasic variable whose reduced cost is zero within
    /// `tolerance` (it can move without leaving the face) has a secondary reduced cost that does not improve
    /// within `tolerance`. One backward solve with the solve's factorization, and only when such a variable
    /// exists. Sufficient, not necessary; false also before any solve, after a solve that was not optimal, and
    /// when GLPK holds no factorization.
    bool optimal_for_secondary(std::span<const double> secondary, double tolerance = 1e-7);
    /// Simplex iterations of the last solve (0 when the previous basis was already optimal).
    int last_iterations() const { return last_iterations_; }
    /// True when the last solve started from GLPK's standard basis (first solve, reset, or a lost basis).
    bool last_cold() const { return last_cold_; }
    /// True once a solve has left a basis that the next solve starts from (false: it would start cold).
    bool has_basis() const { return has_basis_; }

private:
    struct Deleter {
        void operator()(glp_prob* problem) const;
    };
    void check_column(int column, const char* what) const;
    void check_row(int row, const char* what) const;
    enum class Fallback { None, Textbook, Presolve, CappedDual };
    int run_simplex(Fallback fallback);
    bool try_capped_dual();
    // Fills index_/value_ (1-based, GLPK's layout) from terms over `count` indices; throws on a bad term,
    // naming `kind index` ("row 3").
    int gather_terms(std::span<const LpTerm> terms, int count, const char* kind, int index);
    /// index_ and value_ hold at least `size` entries.
    void grow_scratch(std::size_t size);
    void prepare_deletion(std::span<const int> rows, std::span<const int> columns);

    std::unique_ptr<glp_prob, Deleter> problem_;
    bool has_basis_ = false;
    bool last_cold_ = false;
    int last_iterations_ = 0;
    LpMethod method_ = LpMethod::Primal;
    double primal_tolerance_ = 1e-7;
    BasisSnapshot dual_start_;  // DualFirst's starting basis, for the primal retry
    int dual_pivot_cap_ = 100;
    // Scratch reused by the setters (no allocation per call once grown): GLPK index/value arrays and a
    // stamp per index for the duplicate check.
    std::vector<int> index_;
    std::vector<double> value_;
    std::vector<unsigned> seen_;
    unsigned stamp_ = 0;
    // optimal_for_secondary's scratch: the nonbasic variables on the face (GLPK number, status), and B⁻ᵀ·c_B
    // (1-based, GLPK's).
    std::vector<std::pair<int, int>> face_;
    std::vector<double> multipliers_;
};

}  // namespace dlsim
