#include "policies/lp/analytic_centre.hpp"

#include "models/base/input_error.hpp"
#include "policies/lp/dense_cholesky.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace dlsim {

namespace {

constexpr double infinity = std::numeric_limits<double>::infinity();

// B^{-1} in full (both triangles) into `inverse`, from the factor L of B = L·L^T: N = L^{-1} (lower, in
// `scratch`), then B^{-1} = N^T·N. For the per-job blocks an explicit inverse is cheaper than solves: it is used
// three times per Newton step (B^{-1}·r, its share of K, and the step itself).
void cholesky_inverse(const double* l, std::size_t n, std::size_t stride, double* inverse, double* scratch) {
    for (std::size_t j = 0; j < n; ++j) {
        scratch[j * stride + j] = 1.0 / l[j * stride + j];
        for (std::size_t i = j + 1; i < n; ++i) {
            double value = 0.0;
            for (std::size_t k = j; k < i; ++k) value += l[i * stride + k] * scratch[k * stride + j];
            scratch[i * stride + j] = -value / l[i * stride + i];
        }
    }
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = 0; j <= i; ++j) {
            double value = 0.0;
            for (std::size_t k = i; k < n; ++k) value += scratch[k * stride + i] * scratch[k * stride + j];
            inverse[i * stride + j] = value;
            inverse[j * stride + i] = value;
        }
}

void check_problem(const CentreProblem& problem, std::size_t x_size) {
    const std::size_t jobs = problem.jobs;
    const std::size_t types = problem.types;
    const auto fail = [](const std::string& what) { throw InternalError("analytic centre: " + what); };
    if (problem.capacity.size() != types || problem.gang.size() != jobs || problem.allowed.size() != jobs * types ||
        x_size != jobs * types)
        fail(fmt::format("sizes: {} jobs, {} types, but {} capacities, {} gangs, {} allowed flags, {} fractions", jobs,
                         types, problem.capacity.size(), problem.gang.size(), problem.allowed.size(), x_size));
    if (!problem.multiplicity.empty() && problem.multiplicity.size() != jobs)
        fail(fmt::format("{} multiplicities for {} jobs", problem.multiplicity.size(), jobs));
    for (double n : problem.multiplicity)
        if (!(n >= 1) || !std::isfinite(n)) fail(fmt::format("multiplicity {}: expected a finite number >= 1", n));
    if (!problem.floor_rhs.empty() && problem.floor_rhs.size() != jobs)
        fail(fmt::format("{} floor right-hand sides for {} jobs", problem.floor_rhs.size(), jobs));
    for (std::size_t t = 0; t < types; ++t)
        if (std::isnan(problem.capacity[t]) || problem.capacity[t] < 0)
            fail(fmt::format("capacity of type {}: expected >= 0 or +inf, got {}", t, problem.capacity[t]));
    bool any_floor = false;
    for (std::size_t m = 0; m < jobs; ++m) {
        if (problem.gang[m] < 1) fail(fmt::format("job {}: gang {}", m, problem.gang[m]));
        if (problem.has_floor(m)) {
            any_floor = true;
            if (!std::isfinite(problem.floor_rhs[m]))
                fail(fmt::format("job {}: floor right-hand side {}", m, problem.floor_rhs[m]));
        }
    }
    if (!(problem.floor_weight > 0) || !(problem.rate_weight <= 0) ||
        !(problem.floor_weight + problem.rate_weight > 0))
        fail(fmt::format("floor weights {} and {}: expected floor_weight > 0, rate_weight <= 0, their sum > 0",
                         problem.floor_weight, problem.rate_weight));
    if (!any_floor) return;
    if (problem.rate_weight < 0)
        for (std::size_t m = 0; m < jobs; ++m)
            if (problem.has_floor(m) && !(problem.floor_rhs[m] > 0))
                fail(fmt::format("job {}: floor right-hand side {} with rate_weight {}: expected > 0", m,
                                 problem.floor_rhs[m], problem.rate_weight));
    if (problem.floor_coeff.size() != jobs * types)
        fail(fmt::format("{} floor coefficients for {} jobs × {} types", problem.floor_coeff.size(), jobs, types));
    for (double coefficient : problem.floor_coeff)
        if (!std::isfinite(coefficient)) fail(fmt::format("floor coefficient {}", coefficient));
}

}  // namespace

