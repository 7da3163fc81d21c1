#include "policies/rounds/packed_share.hpp"

#include "models/base/input_error.hpp"
#include "policies/lp/analytic_centre.hpp"
#include "policies/lp/linear_program.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

namespace dlsim {

namespace {

void check_sizes(const PackedShareInput& in) {
    const ShareInput& s = in.singles;
    if (s.throughputs.size() != s.jobs.size() * s.types() || in.pair_rates.size() != in.pairs.size() * s.types() * 2)
        throw InternalError("packed allocation: input sizes do not match");
    for (const auto& [a, b] : in.pairs)
        if (!(a < b) || b >= s.jobs.size()) throw InternalError("packed allocation: a pair of invalid positions");
}

}  // namespace

double PackedShareInput::normalised_sum(std::size_t p, std::size_t t) const {
    const auto [a, b] = pairs[p];
    const double alone_a = singles.throughput(a, t), alone_b = singles.throughput(b, t);
    const double packed_a = pair_rate(p, t, 0), packed_b = pair_rate(p, t, 1);
    if (!(alone_a > 0) || !(alone_b > 0) || !(packed_a > 0) || !(packed_b > 0)) return 0;
    return packed_a / alone_a + packed_b / alone_b;
}

struct PackedMaxMinShare::Problem {
    static constexpr double inf = LinearProgram::infinity;
    /// A job's rows and its single columns [first_column, + types), with the coefficients written.
    struct Job {
        int share_row = 0, objective_row = 0, first_column = 0, gang = 0;
        std::vector<double> coef;  ///< c_{m,t}
        bool live = true;
    };
    /// A pair's columns [first_column, + types) with its members' coefficients [t·2 + k] and the members.
    struct Pair {
        int first_column = 0;
        std::vector<double> coef;
        bool live = true;
    };

    LinearProgram lp{LpSense::Maximize};
    std::size_t types = 0;
    int z = 0;
    std::vector<int> capacity_row;
    std::map<std::uint32_t, Job> jobs;                              // by key
    std::map<std::pair<std::uint32_t, std::uint32_t>, Pair> pairs;  // by the members' keys
    std::size_t live_columns = 0, dormant_columns = 0;
    std::vector<LpTerm> terms;
    std::vector<int> held;  // pair columns held at 0 for the first pass of phase 1 (sifting)

    explicit Problem(std::size_t type_count) : types(type_count) {
        z = lp.add_column(-inf, inf, 1.0);
        for (std::size_t t = 0; t < types; ++t) capacity_row.push_back(lp.add_row(-inf, 0.0, {}));
    }

    // A job column's or pair column's bounds: [0, ∞) where it can run, fixed at 0 where not or while dormant.
    void set_bounds(int column, bool runs) { lp.set_column_bounds(column, 0.0, runs ? inf : 0.0); }

    void write_job_columns(Job& job) {
        for (std::size_t t = 0; t < types; ++t) {
            const int column = job.first_column + static_cast<int>(t);
            const LpTerm entries[] = {{capacity_row[t], static_cast<double>(job.gang)},
                                      {job.share_row, 1.0},
                                      {job.objective_row, -job.coef[t]}};
            lp.set_column_terms(column, entries);
            set_bounds(column, job.live && job.coef[t] > 0);
        }
    }
    void write_pair_columns(Pair& pair, const Job& a, const Job& b) {
        for (std::size_t t = 0; t < types; ++t) {
            const int column = pair.first_column + static_cast<int>(t);
            const double ca = pair.coef[2 * t], cb = pair.coef[2 * t + 1];
            const LpTerm entries[] = {{capacity_row[t], static_cast<double>(a.gang)},
                                      {a.share_row, 1.0},
                                      {a.objective_row, -ca},
                                      {b.share_row, 1.0},
                                      {b.objective_row, -cb}};
            lp.set_column_terms(column, entries);
            set_bounds(column, pair.live && ca > 0 && cb > 0);
        }
    }
    int add_columns() {
        const int first = lp.columns();
        for (std::size_t t = 0; t < types; ++t) lp.add_column(0.0, 0.0, 0.0);
        return first;
    }

