// The pipe protocol (policies/foreign/PIPE_PROTOCOL.md): one JSON line from dlsim per policy call (what changed,
// and the part of the view that changed), one JSON line back (actions, next call). dlsim keeps a copy of
// what it last sent of every job, per-node free count and the running list, so a call sends only what
// differs: the message is O(changes) (plus O(running + nodes) comparisons in memory), and its buffers are
// reused from call to call (only nlohmann's SAX reader makes its small token buffers anew for each answer).
#include "policies/foreign/pipe_policy.hpp"

#include "models/base/input_error.hpp"
#include "models/base/input_text.hpp"
#include "models/base/json_fields.hpp"
#include "policies/foreign/child_process.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <iterator>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <system_error>

namespace dlsim {

namespace {

constexpr const char* kProtocol = "dlsim.pipe/1";
/// dlsim's own parameters of an exec: policy start with this (the child is not sent them).
constexpr std::string_view kOwnPrefix = "exec_";
constexpr const char* kTimeoutParam = "exec_timeout";

/// What dlsim last sent of a job's changing fields (JobInfo's names), to send only what differs.
struct JobDynamics {
    JobState state = JobState::Pending;
    Time first_start = 0, finish = 0, attained = 0;
    std::uint32_t preemptions = 0, migrations = 0;
    GpuTypeIdx gpu_type = 0;
    int alloc_gpus = 0;
    double rate = 0;
    Time stint_start = 0, progress_from = 0;
    double remaining = 0;
    bool operator==(const JobDynamics&) const = default;

    static JobDynamics of(const JobInfo& j) {
        return {j.state,    j.first_start, j.finish, j.attained,    j.preemptions,   j.migrations,
                j.gpu_type, j.alloc_gpus,  j.rate,   j.stint_start, j.progress_from, j.remaining};
    }
};

/// Reads one reply line ({"actions": [...], "next_call": µs or null, "error": text}) straight into the
/// Decisions, without building a document (SAX): nothing is allocated per call but an error's message.
class ReplyReader final : public nlohmann::json_sax<nlohmann::json> {
public:
    ReplyReader(Decisions& out, std::size_t num_jobs, std::size_t num_types)
        : out_(out), num_jobs_(num_jobs), num_types_(num_types) {}

    /// Empty when the line was a well-formed reply; else what was wrong.
    const std::string& problem() const { return problem_; }
    /// The child's own error report ("error" member), if it sent one.
    const std::string& child_error() const { return child_error_; }
    bool has_child_error() const { return has_error_; }