const char* to_string(CentreStatus status) {
    switch (status) {
        case CentreStatus::Converged: return "converged";
        case CentreStatus::StepLimit: return "step-limit";
        case CentreStatus::Stalled: return "stalled";
        case CentreStatus::NoInterior: return "no-interior";
    }
    return "?";
}

void AnalyticCentre::prepare(const CentreProblem& problem, std::size_t x_size) {
    check_problem(problem, x_size);
    const std::size_t jobs = problem.jobs;
    const std::size_t types = problem.types;
    // resize() keeps the capacity, so a solver reused at the same or a smaller size does not allocate.
    job_slack_.resize(jobs);
    floor_slack_.resize(jobs);
    type_slack_.resize(types);
    trial_type_slack_.resize(types);
    gradient_.resize(jobs * types);
    step_.resize(jobs * types);
    trial_.resize(jobs * types);
    inverses_.resize(jobs * types * types);
    factor_.resize(types * types);
    lower_inverse_.resize(types * types);
    inner_.resize(jobs * types);
    allowed_types_.resize(jobs * types);
    allowed_count_.resize(jobs);
    capacity_matrix_.resize(types * types);
    capacity_rhs_.resize(types);
    gang_total_.resize(types);
    for (std::size_t m = 0; m < jobs; ++m) {
        std::size_t count = 0;
        for (std::size_t t = 0; t < types; ++t)
            if (problem.allowed[m * types + t]) allowed_types_[m * types + count++] = t;
        allowed_count_[m] = count;
    }
}

bool AnalyticCentre::compute_slacks(const CentreProblem& problem, std::span<const double> x) {
    const std::size_t types = problem.types;
    bool inside = true;
    for (std::size_t t = 0; t < types; ++t) type_slack_[t] = problem.capacity[t];
    for (std::size_t m = 0; m < problem.jobs; ++m) {
        double used = 0.0;
        double floor = 0.0;
        const double load = problem.load(m);
        for (std::size_t i = 0; i < allowed_count_[m]; ++i) {
            const std::size_t t = allowed_types_[m * types + i];
            const double value = x[m * types + t];
            if (!(value > 0)) inside = false;
            used += value;
            type_slack_[t] -= load * value;
            if (problem.has_floor(m)) floor += problem.floor_coeff[m * types + t] * value;
        }
        job_slack_[m] = 1.0 - used;
        floor_slack_[m] = problem.has_floor(m) ? floor - problem.floor_rhs[m] : 1.0;
        if (!(job_slack_[m] > 0) || !(floor_slack_[m] > 0)) inside = false;
    }
    for (std::size_t t = 0; t < types; ++t)
        if (!(type_slack_[t] > 0)) inside = false;  // +inf − finite stays +inf
    return inside;
}

double AnalyticCentre::barrier_value(const CentreProblem& problem, std::span<const double> x) {
    const std::size_t types = problem.types;
    double value = 0.0;
    for (std::size_t t = 0; t < types; ++t) trial_type_slack_[t] = problem.capacity[t];
    for (std::size_t m = 0; m < problem.jobs; ++m) {
        double used = 0.0;
        double floor = 0.0;
        const double copies = problem.copies(m);
        const double load = problem.load(m);
        for (std::size_t i = 0; i < allowed_count_[m]; ++i) {
            const std::size_t t = allowed_types_[m * types + i];
            const double entry = x[m * types + t];
            if (!(entry > 0)) return -infinity;
            value += copies * std::log(entry);
            used += entry;
            trial_type_slack_[t] -= load * entry;
            if (problem.has_floor(m)) floor += problem.floor_coeff[m * types + t] * entry;
        }
        if (!(used < 1.0)) return -infinity;
        value += copies * std::log(1.0 - used);
        if (problem.has_floor(m)) {
            const double slack = floor - problem.floor_rhs[m];
            if (!(slack > 0)) return -infinity;
            value += copies * problem.floor_weight * std::log(slack);
            if (problem.rate_weight != 0) value += copies * problem.rate_weight * std::log(floor);
        }
    }
    for (std::size_t t = 0; t < types; ++t) {
        if (problem.capacity[t] == CentreProblem::no_capacity) continue;
        if (!(trial_type_slack_[t] > 0)) return -infinity;
        value += std::log(trial_type_slack_[t]);
    }
    return value;
}

