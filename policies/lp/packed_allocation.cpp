#include "policies/lp/packed_allocation.hpp"

#include "models/base/input_error.hpp"
#include "policies/lp/linear_program.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace dlsim {

namespace {

// Phase 2 may lower z by this relative amount (POLICIES.md §8.1), as max_min_allocation.cpp.
constexpr double kPhase2Slack = 1e-7;

void check_sizes(const PackedAllocationInput& in) {
    const AllocationInput& s = in.singles;
    if (s.throughputs.size() != s.jobs.size() * s.types() || in.pair_rates.size() != in.pairs.size() * s.types() * 2)
        throw InternalError("packed allocation: input sizes do not match");
    for (const auto& [a, b] : in.pairs)
        if (!(a < b) || b >= s.jobs.size()) throw InternalError("packed allocation: a pair of invalid positions");
}

}  // namespace

double PackedAllocationInput::normalised_sum(std::size_t p, std::size_t t) const {
    const auto [a, b] = pairs[p];
    const double alone_a = singles.throughput(a, t), alone_b = singles.throughput(b, t);
    const double packed_a = pair_rate(p, t, 0), packed_b = pair_rate(p, t, 1);
    if (!(alone_a > 0) || !(alone_b > 0) || !(packed_a > 0) || !(packed_b > 0)) return 0;
    return packed_a / alone_a + packed_b / alone_b;
}

