#include "policies/foreign/python_policy.hpp"

#include "policies/foreign/view_bindings.hpp"

#include <fmt/format.h>
#include <pybind11/embed.h>

#include <pthread.h>
#include <unistd.h>

#include <atomic>
#include <charconv>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <mutex>
#include <thread>

namespace py = pybind11;

#if defined(__SANITIZE_ADDRESS__)
// The embedded interpreter lives until the process ends (it is never finalized, so a sweep's threads can
// share it): what it and the policy API's definitions hold then is not a leak.
extern "C" const char* __lsan_default_suppressions() { return "leak:libpython3.11\nleak:ensure_interpreter\n"; }
// Without a report of the suppressions used, stderr ends with dlsim's own message, as in a release build.
extern "C" const char* __lsan_default_options() { return "print_suppressions=0"; }
#endif

namespace dlsim {

namespace {

constexpr std::string_view kInstance = "instance:";
thread_local void* current_instance = nullptr;

/// dlsim's own parameters of a py: policy start with this (they are not passed to the class).
constexpr std::string_view kPyOwnPrefix = "py_";
constexpr const char* kPyTimeoutParam = "py_timeout";
constexpr double kPyDefaultTimeout = 60;
/// The signal that interrupts a call past its time limit on the interpreter's main thread (a blocking
/// sleep returns with EINTR, then Python runs the handler, which raises). Ignored by default.
constexpr int kTimeoutSignal = SIGURG;

/// What the embedded interpreter (dlsim's own, not a user's Python that imported the `dlsim` module) was
/// given to contain a policy: its exception types and the thread that may take the timeout signal.
struct Containment {
    bool embedded = false;        // dlsim started the interpreter (the command line, sweeps)
    PyObject* escape = nullptr;   // dlsim._ProcessExit: a policy tried to end or signal dlsim's process
    PyObject* timeout = nullptr;  // dlsim._CallTimeout: a call ran past its time limit
    bool signal_handler = false;  // the kTimeoutSignal handler is installed, for `main_thread`
    pthread_t main_thread{};
};
Containment containment;
/// Set while a call on the main thread is past its limit: the signal handler raises only then.
std::atomic<bool> main_call_expired{false};

/// Python run in the embedded interpreter before any policy file: the exception types, and the functions
/// through which a policy could end dlsim's process replaced by ones that raise. (A policy can still end
/// it by means no Python function guards: ctypes, or another process's SIGKILL; docs in PYTHON_API.md.)
constexpr const char* kContainment = R"py(
import os, posix, signal, time

class _ProcessExit(BaseException):
    """A policy tried to end or signal dlsim's own process."""

class _CallTimeout(BaseException):
    """A policy call ran past its time limit (parameter py_timeout)."""

def _contain():
    dlsim_pid = os.getpid()
    real = {name: getattr(os, name) for name in ("_exit", "abort", "kill", "killpg", "execv", "execve")}
    real_raise_signal, real_pthread_kill = signal.raise_signal, signal.pthread_kill
    def refuse(what):
        raise _ProcessExit(what)
    # In a process the policy forked itself (multiprocessing), the functions are the real ones.
    def forked():
        return os.getpid() != dlsim_pid
    def own(pid):
        return pid in (0, -1, dlsim_pid) or pid == -os.getpgrp()
    def _exit(status):
        if forked():
            real["_exit"](status)
        refuse(f"called os._exit({status!r})")
    def abort():
        if forked():
            real["abort"]()
        refuse("called os.abort()")
    def kill(pid, sig):
        if own(pid) and not forked():
            refuse(f"called os.kill({pid}, {sig!r}) on dlsim's own process")
        return real["kill"](pid, sig)
    def killpg(pgid, sig):
        if pgid in (0, os.getpgrp()) and not forked():
            refuse(f"called os.killpg({pgid}, {sig!r}) on dlsim's own process group")
        return real["killpg"](pgid, sig)
    def raise_signal(sig):
        if forked():
            return real_raise_signal(sig)
        refuse(f"called signal.raise_signal({sig!r})")
    def pthread_kill(thread_id, sig):
        if forked() or sig == 0:
            return real_pthread_kill(thread_id, sig)
        refuse(f"called signal.pthread_kill({thread_id}, {sig!r}) on a thread of dlsim's process")
    def exec_guard(name):
        def guarded(path, *args):
            if forked():
                return real[name](path, *args)
            refuse(f"called os.{name}({path!r}, ...), which would replace dlsim's process")
        return guarded
    real_sleep, monotonic = time.sleep, time.monotonic
    def sleep(seconds):
        # In slices: an asynchronous exception (a call past its limit on a thread other than the main
        # one) is raised between Python instructions, never inside one long sleep.
        if not seconds > 0.05:
            return real_sleep(seconds)
        end = monotonic() + seconds
        while (left := end - monotonic()) > 0:
            real_sleep(min(left, 0.05))
    time.sleep = sleep
    for module in (os, posix):
        module._exit, module.abort, module.kill, module.killpg = _exit, abort, kill, killpg
        module.execv, module.execve = exec_guard("execv"), exec_guard("execve")
    signal.raise_signal, signal.pthread_kill = raise_signal, pthread_kill

_contain()
del _contain
)py";

/// Starts the embedded interpreter unless Python is running already (the `dlsim` module was imported),
/// and makes `import dlsim` give the policy API in it. The GIL is then released: every use takes it, from
/// whichever thread runs the policy (a sweep's workers). The interpreter lives until the process ends.
/// The embedded interpreter also contains policies (kContainment); a user's own Python is left as it is.
void ensure_interpreter() {
    static std::once_flag once;
    std::call_once(once, [] {
        if (Py_IsInitialized()) return;
        py::initialize_interpreter(/*init_signal_handlers=*/false, 0, nullptr, /*add_program_dir_to_path=*/false);
        {
            auto m = py::reinterpret_steal<py::module_>(PyModule_New("dlsim"));
            python::define_policy_api(m);
            m.def("_call_expired", [] { return main_call_expired.load(); });
            py::exec(kContainment, m.attr("__dict__"));
            containment.embedded = true;
            containment.escape = m.attr("_ProcessExit").ptr();
            containment.timeout = m.attr("_CallTimeout").ptr();
            py::module_::import("sys").attr("modules")["dlsim"] = m;
            // The interpreter's main thread (the one that started it) runs Python signal handlers: there a
            // call past its limit is interrupted by a signal, even in a blocking sleep.
            try {
                py::exec(R"(
import signal, dlsim
def _on_timeout_signal(signum, frame):
    if dlsim._call_expired():
        raise dlsim._CallTimeout()
signal.signal(signal.SIGURG, _on_timeout_signal)
)",
                         m.attr("__dict__"));
                containment.signal_handler = true;
                containment.main_thread = pthread_self();
            } catch (py::error_already_set&) {  // not the process's main thread: no handler
            }
        }
        PyEval_SaveThread();
    });
}