    // Dormant: fixed at 0 and out of the objective; the basis statuses stay (GLPK moves them in the next solve).
    void make_dormant(int first_column) {
        for (std::size_t t = 0; t < types; ++t) {
            lp.set_column_bounds(first_column + static_cast<int>(t), 0.0, 0.0);
            lp.set_objective(first_column + static_cast<int>(t), 0.0);
        }
        live_columns -= types;
        dormant_columns += types;
    }
    void make_live() {
        live_columns += types;
        dormant_columns -= types;
    }
};

PackedMaxMinShare::PackedMaxMinShare(std::size_t max_partners, bool warm_start, bool centre)
    : max_partners_(max_partners), warm_start_(warm_start), centre_(centre) {}
PackedMaxMinShare::~PackedMaxMinShare() = default;

const PackedShare& PackedMaxMinShare::allocate(const PackedShareInput& in, std::span<const Time>) {
    check_sizes(in);
    const ShareInput& s = in.singles;
    const std::size_t types = s.types(), jobs = s.jobs.size(), pairs = in.pairs.size();
    result_.types = types;
    result_.x_single.assign(jobs * types, 0.0);
    result_.x_pair.assign(pairs * types, 0.0);
    result_.objective = 0;
    result_.pairs_used = 0;
    if (jobs == 0) return result_;
    for (std::size_t m = 1; m < jobs; ++m)
        if (!(s.jobs[m - 1].key < s.jobs[m].key)) throw InternalError("packed allocation: job keys not ascending");

    // c_{m,t}; the scale 1/(w·T^prop) also multiplies m's pair rates.
    double total_capacity = 0;
    for (double w : s.capacities) total_capacity += w;
    scale_.assign(jobs, 0.0);
    for (std::size_t m = 0; m < jobs; ++m) {
        double proportional = 0;
        for (std::size_t t = 0; t < types; ++t) proportional += s.throughput(m, t) * s.capacities[t];
        if (total_capacity > 0 && proportional > 0)
            scale_[m] = s.jobs[m].gang / (s.jobs[m].weight * proportional / total_capacity);
    }

    // Candidate pairs: a normalised sum above 1 on some type; then the k best partners of either member.
    best_.assign(pairs, 0.0);
    keep_.assign(pairs, 0);
    for (std::size_t p = 0; p < pairs; ++p) {
        for (std::size_t t = 0; t < types; ++t) best_[p] = std::max(best_[p], in.normalised_sum(p, t));
        keep_[p] = best_[p] > 1.0 && scale_[in.pairs[p].first] > 0 && scale_[in.pairs[p].second] > 0;
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
            std::partial_sort(
                list.begin(), list.begin() + static_cast<std::ptrdiff_t>(k), list.end(),
                [&](std::uint32_t a, std::uint32_t b) { return best_[a] != best_[b] ? best_[a] > best_[b] : a < b; });
            for (std::size_t i = 0; i < k; ++i) keep_[list[i]] = 1;
        }
    }
    bool any_served = false;
    for (double sc : scale_) any_served = any_served || sc > 0;
    if (!any_served) return result_;

    if (!warm_start_ || !problem_ || problem_->types != types ||
        problem_->dormant_columns > std::max<std::size_t>(problem_->live_columns, 256))
        problem_ = std::make_unique<Problem>(types);
    Problem& P = *problem_;
    LinearProgram& lp = P.lp;
    for (std::size_t t = 0; t < types; ++t) lp.set_row_bounds(P.capacity_row[t], -Problem::inf, s.capacities[t]);

    // Jobs: the input against the problem's (both by ascending key). Gone ones go dormant, new ones are
    // appended, returning or changed ones are rewritten.
    std::vector<Problem::Job*> job_of(jobs, nullptr);
    {
        auto it = P.jobs.begin();
        std::vector<double> coef(types);
        for (std::size_t m = 0; m <= jobs; ++m) {
            const std::uint32_t key = m < jobs ? s.jobs[m].key : 0;
            for (; it != P.jobs.end() && (m == jobs || it->first < key); ++it)
                if (it->second.live) {
                    it->second.live = false;
                    P.make_dormant(it->second.first_column);
                    lp.set_row_bounds(it->second.objective_row, -Problem::inf, Problem::inf);
                }
            if (m == jobs) break;
            for (std::size_t t = 0; t < types; ++t) coef[t] = scale_[m] * s.throughput(m, t);
            const int gang = s.jobs[m].gang;
            if (it == P.jobs.end() || it->first != key) {
                Problem::Job job;
                job.share_row = lp.add_row(-Problem::inf, 1.0, {});
                const LpTerm level[] = {{P.z, 1.0}};
                job.objective_row = lp.add_row(-Problem::inf, Problem::inf, level);
                job.first_column = P.add_columns();
                job.gang = gang;
                job.coef = coef;
                P.live_columns += types;
                it = P.jobs.emplace_hint(it, key, std::move(job));
                P.write_job_columns(it->second);
            } else if (!it->second.live || it->second.gang != gang || it->second.coef != coef) {
                if (!it->second.live) P.make_live();
                it->second.live = true;
                it->second.gang = gang;
                it->second.coef = coef;
                P.write_job_columns(it->second);
            }
            lp.set_row_bounds(it->second.objective_row, -Problem::inf, scale_[m] > 0 ? 0.0 : Problem::inf);
            job_of[m] = &it->second;
            ++it;
        }
    }

