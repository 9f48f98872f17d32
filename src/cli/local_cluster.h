// `muster up` / `muster down`: a whole local cluster on one machine — the controller plus N node
// agents, each its own process with its own node name, fake GPUs and spool dir — under one
// directory ($HOME/.muster by default). `up` returns once every node has registered and leaves
// the daemons running in the background; `down` stops them (by the pids it recorded) and leaves
// no process behind. The commands of the same user then find the cluster through
// $HOME/.muster/muster.yaml (or $MUSTER_CONF).
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace muster {

int UpMain(const std::vector<std::string>& args, const std::string& self_exe, std::ostream& out, std::ostream& err);
int DownMain(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

// `muster up --state URL` keeps a database password out of muster.yaml (which every user reads):
// TakePgPassword removes it from `*url` (USER:PASSWORD@ and any `password=` parameter) and returns
// it percent-decoded ("" = none); PgPassLine is the line of a libpq password file giving it to
// the URL's server ("*:*:*:*:PASSWORD", its ':' and '\' escaped), written 0600 where only the
// controller reads it (controller.state_password_file).
std::string TakePgPassword(std::string* url);
std::string PgPassLine(const std::string& password);

}  // namespace muster