/// The time limit of a Python policy's calls. While a call runs, a watchdog thread waits for its deadline;
/// past it, the call is interrupted: on the interpreter's main thread by kTimeoutSignal (its handler raises
/// dlsim._CallTimeout, even out of time.sleep), on another thread by an asynchronous exception (raised at
/// its next Python instruction). A call that has not come back a grace period later (blocked in C code,
/// or catching the exception) ends the process with exit 2 and the message, when the interpreter is
/// dlsim's own; inside a user's Python the call is waited for.
class CallWatchdog {
public:
    /// `owner` names the policy in the message printed when the process must end.
    CallWatchdog(std::string owner, double seconds, bool may_exit)
        : owner_(std::move(owner)), limit_(seconds), may_exit_(may_exit) {}
    ~CallWatchdog() {
        {
            std::lock_guard lock(s_->mutex);
            s_->stop = true;
        }
        s_->wake.notify_all();
        if (thread_.joinable()) thread_.join();
    }
    CallWatchdog(const CallWatchdog&) = delete;
    CallWatchdog& operator=(const CallWatchdog&) = delete;

    double limit() const { return limit_; }
    static constexpr const char* param() { return kPyTimeoutParam; }

    /// Call `call` (at simulated time `now`) begins, on this thread, the GIL held. Costs a lock, and a wake-up
    /// of the watchdog only when it idles (no call since its last deadline).
    void arm(std::uint64_t call, Time now) {
        std::lock_guard lock(s_->mutex);
        if (!thread_.joinable()) thread_ = std::thread([this] { loop(); });
        State& s = *s_;
        s.deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(limit_));
        s.call = call;
        s.now = now;
        s.thread_ident = PyThread_get_thread_ident();
        s.native = pthread_self();
        s.expired = false;
        s.armed = true;
        if (s.idle) s.wake.notify_all();
    }
    /// The call came back (the GIL held): true if it ran past its limit.
    bool disarm() {
        std::lock_guard lock(s_->mutex);
        s_->armed = false;
        if (!s_->expired) return false;
        s_->wake.notify_all();  // the watchdog waits out the grace period: it need not
        main_call_expired = false;
        PyThreadState_SetAsyncExc(s_->thread_ident, nullptr);  // one not raised yet is dropped
        return true;
    }

