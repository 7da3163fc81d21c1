// Gavel's allocation LPs on one persistent GLPK problem (Narayanan et al., OSDI'20; stanford-futuredata/gavel
// scheduler/policies/{max_min_fairness,finish_time_fairness,min_total_duration,max_sum_throughput,isolated,
// proportional}.py). Gavel rebuilds a cvxpy problem per call and solves it with ECOS; here the LP persists.
//
// Layout. Column 0 is the level variable (z for max-min, y = 1/T for makespan; fixed at 0 otherwise). Rows 0..types-1
// are the capacities Σ_m g_m·x_{m,t} <= W_t. Max-min splits them over blocks b of up to 32 slots: Σ_b u_{b,t} <= W_t,
// with a row per block and type Σ_{m in b} g_m·x_{m,t} − u_{b,t} = 0 and a column u_{b,t} >= 0. A capacity row with
// every job's entry is scanned at each elimination step of GLPK's LU factorization, which at 2,000 jobs is most of a
// max-min round that needs one; short block rows keep it cheap. The other objectives pivot more than they factorize,
// and the blocks' extra rows would slow them, so they keep the plain rows. Each job owns a slot p: `types` columns
// (x_{m,t}) and two rows (Σ_t x_{m,t} <= 1, then its objective row, below); the slot's and block's first row and
// column are looked up in tables (both are appended as needed). An arrival takes a departed job's slot when there is
// one (same sparsity pattern, so the basis stays a basis and the re-solve is warm); surplus departures go dormant
// (columns fixed at 0, objective row free) until an arrival takes them or they are many, when they are deleted
// together (LinearProgram keeps the basis valid across deletion); surplus arrivals are appended. Coefficients are
// rewritten only where they changed.
//
// Objective rows (θ'_m(x) = Σ_t T'_{m,t}·x_{m,t} on the view's throughputs T'):
//   max-min:     z − Σ_t c_{m,t}·x_{m,t} <= 0,  c = g·T'/(w·T^prop);  phase 1 max z, phase 2 z >= z*(1 − 1e-7),
//                max Σ c·x, run only when phase 1's vertex is not already optimal for it on the z-optimal face.
//   FTF:         θ'_m(x) >= R_m/(ρ·D_m − age_m)  (row bounds set per bisection step; D_m = I_m + R_m/θ^iso_m,
//                or age_m + R_m/θ^iso_m with ftf_elapsed_denominator), objective Σ θ'_m/θ^iso_m
//                throughout, so each step is a bound change re-solved by the dual simplex and the last one
//                at ρ* is phase 2. The bracket starts at the previous call's ρ* and widens geometrically
//                before bisecting (fewer LPs than bisecting [ρ_lo, ρ_hi] cold).
//   makespan:    θ'_m(x) − R_m·y >= 0;  exact: phase 1 max y, phase 2 (dlsim's choice, for a deterministic
//                vertex) y >= y*(1 − 1e-7), max Σ θ'_m/R_m (every job's completion rate). Gavel's bisection
//                (gavel_makespan_bisection) fixes y = 1/T per step, objective Σ θ'_m/R_m.
//   throughput:  no row in use (free); objective Σ θ' (or Σ θ'/T^prop).
// Deviations from Gavel: x_{m,t} = 0 where T_{m,t} = 0 or W_t = 0; deterministic phase
// 2 vertices instead of ECOS's interior points (with `centre`, the analytic centre of the optimal face under the
// barrier of the problem as Gavel hands it to ECOS, the limit of ECOS's central path: move_to_centre); a job no
// type with GPUs can run (T^prop = 0, θ^iso = 0) gets x = 0 and no objective row (Gavel divides by zero); FTF
// and makespan skip jobs with R_m = 0 (x = 0). In the agnostic FTF/makespan/throughput views a job with
// T_{m,ref} = 0 takes its largest throughput as its reference rate (Gavel would divide by zero).
#include "policies/rounds/share_lp.hpp"

#include "models/base/input_error.hpp"
#include "policies/lp/analytic_centre.hpp"
#include "policies/lp/linear_program.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <utility>

namespace dlsim {

namespace {

constexpr double inf = LinearProgram::infinity;
constexpr int level_column = 0;
constexpr int slots_per_block = 32;
// Gavel's makespan bisection (min_total_duration.py): window [100, 1e6] s, stop at hi <= 1.05·lo, and a
// window moved ×10 while nothing in it is feasible (bounded here: a servable job is feasible at a finite T).
constexpr double gavel_makespan_low = 100, gavel_makespan_high = 1e6, gavel_makespan_factor = 1.05;
constexpr int gavel_makespan_window_moves = 30;

}  // namespace

struct ShareLp::State {
    ShareOptions options;
    ShareResult result;
    LinearProgram program{LpSense::Maximize};
    std::size_t types = 0;
    bool built = false;
    AnalyticCentre centre;  // the centre tie-break's Newton solver (its buffers reused across calls)
    CentreProblem face;     // its problem, rebuilt per call
    // Identical jobs of the face as one job with a multiplicity (AnalyticCentre's "Identical jobs"): the classes'
    // problem and start, each job's class, and the jobs in class order.
    CentreProblem classes;
    std::vector<double> class_x;
    std::vector<std::uint32_t> class_of, by_class;
    bool fell_back = false;  // FTF returned the isolated allocation this call (no face to centre)

    // Slots, by LP position p. `slot_rate` and `slot_upper` are the coefficients and column upper bounds last
    // written (so unchanged ones are not rewritten); `slot_fresh` marks a slot whose columns must be written.
    std::vector<std::uint32_t> slot_key;
    std::vector<int> slot_gang;
    std::vector<double> slot_rate, slot_upper;
    std::vector<char> slot_fresh;
    // FTF bookkeeping per slot: I_m, and R and θ^iso of the last call.
    std::vector<double> slot_isolated_time, slot_previous_remaining, slot_previous_isolated_rate;
    std::vector<std::pair<std::uint32_t, int>> by_key;  // (key, slot), ascending key: the last call's jobs
    double previous_rho = 0;                            // FTF ρ* of the last call (the next bracket's start)
    std::vector<LpTerm> level_terms;                    // column 0's entries as last written
    // Max-min: the phase-1 optimum's basis, put back after phase 2 so that the next call's phase 1 starts from
    // a basis that is optimal for its objective (z) up to the next call's changes, and re-solves by the dual
    // simplex in about as many pivots as rows changed (phase 2's basis is optimal for Σ c·x instead).
    LinearProgram::BasisSnapshot phase1_basis;
    bool phase1_basis_back_ = false;   // the problem holds the last phase-1 optimum's basis
    bool coefficients_moved_ = false;  // a continuing job's coefficients or gang changed this call

