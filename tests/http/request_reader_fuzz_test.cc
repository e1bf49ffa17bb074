// Fuzzing RequestReader: valid requests are mutated (bit flips, byte
// overwrites, truncations, splices of other requests' bytes, huge
// Content-Length and chunk sizes, very long header lines, many headers, NUL
// bytes, bodies made chunked) and fed in random chunk sizes; the reader must
// give an error status the server answers or well-formed requests within
// the limits, and keep at most the header limit plus the last piece
// buffered: never crash, loop or grow without bound (this test runs in the
// sanitizer build).
//
// Seeds are the iteration numbers, so a failure names its seed and repeats.
// BLOOMROUTE_FUZZ_ITERATIONS sets the count (default 20000, about 0.1 s,
// a second under the sanitizers; e.g. 1000000 for a soak),
// BLOOMROUTE_FUZZ_SEED the first seed; BLOOMROUTE_FUZZ_DUMP=1 writes each
// mutated stream to stderr.
#include <gtest/gtest.h>

#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "http/internal/request_reader.h"

namespace bloomroute::http_internal {
namespace {

using State = RequestReader::State;

constexpr RequestLimits kLimits{1024, 64};

uint64_t EnvOr(const char* name, uint64_t fallback) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' ? std::strtoull(v, nullptr, 10) : fallback;
}

// What one mutated stream gave.
struct Outcome {
  int completed = 0;
  int error_status = 0;  // 0: none
};

class RequestReaderFuzzTest : public ::testing::Test {
 protected:
  RequestReaderFuzzTest() {
    seeds_ = {
        "GET / HTTP/1.1\r\nHost: a\r\n\r\n",
        "HEAD /healthz HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n",
        "GET /metrics?format=text&x=1 HTTP/1.0\r\n"
        "Authorization: Bearer 0123456789abcdef\r\n"
        "Accept: */*\r\nUser-Agent: fuzz\r\n\r\n",
        "GET /status HTTP/1.1\r\nContent-Length: 11\r\n\r\nhello world",
        "GET /c HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n"
        "5\r\nhello\r\n6;x=y\r\n world\r\n0\r\nX-Trailer: t\r\n\r\n",
        "GET /a HTTP/1.1\r\n\r\nGET /b HTTP/1.1\r\n\r\n"
        "HEAD /c HTTP/1.1\r\n\r\n",
    };
  }

  // One mutation of `bytes` at a random place.
  void MutateOnce(std::mt19937_64* random, std::string* bytes) {
    auto pick = [&](uint64_t n) {
      return n == 0
                 ? 0
                 : std::uniform_int_distribution<uint64_t>(0, n - 1)(*random);
    };
    std::string& s = *bytes;
    const size_t at = pick(s.size() + 1);
    static const char* const kInserts[] = {
        "Content-Length: 99999999999999999999999\r\n",
        "Content-Length: 1048576\r\n",
        "Content-Length: 3\r\nContent-Length: 4\r\n",
        "Transfer-Encoding: chunked\r\n",
        "fffffffffffffffffff\r\n",
        "7fffffff\r\n",
        "\r\n0\r\n\r\n",
        "Connection: close\r\n",
        "\r\n\r\n"};
    switch (pick(10)) {
      case 0:
        if (!s.empty()) s[pick(s.size())] ^= static_cast<char>(1u << pick(8));
        break;
      case 1:
        if (!s.empty()) s[pick(s.size())] = static_cast<char>(pick(256));
        break;
      case 2:
        s.resize(at);
        break;
      case 3: {  // a splice of another seed's bytes
        const std::string& other = seeds_[pick(seeds_.size())];
        const size_t from = pick(other.size());
        s.insert(at, other.substr(from, 1 + pick(40)));
        break;
      }
      case 4:
        s.insert(at, kInserts[pick(std::size(kInserts))]);
        break;
      case 5:  // a very long header line
        s.insert(at, "X-Long: " + std::string(500 + pick(3000), 'a') + "\r\n");
        break;
      case 6: {  // many headers
        std::string many;
        for (uint64_t i = 0, n = 1 + pick(300); i < n; ++i)
          many += "X-H: v\r\n";
        s.insert(at, many);
        break;
      }
      case 7:
        s.insert(at, std::string(1 + pick(3), '\0'));
        break;
      case 8:  // a chunked body of random chunks
        s.insert(at, ChunkedBody(random));
        break;
      default:
        s.erase(at, pick(16));
        break;
    }
  }

