#include "cli/command_args.h"

namespace muster {

bool TakeValue(const std::vector<std::string>& a, size_t& i, const std::string& shrt, const std::string& lng,
               std::string* value) {
  const std::string& s = a[i];
  if (!lng.empty() && s.rfind(lng + "=", 0) == 0) {
    *value = s.substr(lng.size() + 1);
    return true;
  }
  if ((s == shrt || s == lng) && !s.empty()) {
    if (i + 1 >= a.size()) return false;
    *value = a[++i];
    return true;
  }
  if (!shrt.empty() && shrt.size() == 2 && s.size() > 2 && s.rfind(shrt, 0) == 0 && s[1] != '-') {
    *value = s.substr(2);
    return true;
  }
  return false;
}

int ConnectError(const char* cmd, const Status& st, std::ostream& err) {
  err << cmd << ": error: " << st.message() << "\n";
  return 1;
}

}  // namespace muster
