// The goodput model (models/goodput.hpp) on Pollux's measured data: every expected value is computed here
// from the published CSVs and the formulas of Pollux's model written out again (step time, statistical
// efficiency, the 50-candidate batch choice, the fixed-batch split), with the step-time parameters read from
// the bundled models/profiles/pollux_elastic.json. Also: the `goodput` block's load-time checks.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "models/base/input_error.hpp"
#include "models/goodput.hpp"
#include "models/profile.hpp"
#include "tests/support/shared_data.hpp"

using namespace dlsim;
using namespace dlsim::test;

namespace dlsim::test::test_goodput_tests {

namespace {

const std::string kProfile = std::string(DLSIM_SOURCE_DIR) + "/models/profiles/pollux_elastic.json";
const std::string kData = std::string(DLSIM_SHARED_DATA) + "/profiles/pollux";

// A CSV file as columns of text, by header name.
std::map<std::string, std::vector<std::string>> read_csv(const std::string& path) {
    std::ifstream in(path);
    REQUIRE(in);
    std::string line;
    std::getline(in, line);
    std::vector<std::string> names;
    std::stringstream hs(line);
    for (std::string c; std::getline(hs, c, ',');) names.push_back(c);
    std::map<std::string, std::vector<std::string>> cols;
    while (std::getline(in, line)) {
        if (line.empty()) continue;
        std::stringstream ls(line);
        std::size_t i = 0;
        for (std::string c; std::getline(ls, c, ',') && i < names.size(); ++i) cols[names[i]].push_back(c);
    }
    return cols;
}

std::vector<double> numbers(const std::vector<std::string>& col) {
    std::vector<double> out;
    for (const auto& s : col) out.push_back(std::stod(s));
    return out;
}

// One application as the artifact's applications.py sets it up, read from the CSVs.
struct App {
    std::string name;
    int max_epochs = 0, m0 = 0, m_max = 0, min_local = 0, max_local = 0;
    std::map<int, std::map<std::string, std::vector<double>>> val;     // batch size -> column -> rows
    double ac = 0, bc = 0, an = 0, bn = 0, ar = 0, br = 0, gamma = 1;  // from the bundled profile
    // every measured point: nodes, replicas, local batch, step time
    std::vector<double> nodes, replicas, bsz, step;
};

App read_app(const std::string& name, int max_epochs, int max_local_override) {
    App a;
    a.name = name;
    a.max_epochs = max_epochs;
    const std::string dir = kData + "/" + name;
    for (const auto& e : std::filesystem::directory_iterator(dir)) {
        const std::string f = e.path().filename().string();
        if (f.rfind("validation-", 0) != 0) continue;
        const int b = std::stoi(f.substr(11));
        auto cols = read_csv(e.path().string());
        for (const char* c : {"progress", "iteration", "grad_sqr", "grad_var"}) a.val[b][c] = numbers(cols[c]);
    }
    a.m0 = a.val.begin()->first;
    a.m_max = a.val.rbegin()->first;
    auto pl = read_csv(dir + "/placements.csv");
    const auto local = numbers(pl["local_bsz"]);
    a.min_local = static_cast<int>(*std::min_element(local.begin(), local.end()));
    a.max_local =
        max_local_override > 0 ? max_local_override : static_cast<int>(*std::max_element(local.begin(), local.end()));
    for (std::size_t i = 0; i < pl["placement"].size(); ++i) {
        const std::string& p = pl["placement"][i];
        int k = 0;
        for (char c : p) k += c - '0';
        a.nodes.push_back(static_cast<double>(p.size()));
        a.replicas.push_back(k);
        a.bsz.push_back(local[i]);
        a.step.push_back(std::stod(pl["step_time"][i]));
    }
    auto sc = read_csv(dir + "/scalability.csv");
    for (std::size_t i = 0; i < sc["num_nodes"].size(); ++i) {
        a.nodes.push_back(std::stod(sc["num_nodes"][i]));
        a.replicas.push_back(std::stod(sc["num_replicas"][i]));
        a.bsz.push_back(std::stod(sc["local_bsz"][i]));
        a.step.push_back(std::stod(sc["step_time"][i]));
    }
    std::ifstream in(kProfile);
    const auto doc = nlohmann::json::parse(in);
    const auto& p = doc["models"][name]["goodput"]["perf"]["t4"];
    a.ac = p["alpha_c"], a.bc = p["beta_c"], a.an = p["alpha_n"], a.bn = p["beta_n"];
    a.ar = p["alpha_r"], a.br = p["beta_r"], a.gamma = p["gamma"];
    return a;
}

// Pollux's step time: s·T_accum + (T_accum^γ + T_net^γ)^(1/γ).
double hand_step(const App& a, double nodes, double k, double atomic, double accum) {
    const double t_accum = a.ac + a.bc * atomic;
    const double rounds = std::max(k - 2, 1e-8);
    double t_net = 1e-8 + 1e-8 * rounds;
    if (nodes > 1)
        t_net = a.an + a.bn * rounds;
    else if (k > 1)
        t_net = a.ar + a.br * rounds;
    return accum * t_accum + std::pow(std::pow(t_accum, a.gamma) + std::pow(t_net, a.gamma), 1 / a.gamma);
}

// Pollux's get_grad_stats / get_iteration: linear between the validated sizes around m, clamped.
double hand_interp(const App& a, const char* col, double m, int epoch) {
    m = std::clamp(m, static_cast<double>(a.m0), static_cast<double>(a.m_max));
    int lo = a.m0, hi = a.m_max;
    for (const auto& [b, t] : a.val) {
        if (b <= m) lo = b;
        if (b >= m) {
            hi = b;
            break;
        }
    }
    const double vl = a.val.at(lo).at(col)[static_cast<std::size_t>(epoch)];
    const double vh = a.val.at(hi).at(col)[static_cast<std::size_t>(epoch)];
    if (lo == hi) return vl;
    return ((m - lo) * vh + (hi - m) * vl) / (hi - lo);
}

// E(M) = (var + sqr) / (var/scale + sqr) / scale, scale = M / M0.
double hand_eff(const App& a, double sqr, double var, double m) {
    const double scale = m / a.m0;
    return (var + sqr) / (var / scale + sqr) / scale;
}

double hand_epoch_start(const App& a, int e) {
    if (e == 0) return 0;
    double least = 1e300;
    for (const auto& [b, t] : a.val) least = std::min(least, t.at("progress")[static_cast<std::size_t>(e - 1)]);
    return a.m0 * least;
}

int hand_epoch_at(const App& a, double progress) {
    int n = 0;
    for (int e = 1; e <= a.max_epochs; ++e) n += hand_epoch_start(a, e) <= progress ? 1 : 0;
    return n;
}

struct Expected {
    double throughput, efficiency, goodput;
    int batch_size, atomic, accum;
};

Expected hand_point(const App& a, int nodes, int k, int atomic, int accum, int epoch) {
    const double m = static_cast<double>(k) * atomic * (accum + 1);
    const double thr = m / hand_step(a, nodes, k, atomic, accum);
    const double eff = hand_eff(a, hand_interp(a, "grad_sqr", m, epoch), hand_interp(a, "grad_var", m, epoch), m);
    return {thr, eff, thr * eff, static_cast<int>(m), atomic, accum};
}

// The split of a local batch (Pollux's ceil with tolerance 1e-8) and the max_batch cap.
void hand_split(const App& a, int k, double local, double total, int& atomic, int& accum) {
    accum = static_cast<int>(std::ceil(local / a.max_local - 1e-8)) - 1;
    if (k == 1 && total > a.m0 + 1e-8) accum = std::max(accum, 1);
    atomic = static_cast<int>(std::ceil(local / (accum + 1) - 1e-8));
}

Expected hand_fixed(const App& a, int nodes, int k, int m, int epoch) {
    int atomic = 0, accum = 0;
    hand_split(a, k, std::ceil(static_cast<double>(m) / k - 1e-8), m, atomic, accum);
    atomic = std::min(atomic, a.m_max / (k * (accum + 1)));
    return hand_point(a, nodes, k, atomic, accum, epoch);
}

Expected hand_best(const App& a, int nodes, int k, int epoch) {
    const double sqr0 = hand_interp(a, "grad_sqr", a.m0, epoch), var0 = hand_interp(a, "grad_var", a.m0, epoch);
    const double lo = std::max<double>(a.m0, static_cast<double>(a.min_local) * k), hi = a.m_max;
    double best = -1;
    int best_atomic = 0, best_accum = 0;
    for (int i = 0; i < 50; ++i) {
        // numpy.geomspace(lo, hi, 50)
        double m = std::pow(10.0, std::log10(lo) + i * (std::log10(hi) - std::log10(lo)) / 49);
        if (i == 0) m = lo;
        if (i == 49) m = hi;
        int atomic = 0, accum = 0;
        hand_split(a, k, m / k, m, atomic, accum);
        double g = 0;
        if (atomic >= a.min_local && atomic <= a.max_local) {
            const double mm = static_cast<double>(k) * atomic * (accum + 1);
            g = mm / hand_step(a, nodes, k, atomic, accum) * hand_eff(a, sqr0, var0, mm);
        }
        if (g > best) best = g, best_atomic = atomic, best_accum = accum;
    }
    best_atomic = std::min(best_atomic, a.m_max / (k * (best_accum + 1)));
    return hand_point(a, nodes, k, best_atomic, best_accum, epoch);
}

void check(const GoodputPoint& got, const Expected& want) {
    CHECK(got.batch_size == want.batch_size);
    CHECK(got.batch.atomic_bsz == want.atomic);
    CHECK(got.batch.accum_steps == want.accum);
    CHECK(got.throughput == Approx(want.throughput).epsilon(1e-6));
    CHECK(got.efficiency == Approx(want.efficiency).epsilon(1e-6));
    CHECK(got.goodput == Approx(want.goodput).epsilon(1e-6));
}

// One application: the loaded block equals the CSVs, epochs and work match them, and at three
// (placement, batch, progress) points the model's fixed-batch and chosen-batch goodput match the hand values.
void check_app(const std::string& name, int max_epochs, int max_local_override = 0) {
    if (!shared_data_present(kData + "/" + name)) return;
    const App a = read_app(name, max_epochs, max_local_override);
    const ProfileSet set = load_profiles(kProfile);
    const auto idx = set.find_model(name);
    REQUIRE(idx);
    REQUIRE(set.models[*idx].goodput);
    const GoodputProfile& g = *set.models[*idx].goodput;
    CHECK(g.init_batch_size == a.m0);
    CHECK(g.max_batch_size == a.m_max);
    CHECK(g.min_local_bsz == a.min_local);
    CHECK(g.max_local_bsz == a.max_local);
    CHECK(g.max_epochs == a.max_epochs);
    REQUIRE(g.batch_sizes.size() == a.val.size());
    const PerfParams* p = g.perf_for("t4");
    REQUIRE(p != nullptr);

    // Work: epoch starts, completion, the epoch at and just before each start.
    for (int e = 0; e <= a.max_epochs; ++e) CHECK(g.epoch_start(e) == Approx(hand_epoch_start(a, e)).epsilon(1e-12));
    CHECK(g.completion_work() == Approx(hand_epoch_start(a, a.max_epochs)).epsilon(1e-12));
    for (int e = 1; e <= a.max_epochs; ++e) {
        const double s = hand_epoch_start(a, e);
        CHECK(g.epoch_at(s) == hand_epoch_at(a, s));
        CHECK(g.epoch_at(s * (1 - 1e-9)) == hand_epoch_at(a, s * (1 - 1e-9)));
    }
    CHECK(g.epoch_at(hand_epoch_start(a, a.max_epochs)) == a.max_epochs);
    // Iterations and statistics between and at validated sizes.
    const int mid = (a.m0 + std::next(a.val.begin())->first) / 2 + 1;
    CHECK(g.iterations_at(mid, a.max_epochs - 1) ==
          Approx(hand_interp(a, "iteration", mid, a.max_epochs - 1)).epsilon(1e-12));
    CHECK(g.grad_stats(a.m_max * 2.0, 0).second == Approx(hand_interp(a, "grad_var", a.m_max, 0)).epsilon(1e-12));

    // Three (nodes, replicas, fixed batch, fraction of the job's work) points.
    const auto size = [&](std::size_t i) { return std::next(a.val.begin(), static_cast<long>(i))->first; };
    struct Pt {
        int nodes, replicas, batch;
        double fraction;
    };
    const Pt pts[] = {{1, 1, size(1), 0.0}, {1, 4, size(2), 0.35}, {3, 12, a.m_max, 0.9}};
    const double work = hand_epoch_start(a, a.max_epochs);
    for (const Pt& pt : pts) {
        const double progress = pt.fraction * work;
        const int epoch = hand_epoch_at(a, progress);
        INFO(name << " nodes " << pt.nodes << " replicas " << pt.replicas << " batch " << pt.batch << " epoch "
                  << epoch);
        REQUIRE(g.epoch_at(progress) == epoch);
        const Expected fixed = hand_fixed(a, pt.nodes, pt.replicas, pt.batch, epoch);
        check(fixed_batch(g, *p, pt.nodes, pt.replicas, pt.batch, epoch), fixed);
        const Expected best = hand_best(a, pt.nodes, pt.replicas, epoch);
        check(best_batch(g, *p, pt.nodes, pt.replicas, epoch), best);
        // The model's step time of the chosen batch, by the formula.
        const GoodputPoint got = best_batch(g, *p, pt.nodes, pt.replicas, epoch);
        CHECK(got.step_seconds == Approx(hand_step(a, pt.nodes, pt.replicas, best.atomic, best.accum)).epsilon(1e-6));
        CHECK(step_seconds(*p, pt.nodes, pt.replicas, got.batch) == Approx(got.step_seconds).epsilon(1e-12));
    }
    // The profile's single-GPU throughput: optimizer steps/s at M0 on one GPU.
    const Expected one = hand_fixed(a, 1, 1, a.m0, 0);
    CHECK(set.models[*idx].throughput.at("t4") == Approx(1 / hand_step(a, 1, 1, one.atomic, one.accum)).epsilon(1e-9));
    CHECK(set.models[*idx].local_bsz == one.atomic);
}

}  // namespace

TEST_CASE("goodput bert: throughput, efficiency and batch choice match Pollux's formulas on its data",
          "[calibration][shared-data]") {
    check_app("bert", 2);
}

TEST_CASE("goodput cifar10: throughput, efficiency and batch choice match Pollux's formulas on its data",
          "[calibration][shared-data]") {
    check_app("cifar10", 100);
}

TEST_CASE("goodput deepspeech2: throughput, efficiency and batch choice match Pollux's formulas on its data",
          "[calibration][shared-data]") {
    check_app("deepspeech2", 80);
}

TEST_CASE("goodput imagenet: throughput, efficiency and batch choice match Pollux's formulas on its data",
          "[calibration][shared-data]") {
    check_app("imagenet", 90);
}

TEST_CASE("goodput ncf: throughput, efficiency and batch choice match Pollux's formulas on its data",
          "[calibration][shared-data]") {
    check_app("ncf", 10);
}

TEST_CASE("goodput yolov3: throughput, efficiency and batch choice match Pollux's formulas on its data",
          "[calibration][shared-data]") {
    check_app("yolov3", 50, 8);
}

// The fitted step-time model against every measured point: mean absolute percentage error per app
// (measured with the bundled profile: 6.5 % bert to 10.0 % cifar10).
TEST_CASE("goodput fit: modelled step time within 11% MAPE of Pollux's measurements per application",
          "[calibration][shared-data]") {
    if (!shared_data_present(kData)) return;
    for (const char* name : {"bert", "cifar10", "deepspeech2", "imagenet", "ncf", "yolov3"}) {
        const App a = read_app(name, 1, 0);
        double sum = 0;
        for (std::size_t i = 0; i < a.step.size(); ++i)
            sum += std::abs(hand_step(a, a.nodes[i], a.replicas[i], a.bsz[i], 0) / a.step[i] - 1);
        const double mape = sum / static_cast<double>(a.step.size());
        std::printf("goodput fit %-12s step-time MAPE %5.2f%% over %zu points\n", name, 100 * mape, a.step.size());
        INFO(name);
        CHECK(mape <= 0.11);
    }
}

namespace {

// A one-application profile whose goodput block is `block`.
std::string profile_with(const std::string& block) {
    return R"({"schema": "dlsim.profile/1", "models": {"m": {"throughput": {"t4": 1}, "goodput": )" + block + "}}}";
}

std::string block(const std::string& gamma, const std::string& progress) {
    return R"({"init_batch_size": 8, "max_batch_size": 16, "min_local_bsz": 2, "max_local_bsz": 8, "max_epochs": 2,
      "perf": {"t4": {"alpha_c": 0.1, "beta_c": 0.01, "alpha_n": 0.2, "beta_n": 0.01, "alpha_r": 0.1,
                      "beta_r": 0.001, "gamma": )" +
           gamma + R"(}},
      "validation": {"8": {"progress": )" +
           progress + R"(, "iteration": [1, 2], "grad_sqr": [1, 1], "grad_var": [2, 2]},
                     "16": {"progress": [1, 2], "iteration": [1, 2], "grad_sqr": [1, 1], "grad_var": [2, 2]}}})";
}

}  // namespace