    bool null() override {
        if (where_ == Where::Top && member_ == Member::NextCall) return next_call(kNever);
        return unexpected("null");
    }
    bool boolean(bool) override { return unexpected("true/false"); }
    bool number_integer(number_integer_t x) override {
        if (where_ == Where::Top && member_ == Member::NextCall) return next_call(x);
        return unexpected("a negative number");
    }
    bool number_unsigned(number_unsigned_t x) override {
        if (where_ == Where::Top && member_ == Member::NextCall)
            return x > static_cast<number_unsigned_t>(kNever) ? unexpected("a number beyond 2^63-1")
                                                              : next_call(static_cast<Time>(x));
        if (where_ == Where::Action) {
            if (field_ == Reason || field_ == WaitRest || field_ == Cause) return unexpected("a number");
            if (x > std::numeric_limits<std::uint32_t>::max()) return unexpected("a number beyond 2^32-1");
            value_[field_] = static_cast<std::uint32_t>(x);
            return true;
        }
        return unexpected("a number");
    }
    bool number_float(number_float_t, const string_t&) override { return unexpected("a fractional number"); }
    bool string(string_t& s) override {
        if (where_ == Where::Top && member_ == Member::Error) {
            child_error_ = s;
            has_error_ = true;
            return true;
        }
        if (where_ == Where::Action && (field_ == Reason || field_ == WaitRest)) {
            if (const auto r = wait_reason_named(s)) {
                value_[field_] = static_cast<std::uint32_t>(*r);
                return true;
            }
            return fail(fmt::format("action {}: {}: unknown wait reason \"{}\" (expected one of {})", action_index_,
                                    kFieldNames[field_], s, wait_reason_list()));
        }
        if (where_ == Where::Action && field_ == Cause) {
            if (const auto c = policy_stop_cause_named(s)) {
                value_[field_] = static_cast<std::uint32_t>(*c);
                return true;
            }
            return fail(fmt::format("action {}: cause: unknown cause \"{}\" (expected {})", action_index_, s,
                                    kPolicyStopCauseList));
        }
        return unexpected("a string");
    }
    bool binary(binary_t&) override { return unexpected("binary"); }
    bool start_object(std::size_t) override {
        if (where_ == Where::Start) {
            where_ = Where::Top;
            return true;
        }
        if (where_ == Where::Actions) {
            where_ = Where::Action;
            present_ = 0;
            return true;
        }
        return unexpected("an object");
    }
    bool key(string_t& k) override {
        if (where_ == Where::Top) {
            if (k == "actions")
                member_ = Member::Actions;
            else if (k == "next_call")
                member_ = Member::NextCall;
            else if (k == "error")
                member_ = Member::Error;
            else
                return fail(fmt::format("unknown member \"{}\" (expected actions, next_call, error)", k));
            const auto bit = 1u << static_cast<int>(member_);
            if (members_ & bit) return fail(fmt::format("member \"{}\" twice", k));
            members_ |= bit;
            return true;
        }
        // Where::Action
        for (field_ = 0; field_ < kFields; ++field_)
            if (k == kFieldNames[field_]) break;
        if (field_ == kFields)
            return fail(
                fmt::format("action {}: unknown field \"{}\" (expected one of start, preempt, migrate, resize, "
                            "pack, wait, wait_rest, with type, gpus, partner, reason, behind, cause, by)",
                            action_index_, k));
        if (present_ & (1u << field_)) return fail(fmt::format("action {}: field \"{}\" twice", action_index_, k));
        present_ |= 1u << field_;
        return true;
    }
    bool end_object() override {
        if (where_ == Where::Action) {
            where_ = Where::Actions;
            ++action_index_;
            return emit();
        }
        where_ = Where::End;
        return true;
    }
    bool start_array(std::size_t) override {
        if (where_ == Where::Top && member_ == Member::Actions) {
            where_ = Where::Actions;
            return true;
        }
        return unexpected("an array");
    }
    bool end_array() override {
        where_ = Where::Top;
        return true;
    }
    bool parse_error(std::size_t position, const std::string&, const nlohmann::detail::exception& e) override {
        // nlohmann's text starts with "[json.exception.parse_error.101] parse error at line 1, column 5: ".
        std::string what = e.what();
        const std::size_t cut = what.find(": ");
        if (cut != std::string::npos) what = what.substr(cut + 2);
        return fail(fmt::format("not valid JSON at byte {} ({})", position, what));
    }

private:
    enum class Where { Start, Top, Actions, Action, End };
    enum class Member { None, Actions, NextCall, Error };
    enum Field {
        Start,
        Preempt,
        Migrate,
        Resize,
        Pack,
        Wait,
        WaitRest,
        Type,
        Gpus,
        Partner,
        Reason,
        Behind,
        Cause,
        By,
        kFields
    };
    static constexpr const char* kFieldNames[kFields] = {"start",  "preempt",   "migrate", "resize", "pack",
                                                         "wait",   "wait_rest", "type",    "gpus",   "partner",
                                                         "reason", "behind",    "cause",   "by"};