    // Per-call scratch, input order (grown, never shrunk).
    std::vector<int> slot_of;
    std::vector<double> rate;       // T'_{m,t} (the view's throughput; 0 where not allowed)
    std::vector<double> row_coef;   // the objective row's x coefficient
    std::vector<double> objective;  // x's objective coefficient in the final phase
    std::vector<double> secondary;  // max-min phase 2's objective per column, for the skip test
    std::vector<double> isolated;   // x^iso (FTF)
    std::vector<double> isolated_rate, duration, proportional;
    std::vector<char> active;
    std::vector<LpTerm> terms;
    std::vector<int> departed, delete_rows, delete_columns;
    std::vector<int> dormant;  // slots of departed jobs not taken yet, ascending (see match_slots)
    std::vector<std::pair<double, std::size_t>> order;
    // Whether this call changed the LP (max-min and max throughput depend on nothing else): when it did not,
    // the last call's answer stands and no LP is solved (e.g. a round where only remaining work moved).
    bool changed_ = true;
    // Makespan's y is held in units of 1/R̄ (R̄ = the active jobs' mean remaining work): the rows read
    // θ_m − (R_m/R̄)·y' >= 0, so progress that shrinks every R_m alike leaves the LP, and its basis, unchanged.
    double level_scale = 1;
    bool have_previous_ = false;
    std::vector<double> previous_capacities, previous_x;
    double previous_objective = 0;
    bool reuse_previous();

    // Where each slot's and block's rows and columns are (see Layout), and each slot's block (-1: none).
    std::vector<int> slot_first_column, slot_first_row, slot_block;
    std::vector<int> block_first_row, block_first_column, block_members;
    // Capacity rows split over blocks: max-min only (see Layout).
    bool blocked() const { return options.objective == ShareObjective::MaxMinFairness; }
    int column(int slot, std::size_t type) const {
        return slot_first_column[static_cast<std::size_t>(slot)] + static_cast<int>(type);
    }
    int share_row(int slot) const { return slot_first_row[static_cast<std::size_t>(slot)]; }
    int objective_row(int slot) const { return slot_first_row[static_cast<std::size_t>(slot)] + 1; }
    int block_row(int block, std::size_t type) const {
        return block_first_row[static_cast<std::size_t>(block)] + static_cast<int>(type);
    }
    // The row that counts a slot's GPUs of a type: its block's, else the type's capacity row.
    int capacity_row(int slot, std::size_t type) const {
        return blocked() ? block_row(slot_block[static_cast<std::size_t>(slot)], type) : static_cast<int>(type);
    }
    int slots() const { return static_cast<int>(slot_key.size()); }

    // `expecting_optimum`: the program has an optimum (LinearProgram::solve_expecting_optimum).
    LpStatus run(ShareResult& out, bool expecting_optimum = false) {
        const LpStatus status = expecting_optimum ? program.solve_expecting_optimum() : program.solve();
        if (out.lp_solves == 0) out.cold = program.last_cold();
        ++out.lp_solves;
        out.simplex_iterations += program.last_iterations();
        return status;
    }

    void rebuild(std::size_t type_count);
    void check(const ShareInput& input) const;
    void match_slots(const ShareInput& input);
    void add_slot();
    int add_block();
    void renumber_after_deletion();
    void neutralize(int slot);
    void compute_rates(const ShareInput& input);
    void write_columns(const ShareInput& input);
    void set_level_column(const ShareInput& input);
    void set_objective(const ShareInput& input, bool on_x, double level_coefficient);
    void read_x(const ShareInput& input);
    void spread_agnostic(const ShareInput& input);
    void move_to_centre(const ShareInput& input);
    void solve_centre_by_class(std::vector<double>& x);
    void clamp_to_constraints(const ShareInput& input);

