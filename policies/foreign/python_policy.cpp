#include "policies/foreign/python_policy.hpp"

#include "policies/foreign/view_bindings.hpp"

#include <fmt/format.h>
#include <pybind11/embed.h>

#include <charconv>
#include <cmath>
#include <filesystem>
#include <mutex>

namespace py = pybind11;

#if defined(__SANITIZE_ADDRESS__)
// The embedded interpreter lives until the process ends (it is never finalized, so a sweep's threads can
// share it): what it and the policy API's definitions hold then is not a leak.
extern "C" const char* __lsan_default_suppressions() { return "leak:libpython3.11\nleak:ensure_interpreter\n"; }
#endif

namespace dlsim {

namespace {

constexpr std::string_view kInstance = "instance:";
thread_local void* current_instance = nullptr;

/// Starts the embedded interpreter unless Python is running already (the `dlsim` module was imported),
/// and makes `import dlsim` give the policy API in it. The GIL is then released: every use takes it, from
/// whichever thread runs the policy (a sweep's workers). The interpreter lives until the process ends.
void ensure_interpreter() {
    static std::once_flag once;
    std::call_once(once, [] {
        if (Py_IsInitialized()) return;
        py::initialize_interpreter(/*init_signal_handlers=*/false, 0, nullptr, /*add_program_dir_to_path=*/false);
        {
            auto m = py::reinterpret_steal<py::module_>(PyModule_New("dlsim"));
            python::define_policy_api(m);
            py::module_::import("sys").attr("modules")["dlsim"] = m;
        }
        PyEval_SaveThread();
    });
}

std::string absolute_path(const std::string& path) {
    return std::filesystem::absolute(path).lexically_normal().string();
}

/// "FILE:LINE: Type: text" of a Python exception: the innermost traceback entry in `file` (the absolute
/// path of the policy's file; "" = the innermost entry anywhere), and for a syntax error its own place.
std::string describe(const py::error_already_set& e, const std::string& file, const std::string& shown) {
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
    const auto type = e.type().attr("__name__").cast<std::string>();
    const auto text = py::str(e.value()).cast<std::string>();
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
    PythonPolicy(py::object instance, std::size_t num_jobs, std::string owner, std::string file, std::string shown)
        : instance_(std::move(instance)),
          decide_(instance_.attr("decide")),
          calls_(python::make_call_objects(num_jobs)),
          owner_(std::move(owner)),
          file_(std::move(file)),
          shown_(std::move(shown)) {}
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
        PyObject* result = PyObject_Vectorcall(decide_.ptr(), args, 3, nullptr);
        s.view = nullptr;
        s.changes = nullptr;
        s.out = nullptr;
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
                std::make_unique<PythonPolicy>(object, context.num_jobs, "policy " + name, "", ""));
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
    for (const auto& [key, value] : raw_params)
        specs.push_back({key, ParamType::Text, "", fmt::format("passed to {}(**params)", cls), {}});
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
                        if (key != "source") kwargs[py::str(key)] = param_value(typed.second);
                    py::object instance = c(**kwargs);
                    return std::unique_ptr<Policy>(
                        std::make_unique<PythonPolicy>(std::move(instance), context.num_jobs, owner, absolute, path));
                } catch (py::error_already_set& e) {
                    throw python_error(owner, e, absolute, path);
                }
            }};
}

}  // namespace dlsim
