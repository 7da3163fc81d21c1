// The `dlsim` Python module: run a simulation from Python (the same path as `dlsim run`: load_inputs,
// simulate, write_outputs), list the built-in policies, and write policies in Python (the API of
// policies/foreign/view_bindings.hpp). Import it with PYTHONPATH=build/python; docs in policies/foreign/PYTHON_API.md.
#include "models/base/input_error.hpp"
#include "models/base/json_fields.hpp"
#include "policies/foreign/python_policy.hpp"
#include "policies/foreign/view_bindings.hpp"
#include "policies/registry.hpp"
#include "sim/app/run.hpp"

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace py = pybind11;

namespace dlsim {

namespace {

const char* type_name(ParamType t) {
    switch (t) {
        case ParamType::Int:
            return "int";
        case ParamType::Double:
            return "double";
        case ParamType::Bool:
            return "bool";
        case ParamType::Choice:
            return "choice";
        case ParamType::Numbers:
            return "numbers";
        case ParamType::Text:
            return "text";
        case ParamType::File:
            return "file";
    }
    return "";
}

py::list policies() {
    py::list out;
    for (const auto& e : builtin_policies().entries()) {
        py::list params;
        for (const ParamSpec& s : e.params) {
            py::dict p;
            p["name"] = s.name;
            p["type"] = type_name(s.type);
            p["default"] = s.default_value;
            p["description"] = s.description;
            if (!s.choices.empty()) p["choices"] = py::cast(s.choices);
            if (s.range) p["range"] = to_string(*s.range);
            params.append(p);
        }
        py::dict entry;
        entry["name"] = e.name;
        entry["description"] = e.description;
        entry["params"] = params;
        out.append(entry);
    }
    return out;
}

/// A scratch folder for a result that is not kept (removed with everything in it).
class ScratchFolder {
public:
    ScratchFolder() {
        std::string pattern = (std::filesystem::temp_directory_path() / "dlsim-run-XXXXXX").string();
        if (mkdtemp(pattern.data()) == nullptr) throw InputError("dlsim.run: cannot create a temporary folder");
        path_ = pattern;
    }
    ~ScratchFolder() {
        std::error_code ignored;
        std::filesystem::remove_all(path_, ignored);
    }
    ScratchFolder(const ScratchFolder&) = delete;
    ScratchFolder& operator=(const ScratchFolder&) = delete;
    const std::string& path() const { return path_; }

private:
    std::string path_;
};

std::string read_text(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

/// One run, as `dlsim run` does it; returns the result JSON's text.
std::string run_to_text(RunConfig c, void* instance) {
    const PolicyInstanceScope scope(instance);
    const auto t0 = std::chrono::steady_clock::now();
    const ResolvedRun resolved = resolve(c);
    const RunInputs inputs = load_inputs(c);
    const RunOutcome outcome = simulate(inputs, resolved);
    RunSelfProfile self;
    self.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    self.peak_rss_mb = peak_rss_mb();
    // The result is always written (to a scratch file when not kept): one writer of the result format.
    std::optional<ScratchFolder> scratch;
    if (c.out.empty()) {
        scratch.emplace();
        c.out = scratch->path() + "/run.json";
    }
    write_outputs(inputs, c, outcome, self);
    return read_text(c.out);
}

py::object run(py::object trace, py::object cluster, py::object profiles, py::object policy, py::object params,
               py::object out, const py::kwargs& config) {
    const py::module_ json = py::module_::import("json"), os = py::module_::import("os");
    py::dict doc;
    for (const auto& [key, value] : config) doc[key] = value;
    auto path = [&](const char* key, const py::object& value) {
        if (!value.is_none()) doc[key] = os.attr("fspath")(value);
    };
    path("trace", trace);
    path("cluster", cluster);
    path("profiles", profiles);
    path("out", out);
    if (!params.is_none()) doc["params"] = params;
    PyObject* instance = nullptr;
    if (py::isinstance<py::str>(policy)) {
        doc["policy"] = policy;
    } else if (py::isinstance(policy, py::module_::import("dlsim").attr("Policy"))) {
        instance = policy.ptr();
        const py::object type = py::type::of(policy);
        doc["policy"] = py::str("py:instance:{}.{}").format(type.attr("__module__"), type.attr("__qualname__"));
    } else {
        throw py::type_error("dlsim.run: policy must be a policy name (str) or a dlsim.Policy instance");
    }
    RunConfig c = default_run_config();
    c.out.clear();
    apply_config_json(c, json_fields::parse_text(json.attr("dumps")(doc).cast<std::string>(), "dlsim.run"),
                      "dlsim.run");
    std::string text;
    try {
        const py::gil_scoped_release nogil;  // a Python policy takes the GIL back for each call
        text = run_to_text(std::move(c), instance);
    } catch (const PythonPolicyError& e) {
        throw py::error_already_set(*std::static_pointer_cast<py::error_already_set>(e.python_error()));
    }
    return json.attr("loads")(text);
}

}  // namespace

}  // namespace dlsim

PYBIND11_MODULE(dlsim, m) {
    using namespace dlsim;
    m.doc() = "dlsim: a discrete-event simulator of shared GPU clusters (run, policies, Policy)";
    m.attr("__version__") = dlsim_version();
    py::register_exception<InputError>(m, "InputError", PyExc_ValueError);
    python::define_policy_api(m);
    m.def("policies", &policies,
          "The built-in policies: name, description and params (name, type, default, description)");
    m.def("run", &run, py::arg("trace") = py::none(), py::arg("cluster") = py::none(), py::arg("profiles") = py::none(),
          py::arg("policy") = "fifo", py::arg("params") = py::none(), py::arg("out") = py::none(),
          "Runs one simulation as `dlsim run` does and returns its result (the result JSON as Python objects). "
          "Unset inputs are the bundled defaults; `policy` is a built-in name, 'py:FILE.py:CLASS', or a "
          "dlsim.Policy instance; `params` the policy's parameters; `out` also writes the result file; any other "
          "run-config key (seed=, restart_cost=, resample_rate=, ...) as a keyword.");
}