double AnalyticCentre::direction(const CentreProblem& problem, std::span<const double> x) {
    const std::size_t types = problem.types;
    const auto capped = [&](std::size_t t) { return problem.capacity[t] != CentreProblem::no_capacity; };

    // K starts as diag(s_t²); a type without a capacity row gets an identity row and zero right-hand side, so w_t = 0.
    std::fill(capacity_matrix_.begin(), capacity_matrix_.end(), 0.0);
    std::fill(capacity_rhs_.begin(), capacity_rhs_.end(), 0.0);
    for (std::size_t t = 0; t < types; ++t)
        capacity_matrix_[t * types + t] = capped(t) ? type_slack_[t] * type_slack_[t] : 1.0;

    // Per job: r_m, B_m^{-1}, B_m^{-1}·r_m, and its shares g_m²·B_m^{-1} of K and g_m·B_m^{-1}·r_m of the rhs.
    for (std::size_t m = 0; m < problem.jobs; ++m) {
        const std::size_t count = allowed_count_[m];
        const std::size_t* allowed = &allowed_types_[m * types];
        double* inverse = &inverses_[m * types * types];
        const double gang = problem.gang[m];
        const double load = problem.load(m);
        const bool floored = problem.has_floor(m);
        const double job_weight = 1.0 / (job_slack_[m] * job_slack_[m]);
        // The floor terms w_v·log v + w_r·log θ (θ = v + b): gradient w_v·a/v + w_r·a/θ, Hessian
        // (w_v/v² + w_r/θ²)·a·a^T. Written so that w_v = 1, w_r = 0 gives the plain barrier's bits (a/v, 1/v²).
        const double slack = floor_slack_[m];
        const double rate = floored ? slack + problem.floor_rhs[m] : 1.0;
        const double floor_weight =
            floored ? problem.floor_weight / (slack * slack) + problem.rate_weight / (rate * rate) : 0.0;
        for (std::size_t t = 0; t < types; ++t) gradient_[m * types + t] = 0.0;
        for (std::size_t i = 0; i < count; ++i) {
            const std::size_t ti = allowed[i];
            const double entry = x[m * types + ti];
            const double ai = floored ? problem.floor_coeff[m * types + ti] : 0.0;
            double r = 1.0 / entry - 1.0 / job_slack_[m] +
                       (floored ? problem.floor_weight * (ai / slack) + problem.rate_weight * (ai / rate) : 0.0);
            if (capped(ti)) r -= gang / type_slack_[ti];
            gradient_[m * types + ti] = r;
            for (std::size_t j = 0; j <= i; ++j) {
                const double aj = floored ? problem.floor_coeff[m * types + allowed[j]] : 0.0;
                factor_[i * types + j] = job_weight + floor_weight * ai * aj + (i == j ? 1.0 / (entry * entry) : 0.0);
            }
        }
        if (!cholesky_factor(factor_.data(), count, types)) return std::nan("");
        cholesky_inverse(factor_.data(), count, types, inverse, lower_inverse_.data());
        for (std::size_t i = 0; i < count; ++i) {
            double value = 0.0;
            for (std::size_t j = 0; j < count; ++j) value += inverse[i * types + j] * gradient_[m * types + allowed[j]];
            inner_[m * types + i] = value;
            if (!capped(allowed[i])) continue;
            capacity_rhs_[allowed[i]] += load * value;
            for (std::size_t j = 0; j < count; ++j)
                if (capped(allowed[j]))
                    capacity_matrix_[allowed[i] * types + allowed[j]] += load * gang * inverse[i * types + j];
        }
    }

    // w = K^{-1}·(C^T·B^{-1}·r), then Δ_m = B_m^{-1}·(r_m − g_m·w).
    if (!cholesky_factor(capacity_matrix_.data(), types, types)) return std::nan("");
    cholesky_solve(capacity_matrix_.data(), types, types, capacity_rhs_.data());
    // Δ_m = B_m^{-1}·r_m − g_m·B_m^{-1}·w.
    double decrement = 0.0;
    for (std::size_t m = 0; m < problem.jobs; ++m) {
        const std::size_t count = allowed_count_[m];
        const std::size_t* allowed = &allowed_types_[m * types];
        const double* inverse = &inverses_[m * types * types];
        const double gang = problem.gang[m];
        const double copies = problem.copies(m);
        for (std::size_t t = 0; t < types; ++t) step_[m * types + t] = 0.0;
        for (std::size_t i = 0; i < count; ++i) {
            double correction = 0.0;
            for (std::size_t j = 0; j < count; ++j) correction += inverse[i * types + j] * capacity_rhs_[allowed[j]];
            const double value = inner_[m * types + i] - gang * correction;
            step_[m * types + allowed[i]] = value;
            decrement += copies * gradient_[m * types + allowed[i]] * value;
        }
    }
    return decrement;
}

