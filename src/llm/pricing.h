// Token prices and cost.
#pragma once

#include <map>
#include <optional>
#include <string>

#include "ragmeter/llm.h"

namespace ragmeter::llm {

// find_price, cost_usd and price_table_date are declared in the public ragmeter/llm.h.

}  // namespace ragmeter::llm