private:
    using Clock = std::chrono::steady_clock;
    /// Shared with the helper that sets an asynchronous exception, which may outlive the watchdog.
    struct State {
        std::mutex mutex;
        std::condition_variable wake;
        Clock::time_point deadline{};
        std::string message;
        unsigned long thread_ident = 0;
        pthread_t native{};
        std::uint64_t call = 0;
        Time now = 0;
        bool armed = false, expired = false, stop = false, idle = false;
    };

    void loop() {
        State& s = *s_;
        std::unique_lock lock(s.mutex);
        while (!s.stop) {
            if (!s.armed) {
                s.idle = true;
                s.wake.wait(lock);
                s.idle = false;
                continue;
            }
            // Sleeps until this call's deadline; calls that begin and end meanwhile do not wake it.
            const std::uint64_t call = s.call;
            if (s.wake.wait_until(lock, s.deadline) != std::cv_status::timeout || !s.armed || s.call != call) continue;
            s.expired = true;
            interrupt(lock, call);
            // The grace period: as long as the limit, at least 1 s and at most 5 s.
            const double grace = std::clamp(limit_, 1.0, 5.0);
            const auto until =
                Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(grace));
            while (!s.stop && s.armed && s.call == call)
                if (s.wake.wait_until(lock, until) == std::cv_status::timeout) break;
            if (s.stop || !s.armed || s.call != call || !may_exit_) continue;
            // It did not come back: nothing was written yet (results are written at the end of a run), and
            // nothing will be. Exit now, without unwinding a thread that is stuck.
            const std::string message = fmt::format(
                "dlsim: error: {}: call {} (at {} us) did not return within {} s (parameter {}), nor {} s after "
                "it was interrupted (blocked outside Python, or catching the interruption); dlsim stops without "
                "a result\n",
                owner_, call, s.now, limit_, kPyTimeoutParam, grace);
            std::fputs(message.c_str(), stderr);
            std::fflush(stderr);
            std::_Exit(2);
        }
    }

    /// Interrupts the call `call` (the lock held).
    void interrupt(std::unique_lock<std::mutex>& lock, std::uint64_t call) {
        if (containment.signal_handler && pthread_equal(s_->native, containment.main_thread)) {
            main_call_expired = true;
            pthread_kill(s_->native, kTimeoutSignal);
            return;
        }
        // Another thread: an asynchronous exception, set under the GIL (taken by a helper thread, so that the
        // watchdog itself never waits for a GIL a stuck call may hold), if the call is still running then.
        PyObject* type = containment.timeout ? containment.timeout : PyExc_TimeoutError;
        lock.unlock();
        std::thread([state = s_, type, call] {
            const PyGILState_STATE g = PyGILState_Ensure();
            {
                std::lock_guard inner(state->mutex);
                if (state->armed && state->call == call) PyThreadState_SetAsyncExc(state->thread_ident, type);
            }
            PyGILState_Release(g);
        }).detach();
        lock.lock();
    }

    const std::string owner_;
    const double limit_;
    const bool may_exit_;
    std::shared_ptr<State> s_ = std::make_shared<State>();
    std::thread thread_;
};