  std::string ChunkedBody(std::mt19937_64* random) {
    std::string body = "Transfer-Encoding: chunked\r\n\r\n";
    const int chunks = static_cast<int>((*random)() % 6);
    for (int i = 0; i < chunks; ++i) {
      const size_t size = 1 + (*random)() % 40;
      char hex[16];
      std::snprintf(hex, sizeof(hex), "%zx", size);
      body += std::string(hex) + "\r\n" + std::string(size, 'z') + "\r\n";
    }
    return body + "0\r\n\r\n";
  }

  // Feeds `bytes` in random pieces, checking every request and the memory
  // bound on the way.
  Outcome FeedAll(std::mt19937_64* random, const std::string& bytes) {
    RequestReader reader(kLimits);
    Outcome outcome;
    size_t at = 0;
    State state = State::kNeedMore;
    while (at < bytes.size() && state != State::kError) {
      const size_t piece = 1 + (*random)() % 300;
      state = reader.Feed(std::string_view(bytes).substr(at, piece));
      at += piece;
      EXPECT_LE(reader.buffered_bytes(), kLimits.max_header_bytes + piece);
      while (state == State::kComplete) {
        CheckRequest(reader);
        ++outcome.completed;
        if (outcome.completed > 1000) ADD_FAILURE() << "no end of requests";
        state = reader.Next();
      }
    }
    if (state == State::kError) {
      outcome.error_status = reader.error_status();
      EXPECT_TRUE(kStatuses.count(outcome.error_status) == 1)
          << outcome.error_status;
      EXPECT_FALSE(reader.error_message().empty());
    }
    return outcome;
  }

  static void CheckRequest(const RequestReader& reader) {
    const HttpRequest& r = reader.request();
    EXPECT_TRUE(r.method == "GET" || r.method == "HEAD") << r.method;
    ASSERT_FALSE(r.path.empty());
    EXPECT_EQ(r.path.front(), '/');
    EXPECT_EQ(r.path.find('?'), std::string::npos);
    EXPECT_LE(r.body.size(), kLimits.max_body_bytes);
    size_t header_bytes = r.path.size() + r.query.size();
    for (const auto& [name, value] : r.headers) {
      EXPECT_FALSE(name.empty());
      for (const char c : name) EXPECT_FALSE(c >= 'A' && c <= 'Z') << name;
      header_bytes += name.size() + value.size();
    }
    EXPECT_LE(header_bytes, kLimits.max_header_bytes);
  }

  const std::set<int> kStatuses = {400, 405, 413, 431, 505};
  std::vector<std::string> seeds_;
};

TEST_F(RequestReaderFuzzTest, MutatedRequestsGiveAnErrorOrWellFormedOnes) {
  for (const std::string& s : seeds_) {
    std::mt19937_64 random(0);
    const Outcome valid = FeedAll(&random, s);
    ASSERT_GE(valid.completed, 1) << s;
    ASSERT_EQ(valid.error_status, 0) << s;
  }
  const uint64_t iterations = EnvOr("BLOOMROUTE_FUZZ_ITERATIONS", 20000);
  const uint64_t first = EnvOr("BLOOMROUTE_FUZZ_SEED", 1);
  const bool dump = EnvOr("BLOOMROUTE_FUZZ_DUMP", 0) != 0;
  uint64_t requests = 0, refused = 0, incomplete = 0;
  std::set<int> statuses;
  for (uint64_t seed = first; seed < first + iterations; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::mt19937_64 random(seed);
    std::string bytes = seeds_[random() % seeds_.size()];
    for (int m = 0, n = 1 + static_cast<int>(random() % 3); m < n; ++m) {
      MutateOnce(&random, &bytes);
    }
    if (dump) std::fwrite(bytes.data(), 1, bytes.size(), stderr);
    const Outcome outcome = FeedAll(&random, bytes);
    if (::testing::Test::HasFailure()) break;
    requests += outcome.completed;
    if (outcome.error_status != 0) {
      ++refused;
      statuses.insert(outcome.error_status);
    } else if (outcome.completed == 0) {
      ++incomplete;
    }
  }
  std::printf(
      "fuzz: %" PRIu64 " iterations from seed %" PRIu64 ": %" PRIu64
      " requests read, %" PRIu64 " streams refused (%zu statuses), %" PRIu64
      " left waiting for more\n",
      iterations, first, requests, refused, statuses.size(), incomplete);
  // The mutations reach both ends: requests still read, and refusals of
  // several kinds (malformed, limits, methods).
  if (iterations >= 400) {
    EXPECT_GT(requests, iterations / 10);
    EXPECT_GT(refused, iterations / 10);
    EXPECT_GE(statuses.size(), 3u);
  }
}

}  // namespace
}  // namespace bloomroute::http_internal