const PackedAllocation& PackedMaxMinAllocation::allocate(const PackedAllocationInput& in, std::span<const Time>) {
    check_sizes(in);
    const AllocationInput& s = in.singles;
    const std::size_t types = s.types(), jobs = s.jobs.size(), pairs = in.pairs.size();
    result_.types = types;
    result_.x_single.assign(jobs * types, 0.0);
    result_.x_pair.assign(pairs * types, 0.0);
    result_.objective = 0;
    result_.pairs_used = 0;
    if (jobs == 0) return result_;

    // c_{m,t} (§8.1); the scale 1/(w·T^prop) also multiplies m's pair rates.
    double total_capacity = 0;
    for (double w : s.capacities) total_capacity += w;
    std::vector<double> scale(jobs, 0.0);
    for (std::size_t m = 0; m < jobs; ++m) {
        double proportional = 0;
        for (std::size_t t = 0; t < types; ++t) proportional += s.throughput(m, t) * s.capacities[t];
        if (total_capacity > 0 && proportional > 0)
            scale[m] = s.jobs[m].gang / (s.jobs[m].weight * proportional / total_capacity);
    }

    // Candidate pairs: a normalised sum above 1 on some type; then the k best partners of either member.
    std::vector<double> best(pairs, 0.0);
    keep_.assign(pairs, 0);
    for (std::size_t p = 0; p < pairs; ++p) {
        for (std::size_t t = 0; t < types; ++t) best[p] = std::max(best[p], in.normalised_sum(p, t));
        keep_[p] = best[p] > 1.0 && scale[in.pairs[p].first] > 0 && scale[in.pairs[p].second] > 0;
    }
    if (max_partners_ > 0) {
        std::vector<std::vector<std::uint32_t>> of_job(jobs);
        for (std::uint32_t p = 0; p < pairs; ++p)
            if (keep_[p]) {
                of_job[in.pairs[p].first].push_back(p);
                of_job[in.pairs[p].second].push_back(p);
            }
        std::fill(keep_.begin(), keep_.end(), 0);
        for (auto& list : of_job) {
            const std::size_t k = std::min(max_partners_, list.size());
            std::partial_sort(list.begin(), list.begin() + static_cast<std::ptrdiff_t>(k), list.end(),
                              [&](std::uint32_t a, std::uint32_t b) { return best[a] != best[b] ? best[a] > best[b] : a < b; });
            for (std::size_t i = 0; i < k; ++i) keep_[list[i]] = 1;
        }
    }

    LinearProgram lp(LpSense::Maximize);
    const int z = lp.add_column(-LinearProgram::infinity, LinearProgram::infinity, 1.0);
    std::vector<int> single_col(jobs * types), pair_col(pairs * types, -1);
    std::vector<double> single_coef(jobs * types), pair_coef(pairs * types * 2, 0.0);
    for (std::size_t m = 0; m < jobs; ++m)
        for (std::size_t t = 0; t < types; ++t) {
            const double c = scale[m] * s.throughput(m, t);
            single_coef[m * types + t] = c;
            single_col[m * types + t] = lp.add_column(0.0, c > 0 ? LinearProgram::infinity : 0.0, 0.0);
        }
    std::vector<std::vector<std::uint32_t>> pairs_of(jobs);
    for (std::uint32_t p = 0; p < pairs; ++p) {
        if (!keep_[p]) continue;
        ++result_.pairs_used;
        const auto [a, b] = in.pairs[p];
        pairs_of[a].push_back(p);
        pairs_of[b].push_back(p);
        for (std::size_t t = 0; t < types; ++t) {
            const bool runs = in.normalised_sum(p, t) > 0;
            pair_coef[(p * types + t) * 2] = runs ? scale[a] * in.pair_rate(p, t, 0) : 0.0;
            pair_coef[(p * types + t) * 2 + 1] = runs ? scale[b] * in.pair_rate(p, t, 1) : 0.0;
            pair_col[p * types + t] = lp.add_column(0.0, runs ? LinearProgram::infinity : 0.0, 0.0);
        }
    }

    std::vector<LpTerm> terms;
    std::vector<int> share_row(jobs), objective_row(jobs, -1), capacity_row(types);
    bool any_served = false;
    for (std::size_t m = 0; m < jobs; ++m) {
        // Σ over the units containing m <= 1
        terms.clear();
        for (std::size_t t = 0; t < types; ++t) terms.emplace_back(single_col[m * types + t], 1.0);
        for (const std::uint32_t p : pairs_of[m])
            for (std::size_t t = 0; t < types; ++t) terms.emplace_back(pair_col[p * types + t], 1.0);
        share_row[m] = lp.add_row(-LinearProgram::infinity, 1.0, terms);
        if (!(scale[m] > 0)) continue;
        any_served = true;
        // z − θ_m/(w·T^prop)·g <= 0
        terms.clear();
        terms.emplace_back(z, 1.0);
        for (std::size_t t = 0; t < types; ++t) terms.emplace_back(single_col[m * types + t], -single_coef[m * types + t]);
        for (const std::uint32_t p : pairs_of[m]) {
            const int k = in.pairs[p].first == m ? 0 : 1;
            for (std::size_t t = 0; t < types; ++t)
                terms.emplace_back(pair_col[p * types + t], -pair_coef[(p * types + t) * 2 + k]);
        }
        objective_row[m] = lp.add_row(-LinearProgram::infinity, 0.0, terms);
    }
    for (std::size_t t = 0; t < types; ++t) {
        // Σ_u g_u·x_{u,t} <= W_t (a pair holds its gang's GPUs once)
        terms.clear();
        for (std::size_t m = 0; m < jobs; ++m) terms.emplace_back(single_col[m * types + t], s.jobs[m].gang);
        for (std::uint32_t p = 0; p < pairs; ++p)
            if (keep_[p]) terms.emplace_back(pair_col[p * types + t], s.jobs[in.pairs[p].first].gang);
        capacity_row[t] = lp.add_row(-LinearProgram::infinity, s.capacities[t], terms);
    }
    if (!any_served) return result_;

    if (warm_start_ && basis_.valid && basis_.types == types) {
        // The last basis, carried over by identity. A fresh problem has every row's auxiliary basic and every
        // column nonbasic: only what differs from that is set, and `basic` counts the basic variables.
        int basic = lp.rows();
        const auto set_row = [&](int row, bool is_basic) {
            if (is_basic) return;
            lp.set_row_basic(row, false);
            --basic;
        };
        const auto set_column = [&](int column, bool is_basic) {
            if (!is_basic) return;
            lp.set_column_basic(column, true);
            ++basic;
        };
        set_column(z, basis_.level_basic);
        for (std::size_t t = 0; t < types; ++t) set_row(capacity_row[t], basis_.capacity_basic[t]);
        std::size_t k = 0;
        for (std::size_t m = 0; m < jobs; ++m) {
            const std::uint32_t key = s.jobs[m].key;
            while (k < basis_.job_key.size() && basis_.job_key[k] < key) ++k;
            if (k == basis_.job_key.size() || basis_.job_key[k] != key) continue;
            set_row(share_row[m], basis_.job_rows[k] & 1);
            if (objective_row[m] >= 0) set_row(objective_row[m], basis_.job_rows[k] & 2);
            for (std::size_t t = 0; t < types; ++t) set_column(single_col[m * types + t], (basis_.job_columns[k] >> t) & 1);
        }
        k = 0;
        for (std::size_t p = 0; p < pairs; ++p) {
            if (!keep_[p]) continue;
            const std::pair<std::uint32_t, std::uint32_t> key{s.jobs[in.pairs[p].first].key, s.jobs[in.pairs[p].second].key};
            while (k < basis_.pair_key.size() && basis_.pair_key[k] < key) ++k;
            if (k == basis_.pair_key.size() || basis_.pair_key[k] != key) continue;
            for (std::size_t t = 0; t < types; ++t) set_column(pair_col[p * types + t], (basis_.pair_columns[k] >> t) & 1);
        }
        // Even out the count: surplus basic columns leave (pairs first, from the last), missing ones are made
        // up by share rows' auxiliaries (from the last job). A singular result falls back cold in solve().
        for (std::size_t i = pair_col.size(); i-- > 0 && basic > lp.rows();)
            if (pair_col[i] >= 0 && lp.column_basic(pair_col[i])) lp.set_column_basic(pair_col[i], false), --basic;
        for (std::size_t i = single_col.size(); i-- > 0 && basic > lp.rows();)
            if (lp.column_basic(single_col[i])) lp.set_column_basic(single_col[i], false), --basic;
        for (std::size_t m = jobs; m-- > 0 && basic < lp.rows();)
            if (!lp.row_basic(share_row[m])) lp.set_row_basic(share_row[m], true), ++basic;
        for (std::size_t m = jobs; m-- > 0 && basic < lp.rows();)
            if (objective_row[m] >= 0 && !lp.row_basic(objective_row[m])) lp.set_row_basic(objective_row[m], true), ++basic;
        lp.use_given_basis();
    }

    LpStatus status = lp.solve();
    if (lp.last_cold()) ++cold_starts_;
    if (status != LpStatus::Optimal)
        throw InternalError(fmt::format("packed allocation: phase 1 ended {}", to_string(status)));
    result_.objective = lp.objective_value();
    lp.set_column_bounds(z, result_.objective * (1.0 - kPhase2Slack), LinearProgram::infinity);
    lp.set_objective(z, 0.0);
    for (std::size_t i = 0; i < single_col.size(); ++i) lp.set_objective(single_col[i], single_coef[i]);
    for (std::size_t i = 0; i < pair_col.size(); ++i)
        if (pair_col[i] >= 0) lp.set_objective(pair_col[i], pair_coef[i * 2] + pair_coef[i * 2 + 1]);
    status = lp.solve();
    if (status != LpStatus::Optimal)
        throw InternalError(fmt::format("packed allocation: phase 2 ended {}", to_string(status)));
    for (std::size_t i = 0; i < single_col.size(); ++i)
        result_.x_single[i] = std::max(0.0, lp.column_value(single_col[i]));
    for (std::size_t i = 0; i < pair_col.size(); ++i)
        if (pair_col[i] >= 0) result_.x_pair[i] = std::max(0.0, lp.column_value(pair_col[i]));

    // The final basis, for the next call.
    basis_.valid = types <= 64;
    basis_.types = types;
    basis_.level_basic = lp.column_basic(z);
    basis_.capacity_basic.resize(types);
    for (std::size_t t = 0; t < types; ++t) basis_.capacity_basic[t] = lp.row_basic(capacity_row[t]);
    basis_.job_key.resize(jobs);
    basis_.job_rows.resize(jobs);
    basis_.job_columns.resize(jobs);
    for (std::size_t m = 0; m < jobs && basis_.valid; ++m) {
        basis_.job_key[m] = s.jobs[m].key;
        basis_.job_rows[m] = static_cast<std::uint8_t>((lp.row_basic(share_row[m]) ? 1 : 0) |
                                                       (objective_row[m] >= 0 && lp.row_basic(objective_row[m]) ? 2 : 0));
        std::uint64_t bits = 0;
        for (std::size_t t = 0; t < types; ++t)
            if (lp.column_basic(single_col[m * types + t])) bits |= std::uint64_t{1} << t;
        basis_.job_columns[m] = bits;
    }
    basis_.pair_key.clear();
    basis_.pair_columns.clear();
    for (std::size_t p = 0; p < pairs && basis_.valid; ++p) {
        if (!keep_[p]) continue;
        basis_.pair_key.emplace_back(s.jobs[in.pairs[p].first].key, s.jobs[in.pairs[p].second].key);
        std::uint64_t bits = 0;
        for (std::size_t t = 0; t < types; ++t)
            if (lp.column_basic(pair_col[p * types + t])) bits |= std::uint64_t{1} << t;
        basis_.pair_columns.push_back(bits);
    }
    return result_;
}

