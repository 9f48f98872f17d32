// What srun's step session (cli/srun_step.cc) asks of its own host: a key for the step's I/O
// connections, its address toward an agent, and the terminal (--pty: raw mode, its size).
#pragma once

#include <termios.h>

#include <string>
#include <utility>

namespace muster {

// 16 random bytes as hex: the key the agents' I/O connections must present.
std::string RandomKey();

// This host's address on the route to `agent` ("host:port"), as the agent would see it: srun's
// host name may name another address (or none) on the agent's network. "" when it cannot tell.
std::string LocalAddressToward(const std::string& agent);

// srun --pty on a terminal: raw mode (every key goes to the task's terminal, which echoes and
// interprets it) until the session ends.
class RawTerminal {
 public:
  RawTerminal();
  ~RawTerminal();
  RawTerminal(const RawTerminal&) = delete;
  RawTerminal& operator=(const RawTerminal&) = delete;

 private:
  termios saved_{};
  bool active_ = false;
};

// srun's terminal size, {0, 0} when stdin is not a terminal.
std::pair<int, int> TerminalSize();

}  // namespace muster
