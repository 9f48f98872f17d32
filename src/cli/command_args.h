// Small argument helpers shared by the commands.
#pragma once

#include <cstddef>
#include <ostream>
#include <string>
#include <vector>

#include "base/status.h"
#include "base/strings.h"  // Split

namespace muster {


// "--opt=value" or "--opt value" / "-o value" / "-ovalue"; advances i past a separate value.
bool TakeValue(const std::vector<std::string>& a, size_t& i, const std::string& shrt, const std::string& lng,
               std::string* value);

// Connection errors, as the commands print them ("<cmd>: error: <message>"); returns 1.
int ConnectError(const char* cmd, const Status& st, std::ostream& err);

}  // namespace muster