double AnalyticCentre::largest_feasible_step(const CentreProblem& problem, std::span<const double> x) {
    const std::size_t types = problem.types;
    double largest = infinity;
    const auto limit = [&largest](double slack, double change) {
        if (change < 0) largest = std::min(largest, slack / -change);
    };
    std::fill(trial_type_slack_.begin(), trial_type_slack_.end(), 0.0);  // here: the change of s_t
    for (std::size_t m = 0; m < problem.jobs; ++m) {
        double used = 0.0;
        double floor = 0.0;
        for (std::size_t i = 0; i < allowed_count_[m]; ++i) {
            const std::size_t t = allowed_types_[m * types + i];
            const double change = step_[m * types + t];
            limit(x[m * types + t], change);
            used += change;
            trial_type_slack_[t] -= problem.load(m) * change;
            if (problem.has_floor(m)) floor += problem.floor_coeff[m * types + t] * change;
        }
        limit(job_slack_[m], -used);
        if (problem.has_floor(m)) limit(floor_slack_[m], floor);
    }
    for (std::size_t t = 0; t < types; ++t)
        if (problem.capacity[t] != CentreProblem::no_capacity) limit(type_slack_[t], trial_type_slack_[t]);
    return largest;
}

bool AnalyticCentre::make_strictly_feasible(const CentreProblem& problem, std::vector<double>& x, double& theta) {
    const std::size_t types = problem.types;
    // Reference point p (in trial_): strictly inside every row but the floors.
    std::fill(gang_total_.begin(), gang_total_.end(), 0.0);
    for (std::size_t m = 0; m < problem.jobs; ++m)
        for (std::size_t i = 0; i < allowed_count_[m]; ++i)
            gang_total_[allowed_types_[m * types + i]] += problem.load(m);
    for (std::size_t m = 0; m < problem.jobs; ++m) {
        for (std::size_t t = 0; t < types; ++t) trial_[m * types + t] = 0.0;
        for (std::size_t i = 0; i < allowed_count_[m]; ++i) {
            const std::size_t t = allowed_types_[m * types + i];
            trial_[m * types + t] = std::min(1.0 / static_cast<double>(allowed_count_[m] + 1),
                                             problem.capacity[t] / (2.0 * gang_total_[t]));
        }
    }

    // Each row c(θ) = (1 − θ)·c0 + θ·cp must be > 0.
    double low = 0.0;
    double high = 1.0;
    bool strict = true;
    bool possible = true;
    const auto row = [&](double at_start, double at_reference) {
        if (at_start > 0 && at_reference > 0) return;
        if (at_start <= 0) strict = false;
        if (at_start <= 0 && at_reference > 0)
            low = std::max(low, -at_start / (at_reference - at_start));
        else if (at_start > 0 && at_reference <= 0)
            high = std::min(high, at_start / (at_start - at_reference));
        else
            possible = false;
    };
    std::fill(type_slack_.begin(), type_slack_.end(), 0.0);        // Σ g·x0
    std::fill(trial_type_slack_.begin(), trial_type_slack_.end(), 0.0);  // Σ g·p
    for (std::size_t m = 0; m < problem.jobs; ++m) {
        double used_start = 0.0, used_reference = 0.0, floor_start = 0.0, floor_reference = 0.0;
        for (std::size_t i = 0; i < allowed_count_[m]; ++i) {
            const std::size_t t = allowed_types_[m * types + i];
            const double start = x[m * types + t];
            const double reference = trial_[m * types + t];
            row(start, reference);
            used_start += start;
            used_reference += reference;
            type_slack_[t] += problem.load(m) * start;
            trial_type_slack_[t] += problem.load(m) * reference;
            if (problem.has_floor(m)) {
                floor_start += problem.floor_coeff[m * types + t] * start;
                floor_reference += problem.floor_coeff[m * types + t] * reference;
            }
        }
        row(1.0 - used_start, 1.0 - used_reference);
        if (problem.has_floor(m))
            row(floor_start - problem.floor_rhs[m], floor_reference - problem.floor_rhs[m]);
    }
    for (std::size_t t = 0; t < types; ++t)
        if (problem.capacity[t] != CentreProblem::no_capacity)
            row(problem.capacity[t] - type_slack_[t], problem.capacity[t] - trial_type_slack_[t]);

    if (!possible) return false;
    theta = 0.0;
    if (!strict) {
        if (!(low < high)) return false;
        theta = 0.5 * (low + high);
    }
    for (std::size_t k = 0; k < trial_.size(); ++k)
        trial_[k] = problem.allowed[k] ? (1.0 - theta) * x[k] + theta * trial_[k] : 0.0;
    if (!compute_slacks(problem, trial_)) return false;  // rounding at a razor-thin interval
    x.swap(trial_);
    return true;
}

