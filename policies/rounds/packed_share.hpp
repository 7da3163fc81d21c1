#pragma once
// Gavel's allocations with space sharing ("_packed": stanford-futuredata/gavel scheduler/policies/policy.py
// PolicyWithPacking, max_min_fairness.py MaxMinFairnessPolicyWithPacking, fifo.py FIFOPolicyWithPacking).
// Units are single jobs m and pairs (m, n) of jobs that may share GPUs.
// x_{u,t} is the fraction of wall time unit u runs on g_u GPUs of type t.
//
// Max-min (gavel-las + space_sharing):
//   maximize z  s.t.  z <= Σ_t c_{m,t}·x_{m,t} + Σ_{pairs p ∋ m} Σ_t c^p_{m,t}·x_{p,t}   (every job m)
//                     Σ_t x_{m,t} + Σ_{p ∋ m} Σ_t x_{p,t} <= 1                             (every job m)
//                     Σ_u g_u·x_{u,t} <= W_t,  x >= 0,
//   c_{m,t} = g_m·T_{m,t}/(w_m·T^prop_m), c^p_{m,t} = g_m·P_{m|n,t}/(w_m·T^prop_m) with P the pair rate of
//   m next to n (the max-min normaliser T^prop, also for pairs, as Gavel normalises a job's pair throughputs by
//   its own).
//   Phase 2 as max_min_share.cpp: z >= z*·(1 − 1e-7), maximize Σ of the normalised throughputs.
// Deviations from Gavel:
//   - Gavel's normaliser in the packed LP is Σ_t T_{m,t} (unweighted); T^prop (proportional.py) weights by W_t. Equal
//     for clusters with equal type counts (Gavel's 36:36:36) up to a common factor.
//   - Candidate pairs: only pairs whose normalised sum P_{m|n,t}/T_{m,t} + P_{n|m,t}/T_{n,t} exceeds 1 on some
//     type (a pair below that is weakly dominated by time-sharing the two on that type, so z* is unchanged),
//     and, with max_partners = k > 0, only pairs among the k best partners (by that sum) of either member.
//     Gavel lists every pair (its LP grows with M²).
//   - x = 0 (upper bound) where a unit cannot run on a type (T = 0, or the pair was not measured there).
//   - With the centre tie-break, the centre of the face over these columns, not over Gavel's every pair.
#include "policies/lp/row_centre.hpp"
#include "policies/rounds/share_lp.hpp"
#include "policies/rounds/share_source.hpp"

#include <cstdint>
#include <memory>
#include <span>
#include <utility>
#include <vector>

namespace dlsim {

/// The input: the single jobs (ShareInput, as the unpacked LPs) plus the candidate pairs.
struct PackedShareInput {
    ShareInput singles;
    /// Pairs of input positions (first < second, same gang), ascending by (first, second).
    std::vector<std::pair<std::uint32_t, std::uint32_t>> pairs;
    /// Pair-major [p·types·2 + t·2 + k]: iterations/s of member k (0 = first) while packed on type t; 0 =
    /// cannot run packed there.
    std::vector<double> pair_rates;