    void solve_max_min(const ShareInput& input);
    void solve_finish_time(const ShareInput& input);
    void solve_makespan(const ShareInput& input);
    void solve_throughput(const ShareInput& input);
};

namespace {

[[noreturn]] void bad_input(const std::string& what) { throw InternalError("allocation lp: " + what); }

bool finite_non_negative(double value) { return std::isfinite(value) && value >= 0; }

}  // namespace

void ShareLp::State::check(const ShareInput& input) const {
    const std::size_t n = input.jobs.size();
    if (input.throughputs.size() != n * input.types())
        bad_input(fmt::format("{} throughputs for {} jobs x {} types", input.throughputs.size(), n, input.types()));
    for (std::size_t t = 0; t < input.types(); ++t)
        if (!finite_non_negative(input.capacities[t]))
            bad_input(
                fmt::format("capacity of type {}: expected a finite number >= 0, got {}", t, input.capacities[t]));
    if (options.view == ThroughputView::Agnostic && options.objective != ShareObjective::MaxMinFairness &&
        options.reference_type >= input.types() && n > 0)
        bad_input(fmt::format("reference type {} out of range ({} types)", options.reference_type, input.types()));
    if (!(options.ftf_relative_tolerance > 0) || !std::isfinite(options.ftf_relative_tolerance))
        bad_input(fmt::format("ftf_relative_tolerance: expected > 0, got {}", options.ftf_relative_tolerance));
    for (std::size_t i = 0; i < n; ++i) {
        const ShareJob& job = input.jobs[i];
        if (i > 0 && job.key <= input.jobs[i - 1].key)
            bad_input(fmt::format("job keys not strictly ascending: {} after {}", job.key, input.jobs[i - 1].key));
        if (job.gang < 1 || !std::isfinite(job.weight) || job.weight <= 0 || !finite_non_negative(job.remaining) ||
            !finite_non_negative(job.age))
            bad_input(fmt::format("job {}: gang {}, weight {}, remaining {}, age {}", job.key, job.gang, job.weight,
                                  job.remaining, job.age));
        for (std::size_t t = 0; t < input.types(); ++t)
            if (!finite_non_negative(input.throughput(i, t)))
                bad_input(fmt::format("job {}: throughput on type {}: {}", job.key, t, input.throughput(i, t)));
    }
}

// A new problem: the level column and the capacity rows; no slots. Happens at the first call and when the
// number of types changes (FTF's bookkeeping restarts then).
void ShareLp::State::rebuild(std::size_t type_count) {
    program = LinearProgram(LpSense::Maximize);
    program.set_method(options.objective == ShareObjective::FinishTimeFairness ||
                               (options.objective == ShareObjective::Makespan && options.gavel_makespan_bisection)
                           ? LpMethod::DualPrimal
                           : LpMethod::Primal);
    // FTF decides ρ's feasibility to its tolerance: bounds may not pass as met when violated by 1e-7.
    if (options.objective == ShareObjective::FinishTimeFairness) program.set_primal_tolerance(1e-10);
    types = type_count;
    program.add_column(0.0, 0.0, 0.0);
    for (std::size_t t = 0; t < types; ++t) program.add_row(-inf, 0.0, {});
    slot_key.clear();
    slot_gang.clear();
    slot_rate.clear();
    slot_upper.clear();
    slot_fresh.clear();
    slot_isolated_time.clear();
    slot_previous_remaining.clear();
    slot_previous_isolated_rate.clear();
    slot_first_column.clear();
    slot_first_row.clear();
    slot_block.clear();
    block_first_row.clear();
    block_first_column.clear();
    block_members.clear();
    by_key.clear();
    dormant.clear();
    level_terms.clear();
    previous_rho = 0;
    have_previous_ = false;
    phase1_basis_back_ = false;
    built = true;
}

// A block's rows Σ g·x − u = 0 (empty until slots join) and its columns u >= 0, one per type, each with its
// entry in its type's capacity row. Returns the block's number.
int ShareLp::State::add_block() {
    const auto block = static_cast<int>(block_members.size());
    block_first_row.push_back(program.rows());
    block_first_column.push_back(program.columns());
    block_members.push_back(0);
    for (std::size_t t = 0; t < types; ++t) program.add_row(0.0, 0.0, {});
    for (std::size_t t = 0; t < types; ++t) {
        const int u = program.add_column(0.0, inf, 0.0);
        const LpTerm entries[] = {{static_cast<int>(t), 1.0}, {block_row(block, t), -1.0}};
        program.set_column_terms(u, entries);
    }
    return block;
}

void ShareLp::State::add_slot() {
    const int slot = slots();
    int block = -1;
    if (blocked()) {
        block = 0;
        while (block < static_cast<int>(block_members.size()) &&
               block_members[static_cast<std::size_t>(block)] >= slots_per_block)
            ++block;
        if (block == static_cast<int>(block_members.size())) block = add_block();
        ++block_members[static_cast<std::size_t>(block)];
    }
    slot_block.push_back(block);
    slot_first_column.push_back(program.columns());
    slot_first_row.push_back(program.rows());
    for (std::size_t t = 0; t < types; ++t) program.add_column(0.0, 0.0, 0.0);
    terms.clear();
    for (std::size_t t = 0; t < types; ++t) terms.emplace_back(column(slot, t), 1.0);
    program.add_row(-inf, 1.0, terms);
    program.add_row(-inf, inf, {});
    slot_key.push_back(0);
    slot_gang.push_back(0);
    slot_rate.insert(slot_rate.end(), types, 0.0);
    slot_upper.insert(slot_upper.end(), types, 0.0);
    slot_fresh.push_back(1);
    slot_isolated_time.push_back(0);
    slot_previous_remaining.push_back(0);
    slot_previous_isolated_rate.push_back(0);
}

// GLPK renumbers what a deletion leaves in order: each row (column) index drops by the number of deleted rows
// (columns) below it. The deleted slots' entries are dropped by the caller.
void ShareLp::State::renumber_after_deletion() {
    std::sort(delete_rows.begin(), delete_rows.end());
    std::sort(delete_columns.begin(), delete_columns.end());
    const auto shift = [](std::vector<int>& indices, const std::vector<int>& deleted) {
        for (int& index : indices)
            index -= static_cast<int>(std::lower_bound(deleted.begin(), deleted.end(), index) - deleted.begin());
    };
    shift(slot_first_row, delete_rows);
    shift(block_first_row, delete_rows);
    shift(slot_first_column, delete_columns);
    shift(block_first_column, delete_columns);
}

// A reused slot's columns get new coefficients. If the departed job held exactly two basic variables among its
// own (its two rows' auxiliaries and its columns), they are handed to the two auxiliaries: the slot's rows then
// carry unit columns in the basis and the new coefficients sit in nonbasic columns, so the basis stays
// nonsingular whenever the rest of it was (the level column's entries in these rows do not matter then).
// Otherwise the statuses stay; if GLPK then finds the basis singular, the solve falls back cold.
void ShareLp::State::neutralize(int slot) {
    int basic = (program.row_basic(share_row(slot)) ? 1 : 0) + (program.row_basic(objective_row(slot)) ? 1 : 0);
    for (std::size_t t = 0; t < types; ++t) basic += program.column_basic(column(slot, t)) ? 1 : 0;
    if (basic != 2) return;
    program.set_row_basic(share_row(slot), true);
    program.set_row_basic(objective_row(slot), true);
    for (std::size_t t = 0; t < types; ++t) program.set_column_basic(column(slot, t), false);
}

bool ShareLp::State::reuse_previous() {
    if (changed_ || !have_previous_ || previous_x.size() != result.x.size()) return false;
    result.x = previous_x;
    result.objective = previous_objective;
    return true;
}

// Diffs the input's keys against the last call's (both ascending): continuing jobs keep their slot and advance
// FTF's I_m; arrivals take departed slots in order, then dormant ones, then new ones; surplus departed slots go
// dormant, and the dormant ones are deleted together when there are many.
void ShareLp::State::match_slots(const ShareInput& input) {
    const std::size_t n = input.jobs.size();
    slot_of.assign(n, -1);
    departed.clear();
    std::size_t previous = 0;
    for (std::size_t i = 0; i < n; ++i) {
        const std::uint32_t key = input.jobs[i].key;
        while (previous < by_key.size() && by_key[previous].first < key) departed.push_back(by_key[previous++].second);
        if (previous < by_key.size() && by_key[previous].first == key) {
            const int slot = by_key[previous++].second;
            slot_of[i] = slot;
            const auto s = static_cast<std::size_t>(slot);
            // I_m += (R_prev − R)/θ^iso_prev: steps done since the last call at the last call's isolated rate.
            if (slot_previous_isolated_rate[s] > 0)
                slot_isolated_time[s] +=
                    (slot_previous_remaining[s] - input.jobs[i].remaining) / slot_previous_isolated_rate[s];
        }
    }
    while (previous < by_key.size()) departed.push_back(by_key[previous++].second);
    std::sort(departed.begin(), departed.end());
    if (!departed.empty()) changed_ = true;

    // Arrivals take this call's departed slots first, then dormant ones (older departures), then new slots.
    std::size_t reuse = 0, woken = 0;
    for (std::size_t i = 0; i < n; ++i) {
        if (slot_of[i] >= 0) continue;
        int slot;
        if (reuse < departed.size()) {
            slot = departed[reuse++];
            neutralize(slot);
        } else if (woken < dormant.size()) {
            slot = dormant[woken++];
            neutralize(slot);
        } else {
            slot = slots();
            add_slot();
        }
        const auto s = static_cast<std::size_t>(slot);
        slot_of[i] = slot;
        slot_fresh[s] = 1;
        changed_ = true;
        slot_isolated_time[s] = 0;  // a new job has no isolated time yet
        slot_previous_isolated_rate[s] = 0;
    }
    dormant.erase(dormant.begin(), dormant.begin() + static_cast<std::ptrdiff_t>(woken));

    // Surplus departures go dormant: their columns fixed at 0 and their objective row free, so they take no
    // part in the LP while the basis stays as it was. Deleting them at once would cost a refactorization per
    // basic column (LinearProgram::prepare_deletion), about 1 ms each at 2,000 jobs; dormant slots are deleted
    // together only when they outnumber an eighth of the slots (and 16).
    for (std::size_t d = reuse; d < departed.size(); ++d) {
        const int slot = departed[d];
        const auto s = static_cast<std::size_t>(slot);
        neutralize(slot);  // its rows' auxiliaries basic, its columns nonbasic: the basis stays primal feasible
        for (std::size_t t = 0; t < types; ++t) {
            program.set_column_bounds(column(slot, t), 0.0, 0.0);
            slot_upper[s * types + t] = 0.0;
        }
        program.set_row_bounds(objective_row(slot), -inf, inf);
        slot_fresh[s] = 1;  // its columns are rewritten when it is woken
        dormant.insert(std::lower_bound(dormant.begin(), dormant.end(), slot), slot);
    }

    if (dormant.size() > std::max<std::size_t>(16, slot_key.size() / 8)) {
        // Delete the dormant slots and renumber the others (positions shift down past each deleted one).
        delete_rows.clear();
        delete_columns.clear();
        std::vector<char> gone(slot_key.size(), 0);
        for (const int slot : dormant) {
            gone[static_cast<std::size_t>(slot)] = 1;
            if (blocked()) --block_members[static_cast<std::size_t>(slot_block[static_cast<std::size_t>(slot)])];
            delete_rows.push_back(share_row(slot));
            delete_rows.push_back(objective_row(slot));
            for (std::size_t t = 0; t < types; ++t) delete_columns.push_back(column(slot, t));
        }
        dormant.clear();
        program.delete_rows_and_columns(delete_rows, delete_columns);
        renumber_after_deletion();
        std::vector<int> renumber(slot_key.size(), -1);
        int next = 0;
        for (std::size_t s = 0; s < slot_key.size(); ++s) {
            if (gone[s]) continue;
            const auto to = static_cast<std::size_t>(next);
            renumber[s] = next++;
            slot_key[to] = slot_key[s];
            slot_gang[to] = slot_gang[s];
            std::copy_n(slot_rate.begin() + static_cast<std::ptrdiff_t>(s * types), types,
                        slot_rate.begin() + static_cast<std::ptrdiff_t>(to * types));
            std::copy_n(slot_upper.begin() + static_cast<std::ptrdiff_t>(s * types), types,
                        slot_upper.begin() + static_cast<std::ptrdiff_t>(to * types));
            slot_fresh[to] = slot_fresh[s];
            slot_isolated_time[to] = slot_isolated_time[s];
            slot_previous_remaining[to] = slot_previous_remaining[s];
            slot_previous_isolated_rate[to] = slot_previous_isolated_rate[s];
            slot_first_column[to] = slot_first_column[s];
            slot_first_row[to] = slot_first_row[s];
            slot_block[to] = slot_block[s];
        }
        const auto kept = static_cast<std::size_t>(next);
        slot_key.resize(kept);
        slot_gang.resize(kept);
        slot_rate.resize(kept * types);
        slot_upper.resize(kept * types);
        slot_fresh.resize(kept);
        slot_isolated_time.resize(kept);
        slot_previous_remaining.resize(kept);
        slot_previous_isolated_rate.resize(kept);
        slot_first_column.resize(kept);
        slot_first_row.resize(kept);
        slot_block.resize(kept);
        for (int& slot : slot_of) slot = renumber[static_cast<std::size_t>(slot)];
        level_terms.clear();  // the row numbers moved: column 0 is rewritten
    }

    by_key.clear();
    for (std::size_t i = 0; i < n; ++i) {
        by_key.emplace_back(input.jobs[i].key, slot_of[i]);
        slot_key[static_cast<std::size_t>(slot_of[i])] = input.jobs[i].key;
    }
}

// T'_{m,t} per the view, 0 where the job cannot use type t (T = 0 or no GPUs of it), and the quantities each
// objective derives from it: T^prop (max-min, normalised throughput), x^iso and θ^iso (FTF).
void ShareLp::State::compute_rates(const ShareInput& input) {
    const std::size_t n = input.jobs.size();
    rate.assign(n * types, 0.0);
    proportional.assign(n, 0.0);
    double total_capacity = 0;
    for (double capacity : input.capacities) total_capacity += capacity;
    const bool agnostic = options.view == ThroughputView::Agnostic;
    for (std::size_t i = 0; i < n; ++i) {
        double reference = 0;
        if (agnostic && options.objective != ShareObjective::MaxMinFairness) {
            reference = input.throughput(i, options.reference_type);
            if (reference <= 0)
                for (std::size_t t = 0; t < types; ++t) reference = std::max(reference, input.throughput(i, t));
        }
        double weighted = 0;
        for (std::size_t t = 0; t < types; ++t) {
            const double measured = input.throughput(i, t);
            if (measured <= 0 || input.capacities[t] <= 0) continue;
            double& r = rate[i * types + t];
            if (!agnostic)
                r = measured;
            else
                r = options.objective == ShareObjective::MaxMinFairness ? 1.0 : reference;
            weighted += r * input.capacities[t];
        }
        if (total_capacity > 0) proportional[i] = weighted / total_capacity;
    }
}

// Writes each job's columns where its gang, coefficients or bounds changed (or the slot is fresh), and the
// capacity and objective-row bounds every call (O(types + jobs) cheap calls).
void ShareLp::State::write_columns(const ShareInput& input) {
    coefficients_moved_ = false;
    for (std::size_t t = 0; t < types; ++t) program.set_row_bounds(static_cast<int>(t), -inf, input.capacities[t]);
    for (std::size_t i = 0; i < input.jobs.size(); ++i) {
        const int slot = slot_of[i];
        const auto s = static_cast<std::size_t>(slot);
        const int gang = input.jobs[i].gang;
        bool changed = slot_fresh[s] || slot_gang[s] != gang;
        for (std::size_t t = 0; t < types && !changed; ++t)
            changed = slot_rate[s * types + t] != row_coef[i * types + t];
        if (changed && !slot_fresh[s]) coefficients_moved_ = true;
        if (changed) {
            for (std::size_t t = 0; t < types; ++t) {
                const double coefficient = row_coef[i * types + t];
                const LpTerm entries[] = {{capacity_row(slot, t), static_cast<double>(gang)},
                                          {share_row(slot), 1.0},
                                          {objective_row(slot), coefficient}};
                program.set_column_terms(column(slot, t), entries);
                slot_rate[s * types + t] = coefficient;
            }
            slot_gang[s] = gang;
            slot_fresh[s] = 0;
            changed_ = true;
        }
        for (std::size_t t = 0; t < types; ++t) {
            // Allowed columns are boxed at 1 (implied by the share row; a box keeps the dual simplex's start
            // dual feasible), the others fixed at 0.
            const double upper = active[i] && rate[i * types + t] > 0 ? 1.0 : 0.0;
            if (slot_upper[s * types + t] != upper) {
                program.set_column_bounds(column(slot, t), 0.0, upper);
                changed_ = true;
                slot_upper[s * types + t] = upper;
            }
        }
    }
}

// Column 0's entries: 1 in every slot's max-min row (z − Σ c·x <= 0; the rows of jobs not served and of
// dormant slots are free, so the entry binds nothing there and the column stays the same while jobs come and
// go: z is basic, and a change to a basic column would cost a refactorization), −R_m in each active makespan
// row.
void ShareLp::State::set_level_column(const ShareInput& input) {
    terms.clear();
    if (options.objective == ShareObjective::MaxMinFairness)
        for (int slot = 0; slot < slots(); ++slot) terms.emplace_back(objective_row(slot), 1.0);
    else if (options.objective == ShareObjective::Makespan)
        for (std::size_t i = 0; i < input.jobs.size(); ++i)
            if (active[i]) terms.emplace_back(objective_row(slot_of[i]), -input.jobs[i].remaining / level_scale);
    std::sort(terms.begin(), terms.end());
    if (terms != level_terms) {
        program.set_column_terms(level_column, terms);
        level_terms = terms;
        changed_ = true;
    }
}

void ShareLp::State::set_objective(const ShareInput& input, bool on_x, double level_coefficient) {
    program.set_objective(level_column, level_coefficient);
    for (std::size_t i = 0; i < input.jobs.size(); ++i)
        for (std::size_t t = 0; t < types; ++t)
            program.set_objective(column(slot_of[i], t), on_x ? objective[i * types + t] : 0.0);
}

void ShareLp::State::read_x(const ShareInput& input) {
    for (std::size_t i = 0; i < input.jobs.size(); ++i)
        for (std::size_t t = 0; t < types; ++t) result.x[i * types + t] = program.column_value(column(slot_of[i], t));
}

// Agnostic view: the LP pins each job's total share s_m only (every type is worth the same to it), so the
// share is spread over the types. Jobs that can use every type with GPUs ("unrestricted") are spread over the
// capacity the restricted jobs leave, in proportion to it: x_{m,t} = s_m·(W_t − U_t)/Σ_t'(W_t' − U_t'), with U_t
// the restricted jobs' use of type t (their x stays the LP's). With no restricted job this is s_m·W_t/ΣW, Gavel's
// symmetric point. Feasible: Σ_unrestricted g_m·s_m <= Σ_t (W_t − U_t) by the LP's capacity rows, so each type
// receives at most W_t − U_t; the share and objective rows only see s_m, which is unchanged.
void ShareLp::State::spread_agnostic(const ShareInput& input) {
    const std::size_t n = input.jobs.size();
    std::vector<double> residual(input.capacities);
    std::vector<char> unrestricted(n, 1);
    for (std::size_t i = 0; i < n; ++i) {
        for (std::size_t t = 0; t < types; ++t)
            if (input.capacities[t] > 0 && input.throughput(i, t) <= 0) unrestricted[i] = 0;
        if (unrestricted[i]) continue;
        for (std::size_t t = 0; t < types; ++t) residual[t] -= input.jobs[i].gang * result.x[i * types + t];
    }
    double total = 0;
    for (double& r : residual) total += (r = std::max(0.0, r));
    if (total <= 0) return;
    for (std::size_t i = 0; i < n; ++i) {
        if (!unrestricted[i]) continue;
        double share = 0;
        for (std::size_t t = 0; t < types; ++t) share += result.x[i * types + t];
        for (std::size_t t = 0; t < types; ++t) result.x[i * types + t] = share * residual[t] / total;
    }
}

// The centre tie-break (ShareOptions::centre): the optimal face is (B) plus, per job, its objective row
// held at the optimum — max-min: Σ_t c_{m,t}·x_{m,t} >= z*; FTF: θ_m(x) >= R_m/(ρ*·D_m − age_m); makespan:
// θ_m(x) >= R_m/T*. Each floor is lowered by a relative 1e-6 so that the jobs pinning the optimum keep an
// interior; the vertex is the Newton solver's start. Without a face (no job with a floor, FTF's isolated
// fallback, max-throughput) or without an interior, the vertex stands.
void ShareLp::State::move_to_centre(const ShareInput& input) {
    const std::size_t n = input.jobs.size();
    if (n == 0 || fell_back || options.objective == ShareObjective::MaxThroughput) return;
    face.jobs = n;
    face.types = types;
    face.capacity = input.capacities;
    face.gang.resize(n);
    face.allowed.assign(n * types, 0);
    face.floor_coeff.assign(n * types, 0.0);
    face.floor_rhs.assign(n, CentreProblem::no_floor);
    // FTF's floors carry the weights of Gavel's own formulation (analytic_centre.hpp, "Weighted floors").
    const bool ftf = options.objective == ShareObjective::FinishTimeFairness;
    face.floor_weight = ftf ? 1.5 : 1.0;
    face.rate_weight = ftf ? -1.0 : 0.0;
    bool any = false;
    for (std::size_t i = 0; i < n; ++i) {
        const ShareJob& job = input.jobs[i];
        face.gang[i] = job.gang;
        for (std::size_t t = 0; t < types; ++t)
            face.allowed[i * types + t] = rate[i * types + t] > 0 && input.capacities[t] > 0;
        double rhs = CentreProblem::no_floor;
        switch (options.objective) {
            case ShareObjective::MaxMinFairness:
                if (!active[i] || result.objective <= 0) break;
                for (std::size_t t = 0; t < types; ++t) face.floor_coeff[i * types + t] = objective[i * types + t];
                rhs = result.objective;
                break;
            case ShareObjective::FinishTimeFairness:
                if (!active[i]) break;
                for (std::size_t t = 0; t < types; ++t) face.floor_coeff[i * types + t] = rate[i * types + t];
                rhs = job.remaining / (result.objective * duration[i] - job.age);
                break;
            case ShareObjective::Makespan:
                if (job.remaining <= 0 || result.objective <= 0) break;
                for (std::size_t t = 0; t < types; ++t) face.floor_coeff[i * types + t] = rate[i * types + t];
                rhs = job.remaining / result.objective;
                break;
            case ShareObjective::MaxThroughput:
                break;
        }
        if (!(rhs > 0) || !std::isfinite(rhs)) continue;
        face.floor_rhs[i] = rhs * (1 - centre_floor_slack);
        any = true;
    }
    if (!any) return;
    std::vector<double>& x = result.x;
    for (std::size_t i = 0; i < n * types; ++i) x[i] = face.allowed[i] ? std::max(0.0, x[i]) : 0.0;
    solve_centre_by_class(x);
}

// The face's centre with identical jobs (same gang, allowed types and floor row; e.g. max-min's jobs of one
// model and gang) solved as one class each; the same point as solving `face` itself, since the centre gives
// identical jobs identical x. The class starts at its members' mean, a point of the face (it is convex and
// symmetric in those jobs). NoInterior leaves x as it was (the vertex).
void ShareLp::State::solve_centre_by_class(std::vector<double>& x) {
    const std::size_t n = face.jobs;
    // Orders jobs by (gang, floor rhs, then per type: allowed, floor coefficient); 0 = alike.
    const auto compare = [&](std::uint32_t a, std::uint32_t b) {
        const auto three_way = [](auto u, auto v) { return u < v ? -1 : v < u ? 1 : 0; };
        if (const int c = three_way(face.gang[a], face.gang[b])) return c;
        if (const int c = three_way(face.floor_rhs[a], face.floor_rhs[b])) return c;
        for (std::size_t t = 0; t < types; ++t) {
            if (const int c = three_way(face.allowed[a * types + t], face.allowed[b * types + t])) return c;
            if (const int c = three_way(face.floor_coeff[a * types + t], face.floor_coeff[b * types + t])) return c;
        }
        return 0;
    };
    by_class.resize(n);
    for (std::uint32_t i = 0; i < n; ++i) by_class[i] = i;
    std::sort(by_class.begin(), by_class.end(), [&](std::uint32_t a, std::uint32_t b) {
        const int c = compare(a, b);
        return c != 0 ? c < 0 : a < b;
    });
    class_of.resize(n);
    std::size_t count = 0;
    for (std::size_t k = 0; k < n; ++k) {
        if (k > 0 && compare(by_class[k - 1], by_class[k]) != 0) ++count;
        class_of[by_class[k]] = static_cast<std::uint32_t>(count);
    }
    ++count;
    if (count == n) {  // no two alike
        centre.solve(face, x);
        return;
    }
    classes.jobs = count;
    classes.types = types;
    classes.capacity = face.capacity;
    classes.gang.assign(count, 0);
    classes.allowed.assign(count * types, 0);
    classes.floor_coeff.assign(count * types, 0.0);
    classes.floor_rhs.assign(count, CentreProblem::no_floor);
    classes.multiplicity.assign(count, 0.0);
    classes.floor_weight = face.floor_weight;
    classes.rate_weight = face.rate_weight;
    class_x.assign(count * types, 0.0);
    for (std::size_t i = 0; i < n; ++i) {
        const std::size_t c = class_of[i];
        classes.gang[c] = face.gang[i];
        classes.floor_rhs[c] = face.floor_rhs[i];
        classes.multiplicity[c] += 1;
        for (std::size_t t = 0; t < types; ++t) {
            classes.allowed[c * types + t] = face.allowed[i * types + t];
            classes.floor_coeff[c * types + t] = face.floor_coeff[i * types + t];
            class_x[c * types + t] += x[i * types + t];
        }
    }
    for (std::size_t c = 0; c < count; ++c)
        for (std::size_t t = 0; t < types; ++t) class_x[c * types + t] /= classes.multiplicity[c];
    if (centre.solve(classes, class_x).status == CentreStatus::NoInterior) return;
    for (std::size_t i = 0; i < n; ++i)
        std::copy_n(class_x.begin() + static_cast<std::ptrdiff_t>(class_of[i] * types), types,
                    x.begin() + static_cast<std::ptrdiff_t>(i * types));
}

// (B) exactly, up to round-off: x in [0, 1] and 0 where T = 0 or W = 0, each job's share <= 1 and each type's
// GPU use <= W_t (scaled down by the simplex's relative excess, about 1e-9 at most).
void ShareLp::State::clamp_to_constraints(const ShareInput& input) {
    const std::size_t n = input.jobs.size();
    for (std::size_t i = 0; i < n; ++i) {
        double share = 0;
        for (std::size_t t = 0; t < types; ++t) {
            double& x = result.x[i * types + t];
            if (input.throughput(i, t) <= 0 || input.capacities[t] <= 0) x = 0;
            x = std::clamp(x, 0.0, 1.0);
            share += x;
        }
        if (share > 1)
            for (std::size_t t = 0; t < types; ++t) result.x[i * types + t] /= share;
    }
    for (std::size_t t = 0; t < types; ++t) {
        double used = 0;
        for (std::size_t i = 0; i < n; ++i) used += input.jobs[i].gang * result.x[i * types + t];
        if (used <= input.capacities[t]) continue;
        const double scale = input.capacities[t] / used * (1 - 1e-15);
        for (std::size_t i = 0; i < n; ++i) result.x[i * types + t] *= scale;
    }
}

void ShareLp::State::solve_max_min(const ShareInput& input) {
    const std::size_t n = input.jobs.size();
    row_coef.assign(n * types, 0.0);
    objective.assign(n * types, 0.0);
    active.assign(n, 0);
    bool any = false;
    for (std::size_t i = 0; i < n; ++i) {
        if (proportional[i] <= 0) continue;  // cannot be served: no fairness row
        active[i] = 1;
        any = true;
        for (std::size_t t = 0; t < types; ++t) {
            const double c = input.jobs[i].gang * rate[i * types + t] / (input.jobs[i].weight * proportional[i]);
            objective[i * types + t] = c;
            row_coef[i * types + t] = -c;
        }
    }
    write_columns(input);
    set_level_column(input);
    for (std::size_t i = 0; i < n; ++i) program.set_row_bounds(objective_row(slot_of[i]), -inf, active[i] ? 0.0 : inf);
    if (!any) return;  // z would be unbounded: nobody to be fair to
    if (reuse_previous()) return;

    program.set_column_bounds(level_column, -inf, inf);
    set_objective(input, false, 1.0);
    // From the last phase-1 optimum, arrivals (their objective rows violated) and departures (their columns
    // fixed at 0) leave the basis dual feasible: the dual simplex repairs it. Changed coefficients of
    // continuing jobs do not, so those calls take the primal simplex.
    program.set_method(phase1_basis_back_ && !coefficients_moved_ ? LpMethod::DualFirst : LpMethod::Primal);
    LpStatus status = run(result, true);
    if (status != LpStatus::Optimal) bad_input(fmt::format("max-min phase 1 ended {}", to_string(status)));
    const double z = program.objective_value();
    result.objective = z;
    // Phase 2 only when phase 1's vertex does not already maximise Σ c·x on the z-optimal face. Skipping it
    // keeps the basis and its factorization for the next round; running it means restoring the phase-1 basis
    // after it, which costs a refactorization at the next solve.
    secondary.assign(static_cast<std::size_t>(program.columns()), 0.0);
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t t = 0; t < types; ++t)
            secondary[static_cast<std::size_t>(column(slot_of[i], t))] = objective[i * types + t];
    if (program.optimal_for_secondary(secondary)) {
        read_x(input);
        phase1_basis_back_ = true;
        return;
    }
    program.save_basis(phase1_basis);