    bool fail(std::string what) {
        if (problem_.empty()) problem_ = std::move(what);
        return false;
    }
    bool unexpected(const char* what) {
        switch (where_) {
            case Where::Start:
                return fail(fmt::format("expected an object, got {}", what));
            case Where::Top:
                if (member_ == Member::Actions) return fail(fmt::format("actions: expected an array, got {}", what));
                if (member_ == Member::NextCall)
                    return fail(fmt::format("next_call: expected microseconds (an integer) or null, got {}", what));
                if (member_ == Member::Error) return fail(fmt::format("error: expected a string, got {}", what));
                return fail(fmt::format("unexpected {}", what));
            case Where::Actions:
                return fail(fmt::format("action {}: expected an object, got {}", action_index_, what));
            case Where::Action:
                if (field_ == Reason || field_ == WaitRest || field_ == Cause)
                    return fail(fmt::format("action {}: field \"{}\": expected a name (a string), got {}",
                                            action_index_, kFieldNames[field_], what));
                return fail(fmt::format("action {}: field \"{}\": expected a non-negative integer, got {}",
                                        action_index_, kFieldNames[field_], what));
            case Where::End:
                return fail(fmt::format("unexpected {} after the reply", what));
        }
        return false;
    }
    bool next_call(Time t) {
        out_.next_call = t;
        return true;
    }
    bool has(Field f) const { return (present_ >> f) & 1u; }
    /// The action just read, checked for its shape (the engine checks whether it is allowed).
    bool emit() {
        const std::size_t a = action_index_ - 1;
        int kinds = 0;
        Field kind = kFields;
        for (Field f : {Start, Preempt, Migrate, Resize, Pack, Wait, WaitRest})
            if (has(f)) {
                ++kinds;
                kind = f;
            }
        if (kinds != 1)
            return fail(fmt::format(
                "action {}: expected exactly one of start, preempt, migrate, resize, pack, wait, wait_rest", a));
        const std::uint32_t needs = kind == Start     ? (1u << Type) | (1u << Gpus)
                                    : kind == Migrate ? (1u << Type)
                                    : kind == Resize  ? (1u << Gpus)
                                    : kind == Pack    ? (1u << Partner)
                                    : kind == Wait    ? (1u << Reason)
                                                      : 0u;
        const std::uint32_t optional = kind == Preempt                    ? (1u << Cause) | (1u << By)
                                       : kind == Wait || kind == WaitRest ? (1u << Behind)
                                                                          : 0u;
        const std::uint32_t extra = present_ & ~(needs | optional | (1u << kind));
        if ((present_ & needs) != needs || extra != 0) {
            static constexpr const char* kShapes[] = {"{\"start\": j, \"type\": t, \"gpus\": n}",
                                                      "{\"preempt\": j} (optionally with \"cause\": name, \"by\": k)",
                                                      "{\"migrate\": j, \"type\": t}",
                                                      "{\"resize\": j, \"gpus\": n}",
                                                      "{\"pack\": j, \"partner\": p}",
                                                      "{\"wait\": j, \"reason\": name} (optionally with \"behind\": k)",
                                                      "{\"wait_rest\": reason} (optionally with \"behind\": k)"};
            return fail(fmt::format("action {}: expected {}", a, kShapes[kind]));
        }
        for (Field f : {Behind, By})
            if (has(f) && value_[f] >= num_jobs_)
                return fail(fmt::format("action {}: {}: job {} does not exist (the run has {} jobs)", a, kFieldNames[f],
                                        value_[f], num_jobs_));
        if (kind == WaitRest) {
            out_.wait_rest(static_cast<WaitReason>(value_[WaitRest]), has(Behind) ? value_[Behind] : kNobody);
            return true;
        }
        const JobIdx j = value_[kind];
        if (j >= num_jobs_)
            return fail(fmt::format("action {}: job {} does not exist (the run has {} jobs)", a, j, num_jobs_));
        if (has(Type) && value_[Type] >= num_types_)
            return fail(fmt::format("action {}: GPU type {} does not exist (the cluster has {} types)", a, value_[Type],
                                    num_types_));
        constexpr auto kMaxGpus = static_cast<std::uint32_t>(std::numeric_limits<int>::max());
        if (has(Gpus) && (value_[Gpus] == 0 || value_[Gpus] > kMaxGpus))
            return fail(fmt::format("action {}: gpus: expected a positive count, got {}", a, value_[Gpus]));
        if (has(Partner) && value_[Partner] >= num_jobs_)
            return fail(fmt::format("action {}: partner job {} does not exist (the run has {} jobs)", a,
                                    value_[Partner], num_jobs_));
        const auto t = static_cast<GpuTypeIdx>(value_[Type]);
        const int n = static_cast<int>(value_[Gpus]);
        switch (kind) {
            case Start:
                out_.start(j, t, n);
                break;
            case Preempt:
                out_.preempt(j, has(Cause) ? static_cast<StopCause>(value_[Cause]) : StopCause::Unstated,
                             has(By) ? value_[By] : kNobody);
                break;
            case Wait:
                out_.wait(j, static_cast<WaitReason>(value_[Reason]), has(Behind) ? value_[Behind] : kNobody);
                break;
            case Migrate:
                out_.migrate(j, t);
                break;
            case Resize:
                out_.resize(j, n);
                break;
            case Pack:
                out_.pack(j, value_[Partner]);
                break;
            default:
                break;
        }
        return true;
    }

