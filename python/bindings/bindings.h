// The parts of the extension module ragmeter._core, one function per file that adds its
// names to the module (module.cc calls them in order).
#pragma once

#include <nanobind/nanobind.h>

namespace ragmeter::python {

void bind_metrics(nanobind::module_& m);   // metrics_binding.cc: pure scoring functions
void bind_data(nanobind::module_& m);      // data_binding.cc: Python data -> rows
void bind_evaluate(nanobind::module_& m);  // evaluate_binding.cc: runs and their results
void bind_cluster(nanobind::module_& m);   // cluster_binding.cc: the Ray path's parts
void bind_run_function(nanobind::module_& m);  // run_binding.cc: `run` with a Python function
void bind_agree(nanobind::module_& m);     // agree_binding.cc: agreement with labels

}  // namespace ragmeter::python
