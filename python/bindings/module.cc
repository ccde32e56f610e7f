// ragmeter._core: the binding of the C++ library's public API (include/ragmeter). The
// pure-Python package ragmeter (python/ragmeter) is the only intended caller; its
// functions are the documented API.
#include "bindings.h"

NB_MODULE(_core, m) {
  m.doc() = "ragmeter's C++ library (private: use the ragmeter package).";
  ragmeter::python::bind_metrics(m);
  ragmeter::python::bind_data(m);
  ragmeter::python::bind_evaluate(m);
  ragmeter::python::bind_cluster(m);
  ragmeter::python::bind_run_function(m);
  ragmeter::python::bind_agree(m);
}