    Decisions& out_;
    std::size_t num_jobs_, num_types_;
    Where where_ = Where::Start;
    Member member_ = Member::None;
    std::uint32_t members_ = 0;  // the top-level members seen (each at most once)
    int field_ = 0;
    std::uint32_t present_ = 0;
    std::uint32_t value_[kFields] = {};
    std::size_t action_index_ = 0;
    std::string problem_, child_error_;
    bool has_error_ = false;
};

/// The start of a line as quoted in an error (long replies cut, control bytes escaped).
std::string quote_start(std::string_view line) {
    constexpr std::size_t kMax = 120;
    return fmt::format("'{}{}'", printable(line.substr(0, kMax)), line.size() > kMax ? "..." : "");
}

}  // namespace

PipeReply parse_pipe_reply(std::string_view line, Decisions& out, std::size_t num_jobs, std::size_t num_types) {
    ReplyReader reader(out, num_jobs, num_types);
    nlohmann::json::sax_parse(line.begin(), line.end(), &reader);
    return {reader.problem(), reader.has_child_error(), reader.child_error()};
}

namespace {

class PipePolicy final : public Policy {
public:
    PipePolicy(std::string name, const std::vector<std::string>& argv, double timeout_seconds,
               const std::map<std::string, std::string>& child_params, const MakeContext& context)
        : name_(std::move(name)),
          timeout_(std::chrono::duration_cast<ChildProcess::Clock::duration>(
              std::chrono::duration<double>(timeout_seconds))),
          timeout_seconds_(timeout_seconds) {
        if (context.cluster == nullptr)
            throw InternalError("policy " + name_ + ": made without a cluster (the pipe needs the run's context)");
        num_jobs_ = context.num_jobs;
        num_types_ = context.cluster->gpu_types.size();
        try {
            child_ = std::make_unique<ChildProcess>(argv);
        } catch (const std::system_error& e) {
            throw InputError(fmt::format("policy {}: cannot start '{}': {}", name_, argv[0], e.code().message()));
        }
        handshake(child_params, context);
        sent_.resize(num_jobs_);
        stamp_.assign(num_jobs_, 0);
        node_free_.resize(context.cluster->nodes.size());
        for (std::size_t n = 0; n < node_free_.size(); ++n) node_free_[n] = context.cluster->nodes[n].gpus;
    }

    ~PipePolicy() override {
        // A child that ends cleanly exits when its input closes; one that does not is killed. Either way it
        // is reaped here, on success and while an error unwinds alike.
        if (child_)
            child_->finish(std::min<std::chrono::milliseconds>(
                std::chrono::duration_cast<std::chrono::milliseconds>(timeout_), std::chrono::seconds(5)));
    }

    void decide(const ClusterView& view, const Changes& changes, Decisions& out) override {
        ++call_;
        write_call(view, changes);
        exchange();
        const PipeReply reply =
            parse_pipe_reply(std::string_view(line_.data(), line_.size()), out, num_jobs_, num_types_);
        if (reply.has_child_error)
            fail(fmt::format("call {}: the policy reported an error: {}", call_, printable(reply.child_error)));
        if (!reply.problem.empty())
            fail(fmt::format("call {}: bad reply: {}: {}", call_, printable(reply.problem), quote_start(line_)));
        // The jobs these actions name change state by the next call, even those no list will name (a job
        // started and preempted in one answer): the next call compares them with what was sent.
        acted_.clear();
        for (const Action& a : out.actions) acted_.push_back(a.job);
    }

private:
    [[noreturn]] void fail(const std::string& what) {
        child_->kill_now();
        throw InputError(fmt::format("policy {}: {}", name_, what));
    }

