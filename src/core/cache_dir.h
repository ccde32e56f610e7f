// Where ragmeter keeps the files it installs outside a checkout (models, dictionaries).
// Internal: not part of the public API.
#pragma once

#include <string>

namespace ragmeter {

// ${RAGMETER_CACHE}, else $HOME/.cache/ragmeter (./.cache/ragmeter without HOME).
std::string ragmeter_cache_dir();

}  // namespace ragmeter
