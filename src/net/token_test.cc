#include "net/key_file.h"
#include "net/token.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <string>

#include "base/test_util.h"
#include "gtest/gtest.h"

namespace muster {
namespace {

const std::string kKey(32, 'k');
constexpr int64_t kNow = 1'700'000'000;

// Flips one character of the token's part (0 = payload, 1 = signature) to another alphabet
// character.
std::string Tamper(const std::string& token, int part, size_t offset_from_end = 1) {
  std::string t = token;
  size_t dot = t.find('.');
  size_t pos = part == 0 ? dot - offset_from_end : t.size() - offset_from_end;
  t[pos] = t[pos] == 'A' ? 'B' : 'A';
  return t;
}

TEST(TokenTest, MintThenVerify) {
  TokenAuthority ta(kKey);
  std::string token = ta.Mint(1234, 5678, kNow, 60);
  EXPECT_EQ(token.find('='), std::string::npos);
  EXPECT_EQ(token.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_."),
            std::string::npos);
  StatusOr<Caller> caller = ta.Verify(token, kNow + 59);
  ASSERT_TRUE(caller.ok()) << caller.status().ToString();
  EXPECT_TRUE(caller->authenticated);
  EXPECT_EQ(caller->uid, 1234u);
  EXPECT_EQ(caller->gid, 5678u);
  EXPECT_EQ(caller->via, "token");
  EXPECT_TRUE(caller->error.empty());
}

TEST(TokenTest, TwoMintsDifferByNonce) {
  TokenAuthority ta(kKey);
  EXPECT_NE(ta.Mint(1, 1, kNow, 60), ta.Mint(1, 1, kNow, 60));
}

TEST(TokenTest, LargestIds) {
  TokenAuthority ta(kKey);
  StatusOr<Caller> caller = ta.Verify(ta.Mint(4294967295u, 4294967294u, kNow, 60), kNow);
  ASSERT_TRUE(caller.ok());
  EXPECT_EQ(caller->uid, 4294967295u);
  EXPECT_EQ(caller->gid, 4294967294u);
}

TEST(TokenTest, Expired) {
  TokenAuthority ta(kKey);
  std::string token = ta.Mint(1, 1, kNow, 60);
  StatusOr<Caller> caller = ta.Verify(token, kNow + 60);
  ASSERT_FALSE(caller.ok());
  EXPECT_EQ(caller.status().code(), StatusCode::kUnauthenticated);
  EXPECT_NE(caller.status().message().find("expired"), std::string::npos) << caller.status().message();
}

// A token opens one connection: its first use takes its nonce, a second is refused as a replay
// until the token expires (then it is refused as expired, and its nonce forgotten).
TEST(TokenTest, ATokenIsTakenOnceUntilItExpires) {
  TokenAuthority ta(kKey);
  const std::string token = ta.Mint(1, 1, kNow, 60);
  ASSERT_TRUE(ta.VerifyFirstUse(token, kNow).ok());
  StatusOr<Caller> replay = ta.VerifyFirstUse(token, kNow + 1);
  ASSERT_FALSE(replay.ok());
  EXPECT_EQ(replay.status().code(), StatusCode::kUnauthenticated);
  EXPECT_NE(replay.status().message().find("token already used"), std::string::npos) << replay.status().message();
  EXPECT_TRUE(ta.Verify(token, kNow + 1).ok()) << "its own connection presents it again";
  EXPECT_TRUE(ta.VerifyFirstUse(ta.Mint(1, 1, kNow, 60), kNow + 1).ok()) << "another token of the same user";
  EXPECT_EQ(ta.RememberedNonces(), 2u);
  StatusOr<Caller> late = ta.VerifyFirstUse(token, kNow + 60);
  ASSERT_FALSE(late.ok());
  EXPECT_NE(late.status().message().find("expired"), std::string::npos) << late.status().message();
  // Once expired, the nonces are forgotten (memory stays bounded by the tokens alive).
  EXPECT_TRUE(ta.VerifyFirstUse(ta.Mint(2, 2, kNow + 100, 60), kNow + 100).ok());
  EXPECT_EQ(ta.RememberedNonces(), 1u);
  // A bad token takes no nonce.
  EXPECT_FALSE(ta.VerifyFirstUse(Tamper(ta.Mint(3, 3, kNow + 100, 60), 1), kNow + 100).ok());
  EXPECT_EQ(ta.RememberedNonces(), 1u);
}

// With a journal (the controller's store), a token used once stays used across a restart: a new
// authority on the same journal, as a controller started again, refuses it. A journal that cannot
// record refuses the token, saying why.
TEST(TokenTest, AJournalKeepsATokenUsedAcrossARestart) {
  std::map<std::string, int64_t> journal;  // what a store would keep
  const auto record = [&journal](const std::string& nonce, int64_t expires, int64_t) -> StatusOr<bool> {
    return journal.emplace(nonce, expires).second;
  };
  std::string token;
  {
    TokenAuthority before(kKey);
    before.SetNonceJournal(record);
    token = before.Mint(1, 1, kNow, 60);
    ASSERT_TRUE(before.VerifyFirstUse(token, kNow).ok());
    EXPECT_EQ(journal.size(), 1u);
  }
  TokenAuthority after(kKey);  // restarted: nothing in memory
  after.SetNonceJournal(record);
  StatusOr<Caller> replay = after.VerifyFirstUse(token, kNow + 1);
  ASSERT_FALSE(replay.ok());
  EXPECT_EQ(replay.status().code(), StatusCode::kUnauthenticated);
  EXPECT_NE(replay.status().message().find("token already used"), std::string::npos) << replay.status().message();
  EXPECT_TRUE(after.VerifyFirstUse(after.Mint(1, 1, kNow, 60), kNow + 1).ok()) << "a fresh token is taken";
  // A token minted before the restart and never used is still good: a command on its way across
  // the restart is not turned away.
  TokenAuthority minter(kKey);
  const std::string unused = minter.Mint(1, 1, kNow, 60);
  EXPECT_TRUE(after.VerifyFirstUse(unused, kNow + 2).ok());
  // Without a journal to write to, no token opens a connection.
  after.SetNonceJournal([](const std::string&, int64_t, int64_t) -> StatusOr<bool> {
    return Status(StatusCode::kUnavailable, "store unreachable");
  });
  StatusOr<Caller> down = after.VerifyFirstUse(after.Mint(1, 1, kNow, 60), kNow + 3);
  ASSERT_FALSE(down.ok());
  EXPECT_EQ(down.status().message(), "cannot record the token's use: store unreachable");
}

TEST(TokenTest, TamperedPayloadIsRejected) {
  TokenAuthority ta(kKey);
  std::string token = ta.Mint(1000, 1000, kNow, 60);
  for (size_t off = 1; off <= 3; ++off) {
    StatusOr<Caller> caller = ta.Verify(Tamper(token, 0, off), kNow);
    ASSERT_FALSE(caller.ok()) << "offset " << off;
    EXPECT_EQ(caller.status().code(), StatusCode::kUnauthenticated);
  }
  // A payload re-encoded by hand with another uid, keeping the old signature.
  size_t dot = token.find('.');
  std::string forged = ta.Mint(0, 0, kNow, 60);
  forged = forged.substr(0, forged.find('.')) + token.substr(dot);
  StatusOr<Caller> caller = ta.Verify(forged, kNow);
  ASSERT_FALSE(caller.ok());
  EXPECT_NE(caller.status().message().find("signature"), std::string::npos) << caller.status().message();
}

TEST(TokenTest, TamperedSignatureIsRejected) {
  TokenAuthority ta(kKey);
  std::string token = ta.Mint(1000, 1000, kNow, 60);
  // The last character carries unused bits: a strict decoder must still reject an edit there.
  for (size_t off = 1; off <= 3; ++off) {
    StatusOr<Caller> caller = ta.Verify(Tamper(token, 1, off), kNow);
    ASSERT_FALSE(caller.ok()) << "offset " << off;
    EXPECT_EQ(caller.status().code(), StatusCode::kUnauthenticated);
  }
  EXPECT_FALSE(ta.Verify(token.substr(0, token.size() - 1), kNow).ok());  // truncated
  EXPECT_FALSE(ta.Verify(token + "A", kNow).ok());
}

TEST(TokenTest, WrongKeyIsRejected) {
  TokenAuthority minter(kKey);
  TokenAuthority verifier(std::string(32, 'x'));
  StatusOr<Caller> caller = verifier.Verify(minter.Mint(1, 1, kNow, 60), kNow);
  ASSERT_FALSE(caller.ok());
  EXPECT_EQ(caller.status().code(), StatusCode::kUnauthenticated);
  EXPECT_NE(caller.status().message().find("signature"), std::string::npos);
  EXPECT_FALSE(TokenAuthority("").Verify(minter.Mint(1, 1, kNow, 60), kNow).ok());
}

TEST(TokenTest, GarbageIsRejected) {
  TokenAuthority ta(kKey);
  const std::string good = ta.Mint(1, 1, kNow, 60);
  for (const std::string& garbage :
       {std::string(""), std::string("."), std::string(".."), std::string("abc"), std::string("abc.def"),
        std::string("a.b.c"), std::string("!!!.???"), std::string("eyJ1aWQiOjF9.") , good + "." + "x",
        std::string(10000, 'A') + "." + std::string(43, 'A'), std::string("A\0B.C", 5)}) {
    StatusOr<Caller> caller = ta.Verify(garbage, kNow);
    ASSERT_FALSE(caller.ok()) << garbage;
    EXPECT_EQ(caller.status().code(), StatusCode::kUnauthenticated) << garbage;
  }
}

class KeyFileTest : public ::testing::Test {
 protected:
  TempDir tmp_{"muster-key-test-"};
  const std::string dir_ = tmp_.path();
};

TEST_F(KeyFileTest, CreatesA0600KeyOnceAndReadsItBack) {
  std::string path = dir_ + "/cluster.key";
  EXPECT_EQ(LoadClusterKey(path, false).status().code(), StatusCode::kNotFound);
  StatusOr<std::string> key = LoadClusterKey(path, true);
  ASSERT_TRUE(key.ok()) << key.status().ToString();
  EXPECT_EQ(key->size(), 32u);
  struct stat st;
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  StatusOr<std::string> again = LoadClusterKey(path, true);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again, *key);
  // No temporary files left beside it.
  EXPECT_EQ(std::system(("test $(ls -A '" + dir_ + "' | wc -l) -eq 1").c_str()), 0);
  // Tokens from one authority verify with another built from the same file.
  EXPECT_TRUE(TokenAuthority(*again).Verify(TokenAuthority(*key).Mint(7, 7, kNow, 10), kNow).ok());
}

TEST_F(KeyFileTest, RefusesKeyReadableByOthers) {
  std::string path = dir_ + "/open.key";
  ASSERT_TRUE(LoadClusterKey(path, true).ok());
  for (mode_t mode : {0640, 0604, 0660}) {
    ASSERT_EQ(::chmod(path.c_str(), mode), 0);
    StatusOr<std::string> key = LoadClusterKey(path, true);
    ASSERT_FALSE(key.ok()) << mode;
    EXPECT_EQ(key.status().code(), StatusCode::kPermissionDenied);
    EXPECT_NE(key.status().message().find(path), std::string::npos);
  }
}

TEST_F(KeyFileTest, RefusesNonRegularFilesAndShortKeys) {
  EXPECT_EQ(LoadClusterKey(dir_, true).status().code(), StatusCode::kPermissionDenied);  // a directory
  std::string target = dir_ + "/real.key", link = dir_ + "/link.key";
  ASSERT_TRUE(LoadClusterKey(target, true).ok());
  ASSERT_EQ(::symlink(target.c_str(), link.c_str()), 0);
  EXPECT_EQ(LoadClusterKey(link, true).status().code(), StatusCode::kPermissionDenied);
  std::string fifo = dir_ + "/fifo.key";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_EQ(LoadClusterKey(fifo, true).status().code(), StatusCode::kPermissionDenied);
  std::string shortkey = dir_ + "/short.key";
  { std::ofstream(shortkey) << "tiny"; }
  ASSERT_EQ(::chmod(shortkey.c_str(), 0600), 0);
  EXPECT_EQ(LoadClusterKey(shortkey, true).status().code(), StatusCode::kInvalidArgument);
}

TEST_F(KeyFileTest, RefusesKeyOwnedByAnotherUser) {
  if (::geteuid() != 0) GTEST_SKIP() << "giving a file away needs root";
  std::string path = dir_ + "/theirs.key";
  ASSERT_TRUE(LoadClusterKey(path, true).ok());
  ASSERT_EQ(::chown(path.c_str(), 65534, 65534), 0);
  StatusOr<std::string> key = LoadClusterKey(path, false);
  ASSERT_FALSE(key.ok());
  EXPECT_EQ(key.status().code(), StatusCode::kPermissionDenied);
  EXPECT_NE(key.status().message().find("owned by uid 65534"), std::string::npos) << key.status().message();
  ASSERT_EQ(::chown(path.c_str(), 0, 0), 0);  // root's own: trusted
  EXPECT_TRUE(LoadClusterKey(path, false).ok());
}

// A new token at each call (each opens one connection), valid for the whole lifetime, and each
// taken once.
TEST(OwnTokenTest, ANewTokenForEachConnection) {
  TokenAuthority ta(kKey);
  OwnToken own(&ta, 0, 0, kControllerAudience, 300);
  EXPECT_EQ(own.ttl_s(), 300);
  const std::string first = own.Get(kNow);
  const std::string second = own.Get(kNow);
  EXPECT_NE(first, second);
  ASSERT_TRUE(ta.VerifyFirstUse(first, kNow + 299).ok());
  ASSERT_TRUE(ta.VerifyFirstUse(second, kNow + 299).ok());
  EXPECT_FALSE(ta.VerifyFirstUse(first, kNow + 1).ok());
  EXPECT_FALSE(ta.Verify(first, kNow + 300).ok());
}

TEST(OwnTokenTest, CarriesItsUidAndGid) {
  TokenAuthority ta(kKey);
  OwnToken own(&ta, 1234, 99, NodeAudience("gpu07"));
  StatusOr<Caller> c = ta.Verify(own.Get(kNow), kNow + 1);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->uid, 1234u);
  EXPECT_EQ(c->gid, 99u);
  // Another cluster's key does not accept it.
  EXPECT_EQ(TokenAuthority(std::string(32, 'x')).Verify(own.Get(kNow), kNow + 1).status().code(),
            StatusCode::kUnauthenticated);
}