    /// Sends buf_ and reads one line into line_, or fails naming the call (or the handshake) and why: the
    /// child's exit status, or the timeout.
    void exchange() {
        const auto deadline = ChildProcess::Clock::now() + timeout_;
        ChildProcess::Io io = child_->write_all(std::string_view(buf_.data(), buf_.size()), deadline);
        if (io == ChildProcess::Io::Ok) io = child_->read_line(line_, deadline);
        if (io == ChildProcess::Io::Ok) return;
        const std::string what = call_ == 0 ? std::string("handshake") : fmt::format("call {}", call_);
        if (io == ChildProcess::Io::TooLong)
            fail(fmt::format("{}: the child's answer is longer than {} MiB without a line end; it was killed", what,
                             ChildProcess::kMaxLine >> 20));
        if (io == ChildProcess::Io::TimedOut) {
            child_->kill_now();
            fail(fmt::format("{}: the child did not answer within {} s (parameter {}); it was killed", what,
                             timeout_seconds_, kTimeoutParam));
        }
        // It closed its end: it has exited, or is about to (or will be killed after a second).
        const std::string how = child_->finish(std::chrono::seconds(1));
        fail(fmt::format("{}: the child {} without answering", what, how));
    }

    void handshake(const std::map<std::string, std::string>& params, const MakeContext& context) {
        using Json = nlohmann::json;
        const Cluster& cluster = *context.cluster;
        Json hello = {{"protocol", kProtocol}, {"policy", name_}, {"params", params}, {"num_jobs", num_jobs_}};
        Json types = Json::array(), nodes = Json::array();
        for (std::size_t t = 0; t < cluster.gpu_types.size(); ++t)
            types.push_back(
                {{"name", cluster.gpu_types[t].name}, {"gpus", cluster.gpus_of_type(static_cast<GpuTypeIdx>(t))}});
        for (const Node& n : cluster.nodes) nodes.push_back({n.gpu_type, n.gpus});
        hello["cluster"] = {{"types", types}, {"nodes", nodes}};
        // The rate table: single-GPU rates per (model, type), and in the measured mode the measured
        // aggregate rates, so that the client's rate(m, t, n) is RateModel::rate to the bit.
        Json models = Json::array(), single = Json::array(), measured = Json::array();
        if (context.profiles != nullptr && context.rates != nullptr) {
            const RateModel& rates = *context.rates;
            for (ModelIdx m = 0; m < context.profiles->models.size(); ++m) {
                const ModelProfile& model = context.profiles->models[m];
                models.push_back(model.name);
                Json row = Json::array();
                for (GpuTypeIdx t = 0; t < cluster.gpu_types.size(); ++t) {
                    row.push_back(rates.single(m, t));
                    if (!rates.measured()) continue;
                    if (const auto* by_n = find_type_entry(model.throughput_n, cluster.gpu_types[t]))
                        for (const auto& [n, x] : *by_n)
                            if (x > 0 && n != 1) measured.push_back({m, t, n, rates.rate(m, t, n)});
                }
                single.push_back(row);
            }
        }
        hello["models"] = models;
        hello["rates"] = {{"mode", context.rates != nullptr && context.rates->measured() ? "measured" : "linear"},
                          {"single", single},
                          {"measured", measured}};
        const std::string text = hello.dump() + "\n";
        buf_.clear();
        buf_.append(text.data(), text.data() + text.size());
        exchange();
        Json reply;
        try {
            json_fields::check_nesting(std::string_view(line_.data(), line_.size()), "handshake reply");
            reply = Json::parse(line_.begin(), line_.end());
        } catch (const InputError& e) {
            fail(fmt::format("handshake: {}: {}", e.what(), quote_start(line_)));
        } catch (const Json::exception& e) {
            fail(fmt::format("handshake: the child's answer is not valid JSON ({}): {}", e.what(), quote_start(line_)));
        }
        if (reply.is_object() && reply.contains("error") && reply["error"].is_string())
            fail(fmt::format("handshake: the policy reported an error: {}",
                             printable(reply["error"].get<std::string>())));
        if (!reply.is_object() || !reply.contains("protocol") || reply["protocol"] != kProtocol)
            fail(fmt::format("handshake: expected {{\"protocol\": \"{}\"}}, got {}", kProtocol, quote_start(line_)));
    }

