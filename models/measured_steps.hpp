#pragma once
// Measured step times as Pollux's and Sia's simulators read them (petuum/adaptdl osdi21-artifact and
// siasosp23/artifacts, simulator applications.py get_throughput): a placement measured as such is linear in
// the per-GPU micro-batch between its measured points; any other placement is interpolated linearly in
// (nodes, replicas, micro-batch) over all measurements (scipy's LinearNDInterpolator on their Delaunay
// triangulation). scripts/import_pollux_goodput.py evaluates that triangulation once and stores it per
// (nodes, replicas) as a piecewise-linear table over the micro-batch, exact at every integer micro-batch.
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <utility>
#include <vector>

namespace dlsim {

/// Seconds of one step without accumulation, and the part of it spent synchronising gradients.
struct StepSync {
    double step = 0;
    double sync = 0;
};

/// Step and sync seconds, linear between knots over the per-GPU micro-batch (ascending).
struct StepTable {
    std::vector<double> local_bsz, step, sync;
    /// The interpolated times at micro-batch b; nullopt outside [first, last] knot.
    std::optional<StepSync> at(double b) const;
};

/// One application's measured step times on one GPU type.
struct MeasuredSteps {
    /// By placement_key: the placements measured as such.
    std::map<std::uint64_t, StepTable> placements;
    /// By (nodes, replicas): the interpolation over all measurements, where it is defined.
    std::map<std::pair<int, int>, StepTable> shapes;
    /// The largest node count the shapes are looked up at (the simulators cap it at 16).
    static constexpr int kMaxNodes = 16;

    /// Times on a placement (GPUs on each node; zeros ignored) at micro-batch b: the measured placement's
    /// table if it has one covering b, else the shape's (nodes capped at kMaxNodes); nullopt if neither.
    std::optional<StepSync> at(std::span<const int> gpus_per_node, double b) const;
};

/// A placement's digits read as a decimal number, rotated to the lexicographically smallest rotation
/// (the simulators' normalisation): {2, 4} and {4, 2} are both 24. 0 for an empty placement or one that
/// has no such number (a node with more than 9 GPUs, or more than 19 nodes).
std::uint64_t placement_key(std::span<const int> gpus_per_node);

}  // namespace dlsim
