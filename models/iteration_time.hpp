#pragma once
// A data-parallel job's iteration time (models/README.md): compute, plus a ring all-reduce of its
// gradients over its placement, combined with Pollux's overlap form. The one formula the network model
// rates jobs with, and the one the calibration fits to measured step times (models/calibration.hpp).
#include <algorithm>
#include <cmath>

namespace dlsim {

/// What a placement gives one job's ring, after contention: the slowest edges' effective bandwidths.
struct RingLinks {
    int gpus = 1;   ///< n, the ring's length
    int nodes = 1;  ///< nodes spanned
    /// η × bandwidth of the slowest intra-node edge (bytes/s); unlimited when no node holds 2+ GPUs.
    double intra_bytes_per_s = INFINITY;
    /// η × channels × per-channel bandwidth of the slowest inter-node edge (bytes/s); unlimited on 1 node.
    double inter_bytes_per_s = INFINITY;
    double step_latency_s = 0;  ///< α: the slowest ring step's latency
};

/// How a model communicates (from its profile).
struct CommModel {
    double gradient_bytes = 0;   ///< S = params × bytes per element; 0: no communication (unknown size)
    double gamma = 3;            ///< overlap: 1 = none (sum), → ∞ = perfect (max); 3 assumed for DDP
    double bucket_bytes = 25e6;  ///< gradients all-reduced in buckets: ⌈S / bucket⌉ collectives pay the latency
};

/// Ring all-reduce of S bytes over n ranks, NCCL's form: c·2(n−1)·α + 2(n−1)/n · S / B.
inline double ring_allreduce_seconds(int n, double bytes, double bandwidth, double alpha, double collectives) {
    if (n <= 1) return 0;
    const double steps = 2.0 * (n - 1);
    return collectives * steps * alpha + steps / n * bytes / bandwidth;
}

/// The number of collectives per iteration: ⌈S / bucket⌉, at least 1.
inline double collectives(const CommModel& m) {
    return m.bucket_bytes > 0 ? std::max(1.0, std::ceil(m.gradient_bytes / m.bucket_bytes)) : 1.0;
}

/// Communication time per iteration over `ring`: 0 on one GPU or when S is unknown.
inline double comm_seconds(const CommModel& m, const RingLinks& ring) {
    if (ring.gpus <= 1 || m.gradient_bytes <= 0) return 0;
    const double b = std::min(ring.intra_bytes_per_s, ring.inter_bytes_per_s);
    return ring_allreduce_seconds(ring.gpus, m.gradient_bytes, b, ring.step_latency_s, collectives(m));
}

/// Pollux's overlap form: (T_comp^γ + T_comm^γ)^(1/γ); γ = 1 is the sum.
inline double overlapped_seconds(double t_comp, double t_comm, double gamma) {
    if (t_comm <= 0) return t_comp;
    if (gamma == 1) return t_comp + t_comm;
    if (std::isinf(t_comm)) return t_comm;
    // Scaled by the larger term so that large γ neither overflows nor underflows.
    const double hi = std::max(t_comp, t_comm), lo = std::min(t_comp, t_comm);
    return hi * std::pow(1 + std::pow(lo / hi, gamma), 1 / gamma);
}

/// Iteration time: T_comp of one GPU's local batch, overlapped with the all-reduce over `ring`.
inline double iteration_seconds(double t_comp, const CommModel& m, const RingLinks& ring) {
    return overlapped_seconds(t_comp, comm_seconds(m, ring), m.gamma);
}

}  // namespace dlsim