std::string absolute_path(const std::string& path) {
    return std::filesystem::absolute(path).lexically_normal().string();
}

/// "FILE:LINE: " of a Python exception: the innermost traceback entry in `file` (the absolute path of the
/// policy's file; "" = the innermost entry anywhere), and for a syntax error its own place.
std::string where_of(const py::error_already_set& e, const std::string& file, const std::string& shown) {
    std::string where;
    for (py::handle tb = e.trace(); tb && !tb.is_none(); tb = tb.attr("tb_next")) {
        const auto name = tb.attr("tb_frame").attr("f_code").attr("co_filename").cast<std::string>();
        if (file.empty() || name == file)
            where = fmt::format("{}:{}: ", file.empty() ? name : shown, tb.attr("tb_lineno").cast<long>());
    }
    if (e.matches(PyExc_SyntaxError)) {
        const py::object filename = e.value().attr("filename"), line = e.value().attr("lineno");
        if (!filename.is_none())
            where = fmt::format(
                "{}:{}: ", filename.cast<std::string>() == file ? shown : py::str(filename).cast<std::string>(),
                line.is_none() ? 0 : line.cast<long>());
    }
    return where;
}

/// "FILE:LINE: Type: text" of a Python exception. An attempt to end dlsim's process (SystemExit, or a
/// guarded function of kContainment) says so.
std::string describe(const py::error_already_set& e, const std::string& file, const std::string& shown) {
    const std::string where = where_of(e, file, shown);
    const auto text = py::str(e.value()).cast<std::string>();
    constexpr const char* kStops = "; a policy returns its decisions, and the run stops without a result";
    if (e.matches(PyExc_SystemExit))
        return fmt::format("{}tried to end dlsim's process: it raised SystemExit({}) (sys.exit, exit or quit){}", where,
                           text, kStops);
    if (containment.escape && e.matches(containment.escape))
        return fmt::format("{}tried to end dlsim's process: it {}{}", where, text, kStops);
    const auto type = e.type().attr("__name__").cast<std::string>();
    return where + type + (text.empty() ? "" : ": " + text);
}

PythonPolicyError python_error(const std::string& owner, py::error_already_set& e, const std::string& file,
                               const std::string& shown) {
    std::string what = owner + ": " + describe(e, file, shown);
    return PythonPolicyError(what, std::make_shared<py::error_already_set>(std::move(e)));
}

/// A parameter's text as a Python value: an integer literal as int, another number as float, true/false as
/// bool, anything else as str.
py::object param_value(const std::string& text) {
    if (text == "true") return py::bool_(true);
    if (text == "false") return py::bool_(false);
    const std::size_t digits_from = !text.empty() && (text[0] == '-' || text[0] == '+') ? 1 : 0;
    if (text.size() > digits_from && text.find_first_not_of("0123456789", digits_from) == std::string::npos)
        return py::reinterpret_steal<py::object>(PyLong_FromString(text.c_str(), nullptr, 10));
    double x = 0;
    const char* end = text.data() + text.size();
    const char* begin = text.data() + (digits_from && text[0] == '+' ? 1 : 0);
    if (text.find_first_of("0123456789") != std::string::npos) {
        const auto [ptr, ec] = std::from_chars(begin, end, x);
        if (ec == std::errc() && ptr == end && std::isfinite(x)) return py::float_(x);
    }
    return py::str(text);
}