    program.set_column_bounds(level_column, z - std::abs(z) * phase2_relative_slack, inf);
    set_objective(input, true, 0.0);
    program.set_method(LpMethod::Primal);
    status = run(result, true);
    if (status != LpStatus::Optimal) bad_input(fmt::format("max-min phase 2 ended {}", to_string(status)));
    read_x(input);
    phase1_basis_back_ = program.restore_basis(phase1_basis);
}

void ShareLp::State::solve_throughput(const ShareInput& input) {
    const std::size_t n = input.jobs.size();
    row_coef.assign(rate.begin(), rate.end());
    objective.assign(n * types, 0.0);
    active.assign(n, 1);
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t t = 0; t < types; ++t) {
            const double r = rate[i * types + t];
            if (!options.normalize_throughput_sum)
                objective[i * types + t] = r;
            else if (proportional[i] > 0)
                objective[i * types + t] = r / proportional[i];
        }
    write_columns(input);
    set_level_column(input);
    for (std::size_t i = 0; i < n; ++i) program.set_row_bounds(objective_row(slot_of[i]), -inf, inf);
    if (n == 0) return;
    if (reuse_previous()) return;
    program.set_column_bounds(level_column, 0.0, 0.0);
    set_objective(input, true, 0.0);
    const LpStatus status = run(result);
    if (status != LpStatus::Optimal) bad_input(fmt::format("max throughput ended {}", to_string(status)));
    result.objective = program.objective_value();
    read_x(input);
}

