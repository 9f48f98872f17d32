// The task I/O stream of a job step, from each musterd that runs tasks of it to srun. srun
// listens (a Unix socket, or TCP when the step's nodes are on other hosts) and passes the
// address and a per-step secret in its launch request; each agent connects once per step and
// writes frames; srun writes back the frames for the tasks' standard input. A frame is one header
// line, and for OUT/ERR/IN exactly <len> bytes after it. Agent to srun:
//   HELLO <key> <node>\n              first frame: the step's secret and the agent's node name
//   OUT <procid> <len>\n<bytes>       a piece of the task's stdout (raw bytes, any content)
//   ERR <procid> <len>\n<bytes>       a piece of its stderr
//   EXIT <procid> <code> <signal> <core>\n   the task ended: exit code (signal 0), or killed by
//                                     that signal (code 0); core 1 when it dumped core
//   NOTE <len>\n<bytes>               the node's own words for srun's stderr (Slurm's slurmstepd
//                                     lines: "*** STEP 12.0 ON n1 CANCELLED AT ... ***")
// srun to agent (only for tasks whose stdin comes from srun: its default, -i <task id>, --pty):
//   IN <procid> <len>\n<bytes>        bytes for that task's stdin; procid -1: every such task here
//   EOF <procid>\n                    srun's stdin ended: close that task's stdin (-1: all here)
//   WINCH <rows> <cols>\n             srun's terminal changed size (--pty: the task's terminal)
//   ACK\n                             srun printed a NOTE (one ACK per NOTE): the agent may now end
//                                     the job's processes, srun among them
// A task's EXIT follows every byte of its output. The agent closes the stream when every task
// it ran for the step has ended. Pure codec plus small blocking socket helpers; thread-compatible.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "base/read_file.h"  // WriteFully
#include "base/status.h"

namespace muster {

enum class StepIoKind { kHello, kOut, kErr, kExit, kIn, kEof, kWinch, kNote, kAck };

struct StepIoFrame {
  StepIoKind kind = StepIoKind::kOut;
  int procid = 0;     // OUT, ERR, EXIT, IN, EOF (IN and EOF: -1 = every task)
  std::string data;   // OUT/ERR/IN/NOTE: the bytes; HELLO: the key
  std::string node;   // HELLO
  int exit_code = 0;  // EXIT
  int signal = 0;     // EXIT
  bool core_dumped = false;
  int rows = 0, cols = 0;  // WINCH
  friend bool operator==(const StepIoFrame&, const StepIoFrame&) = default;
};

inline constexpr size_t kStepIoMaxPayload = 1 << 20;  // larger OUT/ERR pieces are malformed

StepIoFrame HelloFrame(const std::string& key, const std::string& node);
StepIoFrame OutputFrame(StepIoKind kind, int procid, std::string data);  // kind: kOut, kErr or kIn
StepIoFrame EofFrame(int procid);
StepIoFrame NoteFrame(std::string text);
StepIoFrame WinchFrame(int rows, int cols);
StepIoFrame AckFrame();
StepIoFrame ExitFrame(int procid, int exit_code, int signal, bool core_dumped);

// The frame's bytes on the wire.
std::string EncodeStepIoFrame(const StepIoFrame& frame);

// Splits a byte stream into frames, whatever the chunking of Feed.
class StepIoDecoder {
 public:
  void Feed(std::string_view bytes);
  // The next complete frame, std::nullopt when more bytes are needed, or InvalidArgument for a
  // malformed stream (unknown header, bad number, payload over kStepIoMaxPayload): drop it then.
  StatusOr<std::optional<StepIoFrame>> Next();
  size_t buffered() const { return buf_.size() - pos_; }

 private:
  std::string buf_;
  size_t pos_ = 0;
};

// --- sockets (blocking file descriptors, close-on-exec) ---

// "unix:/path" or "/path": a Unix stream socket; "host:port": TCP. Waits at most timeout_ms for
// the connection. Unavailable (naming the address) when nobody listens.
StatusOr<int> ConnectStream(const std::string& address, int timeout_ms);
// A listening Unix socket at `path` (replaced if a stale one is there), mode 0600.
StatusOr<int> ListenUnix(const std::string& path, int backlog = 1024);
// A listening TCP socket on `host` ("0.0.0.0", "127.0.0.1"); port 0 picks a free one, returned
// in *bound_port.
StatusOr<int> ListenTcp(const std::string& host, int port, int* bound_port, int backlog = 1024);

}  // namespace muster
