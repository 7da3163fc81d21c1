#include "policies/elastic/sia.hpp"

#include "models/base/input_error.hpp"
#include "policies/elastic/elastic_jobs.hpp"

#include <glpk.h>

#include <fmt/format.h>
#include <algorithm>
#include <cctype>
#include <cfloat>
#include <cmath>
#include <memory>
#include <string>

namespace dlsim {

/// Branch-and-bound nodes after which a MIP search returns its best allocation (see solve).
constexpr int kMaxSubproblems = 5000;

namespace {

struct ProblemDeleter {
    void operator()(glp_prob* p) const { glp_delete_prob(p); }
};

/// Job j's configuration now, or nodes = gpus = 0 when it holds nothing.
SiaPolicy::Config current_config(const ClusterView& view, JobIdx j) {
    const Allocation& a = view.allocation(j);
    if (a.num_gpus() == 0) return {};
    return {a.gpu_type, static_cast<int>(a.shares.size()), a.num_gpus()};
}

}  // namespace

double SiaPolicy::sia_restart_penalty(std::string_view model) {
    std::string name(model);
    for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    // Sia's order of tests (sia.py get_restart_penalty).
    if (name.find("deepspeech") != std::string::npos) return 25;
    if (name.find("imagenet") != std::string::npos) return 250;
    if (name.find("cifar") != std::string::npos) return 30;
    if (name.find("bert") != std::string::npos) return 120;
    if (name.find("yolov3") != std::string::npos) return 45;
    return 30;
}

void SiaPolicy::grow(JobIdx j) {
    if (j >= allocations_.size()) allocations_.resize(static_cast<std::size_t>(j) + 1, 0);
}

std::vector<SiaPolicy::Config> SiaPolicy::configs(const Cluster& cluster) const {
    std::vector<Config> out;
    for (GpuTypeIdx t = 0; t < cluster.gpu_types.size(); ++t) {
        const int node_gpus = cluster.max_node_gpus(t);
        if (node_gpus <= 0) continue;
        int nodes = 0;
        for (const Node& n : cluster.nodes) nodes += n.gpu_type == t && n.gpus == node_gpus;
        if (nodes == 0) continue;
        for (int g = 1; g < node_gpus && g <= o_.max_gpus; g *= 2) out.push_back({t, 1, g});
        if (node_gpus <= o_.max_gpus) out.push_back({t, 1, node_gpus});
        for (int k = 2; k <= nodes && k * node_gpus <= o_.max_gpus; ++k) out.push_back({t, k, k * node_gpus});
    }
    return out;
}

void SiaPolicy::decide(const ClusterView& view, const Changes& changes, Decisions& out) {
    for (JobIdx j : changes.arrived) grow(j);
    track_arrival_order(active_, changes);
    // Decisions only at the interval's multiples, as the artifact's simulator steps in whole intervals.
    if (!interval_tick(view, changes, o_.interval, !active_.empty(), out)) return;
    apply(view, plan(view), out);
}

std::vector<int> SiaPolicy::plan(const ClusterView& view) {
    const Cluster& cluster = view.cluster();
    const ElasticView* elastic = view.elastic();
    configs_ = configs(cluster);
    const std::size_t jobs = active_.size(), n_configs = configs_.size();
    const double now = to_seconds(view.now());

    // The goodput matrix, normalised per job and scaled by the restart factor; 0 = not a choice.
    std::vector<double> a(jobs * n_configs, 0.0);
    std::vector<int> fixed(jobs, -1);  // preserve_ckpt_allocs: the configuration a restarting job keeps
    for (std::size_t i = 0; i < jobs; ++i) {
        const JobIdx j = active_[i];
        const JobInfo& info = view.job(j);
        const GoodputProfile* g = elastic ? elastic->goodput(j) : nullptr;
        const bool adaptive = g != nullptr && info.min_gpus < info.max_gpus;
        const Config cur = current_config(view, j);
        double* row = &a[i * n_configs];
        double least = 0;
        for (std::size_t c = 0; c < n_configs; ++c) {
            const Config& k = configs_[c];
            if (!((info.runnable >> k.type) & 1)) continue;
            double goodput = 0;
            if (adaptive) {
                if (k.gpus < info.min_gpus || k.gpus > info.max_gpus) continue;
                goodput = elastic->predict(j, k.type, k.nodes, k.gpus).goodput;
            } else {
                // A rigid job: its gang, on as few nodes as hold it, at its measured rate.
                const int node_gpus = cluster.max_node_gpus(k.type);
                if (k.gpus != info.num_gpus || k.nodes != (info.num_gpus + node_gpus - 1) / node_gpus) continue;
                goodput = info.model != kNoModel ? view.rates().rate(info.model, k.type, info.num_gpus) : 1.0;
            }
            if (!(goodput > 0)) continue;
            row[c] = goodput;
            if (least == 0 || goodput < least) least = goodput;
        }
        if (least == 0) continue;  // nowhere to run: no variables
        const double age = now - to_seconds(info.submit);
        const double s = penalty(info.model);
        const double restarts = std::max(allocations_[j] - 1, 0);
        const double factor = age < s ? 1.0 : std::max(age - restarts * s, 0.0) / (age + s);
        const bool restarting = o_.preserve_ckpt_allocs && info.state == JobState::Running &&
                                info.progress_from > view.now() && cur.gpus > 0;
        for (std::size_t c = 0; c < n_configs; ++c) {
            if (row[c] == 0) continue;
            const bool is_current = configs_[c] == cur;
            if (restarting && is_current) fixed[i] = static_cast<int>(c);
            double gn = row[c] / least;
            if (!is_current) gn *= factor;
            double coef = gn > 0 ? std::pow(gn, o_.p) : (o_.p < 0 ? o_.clip : 0.0);
            coef = std::min(std::round(coef * 100) / 100, o_.clip);
            // Stored as coef + 1 so that 0 keeps meaning "no variable" (coef may round to 0 for p > 0).
            row[c] = coef + 1;
        }
    }

    // The integer program: columns x[i,c] for the entries above; objective (A − λ_n)·x (+ λ_n·J).
    std::unique_ptr<glp_prob, ProblemDeleter> lp(glp_create_prob());
    glp_set_obj_dir(lp.get(), o_.p < 0 ? GLP_MIN : GLP_MAX);
    const int type_rows = static_cast<int>(cluster.gpu_types.size());
    glp_add_rows(lp.get(), static_cast<int>(jobs) + type_rows);
    for (std::size_t i = 0; i < jobs; ++i) glp_set_row_bnds(lp.get(), static_cast<int>(i) + 1, GLP_UP, 0, 1);
    for (int t = 0; t < type_rows; ++t)
        glp_set_row_bnds(lp.get(), static_cast<int>(jobs) + t + 1, GLP_UP, 0,
                         cluster.gpus_of_type(static_cast<GpuTypeIdx>(t)));
    std::vector<int> col_job, col_config;
    std::vector<int> ia{0}, ja{0};
    std::vector<double> ar{0};
    for (std::size_t i = 0; i < jobs; ++i)
        for (std::size_t c = 0; c < n_configs; ++c) {
            const double stored = a[i * n_configs + c];
            if (stored == 0) continue;
            if (fixed[i] >= 0 && static_cast<int>(c) != fixed[i]) continue;
            const int col = glp_add_cols(lp.get(), 1);
            glp_set_col_kind(lp.get(), col, GLP_BV);
            if (fixed[i] >= 0) glp_set_col_bnds(lp.get(), col, GLP_FX, 1, 1);
            glp_set_obj_coef(lp.get(), col, (stored - 1) - o_.lambda_n);
            col_job.push_back(static_cast<int>(i));
            col_config.push_back(static_cast<int>(c));
            ia.push_back(static_cast<int>(i) + 1), ja.push_back(col), ar.push_back(1);
            ia.push_back(static_cast<int>(jobs) + static_cast<int>(configs_[c].type) + 1), ja.push_back(col),
                ar.push_back(configs_[c].gpus);
        }
    std::vector<int> out(jobs, -1);
    last_objective_ = o_.lambda_n * static_cast<double>(jobs);
    if (col_job.empty()) return out;
    glp_load_matrix(lp.get(), static_cast<int>(ia.size()) - 1, ia.data(), ja.data(), ar.data());
    glp_term_out(GLP_OFF);
    glp_iocp parm;
    glp_init_iocp(&parm);
    parm.msg_lev = GLP_MSG_OFF;
    parm.presolve = GLP_ON;  // no LP basis is given: the MIP presolver solves the relaxation itself
    // Stop within 1e-4 of the bound, as Sia's artifact asks its solver (a relative gap, not a time limit, so
    // the answer stays deterministic); proving the last 0.01% can take GLPK minutes on large clusters.
    parm.mip_gap = 1e-4;
    // The feasibility pump finds a good integer point early, cover, MIR and clique cuts tighten the bound of
    // this multiple-choice knapsack, and branching on the last fractional column (the later jobs' larger
    // configurations) closes the gap fastest on Sia's workloads (decision times: tests/bench/README.md).
    parm.fp_heur = GLP_ON;
    parm.cov_cuts = parm.mir_cuts = parm.clq_cuts = GLP_ON;
    parm.br_tech = GLP_BR_LFV;
    // Some rounds of newTrace would still search for minutes: past kMaxSubproblems branch-and-bound nodes the
    // search stops at its best allocation so far (a count, not a time, so runs stay deterministic).
    parm.cb_func = [](glp_tree* tree, void*) {
        int active = 0, alive = 0, total = 0;
        glp_ios_tree_size(tree, &active, &alive, &total);
        if (total > kMaxSubproblems && glp_ios_mip_gap(tree) < DBL_MAX) glp_ios_terminate(tree);
    };
    const int rc = glp_intopt(lp.get(), &parm);
    const int status = glp_mip_status(lp.get());
    if ((rc != 0 && rc != GLP_EMIPGAP && rc != GLP_ESTOP) || (status != GLP_OPT && status != GLP_FEAS))
        throw InternalError(fmt::format("sia: GLPK's MIP solver failed (return code {}, status {})", rc, status));
    last_objective_ += glp_mip_obj_val(lp.get());
    for (std::size_t k = 0; k < col_job.size(); ++k)
        if (glp_mip_col_val(lp.get(), static_cast<int>(k) + 1) > 0.5)
            out[static_cast<std::size_t>(col_job[k])] = col_config[k];
    return out;
}

void SiaPolicy::apply(const ClusterView& view, const std::vector<int>& choice, Decisions& out) {
    const Cluster& cluster = view.cluster();
    const std::size_t jobs = active_.size();
    std::vector<Config> target(jobs);
    for (std::size_t i = 0; i < jobs; ++i)
        if (choice[i] >= 0) target[i] = configs_[static_cast<std::size_t>(choice[i])];

    // Where the changed jobs go: against what is free once every changed job has let go of its GPUs.
    std::vector<int> free(cluster.nodes.size());
    for (NodeIdx n = 0; n < cluster.nodes.size(); ++n) free[n] = view.free_gpus_on(n);
    std::vector<std::size_t> changed;
    for (std::size_t i = 0; i < jobs; ++i) {
        const Config cur = current_config(view, active_[i]);
        if (target[i] == cur) continue;
        changed.push_back(i);
        for (const NodeShare& s : view.allocation(active_[i]).shares) free[s.node] += s.gpus;
    }
    // Largest allocations first (trace order among equals), as Sia places them.
    std::stable_sort(changed.begin(), changed.end(),
                     [&](std::size_t x, std::size_t y) { return target[x].gpus > target[y].gpus; });
    std::vector<std::vector<NodeShare>> where(jobs);
    for (std::size_t i : changed) {
        const Config k = target[i];
        if (k.gpus == 0) continue;
        const Allocation& held = view.allocation(active_[i]);
        auto owns = [&](NodeIdx n) {
            if (held.gpu_type != k.type) return 0;
            for (const NodeShare& s : held.shares)
                if (s.node == n) return s.gpus;
            return 0;
        };
        auto& w = where[i];
        if (k.nodes == 1) {
            // Its own node if it has room, else the fullest node that fits (whole nodes stay free).
            NodeIdx pick = kNoNode;
            for (NodeIdx n = 0; n < free.size(); ++n) {
                if (cluster.nodes[n].gpu_type != k.type || free[n] < k.gpus) continue;
                if (pick == kNoNode || (owns(n) > 0) > (owns(pick) > 0) ||
                    ((owns(n) > 0) == (owns(pick) > 0) && free[n] < free[pick]))
                    pick = n;
            }
            if (pick != kNoNode) w.push_back({pick, k.gpus});
        } else {
            // Whole free nodes, its own first, then in cluster order.
            for (int pass = 0; pass < 2 && static_cast<int>(w.size()) < k.nodes; ++pass)
                for (NodeIdx n = 0; n < free.size() && static_cast<int>(w.size()) < k.nodes; ++n)
                    if (cluster.nodes[n].gpu_type == k.type && free[n] == cluster.nodes[n].gpus &&
                        (pass == 0) == (owns(n) > 0))
                        w.push_back({n, cluster.nodes[n].gpus});
            if (static_cast<int>(w.size()) < k.nodes) w.clear();
        }
        if (w.empty()) {  // fragmented: no place of this shape now, so no GPUs this round
            target[i] = {};
            continue;
        }
        std::sort(w.begin(), w.end(), [](const NodeShare& x, const NodeShare& y) { return x.node < y.node; });
        for (const NodeShare& s : w) free[s.node] -= s.gpus;
    }

    // The actions, each feasible when the engine applies it (in order, on what is free at that point).
    for (NodeIdx n = 0; n < cluster.nodes.size(); ++n) free[n] = view.free_gpus_on(n);
    auto release = [&](JobIdx j) {
        for (const NodeShare& s : view.allocation(j).shares) free[s.node] += s.gpus;
    };
    std::vector<std::size_t> pending;  // jobs still to be started, resized or migrated
    std::vector<char> stopped(jobs, 0);
    for (std::size_t i : changed) {
        const JobIdx j = active_[i];
        const Config cur = current_config(view, j);
        // Stops first; a change of type with a change of count is a stop and a start at the same instant
        // (the engine counts it as a move: a preemption, a migration and a restart).
        if (cur.gpus > 0 && (target[i].gpus == 0 || (target[i].type != cur.type && target[i].gpus != cur.gpus))) {
            out.preempt(j);
            release(j);
            stopped[i] = 1;
        }
        if (target[i].gpus > 0) pending.push_back(i);
    }
    auto fits = [&](std::size_t i) {
        const Allocation& held = view.allocation(active_[i]);
        for (const NodeShare& s : where[i]) {
            int own = 0;
            if (!stopped[i])
                for (const NodeShare& h : held.shares)
                    if (h.node == s.node && held.gpu_type == target[i].type) own = h.gpus;
            if (s.gpus > free[s.node] + own) return false;
        }
        return true;
    };
    while (!pending.empty()) {
        bool progress = false;
        for (std::size_t p = 0; p < pending.size();) {
            const std::size_t i = pending[p];
            if (!fits(i)) {
                ++p;
                continue;
            }
            const JobIdx j = active_[i];
            const Config cur = current_config(view, j);
            if (!stopped[i]) release(j);
            for (const NodeShare& s : where[i]) free[s.node] -= s.gpus;
            if (stopped[i] || cur.gpus == 0)
                out.start(j, target[i].type, target[i].gpus, where[i]);
            else if (cur.gpus != target[i].gpus)
                out.resize(j, target[i].gpus, where[i]);
            else
                out.migrate(j, target[i].type, where[i]);
            ++allocations_[j];
            pending.erase(pending.begin() + static_cast<std::ptrdiff_t>(p));
            progress = true;
        }
        if (progress || pending.empty()) continue;
        // A cycle (each waits for GPUs another holds): the first running one stops and starts later.
        for (std::size_t i : pending)
            if (!stopped[i] && current_config(view, active_[i]).gpus > 0) {
                out.preempt(active_[i]);
                release(active_[i]);
                stopped[i] = 1;
                progress = true;
                break;
            }
        if (!progress) throw InternalError("sia: a placement that fits did not fit");
    }
}

}  // namespace dlsim