void ShareLp::State::solve_makespan(const ShareInput& input) {
    const std::size_t n = input.jobs.size();
    row_coef.assign(rate.begin(), rate.end());
    objective.assign(n * types, 0.0);
    active.assign(n, 0);
    bool any = false;
    double total_remaining = 0;
    int count = 0;
    for (std::size_t i = 0; i < n; ++i) {
        if (input.jobs[i].remaining <= 0 || proportional[i] <= 0) continue;
        active[i] = 1;
        any = true;
        total_remaining += input.jobs[i].remaining;
        ++count;
    }
    level_scale = count > 0 ? total_remaining / count : 1.0;
    for (std::size_t i = 0; i < n; ++i)
        if (active[i])
            for (std::size_t t = 0; t < types; ++t)
                objective[i * types + t] = rate[i * types + t] * level_scale / input.jobs[i].remaining;
    write_columns(input);
    set_level_column(input);
    for (std::size_t i = 0; i < n; ++i) program.set_row_bounds(objective_row(slot_of[i]), active[i] ? 0.0 : -inf, inf);
    if (!any) return;

    if (!options.gavel_makespan_bisection) {
        program.set_column_bounds(level_column, 0.0, inf);
        set_objective(input, false, 1.0);
        LpStatus status = run(result);
        if (status != LpStatus::Optimal) bad_input(fmt::format("makespan phase 1 ended {}", to_string(status)));
        const double y = program.objective_value();  // y' = R̄·y
        if (!(y > 0)) bad_input("makespan: no positive completion rate");
        result.objective = level_scale / y;
        program.set_column_bounds(level_column, y * (1 - phase2_relative_slack), inf);
        set_objective(input, true, 0.0);
        status = run(result);
        if (status != LpStatus::Optimal) bad_input(fmt::format("makespan phase 2 ended {}", to_string(status)));
        read_x(input);
        return;
    }

    // Gavel's bisection: T feasible ⇔ the LP with y fixed at 1/T is feasible.
    set_objective(input, true, 0.0);
    const auto feasible = [&](double horizon) {
        program.set_column_bounds(level_column, level_scale / horizon, level_scale / horizon);
        const LpStatus status = run(result);
        if (status == LpStatus::Optimal) return true;
        if (status == LpStatus::Infeasible) return false;
        bad_input(fmt::format("makespan bisection step ended {}", to_string(status)));
    };
    double window_low = gavel_makespan_low, window_high = gavel_makespan_high;
    for (int move = 0; move < gavel_makespan_window_moves; ++move) {
        double low = window_low, high = window_high, found = 0;
        bool at_found = false;  // the LP's current solution is the one at `found`
        while (gavel_makespan_factor * low < high) {
            const double middle = (low + high) / 2;
            if (feasible(middle)) {
                high = found = middle;
                at_found = true;
            } else {
                low = middle;
                at_found = false;
            }
        }
        if (found > 0) {
            if (!at_found && !feasible(found)) bad_input("makespan: a feasible horizon turned infeasible");
            result.objective = found;
            read_x(input);
            return;
        }
        window_low *= 10;
        window_high *= 10;
    }
    bad_input("makespan bisection: no feasible horizon");
}

