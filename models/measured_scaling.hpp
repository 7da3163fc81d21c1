#pragma once
// Measured multi-GPU throughputs (a profile's `throughput_n`, e.g. Gavel's table) as calibration of the
// intra-node ring (models/README.md): T_iter(n) = n / X(n) per GPU-iteration, T_comp = 1 / X(1), and
// the overlap form solved for the communication time, T_comm(n) = (T_iter^γ − T_comp^γ)^(1/γ) (0 when
// T_iter ≤ T_comp: the measurement shows no cost). Each n gives an effective bandwidth
// 2(n−1)/n · S / T_comm(n); the model takes their median (the lower one of an even count), since the
// published points are noisy (Gavel's LM runs slower on 4 V100s than on 2). The points were measured on
// one server (n ≤ 8), so they speak of the intra-node edges only.
#include "models/cluster.hpp"
#include "models/iteration_time.hpp"
#include "models/profile.hpp"

#include <vector>

namespace dlsim {

/// Per model and cluster GPU type (model-major: [m * types + t]): the effective intra-node bandwidth in
/// bytes/s from measured points, kUnlimited when they show no communication cost, 0 when there are none
/// (or the model has no `params`). `comm[m]` gives S and γ.
std::vector<double> measured_intra_bandwidths(const Cluster& cluster, const ProfileSet& profiles,
                                              const std::vector<CommModel>& comm);

}  // namespace dlsim
