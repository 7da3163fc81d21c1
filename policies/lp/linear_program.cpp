#include "policies/lp/linear_program.hpp"

#include "models/base/input_error.hpp"

#include <fmt/format.h>
#include <glpk.h>

#include <cmath>
#include <string>
#include <vector>

namespace dlsim {

namespace {

// GLPK's bound type for lower <= x <= upper; a contradictory or NaN bound is the caller's bug.
int bound_type(double lower, double upper, const std::string& owner) {
    if (std::isnan(lower) || std::isnan(upper) || lower > upper || lower == LinearProgram::infinity ||
        upper == -LinearProgram::infinity)
        throw InternalError(fmt::format("linear program: {}: invalid bounds [{}, {}]", owner, lower, upper));
    const bool has_lower = std::isfinite(lower);
    const bool has_upper = std::isfinite(upper);
    if (has_lower && has_upper) return lower == upper ? GLP_FX : GLP_DB;
    if (has_lower) return GLP_LO;
    if (has_upper) return GLP_UP;
    return GLP_FR;
}

double finite_or_zero(double bound) { return std::isfinite(bound) ? bound : 0.0; }

void check_finite(double value, const std::string& owner) {
    if (!std::isfinite(value))
        throw InternalError(fmt::format("linear program: {}: expected a finite number, got {}", owner, value));
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
    const int type = bound_type(lower, upper, fmt::format("column {}", column));
    check_finite(objective, fmt::format("column {} objective", column));
    const int glpk_column = glp_add_cols(problem_.get(), 1);
    glp_set_col_bnds(problem_.get(), glpk_column, type, finite_or_zero(lower), finite_or_zero(upper));
    glp_set_obj_coef(problem_.get(), glpk_column, objective);
    return column;
}

int LinearProgram::add_row(double lower, double upper, std::span<const LpTerm> terms) {
    const int row = rows();
    const std::string owner = fmt::format("row {}", row);
    const int type = bound_type(lower, upper, owner);
    // GLPK arrays are 1-based: element 0 is unused.
    std::vector<int> index(1, 0);
    std::vector<double> value(1, 0.0);
    std::vector<bool> seen(static_cast<std::size_t>(columns()), false);
    for (const auto& [column, coefficient] : terms) {
        check_column(column, owner.c_str());
        check_finite(coefficient, owner);
        if (seen[static_cast<std::size_t>(column)])
            throw InternalError(fmt::format("linear program: {}: column {} given twice", owner, column));
        seen[static_cast<std::size_t>(column)] = true;
        if (coefficient == 0.0) continue;
        index.push_back(column + 1);
        value.push_back(coefficient);
    }
    const int glpk_row = glp_add_rows(problem_.get(), 1);
    glp_set_row_bnds(problem_.get(), glpk_row, type, finite_or_zero(lower), finite_or_zero(upper));
    glp_set_mat_row(problem_.get(), glpk_row, static_cast<int>(index.size()) - 1, index.data(), value.data());
    return row;
}

// GLPK has no single-entry setter: read the row, edit it, write it back (O(row length)). The basis statuses
// survive, so the next solve still starts warm.
void LinearProgram::set_coefficient(int row, int column, double value) {
    check_row(row, "set_coefficient");
    check_column(column, "set_coefficient");
    check_finite(value, fmt::format("row {} column {}", row, column));
    std::vector<int> index(static_cast<std::size_t>(columns()) + 2);
    std::vector<double> values(index.size());
    int length = glp_get_mat_row(problem_.get(), row + 1, index.data(), values.data());
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

void LinearProgram::set_column_bounds(int column, double lower, double upper) {
    check_column(column, "set_column_bounds");
    const int type = bound_type(lower, upper, fmt::format("column {}", column));
    glp_set_col_bnds(problem_.get(), column + 1, type, finite_or_zero(lower), finite_or_zero(upper));
}

void LinearProgram::set_row_bounds(int row, double lower, double upper) {
    check_row(row, "set_row_bounds");
    const int type = bound_type(lower, upper, fmt::format("row {}", row));
    glp_set_row_bnds(problem_.get(), row + 1, type, finite_or_zero(lower), finite_or_zero(upper));
}

void LinearProgram::set_objective(int column, double coefficient) {
    check_column(column, "set_objective");
    check_finite(coefficient, fmt::format("column {} objective", column));
    glp_set_obj_coef(problem_.get(), column + 1, coefficient);
}

void LinearProgram::set_sense(LpSense sense) {
    glp_set_obj_dir(problem_.get(), sense == LpSense::Maximize ? GLP_MAX : GLP_MIN);
}

void LinearProgram::reset_basis() { has_basis_ = false; }

int LinearProgram::run_simplex() {
    glp_smcp parameters;
    glp_init_smcp(&parameters);
    parameters.msg_lev = GLP_MSG_OFF;
    parameters.presolve = GLP_OFF;  // the presolver would throw the basis away
    return glp_simplex(problem_.get(), &parameters);
}

LpStatus LinearProgram::solve() {
    glp_term_out(GLP_OFF);  // per thread in GLPK: repeat it on the solving thread
    if (!has_basis_) glp_std_basis(problem_.get());
    const int iterations_before = glp_get_it_cnt(problem_.get());
    int code = run_simplex();
    if (has_basis_ && (code == GLP_EBADB || code == GLP_ESING || code == GLP_ECOND)) {
        glp_std_basis(problem_.get());
        code = run_simplex();
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

double LinearProgram::objective_value() const { return glp_get_obj_val(problem_.get()); }

double LinearProgram::column_value(int column) const {
    check_column(column, "column_value");
    return glp_get_col_prim(problem_.get(), column + 1);
}

}  // namespace dlsim
