#include "policies/lp/row_centre.hpp"

#include "policies/lp/dense_cholesky.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace dlsim {

void RowCentre::slacks(const RowCentreProblem& p, const std::vector<double>& x, std::vector<double>& s) const {
    s.resize(p.rows());
    for (std::size_t k = 0; k < p.rows(); ++k) {
        double v = p.rhs[k];
        for (std::size_t e = p.row_start[k]; e < p.row_start[k + 1]; ++e) v += p.entry_coef[e] * x[p.entry_variable[e]];
        s[k] = v;
    }
}

double RowCentre::barrier(const std::vector<double>& x, const std::vector<double>& s) const {
    double f = 0;
    for (double v : x) f += std::log(v);
    for (double v : s) f += std::log(v);
    return f;
}

bool RowCentre::trial_point(const RowCentreProblem& p, const std::vector<double>& x, double length) {
    trial_.resize(x.size());
    for (std::size_t i = 0; i < x.size(); ++i)
        if (!((trial_[i] = x[i] + length * step_[i]) > 0)) return false;
    slacks(p, trial_, trial_slack_);
    for (double s : trial_slack_)
        if (!(s > 0)) return false;
    return true;
}

RowCentre::Outcome RowCentre::solve(const RowCentreProblem& p, const std::vector<double>& reference,
                                    std::vector<double>& x) {
    Outcome out;
    const std::size_t n = p.variables, rows = p.rows();
    if (n == 0) return out;

    // The mixing step.
    slacks(p, x, slack_);
    slacks(p, reference, reference_slack_);
    double upper = 1;
    for (std::size_t i = 0; i < n; ++i)
        if (!(reference[i] > 0) || x[i] < 0) return out;
    for (std::size_t k = 0; k < rows; ++k) {
        if (reference_slack_[k] > 0) continue;
        if (!(slack_[k] > 0)) return out;
        upper = std::min(upper, slack_[k] / (slack_[k] - reference_slack_[k]));
    }
    const double theta = std::min(0.5, upper / 2);
    if (!(theta > 0)) return out;
    for (std::size_t i = 0; i < n; ++i) x[i] = (1 - theta) * x[i] + theta * reference[i];
    out.interior = true;

    // The rows by column (counting sort, rows in ascending order within a column).
    column_start_.assign(n + 1, 0);
    for (std::uint32_t v : p.entry_variable) ++column_start_[v + 1];
    for (std::size_t i = 0; i < n; ++i) column_start_[i + 1] += column_start_[i];
    column_row_.resize(p.entry_variable.size());
    column_coef_.resize(p.entry_variable.size());
    column_fill_.assign(column_start_.begin(), column_start_.end() - 1);
    for (std::size_t k = 0; k < rows; ++k)
        for (std::size_t e = p.row_start[k]; e < p.row_start[k + 1]; ++e) {
            const std::size_t at = column_fill_[p.entry_variable[e]]++;
            column_row_[at] = static_cast<std::uint32_t>(k);
            column_coef_[at] = p.entry_coef[e];
        }

    slacks(p, x, slack_);
    for (; out.newton_steps < 100; ++out.newton_steps) {
        gradient_.resize(n);
        for (std::size_t i = 0; i < n; ++i) {
            double g = 1 / x[i];
            for (std::size_t e = column_start_[i]; e < column_start_[i + 1]; ++e) g += column_coef_[e] / slack_[column_row_[e]];
            gradient_[i] = g;
        }
        // K = diag(s²) + A·diag(x²)·A^T and its right-hand side A·diag(x²)·g.
        k_matrix_.assign(rows * rows, 0.0);
        k_rhs_.assign(rows, 0.0);
        for (std::size_t k = 0; k < rows; ++k) k_matrix_[k * rows + k] = slack_[k] * slack_[k];
        for (std::size_t i = 0; i < n; ++i) {
            const double x2 = x[i] * x[i];
            for (std::size_t e = column_start_[i]; e < column_start_[i + 1]; ++e) {
                const std::size_t k = column_row_[e];
                k_rhs_[k] += column_coef_[e] * x2 * gradient_[i];
                for (std::size_t f = column_start_[i]; f <= e; ++f)
                    k_matrix_[k * rows + column_row_[f]] += column_coef_[e] * column_coef_[f] * x2;
            }
        }
        // K's lower triangle holds it (rows within a column ascend, so each entry lands below the diagonal).
        if (!cholesky_factor(k_matrix_.data(), rows, rows)) break;
        cholesky_solve(k_matrix_.data(), rows, rows, k_rhs_.data());  // w
        step_.resize(n);
        double decrement = 0;
        for (std::size_t i = 0; i < n; ++i) {
            double v = gradient_[i];
            for (std::size_t e = column_start_[i]; e < column_start_[i + 1]; ++e) v -= column_coef_[e] * k_rhs_[column_row_[e]];
            step_[i] = x[i] * x[i] * v;
            decrement += gradient_[i] * step_[i];
        }
        if (decrement / 2 < 1e-10) {
            // The last step, already computed, is still taken (inside the Dikin ellipsoid, so feasible): the
            // returned point's own decrement is then about λ⁴.
            if (trial_point(p, x, 1.0)) x.swap(trial_);
            out.converged = true;
            break;
        }
        double length = 1;
        if (decrement >= 1.0 / 16) {
            double largest = std::numeric_limits<double>::infinity();
            slack_step_.assign(rows, 0.0);
            for (std::size_t i = 0; i < n; ++i) {
                if (step_[i] < 0) largest = std::min(largest, -x[i] / step_[i]);
                for (std::size_t e = column_start_[i]; e < column_start_[i + 1]; ++e)
                    slack_step_[column_row_[e]] += column_coef_[e] * step_[i];
            }
            for (std::size_t k = 0; k < rows; ++k)
                if (slack_step_[k] < 0) largest = std::min(largest, -slack_[k] / slack_step_[k]);
            length = std::min(1.0, 0.99 * largest);
        }
        const double base = barrier(x, slack_);
        bool moved = false;
        for (int halvings = 0; halvings < 60 && !moved; ++halvings, length /= 2)
            if (trial_point(p, x, length) && barrier(trial_, trial_slack_) >= base + 0.25 * length * decrement) {
                x.swap(trial_);
                slack_.swap(trial_slack_);  // the accepted point's slacks, for the next step
                moved = true;
            }
        if (!moved) break;
    }
    return out;
}

}  // namespace dlsim
