#include "net/step_io.h"

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <vector>

namespace muster {
namespace {

std::vector<StepIoFrame> DecodeAll(StepIoDecoder& d) {
  std::vector<StepIoFrame> out;
  while (true) {
    StatusOr<std::optional<StepIoFrame>> f = d.Next();
    EXPECT_TRUE(f.ok()) << f.status().ToString();
    if (!f.ok() || !f->has_value()) break;
    out.push_back(**f);
  }
  return out;
}

TEST(StepIoFrame, EncodesTheDocumentedWireForm) {
  EXPECT_EQ(EncodeStepIoFrame(HelloFrame("k3y", "node1")), "HELLO k3y node1\n");
  EXPECT_EQ(EncodeStepIoFrame(OutputFrame(StepIoKind::kOut, 3, "hi\n")), "OUT 3 3\nhi\n");
  EXPECT_EQ(EncodeStepIoFrame(OutputFrame(StepIoKind::kErr, 0, "")), "ERR 0 0\n");
  EXPECT_EQ(EncodeStepIoFrame(ExitFrame(1, 3, 0, false)), "EXIT 1 3 0 0\n");
  EXPECT_EQ(EncodeStepIoFrame(ExitFrame(2, 0, 9, true)), "EXIT 2 0 9 1\n");
  EXPECT_EQ(EncodeStepIoFrame(OutputFrame(StepIoKind::kIn, -1, "ls\n")), "IN -1 3\nls\n");
  EXPECT_EQ(EncodeStepIoFrame(EofFrame(0)), "EOF 0\n");
  EXPECT_EQ(EncodeStepIoFrame(WinchFrame(50, 132)), "WINCH 50 132\n");
  EXPECT_EQ(EncodeStepIoFrame(NoteFrame("hi\n")), "NOTE 3\nhi\n");
  EXPECT_EQ(EncodeStepIoFrame(AckFrame()), "ACK\n");
}

TEST(StepIoDecoder, RoundTripsWhateverTheChunking) {
  const std::vector<StepIoFrame> frames = {
      HelloFrame("abc", "node2"),
      OutputFrame(StepIoKind::kOut, 0, std::string("binary\0with\nnewlines\n", 21)),
      OutputFrame(StepIoKind::kErr, 1, "EXIT 1 2 3 4\n"),  // payload that looks like a header
      OutputFrame(StepIoKind::kOut, 12, ""),
      ExitFrame(0, 0, 0, false),
      ExitFrame(1, 0, 15, false),
      OutputFrame(StepIoKind::kIn, -1, "IN 0 1\n"),
      OutputFrame(StepIoKind::kIn, 3, std::string("\x03\x04", 2)),
      EofFrame(-1),
      EofFrame(7),
      WinchFrame(24, 80),
      NoteFrame("*** STEP 1.0 ON n1 CANCELLED AT 2026-12-03T10:00:00 ***\n"),
      AckFrame(),
  };
  std::string wire;
  for (const StepIoFrame& f : frames) wire += EncodeStepIoFrame(f);
  for (size_t chunk : {size_t{1}, size_t{2}, size_t{7}, wire.size()}) {
    StepIoDecoder d;
    std::vector<StepIoFrame> got;
    for (size_t i = 0; i < wire.size(); i += chunk) {
      d.Feed(std::string_view(wire).substr(i, chunk));
      for (StepIoFrame& f : DecodeAll(d)) got.push_back(std::move(f));
    }
    EXPECT_EQ(got, frames) << "chunk " << chunk;
    EXPECT_EQ(d.buffered(), 0u);
  }
}

TEST(StepIoDecoder, RejectsMalformedStreams) {
  for (const char* bad :
       {"HELLO\n", "OUT x 3\n", "OUT 1 -3\n", "EXIT 1 2\n", "NOPE 1 2\n", "OUT 1 99999999999\n", "\n",
        "OUT -1 2\n", "IN -2 1\n", "EOF\n", "EOF -2\n", "WINCH 24\n", "WINCH -1 80\n", "WINCH 24 99999\n", "NOTE\n", "NOTE -1\n", "NOTE 1 2\n", "ACK 1\n"}) {
    StepIoDecoder d;
    d.Feed(bad);
    EXPECT_FALSE(d.Next().ok()) << bad;
  }
  StepIoDecoder d;
  d.Feed(std::string(600, 'x'));  // no newline within the header limit
  EXPECT_FALSE(d.Next().ok());
  StepIoDecoder partial;
  partial.Feed("OUT 1 10\nabc");
  StatusOr<std::optional<StepIoFrame>> f = partial.Next();
  ASSERT_TRUE(f.ok());
  EXPECT_FALSE(f->has_value());
}

TEST(StepIoSockets, UnixAndTcpCarryFrames) {
  const std::string path =
      (std::filesystem::temp_directory_path() / ("step_io_test_" + std::to_string(getpid()) + ".sock")).string();
  StatusOr<int> lu = ListenUnix(path);
  ASSERT_TRUE(lu.ok()) << lu.status().ToString();
  struct stat st {};
  ASSERT_EQ(stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  int port = 0;
  StatusOr<int> lt = ListenTcp("127.0.0.1", 0, &port);
  ASSERT_TRUE(lt.ok()) << lt.status().ToString();
  ASSERT_GT(port, 0);
  for (const auto& [listener, address] : std::vector<std::pair<int, std::string>>{
           {*lu, "unix:" + path}, {*lu, path}, {*lt, "127.0.0.1:" + std::to_string(port)}}) {
    StatusOr<int> c = ConnectStream(address, 2000);
    ASSERT_TRUE(c.ok()) << address << ": " << c.status().ToString();
    int a = accept(listener, nullptr, nullptr);
    ASSERT_GE(a, 0);
    ASSERT_TRUE(WriteFully(*c, EncodeStepIoFrame(OutputFrame(StepIoKind::kOut, 0, "hello"))));
    close(*c);
    StepIoDecoder d;
    char buf[256];
    ssize_t n;
    while ((n = read(a, buf, sizeof buf)) > 0) d.Feed(std::string_view(buf, n));
    close(a);
    std::vector<StepIoFrame> got = DecodeAll(d);
    ASSERT_EQ(got.size(), 1u) << address;
    EXPECT_EQ(got[0].data, "hello");
  }
  close(*lu);
  close(*lt);
  unlink(path.c_str());
  StatusOr<int> none = ConnectStream("unix:" + path, 500);
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.status().message().find(path), std::string::npos);
  EXPECT_FALSE(ConnectStream("nonsense", 500).ok());
}

}  // namespace
}  // namespace muster