    // Pairs: the candidates against the problem's (both by ascending member keys).
    std::vector<const Problem::Pair*> pair_of(pairs, nullptr);  // the kept pairs' columns and coefficients
    {
        auto it = P.pairs.begin();
        std::vector<double> coef(2 * types);
        for (std::size_t p = 0; p <= pairs; ++p) {
            if (p < pairs && !keep_[p]) continue;
            const auto [a, b] = p < pairs ? in.pairs[p] : std::pair<std::uint32_t, std::uint32_t>{0, 0};
            const std::pair<std::uint32_t, std::uint32_t> key{s.jobs[a].key, s.jobs[b].key};
            for (; it != P.pairs.end() && (p == pairs || it->first < key); ++it)
                if (it->second.live) {
                    it->second.live = false;
                    P.make_dormant(it->second.first_column);
                }
            if (p == pairs) break;
            ++result_.pairs_used;
            for (std::size_t t = 0; t < types; ++t) {
                const bool runs = in.normalised_sum(p, t) > 0;
                coef[2 * t] = runs ? scale_[a] * in.pair_rate(p, t, 0) : 0.0;
                coef[2 * t + 1] = runs ? scale_[b] * in.pair_rate(p, t, 1) : 0.0;
            }
            if (it == P.pairs.end() || it->first != key) {
                Problem::Pair pair;
                pair.first_column = P.add_columns();
                pair.coef = coef;
                P.live_columns += types;
                it = P.pairs.emplace_hint(it, key, std::move(pair));
                P.write_pair_columns(it->second, *job_of[a], *job_of[b]);
            } else if (!it->second.live || it->second.coef != coef) {
                if (!it->second.live) P.make_live();
                it->second.live = true;
                it->second.coef = coef;
                P.write_pair_columns(it->second, *job_of[a], *job_of[b]);
            }
            pair_of[p] = &it->second;
            ++it;
        }
    }

    // Phase 1: max z over the live columns.
    lp.set_column_bounds(P.z, -Problem::inf, Problem::inf);
    lp.set_objective(P.z, 1.0);
    for (std::size_t m = 0; m < jobs; ++m)
        for (std::size_t t = 0; t < types; ++t) lp.set_objective(job_of[m]->first_column + static_cast<int>(t), 0.0);
    for (std::size_t p = 0; p < pairs; ++p)
        if (pair_of[p])
            for (std::size_t t = 0; t < types; ++t)
                lp.set_objective(pair_of[p]->first_column + static_cast<int>(t), 0.0);
    // Sifting. Pricing thousands of pair columns is most of a pivot's cost (GLPK's steepest-edge update and
    // column choice), and most pairs stay at 0 call after call. So phase 1 runs first over the singles and the
    // pair columns in the basis, the other pairs held at 0 (GLPK leaves fixed columns out of its working LP),
    // then over every column from that optimum, which few pairs improve: about 2x faster at 5.6 jobs/h.
    P.held.clear();
    if (lp.has_basis())
        for (std::size_t p = 0; p < pairs; ++p)
            if (pair_of[p])
                for (std::size_t t = 0; t < types; ++t) {
                    const int column = pair_of[p]->first_column + static_cast<int>(t);
                    if (lp.column_basic(column) || !(pair_of[p]->coef[2 * t] > 0 && pair_of[p]->coef[2 * t + 1] > 0))
                        continue;
                    lp.set_column_bounds(column, 0.0, 0.0);
                    P.held.push_back(column);
                }
    LpStatus status = LpStatus::Optimal;
    bool cold = false;
    if (!P.held.empty()) {
        status = lp.solve_expecting_optimum();
        cold = lp.last_cold();
        for (const int column : P.held) P.set_bounds(column, true);
    }
    if (status == LpStatus::Optimal) status = lp.solve_expecting_optimum();
    if (cold || lp.last_cold()) ++cold_starts_;
    if (status != LpStatus::Optimal)
        throw InternalError(fmt::format("packed allocation: phase 1 ended {}", to_string(status)));
    result_.objective = lp.objective_value();

