// AssembleFilterImage (router/region_client.h): pages of a bits-only
// snapshot from an untrusted server, put together or refused.
#include "router/region_client.h"

#include <gtest/gtest.h>

#include <deque>
#include <string>
#include <utility>
#include <vector>

namespace bloomroute::router {
namespace {

// A scripted server: answers each fetch with the next reply, and records
// what it was asked.
class ScriptedPages {
 public:
  void Add(StatusOr<FilterImagePage> reply) {
    replies_.push_back(std::move(reply));
  }
  FilterImagePageFetch Fetch() {
    return [this](uint64_t image_id,
                  uint64_t offset) -> StatusOr<FilterImagePage> {
      asked_.emplace_back(image_id, offset);
      if (replies_.empty()) return Status::Unavailable("script ran out");
      StatusOr<FilterImagePage> r = std::move(replies_.front());
      replies_.pop_front();
      return r;
    };
  }
  const std::vector<std::pair<uint64_t, uint64_t>>& asked() const {
    return asked_;
  }

 private:
  std::deque<StatusOr<FilterImagePage>> replies_;
  std::vector<std::pair<uint64_t, uint64_t>> asked_;
};

// The pages of `image` cut every `page` bytes, as a server sends them.
std::vector<FilterImagePage> Pages(const std::string& image, size_t page,
                                   uint64_t id = 77) {
  std::vector<FilterImagePage> out;
  for (size_t at = 0; at < image.size(); at += page) {
    out.push_back(FilterImagePage{5, 2, 40, id, image.size(), at,
                                  image.substr(at, page)});
  }
  return out;
}

class AssembleFilterImageTest : public ::testing::Test {
 protected:
  // A fresh script of `pages`, assembled.
  StatusOr<FilterImage> Assemble(std::vector<FilterImagePage> pages) {
    script_ = ScriptedPages();
    for (auto& p : pages) script_.Add(std::move(p));
    return AssembleFilterImage(script_.Fetch(), limits_);
  }
  // The assembly of `pages` fails with Corruption mentioning `what`.
  void ExpectCorrupt(std::vector<FilterImagePage> pages,
                     const std::string& what) {
    StatusOr<FilterImage> r = Assemble(std::move(pages));
    EXPECT_TRUE(r.status().IsCorruption()) << r.status().ToString();
    EXPECT_NE(r.status().message().find(what), std::string::npos)
        << what << " not in " << r.status().ToString();
  }

  const std::string image_ = std::string(1000, 'x') + std::string(500, 'y');
  FilterImageLimits limits_;
  ScriptedPages script_;
};

TEST_F(AssembleFilterImageTest, PagesAssembleInOrder) {
  auto r = Assemble(Pages(image_, 400));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->image, image_);
  EXPECT_EQ(r->incarnation, 5u);
  EXPECT_EQ(r->epoch, 2u);
  EXPECT_EQ(r->last_seq, 40u);
  EXPECT_EQ(script_.asked(), (std::vector<std::pair<uint64_t, uint64_t>>{
                                 {0, 0}, {77, 400}, {77, 800}, {77, 1200}}));
}

TEST_F(AssembleFilterImageTest, InconsistentPagesAreCorruption) {
  for (int field = 0; field < 5; ++field) {
    std::vector<FilterImagePage> pages = Pages(image_, 400);
    FilterImagePage& p = pages[2];
    switch (field) {
      case 0:
        p.image_id = 78;
        break;
      case 1:
        p.incarnation = 6;
        break;
      case 2:
        p.epoch = 3;
        break;
      case 3:
        p.last_seq = 41;
        break;
      case 4:
        p.total_bytes += 1;
        break;
    }
    ExpectCorrupt(pages, "page");
  }
  std::vector<FilterImagePage> zero_id = Pages(image_, 400, 0);
  ExpectCorrupt(zero_id, "image id 0");
}

TEST_F(AssembleFilterImageTest, OverlappingGappedOrLongPagesAreCorruption) {
  std::vector<FilterImagePage> overlap = Pages(image_, 400);
  overlap[1].offset = 300;
  ExpectCorrupt(overlap, "offset 300");
  std::vector<FilterImagePage> gap = Pages(image_, 400);
  gap[1].offset = 500;
  ExpectCorrupt(gap, "offset 500");
  std::vector<FilterImagePage> first_not_at_0 = Pages(image_, 400);
  first_not_at_0[0].offset = 1;
  ExpectCorrupt(first_not_at_0, "offset 1");
  std::vector<FilterImagePage> past_end = Pages(image_, 400);
  past_end[3].bytes += "zz";  // 1200 + 302 > 1500
  ExpectCorrupt(past_end, "past");
}

TEST_F(AssembleFilterImageTest, AnEmptyPageBeforeTheEndIsCorruption) {
  std::vector<FilterImagePage> pages = Pages(image_, 400);
  pages.insert(pages.begin() + 2,
               FilterImagePage{5, 2, 40, 77, image_.size(), 800, ""});
  ExpectCorrupt(pages, "empty");
  std::vector<FilterImagePage> empty_image = {
      FilterImagePage{5, 2, 40, 77, 0, 0, ""}};
  ExpectCorrupt(empty_image, "empty");
}

TEST_F(AssembleFilterImageTest, AnImageOverTheLimitIsRefusedByName) {
  limits_.max_image_bytes = 1499;
  limits_.option = "--max-filter-image-bytes";
  auto r = Assemble(Pages(image_, 400));
  EXPECT_TRUE(r.status().IsIOError()) << r.status().ToString();
  EXPECT_NE(r.status().message().find("1500"), std::string::npos);
  EXPECT_NE(r.status().message().find("1499"), std::string::npos);
  EXPECT_NE(r.status().message().find("--max-filter-image-bytes"),
            std::string::npos);
  EXPECT_EQ(script_.asked().size(), 1u);  // nothing more was fetched
}

// The server dropped the image (another reader started one, or it idled
// out): start again, a bounded number of times.
TEST_F(AssembleFilterImageTest, AnExpiredImageStartsAgain) {
  std::vector<FilterImagePage> first = Pages(image_, 400, 77);
  script_.Add(first[0]);
  script_.Add(Status::NotFound("filter image 77 expired; start a new one"));
  for (const auto& p : Pages(image_, 400, 78)) script_.Add(p);
  auto r = AssembleFilterImage(script_.Fetch(), limits_);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->image, image_);
  EXPECT_EQ(script_.asked()[2], (std::pair<uint64_t, uint64_t>{0, 0}));

  ScriptedPages forever;
  for (uint32_t i = 0; i <= limits_.max_restarts; ++i) {
    forever.Add(first[0]);
    forever.Add(Status::NotFound("filter image 77 expired; start a new one"));
  }
  auto gave_up = AssembleFilterImage(forever.Fetch(), limits_);
  EXPECT_TRUE(gave_up.status().IsNotFound()) << gave_up.status().ToString();
  EXPECT_EQ(forever.asked().size(), 2 * (limits_.max_restarts + 1));

  // Other errors are the caller's to handle, and a first page NotFound is
  // not an expired image.
  ScriptedPages down;
  down.Add(first[0]);
  down.Add(Status::Unavailable("gone"));
  EXPECT_TRUE(
      AssembleFilterImage(down.Fetch(), limits_).status().IsUnavailable());
  ScriptedPages not_found;
  not_found.Add(Status::NotFound("no"));
  EXPECT_TRUE(
      AssembleFilterImage(not_found.Fetch(), limits_).status().IsNotFound());
  EXPECT_EQ(not_found.asked().size(), 1u);
}

}  // namespace
}  // namespace bloomroute::router
