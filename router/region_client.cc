#include "router/region_client.h"

#include <string>

namespace bloomroute::router {
namespace {

// What a later page must share with the first one.
bool SameImage(const FilterImagePage& a, const FilterImagePage& b) {
  return a.image_id == b.image_id && a.incarnation == b.incarnation &&
         a.epoch == b.epoch && a.last_seq == b.last_seq &&
         a.total_bytes == b.total_bytes;
}

Status BadPage(uint64_t offset, const std::string& why) {
  return Status::Corruption("filter image page at offset " +
                            std::to_string(offset) + ": " + why);
}

// Checks `page`, the next one of `first`'s image after `have` bytes.
Status CheckPage(const FilterImagePage& first, const FilterImagePage& page,
                 uint64_t have) {
  if (!SameImage(first, page)) {
    return BadPage(page.offset, "not of the image the first page began");
  }
  if (page.offset != have) {
    return BadPage(page.offset, "expected offset " + std::to_string(have));
  }
  if (page.bytes.empty()) {
    return BadPage(page.offset, "empty before the end of the image");
  }
  if (page.bytes.size() > page.total_bytes - have) {
    return BadPage(page.offset, std::to_string(page.bytes.size()) +
                                    " bytes run past the image's " +
                                    std::to_string(page.total_bytes));
  }
  return Status::OK();
}

// The first page of a new image, checked on its own.
Status CheckFirstPage(const FilterImagePage& page,
                      const FilterImageLimits& limits) {
  if (page.image_id == 0) return BadPage(0, "image id 0");
  if (page.total_bytes == 0) return BadPage(0, "an empty image");
  if (page.total_bytes > limits.max_image_bytes) {
    return Status::IOError("filter image of " +
                           std::to_string(page.total_bytes) +
                           " bytes is over the limit of " +
                           std::to_string(limits.max_image_bytes) + " bytes (" +
                           limits.option + ")");
  }
  return CheckPage(page, page, 0);
}

// One attempt: the whole image, or the error that ended it.
StatusOr<FilterImage> FetchOnce(const FilterImagePageFetch& fetch,
                                const FilterImageLimits& limits) {
  BLOOMROUTE_ASSIGN_OR_RETURN(FilterImagePage first, fetch(0, 0));
  BLOOMROUTE_RETURN_IF_ERROR(CheckFirstPage(first, limits));
  FilterImage out{first.incarnation, first.epoch, first.last_seq,
                  std::move(first.bytes)};
  first.bytes.clear();
  while (out.image.size() < first.total_bytes) {
    BLOOMROUTE_ASSIGN_OR_RETURN(FilterImagePage page,
                                fetch(first.image_id, out.image.size()));
    BLOOMROUTE_RETURN_IF_ERROR(CheckPage(first, page, out.image.size()));
    out.image += page.bytes;
  }
  return out;
}

}  // namespace

StatusOr<FilterImage> AssembleFilterImage(const FilterImagePageFetch& fetch,
                                          const FilterImageLimits& limits) {
  for (uint32_t attempt = 0;; ++attempt) {
    bool started = false;
    auto counting = [&](uint64_t id, uint64_t offset) {
      if (id != 0) started = true;
      return fetch(id, offset);
    };
    StatusOr<FilterImage> image = FetchOnce(counting, limits);
    // NotFound after the first page: the server dropped the image (another
    // reader began one, or it idled out). Start again.
    if (image.ok() || !started || !image.status().IsNotFound() ||
        attempt == limits.max_restarts) {
      return image;
    }
  }
}

}  // namespace bloomroute::router