TEST_CASE("goodput block: a well-formed block loads, sorted by batch size", "[bad-input]") {
    const ProfileSet set = parse_profiles(profile_with(block("2", "[1, 2]")), "p.json");
    const GoodputProfile& g = *set.models.at(0).goodput;
    CHECK(g.batch_sizes == std::vector<int>{8, 16});
    CHECK(g.perf_for("t4")->gamma == 2);
    CHECK(g.perf_for("a100") == nullptr);
    CHECK(g.completion_work() == 16);  // M0 × the smaller progress at the end of epoch 1
}

TEST_CASE("goodput block: a type's own micro-batch limits replace the application's in the batch choice",
          "[bad-input]") {
    // The gamma slot takes the rest of the t4 entry: limits 4..4 on t4 against the application's 2..8.
    const ProfileSet typed =
        parse_profiles(profile_with(block(R"(2, "min_local_bsz": 4, "max_local_bsz": 4)", "[1, 2]")), "p.json");
    const ProfileSet plain = parse_profiles(profile_with(block("2", "[1, 2]")), "p.json");
    const GoodputProfile& g = *typed.models.at(0).goodput;
    const GoodputProfile& a = *plain.models.at(0).goodput;
    const PerfParams& p = *g.perf_for("t4");
    CHECK(p.min_local_bsz == 4);
    CHECK(p.max_local_bsz == 4);
    CHECK(g.min_local(p) == 4);
    CHECK(g.max_local(p) == 4);
    CHECK(a.min_local(*a.perf_for("t4")) == 2);  // 0 in the entry: the application's
    CHECK(a.max_local(*a.perf_for("t4")) == 8);
    // Batch 8 on one GPU: the application's limit 8 takes it in one micro-batch; the type's limit 4 needs
    // ceil(8/4) - 1 = 1 accumulation step of 4.
    CHECK(fixed_batch(a, *a.perf_for("t4"), 1, 1, 8, 0).batch.atomic_bsz == 8);
    CHECK(fixed_batch(a, *a.perf_for("t4"), 1, 1, 8, 0).batch.accum_steps == 0);
    const GoodputPoint f = fixed_batch(g, p, 1, 1, 8, 0);
    CHECK(f.batch.atomic_bsz == 4);
    CHECK(f.batch.accum_steps == 1);
    // Step time 1·(0.1 + 0.04) + ((0.14)^2 + (1e-8 + 1e-8·1e-8)^2)^(1/2) = 0.28 s; batch 8: 8 / 0.28 samples/s.
    CHECK(f.step_seconds == Approx(0.28).epsilon(1e-9));
    CHECK(f.throughput == Approx(8 / 0.28).epsilon(1e-9));
    // Pollux's choice: every candidate's micro-batch within [4, 4]; 4 GPUs × min 4 = 16 <= 16 still runs,
    // 5 GPUs × 4 = 20 > 16 does not (the application's min 2 would allow 5 × 2 = 10).
    const GoodputPoint b = best_batch(g, p, 1, 1, 0);
    CHECK(b.batch.atomic_bsz == 4);
    CHECK(best_batch(g, p, 1, 4, 0).goodput > 0);
    CHECK(best_batch(g, p, 2, 5, 0).goodput == 0);
    CHECK(best_batch(a, *a.perf_for("t4"), 2, 5, 0).goodput > 0);
    // A type whose limits cross the application's are refused, naming the entry.
    CHECK_THROWS_WITH(parse_profiles(profile_with(block(R"(2, "max_local_bsz": 1)", "[1, 2]")), "p.json"),
                      Catch::Contains("models.m.goodput.perf.t4.max_local_bsz") &&
                          Catch::Contains("min_local_bsz 2 <= max_local_bsz 1"));
    CHECK_THROWS_WITH(parse_profiles(profile_with(block(R"(2, "min_local_bsz": 17)", "[1, 2]")), "p.json"),
                      Catch::Contains("models.m.goodput.perf.t4") && Catch::Contains("17"));
}