// A server with an audience takes only the tokens that name it: a token for the controllers is
// refused by a node's agent, one for a node by another node's and by the controllers, one that
// names none by both; a server without an audience (an authority that only mints) takes any.
TEST(TokenTest, AServerTakesOnlyTokensForItsAudience) {
  TokenAuthority minter(kKey);
  TokenAuthority ctld(kKey, kControllerAudience), gpu07(kKey, NodeAudience("gpu07"));
  const std::string for_ctld = minter.Mint(1000, 100, kNow, 300, kControllerAudience);
  const std::string for_gpu07 = minter.Mint(1000, 100, kNow, 300, NodeAudience("gpu07"));
  const std::string for_gpu08 = minter.Mint(1000, 100, kNow, 300, NodeAudience("gpu08"));
  const std::string for_none = minter.Mint(1000, 100, kNow, 300);
  EXPECT_TRUE(ctld.VerifyFirstUse(for_ctld, kNow).ok());
  EXPECT_TRUE(gpu07.VerifyFirstUse(for_gpu07, kNow).ok());
  const struct {
    const TokenAuthority* server;
    std::string token;
    std::string says;
  } refused[] = {
      {&gpu07, for_ctld, "token for controller, not for node:gpu07"},
      {&gpu07, for_gpu08, "token for node:gpu08, not for node:gpu07"},
      {&ctld, for_gpu08, "token for node:gpu08, not for controller"},
      {&ctld, for_none, "token names no audience (this is controller)"},
      {&gpu07, for_none, "token names no audience (this is node:gpu07)"},
  };
  for (const auto& r : refused) {
    StatusOr<Caller> c = r.server->VerifyFirstUse(r.token, kNow);
    ASSERT_FALSE(c.ok()) << r.says;
    EXPECT_EQ(c.status().code(), StatusCode::kUnauthenticated);
    EXPECT_EQ(c.status().message(), r.says);
  }
  // The audience is signed: rewriting it breaks the signature.
  std::string payload;
  ASSERT_TRUE(Base64UrlDecode(for_gpu08.substr(0, for_gpu08.find('.')), &payload));
  const size_t at = payload.find("gpu08");
  ASSERT_NE(at, std::string::npos) << payload;
  payload.replace(at, 5, "gpu07");
  const std::string forged = Base64UrlEncode(payload) + for_gpu08.substr(for_gpu08.find('.'));
  EXPECT_EQ(gpu07.Verify(forged, kNow).status().message(), "bad token signature (wrong cluster key or tampered token)");
  EXPECT_TRUE(minter.Verify(for_gpu08, kNow).ok()) << "no audience: any";
  EXPECT_TRUE(minter.Verify(for_none, kNow).ok());
}

}  // namespace
}  // namespace muster
