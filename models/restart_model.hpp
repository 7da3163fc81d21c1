#pragma once
// What a change of allocation costs a job (models/README.md): while restarting, the job
// holds its new GPUs and makes no progress. The engine asks at every start, resize and migration.
// Every model charges nothing on a first start and nothing when the job keeps exactly the same GPUs (a
// renewed lease); `with_migration_cost` gives moves a price of their own.
#include "models/allocation.hpp"
#include "models/base/sim_time.hpp"
#include "models/profile.hpp"
#include "models/rate_model.hpp"

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace dlsim {

struct RestartContext {
    JobIdx job;
    ModelIdx model;
    const Allocation* from;  ///< what it held until now; nullptr when it was queued
    const Allocation& to;    ///< what it holds from now on
    bool ran_before;         ///< it held GPUs at some earlier time (a restart, not a first start)
    /// A move: a migration, or a start at the instant the job lost its GPUs (it never waited). A resize
    /// is not a move.
    bool move = false;
};

class RestartModel {
public:
    virtual ~RestartModel() = default;
    /// Microseconds without progress at the start of the new allocation.
    virtual Time cost(const RestartContext& c) const = 0;
};

/// Whether a change of allocation is a restart at all: a start after an earlier run, or a change of GPUs
/// (resize, migration). A first start and an unchanged placement are not.
inline bool is_restart(const RestartContext& c) {
    if (c.from == nullptr) return c.ran_before;
    return !c.from->same_place(c.to);
}

/// `--restart-cost S` (restart_model fixed): S on every restart.
class FixedRestart final : public RestartModel {
public:
    explicit FixedRestart(Time cost) : cost_(cost) {}
    Time cost(const RestartContext& c) const override { return is_restart(c) ? cost_ : 0; }

private:
    Time cost_;
};

/// restart_model per_model: a cost per model from a table by model name (`restart_costs`), `--restart-cost`
/// for a model not listed: Sia's simulator charges cifar10 50, deepspeech2 25, bert 120, yolov3 80,
/// imagenet 250, ncf 15 and 30 s otherwise (sia-simulator/applications.py). Built as a CheckpointRestart
/// over that table (the class charges any per-model table).
///
/// restart_model checkpoint: a fixed part (launch and warm-up, `--restart-cost`) plus
/// saving and loading the checkpoint, 2 × params × bytes per parameter ÷ storage bandwidth. A model
/// whose profile has no `params` (and a job without a model) pays the fixed part only. The save is charged
/// with the load when the job resumes, not at the preemption (its GPUs are freed at the preemption, as for
/// every model); the total per restart is the same.
class CheckpointRestart final : public RestartModel {
public:
    /// `per_model[m]`: the whole charge for model m.
    CheckpointRestart(std::vector<Time> per_model, Time fixed) : per_model_(std::move(per_model)), fixed_(fixed) {}
    Time cost(const RestartContext& c) const override {
        if (!is_restart(c)) return 0;
        return c.model < per_model_.size() ? per_model_[c.model] : fixed_;
    }

private:
    std::vector<Time> per_model_;
    Time fixed_;
};

/// restart_model helios (Helios's simulator, S-Lab-System-Group/HeliosArtifact): 7 s on 1 GPU, 30 s on up to
/// 8, 60 s above, by the GPUs of the new allocation.
class HeliosRestart final : public RestartModel {
public:
    Time cost(const RestartContext& c) const override {
        if (!is_restart(c)) return 0;
        const int n = c.to.num_gpus();
        return to_time(n <= 1 ? 7.0 : n <= 8 ? 30.0 : 60.0);
    }
};

/// `--migration-cost S`: a move costs S instead of what `inner` charges (a restart elsewhere); every other
/// change is `inner`'s.
class WithMigrationCost final : public RestartModel {
public:
    WithMigrationCost(std::unique_ptr<RestartModel> inner, Time move_cost)
        : inner_(std::move(inner)), move_cost_(move_cost) {}
    Time cost(const RestartContext& c) const override {
        if (c.move) return is_restart(c) ? move_cost_ : 0;
        return inner_->cost(c);
    }

private:
    std::unique_ptr<RestartModel> inner_;
    Time move_cost_;
};

/// restart_first_start: a first start costs `first_cost` too (Pollux's and Sia's simulators charge their
/// restart delay on every allocation, the first included), or `per_model[m]` for model m when given (the
/// per_model restart model's table); every other change is `inner`'s.
class WithFirstStartCost final : public RestartModel {
public:
    WithFirstStartCost(std::unique_ptr<RestartModel> inner, Time first_cost, std::vector<Time> per_model = {})
        : inner_(std::move(inner)), first_cost_(first_cost), per_model_(std::move(per_model)) {}
    Time cost(const RestartContext& c) const override {
        if (c.from == nullptr && !c.ran_before) return c.model < per_model_.size() ? per_model_[c.model] : first_cost_;
        return inner_->cost(c);
    }

private:
    std::unique_ptr<RestartModel> inner_;
    Time first_cost_;
    std::vector<Time> per_model_;
};

/// Which restart model a run uses and its parameters (run config keys of the same names).
struct RestartSpec {
    enum class Kind { Fixed, Checkpoint, Helios, PerModel };
    Kind kind = Kind::Fixed;
    double restart_cost = 0;                 ///< s: fixed's whole charge, checkpoint's fixed part
    double checkpoint_bytes_per_param = 12;  ///< 4 weights + 8 Adam moments (fp32)
    double storage_bandwidth = 2;            ///< GB/s (1e9 bytes/s), for saving and loading
    std::optional<double> migration_cost;    ///< s per move; unset: a move costs a restart
    bool first_start = false;                ///< a first start costs restart_cost too (Pollux, Sia)
    /// per_model: seconds per restart by model name (profile names, exact); others pay restart_cost.
    std::map<std::string, double> restart_costs;
};

/// "fixed", "checkpoint", "helios", "per_model"; nullopt otherwise.
std::optional<RestartSpec::Kind> parse_restart_kind(std::string_view name);
std::string_view restart_kind_name(RestartSpec::Kind kind);

/// The model a spec describes; checkpoint sizes come from the profile's `params`.
std::unique_ptr<RestartModel> make_restart_model(const RestartSpec& spec, const ProfileSet& profiles);

}  // namespace dlsim