TEST_CASE("goodput block: gamma outside [1, 10] and a table shorter than max_epochs name their JSON path",
          "[bad-input]") {
    CHECK_THROWS_WITH(parse_profiles(profile_with(block("11", "[1, 2]")), "p.json"),
                      Catch::Contains("p.json") && Catch::Contains("models.m.goodput.perf.t4.gamma") &&
                          Catch::Contains("[1, 10]") && Catch::Contains("11"));
    CHECK_THROWS_WITH(
        parse_profiles(profile_with(block("2", "[1]")), "p.json"),
        Catch::Contains("models.m.goodput.validation.8.progress") && Catch::Contains("at least max_epochs = 2"));
    CHECK_THROWS_WITH(
        parse_profiles(profile_with(block("2", "[2, 1]")), "p.json"),
        Catch::Contains("models.m.goodput.validation.8.progress[1]") && Catch::Contains("non-decreasing"));
    std::string wrong_m0 = block("2", "[1, 2]");
    wrong_m0.replace(wrong_m0.find("\"init_batch_size\": 8"), 20, "\"init_batch_size\": 16");
    CHECK_THROWS_WITH(
        parse_profiles(profile_with(wrong_m0), "p.json"),
        Catch::Contains("models.m.goodput.init_batch_size") && Catch::Contains("the smallest validated batch size, 8"));
}