    // Phase 2: z held at z*, maximise the sum of normalised throughputs.
    lp.set_column_bounds(P.z, result_.objective * (1.0 - phase2_relative_slack), Problem::inf);
    lp.set_objective(P.z, 0.0);
    for (std::size_t m = 0; m < jobs; ++m)
        for (std::size_t t = 0; t < types; ++t)
            lp.set_objective(job_of[m]->first_column + static_cast<int>(t), job_of[m]->coef[t]);
    for (std::size_t p = 0; p < pairs; ++p)
        if (pair_of[p])
            for (std::size_t t = 0; t < types; ++t)
                lp.set_objective(pair_of[p]->first_column + static_cast<int>(t),
                                 pair_of[p]->coef[2 * t] + pair_of[p]->coef[2 * t + 1]);
    status = lp.solve_expecting_optimum();
    if (status != LpStatus::Optimal)
        throw InternalError(fmt::format("packed allocation: phase 2 ended {}", to_string(status)));
    for (std::size_t m = 0; m < jobs; ++m)
        for (std::size_t t = 0; t < types; ++t)
            result_.x_single[m * types + t] =
                std::max(0.0, lp.column_value(job_of[m]->first_column + static_cast<int>(t)));
    for (std::size_t p = 0; p < pairs; ++p)
        if (pair_of[p])
            for (std::size_t t = 0; t < types; ++t)
                result_.x_pair[p * types + t] =
                    std::max(0.0, lp.column_value(pair_of[p]->first_column + static_cast<int>(t)));
    if (centre_) {
        // The columns' coefficients, 0 where a unit is not a column on a type (not served, not a candidate).
        single_coef_.assign(jobs * types, 0.0);
        pair_coef_.assign(pairs * types * 2, 0.0);
        for (std::size_t m = 0; m < jobs; ++m)
            if (scale_[m] > 0)
                for (std::size_t t = 0; t < types; ++t) single_coef_[m * types + t] = job_of[m]->coef[t];
        for (std::size_t p = 0; p < pairs; ++p)
            if (pair_of[p])
                for (std::size_t t = 0; t < types; ++t)
                    if (pair_of[p]->coef[2 * t] > 0 && pair_of[p]->coef[2 * t + 1] > 0)
                        for (int k = 0; k < 2; ++k) pair_coef_[(p * types + t) * 2 + k] = pair_of[p]->coef[2 * t + k];
        move_to_centre(in);
    }
    return result_;
}