AnalyticCentre::Outcome AnalyticCentre::solve(const CentreProblem& problem, std::vector<double>& x) {
    prepare(problem, x.size());
    Outcome outcome;
    for (double value : x)
        if (!std::isfinite(value)) throw InternalError(fmt::format("analytic centre: start has an entry {}", value));
    if (!make_strictly_feasible(problem, x, outcome.mixing)) return outcome;  // NoInterior, x untouched

    double value = barrier_value(problem, x);
    outcome.status = CentreStatus::StepLimit;
    while (outcome.newton_steps < options_.max_newton_steps) {
        const double decrement = direction(problem, x);
        if (!std::isfinite(decrement) || decrement < 0) {
            outcome.status = CentreStatus::Stalled;
            break;
        }
        outcome.decrement = decrement / 2;
        const bool converged = outcome.decrement < options_.decrement_tolerance;
        const double largest = largest_feasible_step(problem, x);
        double fraction = std::min(1.0, 0.99 * largest);
        // Inside the quadratic region the full step is feasible (Dikin ellipsoid) and ascends; take it unchecked,
        // since near the centre the rise (≈ λ²/2) can be below the rounding of φ.
        const bool full = decrement < 1.0 / 16 && largest > 1.0;
        if (full) fraction = 1.0;
        bool accepted = false;
        for (int halving = 0; halving < 60 && !accepted; ++halving, fraction *= 0.5) {
            for (std::size_t k = 0; k < x.size(); ++k) trial_[k] = x[k] + fraction * step_[k];
            const double trial_value = barrier_value(problem, trial_);
            if (!std::isfinite(trial_value)) continue;
            if (full || trial_value >= value + 0.25 * fraction * decrement) {
                accepted = true;
                value = trial_value;
            }
        }
        if (!accepted) {
            outcome.status = converged ? CentreStatus::Converged : CentreStatus::Stalled;
            break;
        }
        x.swap(trial_);
        ++outcome.newton_steps;
        compute_slacks(problem, x);
        if (converged) {
            outcome.status = CentreStatus::Converged;
            break;
        }
    }
    return outcome;
}

double AnalyticCentre::newton_direction(const CentreProblem& problem, std::span<const double> x,
                                        std::vector<double>& gradient, std::vector<double>& step) {
    prepare(problem, x.size());
    if (!compute_slacks(problem, x))
        throw InternalError("analytic centre: Newton direction at a point not strictly inside");
    const double decrement = direction(problem, x);
    gradient.assign(gradient_.begin(), gradient_.end());
    step.assign(step_.begin(), step_.end());
    return decrement;
}

}  // namespace dlsim