/// A Python policy object run as a C++ policy: each call points the reused call objects at the engine's
/// view, changes and decisions and calls the object's decide.
class PythonPolicy final : public Policy {
public:
    PythonPolicy(py::object instance, std::size_t num_jobs, std::string owner, std::string file, std::string shown,
                 double timeout_seconds)
        : instance_(std::move(instance)),
          decide_(instance_.attr("decide")),
          calls_(python::make_call_objects(num_jobs)),
          owner_(std::move(owner)),
          file_(std::move(file)),
          shown_(std::move(shown)),
          watchdog_(owner_, timeout_seconds, containment.embedded) {}
    ~PythonPolicy() override {
        py::gil_scoped_acquire gil;
        calls_.view = calls_.changes = calls_.decisions = py::object();
        decide_ = instance_ = py::object();
    }
    PythonPolicy(const PythonPolicy&) = delete;
    PythonPolicy& operator=(const PythonPolicy&) = delete;

    void decide(const ClusterView& view, const Changes& changes, Decisions& out) override {
        py::gil_scoped_acquire gil;
        python::CallState& s = *calls_.state;
        s.view = &view;
        s.changes = &changes;
        s.out = &out;
        PyObject* args[] = {calls_.view.ptr(), calls_.changes.ptr(), calls_.decisions.ptr()};
        watchdog_.arm(++call_, view.now());
        PyObject* result = PyObject_Vectorcall(decide_.ptr(), args, 3, nullptr);
        const bool late = watchdog_.disarm();
        s.view = nullptr;
        s.changes = nullptr;
        s.out = nullptr;
        if (late) {
            // Past its limit: an error even if the policy caught the interruption and answered.
            std::string where;
            if (result == nullptr) {
                const py::error_already_set e;
                where = where_of(e, file_, shown_);
            }
            Py_XDECREF(result);
            throw InputError(
                fmt::format("{}: {}call {} (at {} us) did not return within {} s (parameter {}); it "
                            "was interrupted",
                            owner_, where, call_, view.now(), watchdog_.limit(), CallWatchdog::param()));
        }
        if (result == nullptr) {
            py::error_already_set e;
            throw python_error(owner_, e, file_, shown_);
        }
        Py_DECREF(result);
    }

private:
    py::object instance_, decide_;
    python::CallObjects calls_;
    std::string owner_, file_, shown_;
    std::uint64_t call_ = 0;
    CallWatchdog watchdog_;
};

/// The class `cls` of the Python file at `path`, checked to be a dlsim.Policy subclass.
py::object load_class(const std::string& owner, const std::string& path, const std::string& file,
                      const std::string& cls) {
    const py::module_ util = py::module_::import("importlib.util");
    const std::filesystem::path p(file);
    std::string module_name = "dlsim_policy_" + p.stem().string();
    for (char& ch : module_name)
        if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
    const py::object spec = util.attr("spec_from_file_location")(module_name, file);
    if (spec.is_none())
        throw InputError(fmt::format("{}: {}: not a Python source file (expected FILE.py)", owner, path));
    const py::object module = util.attr("module_from_spec")(spec);
    // As `python FILE.py` would: the file's folder is importable (helpers next to the policy), and the
    // module is in sys.modules while it runs (dataclasses look it up there).
    const py::module_ sys = py::module_::import("sys");
    const py::str folder(p.parent_path().string());
    if (!sys.attr("path").contains(folder)) sys.attr("path").attr("insert")(0, folder);
    sys.attr("modules")[py::str(module_name)] = module;
    spec.attr("loader").attr("exec_module")(module);
    if (!py::hasattr(module, cls.c_str()))
        throw InputError(fmt::format("{}: {} defines no class {}", owner, path, cls));
    py::object c = module.attr(cls.c_str());
    const py::object base = py::module_::import("dlsim").attr("Policy");
    if (!PyType_Check(c.ptr()) || PyObject_IsSubclass(c.ptr(), base.ptr()) != 1)
        throw InputError(fmt::format("{}: {}: {} is not a subclass of dlsim.Policy", owner, path, cls));
    return c;
}

bool is_identifier(const std::string& s) {
    if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
    for (char ch : s)
        if (!std::isalnum(static_cast<unsigned char>(ch)) && ch != '_') return false;
    return true;
}

