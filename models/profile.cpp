#include "models/profile.hpp"

#include "models/base/input_error.hpp"
#include "models/base/json_fields.hpp"
#include "models/cluster.hpp"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <string>
#include <vector>

namespace dlsim {

namespace jf = json_fields;

constexpr long long kMaxParams = 1'000'000'000'000'000;  // 1e15 parameters

std::optional<std::uint32_t> ProfileSet::find_model(const std::string& name) const {
    for (std::uint32_t i = 0; i < models.size(); ++i)
        if (models[i].name == name) return i;
    return std::nullopt;
}

bool ProfileSet::names_gpu_type(const std::string& lower_name) const {
    for (const auto& m : models)
        if (m.throughput.count(lower_name) != 0) return true;
    return false;
}

namespace {

constexpr long long kMaxBatch = 1'000'000'000;

std::vector<PlacementPoint> parse_placements(const jf::Json& v, const std::string& file, const std::string& path) {
    if (!v.is_array()) jf::fail(file, path, "an array of {\"placement\", \"local_bsz\", \"step_time\"} objects", &v);
    std::vector<PlacementPoint> out;
    for (std::size_t i = 0; i < v.size(); ++i) {
        const std::string ipath = fmt::format("{}[{}]", path, i);
        const auto& e = jf::require_object(v[i], file, ipath);
        jf::check_keys(e, file, ipath, {"placement", "local_bsz", "step_time", "gpu_type"});
        PlacementPoint p;
        if (!e.contains("placement")) jf::fail(file, ipath + ".placement", "GPUs per node as digits 1-9, e.g. \"22\"");
        p.placement = jf::string(e["placement"], file, ipath + ".placement");
        try {
            parse_placement(p.placement);
        } catch (const InputError&) {
            jf::fail(file, ipath + ".placement", "GPUs per node as 1 to 4096 digits 1-9, e.g. \"22\"", &e["placement"]);
        }
        if (!e.contains("local_bsz")) jf::fail(file, ipath + ".local_bsz", "the per-GPU batch size (integer >= 1)");
        p.local_bsz = static_cast<int>(jf::integer(e["local_bsz"], file, ipath + ".local_bsz", 1, kMaxBatch));
        if (!e.contains("step_time")) jf::fail(file, ipath + ".step_time", "the measured step time in s (> 0)");
        p.step_time = jf::number(e["step_time"], file, ipath + ".step_time", 0);
        if (p.step_time <= 0) jf::fail(file, ipath + ".step_time", "a step time in s > 0", &e["step_time"]);
        if (e.contains("gpu_type")) p.gpu_type = lower_ascii(jf::string(e["gpu_type"], file, ipath + ".gpu_type"));
        out.push_back(std::move(p));
    }
    return out;
}

// `pairs`: {gpu_type: {other_model: [self, other]}}, both single-GPU iterations/s > 0. Which models
// exist is checked once all are read (check_pairs).
void parse_pairs(const jf::Json& v, const std::string& file, const std::string& path, ModelProfile& m) {
    const auto& by_type = jf::require_object(v, file, path);
    for (const auto& [type, others] : by_type.items()) {
        const std::string tpath = path + "." + type;
        jf::require_object(others, file, tpath);
        auto [slot, fresh] = m.pairs.try_emplace(lower_ascii(type));
        if (!fresh) jf::fail(file, tpath, "each GPU type once (names are case-insensitive)");
        for (const auto& [other, x] : others.items()) {
            const std::string opath = tpath + "." + other;
            constexpr const char* kWhat = "[self, other]: the two single-GPU iterations/s when co-located, both > 0";
            if (!x.is_array() || x.size() != 2) jf::fail(file, opath, kWhat, &x);
            const double self = jf::number(x[0], file, opath + "[0]", 0);
            const double with = jf::number(x[1], file, opath + "[1]", 0);
            if (!(self > 0 && with > 0)) jf::fail(file, opath, kWhat, &x);
            slot->second[other] = {self, with};
        }
    }
}

// A pair names a model of the profile, on a type where both run alone, and mirrors its listing under the
// other model if there is one.
void check_pairs(const ProfileSet& set, const std::string& file) {
    for (const ModelProfile& m : set.models)
        for (const auto& [type, others] : m.pairs)
            for (const auto& [other, rates] : others) {
                const std::string path = fmt::format("models.{}.pairs.{}.{}", m.name, type, other);
                const auto o = set.find_model(other);
                if (!o) jf::fail(file, path, "the name of a model of this profile as the key");
                const ModelProfile& p = set.models[*o];
                for (const ModelProfile* x : {&m, &p}) {
                    const auto it = x->throughput.find(type);
                    if (it == x->throughput.end() || !(it->second > 0))
                        jf::fail(file, path,
                                 fmt::format("a pair on a type both models run on alone ({} has no {} throughput)",
                                             x->name, type));
                }
                if (&p == &m) continue;
                const auto t = p.pairs.find(type);
                if (t == p.pairs.end()) continue;
                const auto back = t->second.find(m.name);
                if (back != t->second.end() && (back->second[0] != rates[1] || back->second[1] != rates[0]))
                    jf::fail(file, path,
                             fmt::format("the mirror of models.{}.pairs.{}.{} ([{}, {}]), or one listing only", p.name,
                                         type, m.name, back->second[1], back->second[0]));
            }
}

// One PerfParams: every parameter a number >= 0, gamma in [1, 10]; optional micro-batch limits of the type.
PerfParams parse_perf(const jf::Json& v, const std::string& file, const std::string& path) {
    jf::require_object(v, file, path);
    jf::check_keys(
        v, file, path,
        {"alpha_c", "beta_c", "alpha_n", "beta_n", "alpha_r", "beta_r", "gamma", "min_local_bsz", "max_local_bsz"});
    PerfParams p;
    const std::pair<const char*, double*> fields[] = {{"alpha_c", &p.alpha_c}, {"beta_c", &p.beta_c},
                                                      {"alpha_n", &p.alpha_n}, {"beta_n", &p.beta_n},
                                                      {"alpha_r", &p.alpha_r}, {"beta_r", &p.beta_r}};
    for (const auto& [key, slot] : fields) {
        if (!v.contains(key)) jf::fail(file, path + "." + key, "a number >= 0 (seconds, or seconds per unit)");
        *slot = jf::number(v[key], file, path + "." + key, 0);
    }
    if (!v.contains("gamma")) jf::fail(file, path + ".gamma", "the compute/network overlap, a number in [1, 10]");
    p.gamma = jf::number(v["gamma"], file, path + ".gamma", 1);
    if (p.gamma > 10) jf::fail(file, path + ".gamma", "a number in [1, 10]", &v["gamma"]);
    if (p.alpha_c + p.beta_c <= 0) jf::fail(file, path, "a compute time: alpha_c or beta_c > 0", &v);
    if (v.contains("min_local_bsz"))
        p.min_local_bsz =
            static_cast<int>(jf::integer(v["min_local_bsz"], file, path + ".min_local_bsz", 1, kMaxBatch));
    if (v.contains("max_local_bsz"))
        p.max_local_bsz =
            static_cast<int>(jf::integer(v["max_local_bsz"], file, path + ".max_local_bsz", 1, kMaxBatch));
    return p;
}

// One column of a validation table: at least `rows` numbers (rows beyond are kept, unused).
std::vector<double> parse_column(const jf::Json& v, const std::string& file, const std::string& path,
                                 std::size_t rows) {
    if (!v.is_array() || v.size() < rows)
        jf::fail(file, path, fmt::format("an array of at least max_epochs = {} numbers, one per epoch", rows), &v);
    std::vector<double> out;
    out.reserve(v.size());
    for (std::size_t i = 0; i < v.size(); ++i) out.push_back(jf::number(v[i], file, fmt::format("{}[{}]", path, i), 0));
    return out;
}

// One step table: a flat array of (micro-batch, step seconds, sync seconds) triples, micro-batches ascending.
StepTable parse_step_table(const jf::Json& v, const std::string& file, const std::string& path) {
    if (!v.is_array() || v.empty() || v.size() % 3 != 0)
        jf::fail(file, path, "a non-empty flat array of (micro-batch, step seconds, sync seconds) triples", &v);
    // A profile holds a few hundred thousand of these numbers: the element's path is formatted on failure only.
    const auto at = [&](std::size_t i) {
        const jf::Json& x = v[i];
        if (!x.is_number() || !std::isfinite(x.get<double>()) || x.get<double>() < 0)
            return jf::number(x, file, fmt::format("{}[{}]", path, i), 0);  // fails, naming the element
        return x.get<double>();
    };
    StepTable t;
    const std::size_t n = v.size() / 3;
    t.local_bsz.reserve(n), t.step.reserve(n), t.sync.reserve(n);
    for (std::size_t i = 0; i < v.size(); i += 3) {
        const double b = at(i);
        if (!t.local_bsz.empty() && b <= t.local_bsz.back())
            jf::fail(file, fmt::format("{}[{}]", path, i),
                     fmt::format("micro-batches ascending (above {})", t.local_bsz.back()), &v[i]);
        t.local_bsz.push_back(b);
        t.step.push_back(at(i + 1));
        t.sync.push_back(at(i + 2));
    }
    return t;
}

// A goodput block's `measured` entry for one GPU type: step tables by placement and by (nodes, replicas).
MeasuredSteps parse_measured(const jf::Json& v, const std::string& file, const std::string& path) {
    jf::require_object(v, file, path);
    jf::check_keys(v, file, path, {"placements", "shapes"});
    MeasuredSteps m;
    if (v.contains("placements"))
        for (const auto& [key, table] : jf::require_object(v["placements"], file, path + ".placements").items()) {
            const std::string ppath = path + ".placements." + key;
            std::vector<int> digits;
            for (const char ch : key) {
                if (ch < '1' || ch > '9')
                    jf::fail(file, ppath, "a placement (digits 1-9: GPUs on each node) as the key");
                digits.push_back(ch - '0');
            }
            const std::uint64_t k = placement_key(digits);
            if (k == 0) jf::fail(file, ppath, "a placement of at most 19 nodes as the key");
            if (!m.placements.emplace(k, parse_step_table(table, file, ppath)).second)
                jf::fail(file, ppath, "each placement once (rotations are the same placement)");
        }
    if (v.contains("shapes"))
        for (const auto& [key, table] : jf::require_object(v["shapes"], file, path + ".shapes").items()) {
            const std::string spath = path + ".shapes." + key;
            int nodes = 0, replicas = 0;
            const auto x = key.find('x');
            const auto [p1, e1] = std::from_chars(key.data(), key.data() + (x == std::string::npos ? 0 : x), nodes);
            const auto [p2, e2] = x == std::string::npos
                                      ? std::from_chars_result{key.data(), std::errc::invalid_argument}
                                      : std::from_chars(key.data() + x + 1, key.data() + key.size(), replicas);
            if (e1 != std::errc() || e2 != std::errc() || p2 != key.data() + key.size() || nodes < 1 ||
                replicas < nodes)
                jf::fail(file, spath, "\"<nodes>x<replicas>\" as the key, 1 <= nodes <= replicas");
            m.shapes.emplace(std::pair{nodes, replicas}, parse_step_table(table, file, spath));
        }
    return m;
}

// A model's `goodput` block (models/profiles/README.md): Pollux's measured data for one application.
GoodputProfile parse_goodput(const jf::Json& v, const std::string& file, const std::string& path) {
    jf::require_object(v, file, path);
    jf::check_keys(v, file, path,
                   {"init_batch_size", "max_batch_size", "min_local_bsz", "max_local_bsz", "max_epochs", "max_replicas",
                    "fixed_batch_size", "perf", "measured", "validation", "description"});
    GoodputProfile g;
    const std::pair<const char*, int*> ints[] = {{"init_batch_size", &g.init_batch_size},
                                                 {"max_batch_size", &g.max_batch_size},
                                                 {"min_local_bsz", &g.min_local_bsz},
                                                 {"max_local_bsz", &g.max_local_bsz},
                                                 {"max_epochs", &g.max_epochs}};
    for (const auto& [key, slot] : ints) {
        if (!v.contains(key)) jf::fail(file, path + "." + key, "an integer >= 1");
        *slot = static_cast<int>(jf::integer(v[key], file, path + "." + key, 1, kMaxBatch));
    }
    if (v.contains("max_replicas"))
        g.max_replicas = static_cast<int>(jf::integer(v["max_replicas"], file, path + ".max_replicas", 1, kMaxBatch));
    if (v.contains("fixed_batch_size")) {
        g.fixed_batch_size =
            static_cast<int>(jf::integer(v["fixed_batch_size"], file, path + ".fixed_batch_size", 1, kMaxBatch));
        if (g.fixed_batch_size < g.init_batch_size || g.fixed_batch_size > g.max_batch_size)
            jf::fail(file, path + ".fixed_batch_size",
                     fmt::format("a batch size from init_batch_size = {} to max_batch_size = {}", g.init_batch_size,
                                 g.max_batch_size),
                     &v["fixed_batch_size"]);
    }
    if (g.max_batch_size < g.init_batch_size)
        jf::fail(file, path + ".max_batch_size", fmt::format("at least init_batch_size = {}", g.init_batch_size),
                 &v["max_batch_size"]);
    if (g.max_local_bsz < g.min_local_bsz)
        jf::fail(file, path + ".max_local_bsz", fmt::format("at least min_local_bsz = {}", g.min_local_bsz),
                 &v["max_local_bsz"]);
    if (g.max_batch_size < g.min_local_bsz)
        jf::fail(file, path + ".max_batch_size", fmt::format("at least min_local_bsz = {}", g.min_local_bsz),
                 &v["max_batch_size"]);

    if (!v.contains("perf")) jf::fail(file, path + ".perf", "an object of step-time parameters by GPU type");
    const auto& perf = jf::require_object(v["perf"], file, path + ".perf");
    if (perf.empty()) jf::fail(file, path + ".perf", "parameters for at least one GPU type", &perf);
    for (const auto& [type, x] : perf.items()) {
        const std::string tpath = path + ".perf." + type;
        const PerfParams p = parse_perf(x, file, tpath);
        if (!g.perf.emplace(lower_ascii(type), p).second)
            jf::fail(file, tpath, "each GPU type once (names are case-insensitive)");
        if (g.max_local(p) < g.min_local(p))
            jf::fail(file, tpath + (p.max_local_bsz > 0 ? ".max_local_bsz" : ".min_local_bsz"),
                     fmt::format("min_local_bsz {} <= max_local_bsz {} on this type", g.min_local(p), g.max_local(p)),
                     &x);
        if (g.max_batch_size < g.min_local(p))
            jf::fail(file, tpath + ".min_local_bsz", fmt::format("at most max_batch_size = {}", g.max_batch_size), &x);
    }

    if (v.contains("measured"))
        for (const auto& [type, x] : jf::require_object(v["measured"], file, path + ".measured").items()) {
            const std::string tpath = path + ".measured." + type;
            if (g.perf.count(lower_ascii(type)) == 0)
                jf::fail(file, tpath, "a GPU type that `perf` has parameters for");
            if (!g.measured.emplace(lower_ascii(type), parse_measured(x, file, tpath)).second)
                jf::fail(file, tpath, "each GPU type once (names are case-insensitive)");
        }

    if (!v.contains("validation")) jf::fail(file, path + ".validation", "an object of validation tables by batch size");
    const auto& validation = jf::require_object(v["validation"], file, path + ".validation");
    if (validation.empty()) jf::fail(file, path + ".validation", "at least one validated batch size", &validation);
    // Keys sorted by value: the tables are stored by ascending batch size whatever the file's order.
    std::map<int, const jf::Json*> by_size;
    std::map<int, std::string> key_of;
    for (const auto& [key, table] : validation.items()) {
        int b = 0;
        auto [ptr, ec] = std::from_chars(key.data(), key.data() + key.size(), b);
        if (ec != std::errc() || ptr != key.data() + key.size() || b < 1)
            jf::fail(file, path + ".validation." + key, "a batch size (positive integer) as the key");
        if (!by_size.emplace(b, &table).second) jf::fail(file, path + ".validation." + key, "each batch size once");
        key_of[b] = key;
    }
    if (by_size.begin()->first != g.init_batch_size)
        jf::fail(file, path + ".init_batch_size",
                 fmt::format("the smallest validated batch size, {}", by_size.begin()->first), &v["init_batch_size"]);
    const auto rows = static_cast<std::size_t>(g.max_epochs);
    for (const auto& [b, table] : by_size) {
        const std::string tpath = path + ".validation." + key_of[b];
        jf::require_object(*table, file, tpath);
        jf::check_keys(*table, file, tpath, {"progress", "iteration", "grad_sqr", "grad_var"});
        const char* columns[] = {"progress", "iteration", "grad_sqr", "grad_var"};
        std::vector<double>* slots[] = {&g.progress.emplace_back(), &g.iterations.emplace_back(),
                                        &g.grad_sqr.emplace_back(), &g.grad_var.emplace_back()};
        for (std::size_t c = 0; c < 4; ++c) {
            const std::string cpath = tpath + "." + columns[c];
            if (!table->contains(columns[c]))
                jf::fail(file, cpath, fmt::format("an array of at least max_epochs = {} numbers", rows));
            *slots[c] = parse_column((*table)[columns[c]], file, cpath, rows);
            if (slots[c]->size() != slots[0]->size())
                jf::fail(file, cpath, fmt::format("{} numbers, as many as progress", slots[0]->size()),
                         &(*table)[columns[c]]);
        }
        const auto& prog = *slots[0];
        for (std::size_t i = 1; i < prog.size(); ++i)
            if (prog[i] < prog[i - 1])
                jf::fail(file, fmt::format("{}.progress[{}]", tpath, i),
                         fmt::format("progress non-decreasing (at least {})", prog[i - 1]), &(*table)["progress"][i]);
        g.batch_sizes.push_back(b);
    }
    return g;
}

// Fits the iteration-time model to the placement points of one GPU type: the first point's type (points
// naming another type are left out of this fit). Without params there is no communication to fit.
void calibrate(ModelProfile& m) {
    if (m.params <= 0 || m.placements.empty()) return;
    std::vector<PlacementPoint> points;
    for (const auto& p : m.placements)
        if (p.gpu_type == m.placements.front().gpu_type) points.push_back(p);
    if (points.size() < kMinCalibrationPoints) return;
    FitOptions options;
    if (m.gamma) options.fixed_gamma = *m.gamma;
    m.calibration = fit_placements(points, comm_model(m), options);
}

}  // namespace

CommModel comm_model(const ModelProfile& m) {
    CommModel c;
    c.gradient_bytes = static_cast<double>(m.gradient_bytes());
    if (m.gamma) c.gamma = *m.gamma;
    return c;
}

ProfileSet parse_profiles(const std::string& text, const std::string& file) {
    const jf::Json doc = jf::parse_text(text, file);
    jf::require_object(doc, file, "(top level)");
    jf::check_keys(doc, file, "", {"schema", "source", "units", "description", "models"});
    if (doc.contains("schema") && doc["schema"] != "dlsim.profile/1")
        jf::fail(file, "schema", "\"dlsim.profile/1\"", &doc["schema"]);
    ProfileSet set;
    if (doc.contains("source")) set.source = jf::string(doc["source"], file, "source");
    if (doc.contains("units") && doc["units"] != "iterations/s")
        jf::fail(file, "units", "\"iterations/s\"", &doc["units"]);
    if (!doc.contains("models")) jf::fail(file, "models", "an object of models");
    const auto& models = jf::require_object(doc["models"], file, "models");
    if (models.empty()) jf::fail(file, "models", "at least one model", &models);

    for (const auto& [name, v] : models.items()) {
        const std::string path = "models." + name;
        jf::require_object(v, file, path);
        jf::check_keys(v, file, path,
                       {"params", "grad_dtype", "mem_gb", "gamma", "local_bsz", "throughput", "throughput_n", "pairs",
                        "placements", "goodput", "description", "source"});
        ModelProfile m;
        m.name = name;
        // Bounded so that gradient bytes (params x 4) stay inside 64 bits.
        if (v.contains("params")) m.params = jf::integer(v["params"], file, path + ".params", 1, kMaxParams);
        if (v.contains("grad_dtype")) {
            const std::string dt = jf::string(v["grad_dtype"], file, path + ".grad_dtype");
            if (dt == "fp32")
                m.grad_bytes_per_param = 4;
            else if (dt == "fp16" || dt == "bf16")
                m.grad_bytes_per_param = 2;
            else
                jf::fail(file, path + ".grad_dtype", "one of fp32, fp16, bf16", &v["grad_dtype"]);
        }
        if (v.contains("mem_gb")) m.mem_gb = jf::number(v["mem_gb"], file, path + ".mem_gb", 0);
        if (!v.contains("throughput"))
            jf::fail(file, path + ".throughput", "an object of single-GPU iterations/s by GPU type");
        const auto& thr = jf::require_object(v["throughput"], file, path + ".throughput");
        bool any = false;
        for (const auto& [type, x] : thr.items()) {
            const double rate = jf::number(x, file, path + ".throughput." + type, 0);
            if (!m.throughput.emplace(lower_ascii(type), rate).second)
                jf::fail(file, path + ".throughput." + type, "each GPU type once (names are case-insensitive)");
            any = any || rate > 0;
        }
        if (!any) jf::fail(file, path + ".throughput", "a positive throughput on at least one GPU type", &thr);
        if (v.contains("throughput_n")) {
            const auto& tn = jf::require_object(v["throughput_n"], file, path + ".throughput_n");
            for (const auto& [type, points] : tn.items()) {
                const std::string tpath = path + ".throughput_n." + type;
                jf::require_object(points, file, tpath);
                for (const auto& [count, x] : points.items()) {
                    int n = 0;
                    auto [ptr, ec] = std::from_chars(count.data(), count.data() + count.size(), n);
                    if (ec != std::errc() || ptr != count.data() + count.size() || n < 1)
                        jf::fail(file, tpath + "." + count, "a GPU count (positive integer) as the key");
                    m.throughput_n[lower_ascii(type)][n] = jf::number(x, file, tpath + "." + count, 0);
                }
            }
        }
        if (v.contains("pairs")) parse_pairs(v["pairs"], file, path + ".pairs", m);
        if (v.contains("gamma")) {
            const double g = jf::number(v["gamma"], file, path + ".gamma", 1);
            if (g > 10) jf::fail(file, path + ".gamma", "a number in [1, 10]", &v["gamma"]);
            m.gamma = g;
        }
        if (v.contains("local_bsz"))
            m.local_bsz = static_cast<int>(jf::integer(v["local_bsz"], file, path + ".local_bsz", 1, kMaxBatch));
        if (v.contains("placements")) m.placements = parse_placements(v["placements"], file, path + ".placements");
        if (v.contains("goodput")) m.goodput = parse_goodput(v["goodput"], file, path + ".goodput");
        calibrate(m);
        set.models.push_back(std::move(m));
    }
    check_pairs(set, file);
    return set;
}

ProfileSet load_profiles(const std::string& path) { return parse_profiles(jf::read_file(path), path); }

}  // namespace dlsim