    /// Writes what the child needs for this call into buf_ (the format is PIPE_PROTOCOL.md's).
    void write_call(const ClusterView& view, const Changes& changes) {
        buf_.clear();
        auto out = std::back_inserter(buf_);
        fmt::format_to(out, R"({{"call":{},"now":{},"timer":{},"arrived":[)", call_, view.now(), changes.timer);
        const char* sep = "";
        for (JobIdx j : changes.arrived) {
            const JobInfo& job = view.job(j);
            fmt::format_to(out, "{}[{},{},{},{},{},{},{},{},{},{},{}]", sep, j, job.submit, job.work, job.model,
                           job.num_gpus, job.min_gpus, job.max_gpus, job.runnable, job.user, job.vc, job.weight);
            sep = ",";
        }
        write_list("finished", changes.finished);
        write_list("requeued", changes.requeued);
        write_list("declined", changes.declined);
        // Every job whose fields may have changed since the last call, sent if they did.
        fmt::format_to(out, R"(],"jobs":[)");
        sep = "";
        auto check = [&](JobIdx j, bool arrived) {
            if (j >= stamp_.size()) grow(j + 1);
            if (stamp_[j] == call_) return;
            stamp_[j] = call_;
            const JobInfo& job = view.job(j);
            const JobDynamics now = JobDynamics::of(job);
            if (!arrived && now == sent_[j]) return;
            sent_[j] = now;
            fmt::format_to(out, "{}[{},{},{},{},{},{},{},{},{},{},{},{},{}]", sep, j, static_cast<int>(job.state),
                           job.first_start, job.finish, job.attained, job.preemptions, job.migrations, job.gpu_type,
                           job.alloc_gpus, job.rate, job.stint_start, job.progress_from, job.remaining);
            sep = ",";
        };
        for (JobIdx j : changes.arrived) check(j, true);
        const std::span<const JobIdx> running = view.running_jobs();
        for (JobIdx j : running) check(j, false);
        for (JobIdx j : running_) check(j, false);  // running at the last call
        for (auto list : {changes.finished, changes.requeued, changes.declined})
            for (JobIdx j : list) check(j, false);
        for (JobIdx j : acted_) check(j, false);
        // The running list by the positions that differ from the last call's (the engine replaces a
        // leaving job by the last one, so few do), then its length.
        fmt::format_to(out, R"(],"running":[{})", running.size());
        for (std::size_t p = 0; p < running.size(); ++p)
            if (p >= running_.size() || running_[p] != running[p]) fmt::format_to(out, ",{},{}", p, running[p]);
        running_.assign(running.begin(), running.end());
        fmt::format_to(out, R"(],"free":[)");
        for (GpuTypeIdx t = 0; t < num_types_; ++t) fmt::format_to(out, "{}{}", t ? "," : "", view.free_gpus(t));
        fmt::format_to(out, R"(],"nodes":[)");
        sep = "";
        for (NodeIdx n = 0; n < node_free_.size(); ++n) {
            const int f = view.free_gpus_on(n);
            if (f == node_free_[n]) continue;
            node_free_[n] = f;
            fmt::format_to(out, "{}{},{}", sep, n, f);
            sep = ",";
        }
        fmt::format_to(out, "]}}\n");
    }

    void write_list(const char* key, std::span<const JobIdx> jobs) {
        fmt::format_to(std::back_inserter(buf_), R"(],"{}":[)", key);
        for (std::size_t i = 0; i < jobs.size(); ++i)
            fmt::format_to(std::back_inserter(buf_), "{}{}", i ? "," : "", jobs[i]);
    }

    /// Only where the run did not say how many jobs it has (a factory called without a run).
    void grow(std::size_t n) {
        num_jobs_ = std::max(num_jobs_, n);
        sent_.resize(n);
        stamp_.resize(n, 0);
    }