const PackedAllocation& FifoPackedAllocation::allocate(const PackedAllocationInput& in, std::span<const Time> submit) {
    check_sizes(in);
    const AllocationInput& s = in.singles;
    const std::size_t types = s.types(), jobs = s.jobs.size();
    const std::span<const double> x = fifo_->allocate(s, submit);
    result_.types = types;
    result_.x_single.assign(x.begin(), x.end());
    result_.x_pair.assign(in.pairs.size() * types, 0.0);
    result_.objective = 0;
    result_.pairs_used = 0;

    std::vector<double> room(s.capacities);
    type_of_.assign(jobs, -1);
    for (std::size_t i = 0; i < jobs; ++i)
        for (std::size_t t = 0; t < types; ++t)
            if (x[i * types + t] > 0) {
                type_of_[i] = static_cast<std::int32_t>(t);
                room[t] -= s.jobs[i].gang;
            }
    // Arrival order (ties: input order), as the FIFO allocation walks.
    order_.resize(jobs);
    for (std::uint32_t i = 0; i < jobs; ++i) order_[i] = i;
    std::stable_sort(order_.begin(), order_.end(), [&](std::uint32_t a, std::uint32_t b) { return submit[a] < submit[b]; });
    allocated_.clear();
    for (const std::uint32_t i : order_)
        if (type_of_[i] >= 0) allocated_.push_back(i);
    bool head_taken = std::any_of(room.begin(), room.end(), [](double r) { return r > 0; });

    for (const std::uint32_t q : order_) {
        if (type_of_[q] != -1) continue;  // allocated, or packed already
        if (head_taken) {  // Gavel's FIFO pass popped it and found no type: it is not packed either
            head_taken = false;
            continue;
        }
        double best = threshold_;
        std::int64_t best_pair = -1;
        std::uint32_t best_partner = 0;
        for (const std::uint32_t a : allocated_) {
            if (type_of_[a] < 0 || s.jobs[a].gang != s.jobs[q].gang) continue;  // already packed, or unequal gangs
            const std::pair<std::uint32_t, std::uint32_t> key{std::min(a, q), std::max(a, q)};
            const auto it = std::lower_bound(in.pairs.begin(), in.pairs.end(), key);
            if (it == in.pairs.end() || *it != key) continue;
            const std::size_t p = static_cast<std::size_t>(it - in.pairs.begin());
            const double sum = in.normalised_sum(p, static_cast<std::size_t>(type_of_[a]));
            if (sum > best) {
                best = sum;
                best_pair = static_cast<std::int64_t>(p);
                best_partner = a;
            }
        }
        if (best_pair < 0) break;  // FIFO: nobody behind it is packed
        const std::size_t t = static_cast<std::size_t>(type_of_[best_partner]);
        result_.x_single[best_partner * types + t] = 0;
        result_.x_pair[static_cast<std::size_t>(best_pair) * types + t] = 1;
        type_of_[best_partner] = -2;  // now in a pair: not a partner for the next
        type_of_[q] = -2;
        ++result_.pairs_used;
    }
    return result_;
}

}  // namespace dlsim