TEST_CASE("goodput block: a malformed measured entry names its JSON path", "[bad-input]") {
    // block()'s text with a measured entry for t4 (or another type) before its validation tables.
    const auto with = [](const std::string& measured) {
        std::string b = block("2", "[1, 2]");
        b.replace(b.find("\"validation\""), 0, "\"measured\": " + measured + ", ");
        return profile_with(b);
    };
    const ProfileSet ok = parse_profiles(with(R"({"t4": {"placements": {"21": [2, 1, 0.1, 4, 2, 0.1]},
                                        "shapes": {"2x3": [2, 3, 1, 8, 9, 1]}}})"),
                                         "p.json");
    const MeasuredSteps& m = *ok.models.at(0).goodput->measured_for("t4");
    CHECK(m.placements.count(12) == 1);  // "21" is stored as its smallest rotation
    CHECK(m.at(std::vector<int>{1, 2}, 3)->step == Approx(1.5).epsilon(1e-15));
    CHECK(m.at(std::vector<int>{1, 2}, 6)->step == Approx(7).epsilon(1e-15));  // beyond the placement: the shape
    CHECK_FALSE(m.at(std::vector<int>{1, 1, 1}, 2));                           // no shape 3x3
    CHECK_THROWS_WITH(parse_profiles(with(R"({"a100": {}})"), "p.json"),
                      Catch::Contains("models.m.goodput.measured.a100") && Catch::Contains("`perf` has parameters"));
    CHECK_THROWS_WITH(parse_profiles(with(R"({"t4": {"placements": {"20": [2, 1, 0]}}})"), "p.json"),
                      Catch::Contains("models.m.goodput.measured.t4.placements.20") && Catch::Contains("digits 1-9"));
    CHECK_THROWS_WITH(parse_profiles(with(R"({"t4": {"shapes": {"3x2": [2, 1, 0]}}})"), "p.json"),
                      Catch::Contains("measured.t4.shapes.3x2") && Catch::Contains("nodes <= replicas"));
    CHECK_THROWS_WITH(parse_profiles(with(R"({"t4": {"shapes": {"1x2": [2, 1, 0, 2, 1, 0]}}})"), "p.json"),
                      Catch::Contains("measured.t4.shapes.1x2[3]") && Catch::Contains("ascending"));
    CHECK_THROWS_WITH(parse_profiles(with(R"({"t4": {"shapes": {"1x2": [2, -1, 0]}}})"), "p.json"),
                      Catch::Contains("measured.t4.shapes.1x2[1]") && Catch::Contains(">= 0"));
    CHECK_THROWS_WITH(parse_profiles(with(R"({"t4": {"shapes": {"1x2": [2, 1]}}})"), "p.json"),
                      Catch::Contains("measured.t4.shapes.1x2") && Catch::Contains("triples"));
}

}  // namespace dlsim::test::test_goodput_tests