void ShareLp::State::solve_finish_time(const ShareInput& input) {
    const std::size_t n = input.jobs.size();
    row_coef.assign(rate.begin(), rate.end());
    objective.assign(n * types, 0.0);
    isolated.assign(n * types, 0.0);
    isolated_rate.assign(n, 0.0);
    duration.assign(n, 0.0);
    active.assign(n, 0);
    double total_capacity = 0;
    for (double capacity : input.capacities) total_capacity += capacity;
    const double jobs = static_cast<double>(n);
    bool any = false;
    double rho_low = 0, rho_high = 0;
    for (std::size_t i = 0; i < n; ++i) {
        const ShareJob& job = input.jobs[i];
        // Isolated share (isolated.py): x^iso_{m,t} = (W_t/(M·g_m)) / max(1, Σ_t' W_t'/(M·g_m)).
        const double scale = std::max(1.0, total_capacity / (jobs * job.gang));
        for (std::size_t t = 0; t < types; ++t) {
            if (rate[i * types + t] <= 0) continue;  // (T = 0 there: the point stays in (B) without it)
            isolated[i * types + t] = input.capacities[t] / (jobs * job.gang) / scale;
            isolated_rate[i] += rate[i * types + t] * isolated[i * types + t];
        }
        const auto s = static_cast<std::size_t>(slot_of[i]);
        slot_previous_remaining[s] = job.remaining;  // for the next call's I_m
        slot_previous_isolated_rate[s] = isolated_rate[i];
        if (job.remaining <= 0 || isolated_rate[i] <= 0) continue;
        active[i] = 1;
        any = true;
        const double so_far = options.ftf_elapsed_denominator ? job.age : slot_isolated_time[s];
        duration[i] = so_far + job.remaining / isolated_rate[i];  // D_m
        for (std::size_t t = 0; t < types; ++t) objective[i * types + t] = rate[i * types + t] / isolated_rate[i];
        // ρ_lo: the job alone at its best rate on its gang (types filled fastest first, within W_t/g_m and 1).
        double best = 0, left = 1;
        order.clear();
        for (std::size_t t = 0; t < types; ++t)
            if (rate[i * types + t] > 0) order.emplace_back(-rate[i * types + t], t);
        std::sort(order.begin(), order.end());
        for (const auto& [negative_rate, t] : order) {
            const double take = std::min(left, input.capacities[t] / job.gang);
            best += -negative_rate * take;
            left -= take;
            if (left <= 0) break;
        }
        rho_low = std::max(rho_low, (job.age + job.remaining / best) / duration[i]);
        rho_high = std::max(rho_high, (job.age + job.remaining / isolated_rate[i]) / duration[i]);
    }
    write_columns(input);
    set_level_column(input);
    program.set_column_bounds(level_column, 0.0, 0.0);
    for (std::size_t i = 0; i < n; ++i)
        if (!active[i]) program.set_row_bounds(objective_row(slot_of[i]), -inf, inf);
    const auto isolated_share = [&] {
        fell_back = true;
        result.x = isolated;
        result.objective = rho_high;
    };
    if (!any) return;
    set_objective(input, true, 0.0);

    // ρ feasible ⇔ θ_m(x) >= R_m/(ρ·D_m − age_m) for every active m has a solution in (B).
    const auto feasible = [&](double rho) {
        for (std::size_t i = 0; i < n; ++i)
            if (active[i] && rho * duration[i] <= input.jobs[i].age) return false;
        for (std::size_t i = 0; i < n; ++i)
            if (active[i])
                program.set_row_bounds(objective_row(slot_of[i]),
                                       input.jobs[i].remaining / (rho * duration[i] - input.jobs[i].age), inf);
        const LpStatus status = run(result);
        if (status == LpStatus::Optimal) return true;
        if (status == LpStatus::Infeasible) return false;
        bad_input(fmt::format("finish-time fairness step ended {}", to_string(status)));
    };
    // Invariant: `high` feasible (ρ_hi is, by x^iso), `low` infeasible or untested-but-a-lower-bound.
    const double tolerance = options.ftf_relative_tolerance;
    double low = rho_low, high = rho_high;
    double at = -1;  // the ρ whose LP the program last solved feasibly (and holds), -1 = none
    const auto test = [&](double rho) {
        const bool ok = feasible(rho);
        at = ok ? rho : -1;
        return ok;
    };
    if (previous_rho > low && previous_rho < high) {
        // Warm bracket: ρ* moves little between calls; widen a window around the last ρ* geometrically.
        double step = 4 * tolerance;
        if (test(previous_rho)) {
            high = previous_rho;
            while (high > low * (1 + tolerance)) {
                const double candidate = std::max(low, high / (1 + step));
                if (!test(candidate)) {
                    low = candidate;
                    break;
                }
                high = candidate;
                step *= 4;
            }
        } else {
            low = previous_rho;
            while (high > low * (1 + tolerance)) {
                const double candidate = std::min(high, low * (1 + step));
                if (test(candidate)) {
                    high = candidate;
                    break;
                }
                low = candidate;
                step *= 4;
            }
        }
    }
    while (high > low * (1 + tolerance)) {
        const double middle = std::sqrt(low * high);  // bisection on log ρ
        if (test(middle))
            high = middle;
        else
            low = middle;
    }
    if (at != high && !test(high)) {
        isolated_share();  // numerically infeasible even at ρ_hi: Gavel's fallback
        return;
    }
    previous_rho = high;
    result.objective = high;
    read_x(input);
}

