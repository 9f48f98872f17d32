#include "model/job_options.h"

#include <array>
#include <strings.h>

#include "base/strings.h"
#include "model/field_limits.h"

namespace muster {
namespace {

struct MailName {
  const char* name;
  int flags;
};
// In Slurm's print order (print_mail_type).
constexpr std::array<MailName, 11> kMailNames = {{
    {"ARRAY_TASKS", kMailArrayTasks},
    {"INVALID_DEPEND", kMailInvalidDepend},
    {"BEGIN", kMailBegin},
    {"END", kMailEnd},
    {"FAIL", kMailFail},
    {"REQUEUE", kMailRequeue},
    {"STAGE_OUT", kMailStageOut},
    {"TIME_LIMIT_50", kMailTimeLimit50},
    {"TIME_LIMIT_80", kMailTimeLimit80},
    {"TIME_LIMIT_90", kMailTimeLimit90},
    {"TIME_LIMIT", kMailTimeLimit},
}};

bool SameName(std::string_view a, const char* b) {
  return a.size() == std::char_traits<char>::length(b) && strncasecmp(a.data(), b, a.size()) == 0;
}

}  // namespace

StatusOr<int> ParseMailType(std::string_view text) {
  int flags = 0;
  bool none = false;
  for (const std::string& word : Split(text, ',')) {
    if (SameName(word, "NONE")) {
      flags = 0;
      none = true;
      break;
    }
    if (SameName(word, "ALL")) {
      flags |= kMailAll;
      continue;
    }
    for (const MailName& n : kMailNames) {
      if (SameName(word, n.name)) flags |= n.flags;
    }
  }
  if (flags == 0 && !none) return InvalidArgument("--mail-type=" + std::string(text) + " invalid");
  return flags;
}

std::string MailTypeText(int flags) {
  if (flags == 0) return "NONE";
  std::string out;
  for (const MailName& n : kMailNames) {
    if ((flags & n.flags) == 0) continue;
    if (!out.empty()) out += ',';
    out += n.name;
  }
  return out;
}

Status ValidateJobOptions(const JobOptions& options) {
  RETURN_IF_ERROR(CheckLength("comment (--comment)", options.comment, kMaxCommentBytes));
  // Slurm bounds the key as it bounds names.
  RETURN_IF_ERROR(CheckLength("wckey (--wckey)", options.wckey, kMaxJobNameBytes));
  if (options.mail_type < 0 || (options.mail_type & ~(2 * kMailInvalidDepend - 1)) != 0) {
    return InvalidArgument("mail_type (--mail-type) has unknown event bits: " + std::to_string(options.mail_type));
  }
  // An address, bounded as a name is.
  return CheckLength("mail_user (--mail-user)", options.mail_user, kMaxJobNameBytes);
}

}  // namespace muster