RegistryEntry<Policy> instance_entry(const std::string& name, const std::map<std::string, std::string>& raw_params) {
    if (!raw_params.empty())
        throw InputError(
            fmt::format("policy {}: a policy object takes no parameters (give them to its constructor)", name));
    return {
        name, "a Python policy object given to dlsim.run", {}, [name](const Params&, const MakeContext& context) {
            void* instance = current_instance;
            if (instance == nullptr)
                throw InputError(fmt::format("policy {}: only dlsim.run(policy=<object>) runs a policy object", name));
            py::gil_scoped_acquire gil;
            auto object = py::reinterpret_borrow<py::object>(static_cast<PyObject*>(instance));
            return std::unique_ptr<Policy>(
                std::make_unique<PythonPolicy>(object, context.num_jobs, "policy " + name, "", "", kPyDefaultTimeout));
        }};
}

}  // namespace

PolicyInstanceScope::PolicyInstanceScope(void* instance) : previous_(current_instance) { current_instance = instance; }
PolicyInstanceScope::~PolicyInstanceScope() { current_instance = previous_; }

RegistryEntry<Policy> python_policy_entry(const std::string& name, const std::string& spec,
                                          const std::map<std::string, std::string>& raw_params, const std::string&) {
    if (spec.starts_with(kInstance)) return instance_entry(name, raw_params);
    const auto colon = spec.rfind(':');
    const std::string file = colon == std::string::npos ? "" : spec.substr(0, colon);
    const std::string cls = colon == std::string::npos ? "" : spec.substr(colon + 1);
    if (file.empty() || !is_identifier(cls))
        throw InputError(
            fmt::format("policy {}: expected py:FILE.py:CLASS (a Python file and the name of a "
                        "dlsim.Policy subclass in it)",
                        name));
    const std::string owner = "policy " + name;
    if (raw_params.contains("source"))
        throw InputError(
            fmt::format("{}: parameter source is the policy's file (py:FILE.py:CLASS); give the class "
                        "another parameter name",
                        owner));
    std::vector<ParamSpec> specs;
    for (const auto& [key, value] : raw_params) {
        if (key == kPyTimeoutParam) continue;
        if (key.starts_with(kPyOwnPrefix))
            throw InputError(fmt::format("{}: parameter {}: names starting with {} are dlsim's own (valid: {})", owner,
                                         key, kPyOwnPrefix, kPyTimeoutParam));
        specs.push_back({key, ParamType::Text, "", fmt::format("passed to {}(**params)", cls), {}});
    }
    specs.push_back({kPyTimeoutParam,
                     ParamType::Double,
                     fmt::format("{}", kPyDefaultTimeout),
                     "seconds one call of the policy may take (then it is interrupted and the run fails)",
                     {},
                     ParamRange{.lo = 0, .hi = 1e6, .lo_open = true, .noun = "seconds"}});
    specs.push_back(
        {"source", ParamType::File, file, "the policy's Python file (its sha256 is part of the run identity)", {}});
    return {name, "a Python policy (" + cls + " in " + file + ")", std::move(specs),
            [owner, cls](const Params& p, const MakeContext& context) {
                ensure_interpreter();
                const std::string& path = p.file_path("source");
                const std::string absolute = absolute_path(path);
                py::gil_scoped_acquire gil;
                try {
                    const py::object c = load_class(owner, path, absolute, cls);
                    py::dict kwargs;
                    for (const auto& [key, typed] : p.values())
                        if (key != "source" && key != kPyTimeoutParam) kwargs[py::str(key)] = param_value(typed.second);
                    py::object instance = c(**kwargs);
                    return std::unique_ptr<Policy>(std::make_unique<PythonPolicy>(
                        std::move(instance), context.num_jobs, owner, absolute, path, p.get_double(kPyTimeoutParam)));
                } catch (py::error_already_set& e) {
                    throw python_error(owner, e, absolute, path);
                }
            }};
}

}  // namespace dlsim