ShareLp::ShareLp(ShareOptions options) : state_(std::make_unique<State>()) { state_->options = options; }
ShareLp::~ShareLp() = default;
ShareLp::ShareLp(ShareLp&&) noexcept = default;
ShareLp& ShareLp::operator=(ShareLp&&) noexcept = default;
const ShareOptions& ShareLp::options() const { return state_->options; }

const ShareResult& ShareLp::solve(const ShareInput& input) {
    State& s = *state_;
    s.check(input);
    if (!s.built || s.types != input.types()) s.rebuild(input.types());
    if (!s.options.warm_start) s.program.reset_basis();
    ShareResult& result = s.result;
    result.types = input.types();
    result.x.assign(input.jobs.size() * input.types(), 0.0);
    result.objective = 0;
    result.lp_solves = 0;
    result.simplex_iterations = 0;
    result.cold = false;

    s.fell_back = false;
    s.changed_ = !s.options.warm_start || s.previous_capacities != input.capacities;
    s.previous_capacities = input.capacities;
    s.match_slots(input);
    s.compute_rates(input);
    switch (s.options.objective) {
        case ShareObjective::MaxMinFairness:
            s.solve_max_min(input);
            break;
        case ShareObjective::FinishTimeFairness:
            s.solve_finish_time(input);
            break;
        case ShareObjective::Makespan:
            s.solve_makespan(input);
            break;
        case ShareObjective::MaxThroughput:
            s.solve_throughput(input);
            break;
    }
    s.previous_x = result.x;  // before the spread and clamp, which reapply to it
    s.previous_objective = result.objective;
    s.have_previous_ = true;
    if (s.options.centre)
        s.move_to_centre(input);
    else if (s.options.view == ThroughputView::Agnostic && s.options.agnostic_spread)
        s.spread_agnostic(input);
    s.clamp_to_constraints(input);
    return result;
}

std::string_view to_string(ShareObjective objective) {
    switch (objective) {
        case ShareObjective::MaxMinFairness:
            return "max-min fairness";
        case ShareObjective::FinishTimeFairness:
            return "finish-time fairness";
        case ShareObjective::Makespan:
            return "makespan";
        case ShareObjective::MaxThroughput:
            return "max throughput";
    }
    return "?";
}

}  // namespace dlsim