    std::size_t types() const { return singles.types(); }
    double pair_rate(std::size_t p, std::size_t t, int k) const { return pair_rates[(p * types() + t) * 2 + k]; }
    /// Σ over members of packed rate ÷ alone rate on type t (0 if the pair cannot run there).
    double normalised_sum(std::size_t p, std::size_t t) const;
    void clear() {
        singles.clear_jobs();
        pairs.clear();
        pair_rates.clear();
    }
};

struct PackedShare {
    std::size_t types = 0;
    std::vector<double> x_single;  ///< job-major, in the input's job order
    std::vector<double> x_pair;    ///< pair-major, in the input's pair order
    double objective = 0;          ///< z* (max-min); 0 for FIFO
    std::size_t pairs_used = 0;    ///< candidate pairs that were LP columns (after max_partners)
};

/// Where the packed round mechanism (policies/packed_rounds) gets its X from.
class PackedShareSource {
public:
    virtual ~PackedShareSource() = default;
    /// `submit[i]`: job i's arrival time (FIFO's order). The result stays valid until the next call.
    virtual const PackedShare& allocate(const PackedShareInput& input, std::span<const Time> submit) = 0;
};

/// The max-min LP above (GLPK simplex, two phases), on one GLPK problem that lives across calls and is
/// re-solved from the last call's final basis. Jobs and candidate pairs are appended as they appear; a job
/// that leaves or a pair that stops being a candidate goes dormant (its columns fixed at 0, the job's
/// objective row free) instead of being deleted, so the basis matrix does not change shape and stays a
/// basis. The problem is rebuilt (and solved cold) when the dormant columns outnumber the live ones (and
/// 256), when the number of types changes, and at every call with warm_start = false.
class PackedMaxMinShare final : public PackedShareSource {
public:
    /// `max_partners`: 0 = every candidate pair; k > 0 = a pair is a column only if it is among the k best
    /// partners (highest normalised sum on its best type, ties by input order) of one of its members.
    /// `centre`: after phase 2, move to the analytic centre of the optimal face (move_to_centre), as Gavel's
    /// interior-point solver lands there; false keeps phase 2's vertex.
    explicit PackedMaxMinShare(std::size_t max_partners, bool warm_start = true, bool centre = false);
    ~PackedMaxMinShare() override;
    const PackedShare& allocate(const PackedShareInput& input, std::span<const Time> submit) override;
    /// Calls whose first LP started cold (a rebuild, a lost basis, or warm_start = false).
    std::size_t cold_starts() const { return cold_starts_; }

private:
    struct Problem;  // the persistent LP and where each job's and pair's rows and columns are
    std::size_t max_partners_;
    bool warm_start_;
    bool centre_;
    std::size_t cold_starts_ = 0;
    PackedShare result_;
    std::vector<char> keep_;
    std::vector<double> scale_, best_;
    std::unique_ptr<Problem> problem_;
    // The centre tie-break (move_to_centre) and its buffers.
    void move_to_centre(const PackedShareInput& in);
    std::vector<double> single_coef_, pair_coef_;  // [m·types + t], [(p·types + t)·2 + member]; 0 = no column
    std::vector<std::int64_t> column_of_;          // [(unit)·types + t]: the face's variable, or -1
    std::vector<std::size_t> columns_of_job_;
    std::vector<std::size_t> pair_start_, pair_fill_, pair_list_;  // CSR: per job its pairs, ascending
    std::vector<double> gpus_of_type_;
    RowCentre centre_solver_;
    RowCentreProblem face_;
    std::vector<double> face_x_, face_reference_;
};

/// Gavel's fifo_packed (FIFOPolicyWithPacking; dlsim's `fifo-het` + space_sharing): Gavel's
/// fifo_perf allocation, then the jobs still waiting, in arrival order, are each packed (x = 1 on the pair,
/// on the partner's type) with the allocated single job of equal gang whose pair's normalised sum on that
/// type is the highest and exceeds `threshold` (1.5; strictly, ties to the earlier-allocated partner; a
/// member with packed rate 0 adds nothing); the first waiting job without such a partner ends the packing
/// (nobody overtakes it). As Gavel, when a type still has room but the head of the queue did not fit, that
/// head was taken off the queue by the FIFO pass and is not packed either.
class FifoPackedShare final : public PackedShareSource {
public:
    FifoPackedShare(std::unique_ptr<ShareSource> fifo, double threshold)
        : fifo_(std::move(fifo)), threshold_(threshold) {}
    const PackedShare& allocate(const PackedShareInput& input, std::span<const Time> submit) override;

private:
    std::unique_ptr<ShareSource> fifo_;
    double threshold_;
    PackedShare result_;
    std::vector<std::uint32_t> order_, allocated_;
    std::vector<std::int32_t> type_of_;
};

}  // namespace dlsim