// The centre tie-break (tie_break=centre): the optimal face is every served job's level at least z*·(1 − δ)
// over the LP's own columns (δ = centre_floor_slack gives the bottleneck jobs an interior, as in ShareLp's
// centre), and its analytic centre (row_centre.hpp) spreads the jobs that do not pin z* over types and pairs, as
// Gavel's interior-point solver does. Rows: per served job its share (1 − Σ x >= 0) and its floor, per type its
// capacity. Reference point: every column at min(1/(2·most columns of a job), W_t/(2·GPUs of type t's
// columns)), inside every share and capacity row.
void PackedMaxMinShare::move_to_centre(const PackedShareInput& in) {
    const ShareInput& s = in.singles;
    const std::size_t types = s.types(), jobs = s.jobs.size(), pairs = in.pairs.size();
    const double floor = result_.objective * (1 - centre_floor_slack);
    // Variables: single columns job-major, then pair columns pair-major.
    column_of_.assign((jobs + pairs) * types, -1);
    columns_of_job_.assign(jobs, 0);
    gpus_of_type_.assign(types, 0.0);
    std::int64_t n = 0;
    // A type without GPUs holds every column at 0 (its capacity row): such columns are left out of the face,
    // which would otherwise have no interior, and keep their 0, as ShareLp's centre does.
    const auto has_gpus = [&](std::size_t t) { return s.capacities[t] > 0; };
    for (std::size_t m = 0; m < jobs; ++m)
        for (std::size_t t = 0; t < types; ++t)
            if (single_coef_[m * types + t] > 0 && has_gpus(t)) {
                column_of_[m * types + t] = n++;
                ++columns_of_job_[m];
                gpus_of_type_[t] += s.jobs[m].gang;
            }
    for (std::size_t p = 0; p < pairs; ++p)
        for (std::size_t t = 0; t < types; ++t)
            if (pair_coef_[(p * types + t) * 2] > 0 && has_gpus(t)) {
                column_of_[(jobs + p) * types + t] = n++;
                ++columns_of_job_[in.pairs[p].first];
                ++columns_of_job_[in.pairs[p].second];
                gpus_of_type_[t] += s.jobs[in.pairs[p].first].gang;
            }
    if (n == 0) return;
    face_.clear(static_cast<std::size_t>(n));
    face_x_.assign(static_cast<std::size_t>(n), 0.0);
    face_reference_.assign(static_cast<std::size_t>(n), 0.0);
    const std::size_t most = *std::max_element(columns_of_job_.begin(), columns_of_job_.end());
    // A unit's entry of X: units are the single jobs, then the pairs (column_of_'s order).
    const auto x_of = [&](std::size_t u, std::size_t t) -> double& {
        return u < jobs ? result_.x_single[u * types + t] : result_.x_pair[(u - jobs) * types + t];
    };
    for (std::size_t u = 0; u < jobs + pairs; ++u)
        for (std::size_t t = 0; t < types; ++t)
            if (const std::int64_t v = column_of_[u * types + t]; v >= 0) {
                face_x_[v] = x_of(u, t);
                face_reference_[v] =
                    std::min(0.5 / static_cast<double>(most), s.capacities[t] / (2 * gpus_of_type_[t]));
            }
    // Each job's pairs in pair order (counting sort), so a job's rows cost its own pairs, not a scan of all.
    pair_start_.assign(jobs + 1, 0);
    for (const auto& pair : in.pairs) {
        ++pair_start_[pair.first + 1];
        ++pair_start_[pair.second + 1];
    }
    for (std::size_t m = 0; m < jobs; ++m) pair_start_[m + 1] += pair_start_[m];
    pair_list_.resize(pair_start_[jobs]);
    pair_fill_.assign(pair_start_.begin(), pair_start_.end() - 1);
    for (std::size_t p = 0; p < pairs; ++p) {
        pair_list_[pair_fill_[in.pairs[p].first]++] = p;
        pair_list_[pair_fill_[in.pairs[p].second]++] = p;
    }
    // Each job's entries: its single columns, then its pairs' columns (pair order).
    auto for_each_entry = [&](std::size_t m, auto&& visit) {
        for (std::size_t t = 0; t < types; ++t)
            if (const std::int64_t v = column_of_[m * types + t]; v >= 0) visit(v, single_coef_[m * types + t]);
        for (std::size_t e = pair_start_[m]; e < pair_start_[m + 1]; ++e) {
            const std::size_t p = pair_list_[e];
            const int k = in.pairs[p].first == m ? 0 : 1;
            for (std::size_t t = 0; t < types; ++t)
                if (const std::int64_t v = column_of_[(jobs + p) * types + t]; v >= 0)
                    visit(v, pair_coef_[(p * types + t) * 2 + k]);
        }
    };
    for (std::size_t m = 0; m < jobs; ++m) {
        if (columns_of_job_[m] == 0) continue;
        for_each_entry(m, [&](std::int64_t v, double) { face_.add(static_cast<std::uint32_t>(v), -1.0); });
        face_.end_row(1.0);
        for_each_entry(m, [&](std::int64_t v, double c) { face_.add(static_cast<std::uint32_t>(v), c); });
        face_.end_row(-floor);
    }
    for (std::size_t t = 0; t < types; ++t) {
        if (!std::isfinite(s.capacities[t]) || !has_gpus(t)) continue;
        for (std::size_t u = 0; u < jobs + pairs; ++u)
            if (const std::int64_t v = column_of_[u * types + t]; v >= 0)
                face_.add(static_cast<std::uint32_t>(v), -s.jobs[u < jobs ? u : in.pairs[u - jobs].first].gang);
        face_.end_row(s.capacities[t]);
    }
    if (!centre_solver_.solve(face_, face_reference_, face_x_).interior) return;
    for (std::size_t u = 0; u < jobs + pairs; ++u)
        for (std::size_t t = 0; t < types; ++t)
            if (const std::int64_t v = column_of_[u * types + t]; v >= 0) x_of(u, t) = face_x_[v];
}

const PackedShare& FifoPackedShare::allocate(const PackedShareInput& in, std::span<const Time> submit) {
    check_sizes(in);
    const ShareInput& s = in.singles;
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
    std::stable_sort(order_.begin(), order_.end(),
                     [&](std::uint32_t a, std::uint32_t b) { return submit[a] < submit[b]; });
    allocated_.clear();
    for (const std::uint32_t i : order_)
        if (type_of_[i] >= 0) allocated_.push_back(i);
    bool head_taken = std::any_of(room.begin(), room.end(), [](double r) { return r > 0; });

    for (const std::uint32_t q : order_) {
        if (type_of_[q] != -1) continue;  // allocated, or packed already
        if (head_taken) {                 // Gavel's FIFO pass popped it and found no type: it is not packed either
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