    std::string name_;
    ChildProcess::Clock::duration timeout_;
    double timeout_seconds_;
    std::unique_ptr<ChildProcess> child_;
    std::size_t num_jobs_ = 0, num_types_ = 0;
    std::uint32_t call_ = 0;
    fmt::memory_buffer buf_;            // the message being written (reused)
    std::string_view line_;             // the child's last line (in the child's read buffer)
    std::vector<JobDynamics> sent_;     // per job: what the child was last sent
    std::vector<std::uint32_t> stamp_;  // per job: the call that last looked at it
    std::vector<JobIdx> running_;       // the running list as of the last call
    std::vector<JobIdx> acted_;         // the jobs the last call's actions named
    std::vector<int> node_free_;        // per node: free GPUs as last sent
};

/// The path an argument names, if it names an existing regular file: the argument, or what precedes its
/// last ':' (FILE.py:CLASS). Relative paths are read relative to `dir` when it is not empty.
struct FileArgument {
    std::string path;      ///< as given (what the identity echoes)
    std::string resolved;  ///< the path dlsim reads and passes to the child
    std::string suffix;    ///< what followed the path in the argument (":CLASS"), or ""
};

std::optional<FileArgument> file_argument(const std::string& word, const std::string& dir) {
    auto existing = [&](const std::string& path) -> std::optional<std::string> {
        if (path.empty()) return std::nullopt;
        const std::string resolved = dir.empty() || std::filesystem::path(path).is_absolute() ? path : dir + "/" + path;
        std::error_code ec;
        if (!std::filesystem::is_regular_file(resolved, ec)) return std::nullopt;
        return resolved;
    };
    if (auto r = existing(word)) return FileArgument{word, *r, ""};
    const std::size_t colon = word.rfind(':');
    if (colon != std::string::npos)
        if (auto r = existing(word.substr(0, colon)))
            return FileArgument{word.substr(0, colon), *r, word.substr(colon)};
    return std::nullopt;
}

}  // namespace

RegistryEntry<Policy> pipe_policy_entry(const std::string& name, const std::string& command,
                                        const std::map<std::string, std::string>& raw_params,
                                        const std::string& params_dir) {
    std::vector<std::string> argv;
    try {
        argv = split_command(command);
    } catch (const std::invalid_argument& e) {
        throw InputError(fmt::format("policy {}: the command has {}", name, e.what()));
    }
    if (argv.empty()) throw InputError(fmt::format("policy {}: expected exec:COMMAND ARGS, got no command", name));

    std::vector<ParamSpec> specs;
    std::vector<std::string> child_keys;
    for (const auto& [key, value] : raw_params) {
        if (key == kTimeoutParam) continue;
        if (key.starts_with(kOwnPrefix))
            throw InputError(fmt::format("policy {}: parameter {}: names starting with {} are dlsim's own (valid: {})",
                                         name, key, kOwnPrefix, kTimeoutParam));
        specs.push_back({key, ParamType::Text, "", "passed to the child", {}});
        child_keys.push_back(key);
    }
    specs.push_back({kTimeoutParam,
                     ParamType::Double,
                     "60",
                     "seconds the child may take to answer one call (then it is killed and the run fails)",
                     {},
                     ParamRange{.lo = 0, .hi = 1e6, .lo_open = true, .noun = "seconds"}});
    // Arguments that name files join the run identity with their content (File parameters exec_arg<i>), so
    // a sweep does not reuse a result computed by an older version of the policy. The program itself counts
    // when it is given as a path.
    for (std::size_t i = 0; i < argv.size(); ++i) {
        if (i == 0 && argv[0].find('/') == std::string::npos) continue;  // looked up in PATH
        const auto file = file_argument(argv[i], params_dir);
        if (!file) continue;
        specs.push_back({fmt::format("{}arg{}", kOwnPrefix, i),
                         ParamType::File,
                         file->path,
                         "a file the command names (its sha256 is part of the run's identity)",
                         {}});
        argv[i] = file->resolved + file->suffix;
    }
    RegistryEntry<Policy> entry{
        name, "a policy run as a child process over the pipe protocol (policies/foreign/PIPE_PROTOCOL.md)", specs,
        [name, argv, child_keys](const Params& p, const MakeContext& context) {
            const double timeout = p.get_double(kTimeoutParam);
            std::map<std::string, std::string> params;
            for (const std::string& k : child_keys) params[k] = p.get(k);
            return std::unique_ptr<Policy>(std::make_unique<PipePolicy>(name, argv, timeout, params, context));
        }};
    return entry;
}

}  // namespace dlsim
