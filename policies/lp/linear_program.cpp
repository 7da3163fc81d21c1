#include "policies/lp/linear_program.hpp"

#include "models/base/input_error.hpp"

#include <fmt/format.h>
#include <glpk.h>
#include <malloc.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

namespace dlsim {

namespace {

// GLPK allocates its simplex work arrays (about ten of rows + columns entries) at every glp_simplex call and
// frees them at its end. With glibc's default trim threshold (128 KiB) the freed top of the heap goes back to
// the kernel and the next call page-faults it in again: about 1 ms a round (bench_lp 2000 300 gavel-las, p50
// 6.7 -> 5.5 ms with glibc's tunables set likewise).
// Keeping up to 256 MiB of freed heap costs a simulator nothing. Process-wide, set once, by the first LP.
void keep_freed_heap() {
    static const bool once = [] { return mallopt(M_TRIM_THRESHOLD, 256 << 20) == 1; }();
    (void)once;
}

// What an argument check names in its message ("row 3", "column 7 objective"), formatted only on failure:
// the checks run on every setter call.
struct Owner {
    const char* kind;
    int index;
    int other = -1;            // a second index ("row 3 column 7"), -1 = none
    const char* suffix = "";
    std::string text() const {
        return other < 0 ? fmt::format("{} {}{}", kind, index, suffix)
                         : fmt::format("{} {} column {}{}", kind, index, other, suffix);
    }
};

// GLPK's bound type for lower <= x <= upper; a contradictory or NaN bound is the caller's bug.
int bound_type(double lower, double upper, const Owner& owner) {
    if (std::isnan(lower) || std::isnan(upper) || lower > upper || lower == LinearProgram::infinity ||
        upper == -LinearProgram::infinity)
        throw InternalError(fmt::format("linear program: {}: invalid bounds [{}, {}]", owner.text(), lower, upper));
    const bool has_lower = std::isfinite(lower);
    const bool has_upper = std::isfinite(upper);
    if (has_lower && has_upper) return lower == upper ? GLP_FX : GLP_DB;
    if (has_lower) return GLP_LO;
    if (has_upper) return GLP_UP;
    return GLP_FR;
}

double finite_or_zero(double bound) { return std::isfinite(bound) ? bound : 0.0; }

void check_finite(double value, const Owner& owner) {
    if (!std::isfinite(value))
        throw InternalError(fmt::format("linear program: {}: expected a finite number, got {}", owner.text(), value));
}

const char* simplex_code_name(int code) {
    switch (code) {
        case GLP_EBADB: return "invalid basis";
        case GLP_ESING: return "singular basis matrix";
        case GLP_ECOND: return "ill-conditioned basis matrix";
        case GLP_EBOUND: return "invalid bounds";
        case GLP_EFAIL: return "solver failed";
        case GLP_EOBJLL: return "objective lower limit reached";
        case GLP_EOBJUL: return "objective upper limit reached";
        case GLP_EITLIM: return "iteration limit exceeded";
        case GLP_ETMLIM: return "time limit exceeded";
        case GLP_ENOPFS: return "no primal feasible solution";
        case GLP_ENODFS: return "no dual feasible solution";
        default: return "unknown";
    }
}

}  // namespace

const char* to_string(LpStatus status) {
    switch (status) {
        case LpStatus::Optimal: return "optimal";
        case LpStatus::Infeasible: return "infeasible";
        case LpStatus::Unbounded: return "unbounded";
        case LpStatus::Error: return "error";
    }
    return "error";
}

void LinearProgram::Deleter::operator()(glp_prob* problem) const { glp_delete_prob(problem); }

LinearProgram::LinearProgram(LpSense sense) {
    keep_freed_heap();
    glp_term_out(GLP_OFF);
    problem_.reset(glp_create_prob());
    set_sense(sense);
}

LinearProgram::~LinearProgram() = default;
LinearProgram::LinearProgram(LinearProgram&&) noexcept = default;
LinearProgram& LinearProgram::operator=(LinearProgram&&) noexcept = default;

int LinearProgram::columns() const { return glp_get_num_cols(problem_.get()); }
int LinearProgram::rows() const { return glp_get_num_rows(problem_.get()); }

void LinearProgram::check_column(int column, const char* what) const {
    if (column < 0 || column >= columns())
        throw InternalError(
            fmt::format("linear program: {}: column {} out of range (the program has {})", what, column, columns()));
}

void LinearProgram::check_row(int row, const char* what) const {
    if (row < 0 || row >= rows())
        throw InternalError(fmt::format("linear program: {}: row {} out of range (the program has {})", what, row, rows()));
}

int LinearProgram::add_column(double lower, double upper, double objective) {
    const int column = columns();
    const int type = bound_type(lower, upper, Owner{"column", column});
    check_finite(objective, Owner{"column", column, -1, " objective"});
    const int glpk_column = glp_add_cols(problem_.get(), 1);
    glp_set_col_bnds(problem_.get(), glpk_column, type, finite_or_zero(lower), finite_or_zero(upper));
    glp_set_obj_coef(problem_.get(), glpk_column, objective);
    return column;
}

void LinearProgram::grow_scratch(std::size_t size) {
    if (index_.size() >= size) return;
    index_.resize(size);
    value_.resize(size);
}

int LinearProgram::gather_terms(std::span<const LpTerm> terms, int count, const char* kind, int index) {
    const Owner owner{kind, index};
    const auto size = static_cast<std::size_t>(count) + 1;
    grow_scratch(size);
    if (seen_.size() < size) seen_.resize(size, 0);
    if (++stamp_ == 0) {  // wrapped: old stamps could collide
        std::fill(seen_.begin(), seen_.end(), 0u);
        stamp_ = 1;
    }
    int length = 0;
    for (const auto& [position, coefficient] : terms) {
        if (position < 0 || position >= count)
            throw InternalError(fmt::format("linear program: {}: index {} out of range (the program has {})", owner.text(),
                                            position, count));
        check_finite(coefficient, owner);
        if (seen_[static_cast<std::size_t>(position)] == stamp_)
            throw InternalError(fmt::format("linear program: {}: index {} given twice", owner.text(), position));
        seen_[static_cast<std::size_t>(position)] = stamp_;
        if (coefficient == 0.0) continue;
        ++length;
        index_[static_cast<std::size_t>(length)] = position + 1;  // GLPK arrays are 1-based: element 0 is unused
        value_[static_cast<std::size_t>(length)] = coefficient;
    }
    return length;
}

int LinearProgram::add_row(double lower, double upper, std::span<const LpTerm> terms) {
    const int row = rows();
    const int type = bound_type(lower, upper, Owner{"row", row});
    const int length = gather_terms(terms, columns(), "row", row);
    const int glpk_row = glp_add_rows(problem_.get(), 1);
    glp_set_row_bnds(problem_.get(), glpk_row, type, finite_or_zero(lower), finite_or_zero(upper));
    glp_set_mat_row(problem_.get(), glpk_row, length, index_.data(), value_.data());
    return row;
}

void LinearProgram::set_row_terms(int row, std::span<const LpTerm> terms) {
    check_row(row, "set_row_terms");
    const int length = gather_terms(terms, columns(), "row", row);
    glp_set_mat_row(problem_.get(), row + 1, length, index_.data(), value_.data());
}

void LinearProgram::set_column_terms(int column, std::span<const LpTerm> terms) {
    check_column(column, "set_column_terms");
    const int length = gather_terms(terms, rows(), "column", column);
    glp_set_mat_col(problem_.get(), column + 1, length, index_.data(), value_.data());
}

// GLPK has no single-entry setter: read the row, edit it, write it back (O(row length)). The basis statuses
// survive, so the next solve still starts warm.
void LinearProgram::set_coefficient(int row, int column, double value) {
    check_row(row, "set_coefficient");
    check_column(column, "set_coefficient");
    check_finite(value, Owner{"row", row, column});
    int length = glp_get_mat_row(problem_.get(), row + 1, nullptr, nullptr);
    grow_scratch(static_cast<std::size_t>(length) + 2);
    std::vector<int>& index = index_;
    std::vector<double>& values = value_;
    glp_get_mat_row(problem_.get(), row + 1, index.data(), values.data());
    int position = 1;
    while (position <= length && index[static_cast<std::size_t>(position)] != column + 1) ++position;
    if (position > length) {
        if (value == 0.0) return;
        ++length;
        index[static_cast<std::size_t>(position)] = column + 1;
    }
    if (value == 0.0) {
        index[static_cast<std::size_t>(position)] = index[static_cast<std::size_t>(length)];
        values[static_cast<std::size_t>(position)] = values[static_cast<std::size_t>(length)];
        --length;
    } else {
        values[static_cast<std::size_t>(position)] = value;
    }
    glp_set_mat_row(problem_.get(), row + 1, length, index.data(), values.data());
}

namespace {

// The nonbasic status a variable of this GLPK bound type takes when it leaves the basis.
int nonbasic_status(int bound_type) {
    switch (bound_type) {
        case GLP_FR: return GLP_NF;
        case GLP_UP: return GLP_NU;
        case GLP_FX: return GLP_NS;
        default: return GLP_NL;
    }
}

// GLPK numbers variables 1..m (row auxiliaries) then m+1..m+n (columns).
void set_variable_status(glp_prob* problem, int k, bool basic) {
    const int m = glp_get_num_rows(problem);
    if (k <= m)
        glp_set_row_stat(problem, k, basic ? GLP_BS : nonbasic_status(glp_get_row_type(problem, k)));
    else
        glp_set_col_stat(problem, k - m, basic ? GLP_BS : nonbasic_status(glp_get_col_type(problem, k - m)));
}

// Checked indices, 1-based, for glp_del_rows / glp_del_cols (element 0 unused).
std::vector<int> deletion_list(std::span<const int> indices, int count, const char* what) {
    std::vector<int> list(1, 0);
    std::vector<bool> seen(static_cast<std::size_t>(count), false);
    for (int index : indices) {
        if (index < 0 || index >= count)
            throw InternalError(fmt::format("linear program: {}: index {} out of range (the program has {})", what,
                                            index, count));
        if (seen[static_cast<std::size_t>(index)])
            throw InternalError(fmt::format("linear program: {}: index {} given twice", what, index));
        seen[static_cast<std::size_t>(index)] = true;
        list.push_back(index + 1);
    }
    return list;
}

}  // namespace

// Pivots so that the deleted columns are nonbasic and the deleted rows' auxiliaries basic: removing a row
// together with its basic auxiliary (a unit column of the basis matrix) and nonbasic columns leaves a
// nonsingular basis of the right size. Each pivot takes a refactorization; callers delete few at a time.
void LinearProgram::prepare_deletion(std::span<const int> rows, std::span<const int> columns) {
    if (!has_basis_) return;
    glp_prob* problem = problem_.get();
    const int m = glp_get_num_rows(problem);
    const int n = glp_get_num_cols(problem);
    std::vector<char> deleted(static_cast<std::size_t>(m + n) + 1, 0);  // by GLPK variable number
    for (int row : rows) deleted[static_cast<std::size_t>(row + 1)] = 1;
    for (int column : columns) deleted[static_cast<std::size_t>(m + column + 1)] = 1;
    std::vector<int> index(static_cast<std::size_t>(m + n) + 1);
    std::vector<double> value(index.size());
    const auto lose_basis = [this] { has_basis_ = false; };
    const auto refactorize = [&] { return glp_bf_exists(problem) || glp_factorize(problem) == 0; };
    if (!refactorize()) return lose_basis();
    for (int column : columns) {
        const int k = m + column + 1;
        if (glp_get_col_stat(problem, column + 1) != GLP_BS) continue;
        // Row of the tableau: x_k = Σ alpha_j·x_j over nonbasic j. Any j with alpha_j != 0 can replace x_k;
        // prefer a deleted row's auxiliary (it has to become basic anyway), then the largest |alpha|.
        const int length = glp_eval_tab_row(problem, k, index.data(), value.data());
        int best = 0;
        double best_score = 0;
        for (int i = 1; i <= length; ++i) {
            const int j = index[static_cast<std::size_t>(i)];
            const double magnitude = std::abs(value[static_cast<std::size_t>(i)]);
            if (magnitude < 1e-7 || (j > m && deleted[static_cast<std::size_t>(j)])) continue;
            const double score = magnitude * (j <= m && deleted[static_cast<std::size_t>(j)] ? 1e3 : 1.0);
            if (score > best_score) best_score = score, best = j;
        }
        if (best == 0) return lose_basis();
        set_variable_status(problem, best, true);
        set_variable_status(problem, k, false);
        if (!refactorize()) return lose_basis();
    }
    for (int row : rows) {
        const int k = row + 1;
        if (glp_get_row_stat(problem, k) == GLP_BS) continue;
        // Column of the tableau: how the basic variables move with x_k; one with alpha != 0 can leave.
        const int length = glp_eval_tab_col(problem, k, index.data(), value.data());
        int best = 0;
        double best_score = 0;
        for (int i = 1; i <= length; ++i) {
            const int j = index[static_cast<std::size_t>(i)];
            const double magnitude = std::abs(value[static_cast<std::size_t>(i)]);
            if (magnitude < 1e-7 || (j <= m && deleted[static_cast<std::size_t>(j)])) continue;
            if (magnitude > best_score) best_score = magnitude, best = j;
        }
        if (best == 0) return lose_basis();
        set_variable_status(problem, best, false);
        set_variable_status(problem, k, true);
        if (!refactorize()) return lose_basis();
    }
}

void LinearProgram::delete_rows(std::span<const int> rows) { delete_rows_and_columns(rows, {}); }

void LinearProgram::delete_columns(std::span<const int> columns) { delete_rows_and_columns({}, columns); }

void LinearProgram::delete_rows_and_columns(std::span<const int> rows, std::span<const int> columns) {
    std::vector<int> row_list = deletion_list(rows, this->rows(), "delete_rows");
    std::vector<int> column_list = deletion_list(columns, this->columns(), "delete_columns");
    if (row_list.size() == 1 && column_list.size() == 1) return;
    prepare_deletion(rows, columns);
    if (row_list.size() > 1) glp_del_rows(problem_.get(), static_cast<int>(row_list.size()) - 1, row_list.data());
    if (column_list.size() > 1)
        glp_del_cols(problem_.get(), static_cast<int>(column_list.size()) - 1, column_list.data());
}

void LinearProgram::set_column_bounds(int column, double lower, double upper) {
    check_column(column, "set_column_bounds");
    const int type = bound_type(lower, upper, Owner{"column", column});
    glp_set_col_bnds(problem_.get(), column + 1, type, finite_or_zero(lower), finite_or_zero(upper));
}

void LinearProgram::set_row_bounds(int row, double lower, double upper) {
    check_row(row, "set_row_bounds");
    const int type = bound_type(lower, upper, Owner{"row", row});
    glp_set_row_bnds(problem_.get(), row + 1, type, finite_or_zero(lower), finite_or_zero(upper));
}

void LinearProgram::set_objective(int column, double coefficient) {
    check_column(column, "set_objective");
    check_finite(coefficient, Owner{"column", column, -1, " objective"});
    glp_set_obj_coef(problem_.get(), column + 1, coefficient);
}

void LinearProgram::set_sense(LpSense sense) {
    glp_set_obj_dir(problem_.get(), sense == LpSense::Maximize ? GLP_MAX : GLP_MIN);
}

void LinearProgram::set_primal_tolerance(double tolerance) {
    if (!(tolerance > 0 && tolerance < 1e-3))
        throw InternalError(fmt::format("linear program: primal tolerance: expected in (0, 1e-3), got {}", tolerance));
    primal_tolerance_ = tolerance;
}

void LinearProgram::reset_basis() { has_basis_ = false; }

void LinearProgram::save_basis(BasisSnapshot& snapshot) const {
    glp_prob* problem = problem_.get();
    const int m = rows(), n = columns();
    snapshot.status.resize(static_cast<std::size_t>(m + n));
    for (int i = 0; i < m; ++i)
        snapshot.status[static_cast<std::size_t>(i)] = static_cast<signed char>(glp_get_row_stat(problem, i + 1));
    for (int j = 0; j < n; ++j)
        snapshot.status[static_cast<std::size_t>(m + j)] = static_cast<signed char>(glp_get_col_stat(problem, j + 1));
}

bool LinearProgram::restore_basis(const BasisSnapshot& snapshot) {
    glp_prob* problem = problem_.get();
    const int m = rows(), n = columns();
    if (snapshot.empty() || snapshot.status.size() != static_cast<std::size_t>(m + n)) return false;
    for (int i = 0; i < m; ++i) glp_set_row_stat(problem, i + 1, snapshot.status[static_cast<std::size_t>(i)]);
    for (int j = 0; j < n; ++j) glp_set_col_stat(problem, j + 1, snapshot.status[static_cast<std::size_t>(m + j)]);
    return true;
}

bool LinearProgram::row_basic(int row) const {
    check_row(row, "row_basic");
    return glp_get_row_stat(problem_.get(), row + 1) == GLP_BS;
}

bool LinearProgram::column_basic(int column) const {
    check_column(column, "column_basic");
    return glp_get_col_stat(problem_.get(), column + 1) == GLP_BS;
}

void LinearProgram::set_row_basic(int row, bool basic) {
    check_row(row, "set_row_basic");
    set_variable_status(problem_.get(), row + 1, basic);
}

void LinearProgram::set_column_basic(int column, bool basic) {
    check_column(column, "set_column_basic");
    set_variable_status(problem_.get(), rows() + column + 1, basic);
}

int LinearProgram::run_simplex(Fallback fallback) {
    glp_smcp parameters;
    glp_init_smcp(&parameters);
    parameters.msg_lev = GLP_MSG_OFF;
    parameters.presolve = GLP_OFF;  // the presolver would throw the basis away
    parameters.meth = method_ == LpMethod::DualPrimal ? GLP_DUALP : GLP_PRIMAL;
    parameters.tol_bnd = primal_tolerance_;
    // GLPK's primal simplex can stall on a degenerate vertex (seen on Gavel's packed max-min LP): cap the pivots
    // so that a stall ends in a retry instead of a hang. The cap is far above what a solve here needs.
    parameters.it_lim = 100000 + 50 * (glp_get_num_rows(problem_.get()) + glp_get_num_cols(problem_.get()));
    if (fallback == Fallback::Textbook) {  // Dantzig pricing and the textbook ratio test
        parameters.pricing = GLP_PT_STD;
        parameters.r_test = GLP_RT_STD;
    } else if (fallback == Fallback::Presolve) {
        parameters.presolve = GLP_ON;
    } else if (fallback == Fallback::CappedDual) {
        parameters.meth = GLP_DUAL;
        parameters.it_lim = dual_pivot_cap_;
        // Textbook pricing: a re-solve of a few pivots gains nothing from dual steepest edge, whose weights cost an
        // extra solve per pivot (max-min at 2,000 jobs: the same pivots, a round with 10 arrivals 3.9-4.5 -> 3.6-4.0
        // ms, bench_lp run in turn with the binary before).
        parameters.pricing = GLP_PT_STD;
    }
    return glp_simplex(problem_.get(), &parameters);
}

LpStatus LinearProgram::solve() {
    glp_term_out(GLP_OFF);  // per thread in GLPK: repeat it on the solving thread
    last_cold_ = !has_basis_;
    if (!has_basis_) glp_std_basis(problem_.get());
    const int iterations_before = glp_get_it_cnt(problem_.get());
    if (method_ == LpMethod::DualFirst && has_basis_ && try_capped_dual()) {
        last_iterations_ = glp_get_it_cnt(problem_.get()) - iterations_before;
        return LpStatus::Optimal;
    }
    int code = run_simplex(Fallback::None);
    if (has_basis_ && (code == GLP_EBADB || code == GLP_ESING || code == GLP_ECOND || code == GLP_EFAIL)) {
        glp_std_basis(problem_.get());
        last_cold_ = true;
        code = run_simplex(Fallback::None);
    }
    // A stall (the pivot cap): again from the standard basis with textbook rules, then with GLPK's presolver.
    for (const Fallback fallback : {Fallback::Textbook, Fallback::Presolve}) {
        if (code != GLP_EITLIM) break;
        glp_std_basis(problem_.get());
        last_cold_ = true;
        code = run_simplex(fallback);
    }
    if (code != 0)
        throw InternalError(fmt::format("linear program: GLPK simplex failed with code {} ({})", code,
                                        simplex_code_name(code)));
    has_basis_ = true;
    last_iterations_ = glp_get_it_cnt(problem_.get()) - iterations_before;
    switch (glp_get_status(problem_.get())) {
        case GLP_OPT: return LpStatus::Optimal;
        case GLP_NOFEAS: return LpStatus::Infeasible;
        case GLP_UNBND: return LpStatus::Unbounded;
        default: return LpStatus::Error;
    }
}

LpStatus LinearProgram::solve_expecting_optimum() {
    const LpStatus status = solve();
    if (status == LpStatus::Optimal || last_cold_) return status;
    reset_basis();
    return solve();
}

// DualFirst: the capped dual simplex; true when it reached the optimum. Otherwise the starting basis is put back
// for the primal simplex (the dual's pivots are then lost: the cap bounds that loss).
bool LinearProgram::try_capped_dual() {
    save_basis(dual_start_);
    const int code = run_simplex(Fallback::CappedDual);
    if (code == 0 && glp_get_status(problem_.get()) == GLP_OPT) return true;
    restore_basis(dual_start_);
    return false;
}

bool LinearProgram::optimal_for_secondary(std::span<const double> secondary, double tolerance) {
    glp_prob* problem = problem_.get();
    const int m = rows(), n = columns();
    if (secondary.size() != static_cast<std::size_t>(n))
        throw InternalError(fmt::format("linear program: optimal_for_secondary: {} coefficients for {} columns",
                                        secondary.size(), n));
    if (!has_basis_ || glp_get_status(problem) != GLP_OPT || !glp_bf_exists(problem)) return false;
    // Variables 1..m are the rows' auxiliaries, m+1..m+n the columns (GLPK's numbering). A fixed variable
    // cannot move, so it never leaves the face.
    face_.clear();
    for (int k = 1; k <= m + n; ++k) {
        const int status = k <= m ? glp_get_row_stat(problem, k) : glp_get_col_stat(problem, k - m);
        if (status == GLP_BS || status == GLP_NS) continue;
        const double reduced = k <= m ? glp_get_row_dual(problem, k) : glp_get_col_dual(problem, k - m);
        if (std::abs(reduced) <= tolerance) face_.emplace_back(k, status);
    }
    if (face_.empty()) return true;  // the optimum is a unique vertex
    // π = B⁻ᵀ·c_B for the secondary costs; a reduced cost is then d_k = −π_k for row k's auxiliary and
    // d_j = c_j + Σ_i a_ij·π_i for column j (GLPK's convention: B's columns come from (I | −A)).
    multipliers_.assign(static_cast<std::size_t>(m) + 1, 0.0);
    for (int i = 1; i <= m; ++i) {
        const int k = glp_get_bhead(problem, i);
        if (k > m) multipliers_[static_cast<std::size_t>(i)] = secondary[static_cast<std::size_t>(k - m - 1)];
    }
    glp_btran(problem, multipliers_.data());
    const double improving_sign = glp_get_obj_dir(problem) == GLP_MAX ? 1.0 : -1.0;
    for (const auto& [k, status] : face_) {
        double reduced;
        if (k <= m) {
            reduced = -multipliers_[static_cast<std::size_t>(k)];
        } else {
            const int j = k - m;
            reduced = secondary[static_cast<std::size_t>(j - 1)];
            const int length = glp_get_mat_col(problem, j, nullptr, nullptr);
            grow_scratch(static_cast<std::size_t>(length) + 1);
            glp_get_mat_col(problem, j, index_.data(), value_.data());
            for (int e = 1; e <= length; ++e) {
                const auto at = static_cast<std::size_t>(e);
                reduced += value_[at] * multipliers_[static_cast<std::size_t>(index_[at])];
            }
        }
        const double gain = improving_sign * reduced;  // > 0: the objective improves as the variable rises
        if ((status == GLP_NL || status == GLP_NF) && gain > tolerance) return false;
        if ((status == GLP_NU || status == GLP_NF) && gain < -tolerance) return false;
    }
    return true;
}

double LinearProgram::objective_value() const { return glp_get_obj_val(problem_.get()); }

double LinearProgram::column_value(int column) const {
    check_column(column, "column_value");
    return glp_get_col_prim(problem_.get(), column + 1);
}

}  // namespace dlsim
