#include "router/internal/bit_sliced_index.h"

#include <algorithm>
#include <mutex>
#include <new>
#include <string>

namespace bloomroute::router::internal {

namespace {

constexpr std::align_val_t kLineAlign{64};

uint64_t SlotBit(uint32_t slot) { return uint64_t{1} << (slot % 64); }

}  // namespace

// One ladder stage: k_i * m_i columns, column (j, p) numbered j * m_i + p
// and placed as ColumnLayout says. Words are null until the stage's first
// use.
struct BitSlicedIndex::Stage {
  StageGeometry geometry;
  Words words;
  uint64_t columns() const {
    return uint64_t{geometry.slices} * geometry.slice_length;
  }
  uint64_t Column(uint32_t slice, uint64_t pos) const {
    return uint64_t{slice} * geometry.slice_length + pos;
  }
  // The word holding bit `bit` of the stage (ColumnLayout::Bit).
  std::atomic<uint64_t>& Word(uint64_t bit) const { return words[bit / 64]; }
};

BitSlicedIndex::ColumnLayout BitSlicedIndex::ColumnLayout::For(uint32_t slots) {
  // Narrow columns for small clusters: a column of S bits costs S bits a
  // probe position per server slot, so 1 to 32 servers pay for the next
  // power of two rather than for 64 (e.g. 3 servers: 4 bits, not 64).
  ColumnLayout l;
  if (slots > 32) {
    l.slots = (slots + 63) / 64 * 64;
  } else {
    l.slots = slots == 0 ? 0 : 1;
    while (l.slots < slots) l.slots *= 2;
  }
  l.words = (l.slots + 63) / 64;
  l.mask = l.slots >= 64 ? ~uint64_t{0} : (uint64_t{1} << l.slots) - 1;
  return l;
}

void BitSlicedIndex::AlignedDelete::operator()(std::atomic<uint64_t>* p) const {
  ::operator delete[](p, kLineAlign);
}

BitSlicedIndex::Words BitSlicedIndex::AllocateWords(uint64_t n) {
  // Columns start on cache lines so that a column of W >= 8 words spans
  // exactly W / 8 lines. std::atomic<uint64_t> is trivially constructible
  // and has the object representation of uint64_t, so zeroed storage holds
  // zeroed atomics.
  void* p = ::operator new[](std::max<uint64_t>(n, 1) * sizeof(uint64_t),
                             kLineAlign, std::nothrow);
  if (p == nullptr) return Words();
  std::fill_n(static_cast<uint64_t*>(p), n, uint64_t{0});
  return Words(static_cast<std::atomic<uint64_t>*>(p));
}

BitSlicedIndex::BitSlicedIndex(const SscbfConfig& config, uint64_t max_bytes)
    : config_(config),
      max_bytes_(max_bytes),
      stages_(std::make_unique<std::array<Stage, kStages>>()) {}

BitSlicedIndex::~BitSlicedIndex() = default;

StatusOr<std::unique_ptr<BitSlicedIndex>> BitSlicedIndex::Create(
    const SscbfConfig& config, uint64_t max_bytes) {
  BLOOMROUTE_RETURN_IF_ERROR(config.Validate());
  return std::unique_ptr<BitSlicedIndex>(new BitSlicedIndex(config, max_bytes));
}

uint64_t BitSlicedIndex::ColumnBytesLocked(const ColumnLayout& layout) const {
  uint64_t bytes = 0;
  for (uint32_t i : stages_in_use_) {
    bytes += layout.StageWords((*stages_)[i].columns()) * sizeof(uint64_t);
  }
  return bytes;
}

Status BitSlicedIndex::EnsureSlots(uint32_t slots) {
  if (slots > kMaxSlots) {
    return Status::InvalidArgument(
        "bit-sliced index: " + std::to_string(slots) +
        " slots exceed the limit of " + std::to_string(kMaxSlots) +
        " (BitSlicedIndex::kMaxSlots)");
  }
  std::unique_lock<std::shared_mutex> lock(layout_mutex_);
  if (slots <= slot_count_) return Status::OK();
  if (slots > layout_.slots) {
    BLOOMROUTE_RETURN_IF_ERROR(RelayLocked(ColumnLayout::For(slots)));
  }
  slot_count_ = slots;  // new slots are empty and not current already
  return Status::OK();
}

Status BitSlicedIndex::RelayLocked(const ColumnLayout& layout) {
  const uint64_t bytes = ColumnBytesLocked(layout) + SlotBytes(layout);
  if (bytes > max_bytes_) {
    return Status::InvalidArgument(
        "bit-sliced index: " + std::to_string(layout.slots) + " slots need " +
        std::to_string(bytes) + " bytes, above max_bytes " +
        std::to_string(max_bytes_) + " (BitSlicedIndex::Create)");
  }
  std::vector<Words> relaid;
  for (uint32_t i : stages_in_use_) {
    const Stage& s = (*stages_)[i];
    Words words = AllocateWords(layout.StageWords(s.columns()));
    if (!words) return OutOfMemory(layout.StageWords(s.columns()) * 8);
    RelayStage(layout_, layout, s, words.get());
    relaid.push_back(std::move(words));
  }
  for (size_t n = 0; n < stages_in_use_.size(); ++n) {
    (*stages_)[stages_in_use_[n]].words = std::move(relaid[n]);
  }
  const uint32_t old_slots = layout_.slots;
  auto not_current = std::make_unique<std::atomic<uint64_t>[]>(layout.words);
  auto generation = std::make_unique<std::atomic<uint32_t>[]>(layout.slots);
  auto slot_stages = std::make_unique<std::atomic<uint64_t>[]>(layout.slots);
  for (uint32_t w = 0; w < layout.words; ++w) {
    // Slots past the old capacity start not current (the bits past a
    // narrow capacity are set from the first layout on).
    not_current[w].store(
        w < layout_.words ? not_current_[w].load(kRelaxed) : ~0ull, kRelaxed);
  }
  for (uint32_t s = 0; s < layout.slots; ++s) {
    generation[s].store(s < old_slots ? generation_[s].load(kRelaxed) : 0,
                        kRelaxed);
    slot_stages[s].store(s < old_slots ? slot_stages_[s].load(kRelaxed) : 0,
                         kRelaxed);
  }
  not_current_ = std::move(not_current);
  generation_ = std::move(generation);
  slot_stages_ = std::move(slot_stages);
  layout_ = layout;
  return Status::OK();
}

void BitSlicedIndex::RelayStage(const ColumnLayout& from,
                                const ColumnLayout& to, const Stage& stage,
                                std::atomic<uint64_t>* words) {
  // Word i of an old column holds old slots [64 i, 64 i + 64) and goes to
  // bit 64 i of the new column: to.slots > from.slots, so a narrow word
  // fits in the new column's bits and a wide one lands on a word boundary.
  for (uint64_t c = 0; c < stage.columns(); ++c) {
    const uint64_t old_bit = from.Bit(c, 0);
    for (uint32_t i = 0; i < from.words; ++i) {
      const uint64_t column_word =
          (stage.Word(old_bit + 64 * i).load(kRelaxed) >> (old_bit % 64)) &
          from.mask;
      const uint64_t new_bit = to.Bit(c, 64 * i);
      std::atomic<uint64_t>& word = words[new_bit / 64];
      word.store(word.load(kRelaxed) | column_word << (new_bit % 64), kRelaxed);
    }
  }
}

Status BitSlicedIndex::OutOfMemory(uint64_t bytes) {
  return Status::Unavailable("bit-sliced index: cannot allocate " +
                             std::to_string(bytes) + " bytes");
}

uint64_t BitSlicedIndex::SlotBytes(const ColumnLayout& layout) {
  return uint64_t{layout.words} * sizeof(uint64_t) +
         uint64_t{layout.slots} * (sizeof(uint32_t) + sizeof(uint64_t));
}

uint32_t BitSlicedIndex::slot_count() const {
  std::shared_lock<std::shared_mutex> lock(layout_mutex_);
  return slot_count_;
}

void BitSlicedIndex::SetCurrent(uint32_t slot, bool current) {
  std::shared_lock<std::shared_mutex> lock(layout_mutex_);
  if (slot >= slot_count_) return;
  std::atomic<uint64_t>& word = not_current_[slot / 64];
  if (current) {
    // Release: a reader that sees the slot current sees what was written
    // before (guarantee (b) in the header).
    word.fetch_and(~SlotBit(slot), std::memory_order_release);
  } else {
    word.fetch_or(SlotBit(slot), std::memory_order_release);
  }
}

bool BitSlicedIndex::IsCurrent(uint32_t slot) const {
  std::shared_lock<std::shared_mutex> lock(layout_mutex_);
  if (slot >= slot_count_) return false;
  return (not_current_[slot / 64].load(std::memory_order_acquire) &
          SlotBit(slot)) == 0;
}

Status BitSlicedIndex::AcquireStage(uint32_t stage,
                                    std::shared_lock<std::shared_mutex>* l) {
  if (stage < kStages && (*stages_)[stage].words) return Status::OK();
  BLOOMROUTE_ASSIGN_OR_RETURN(StageGeometry g,
                              StageGeometryFor(config_, stage));
  l->unlock();
  Status status;
  {
    std::unique_lock<std::shared_mutex> lock(layout_mutex_);
    Stage& s = (*stages_)[stage];
    if (!s.words) status = AllocateStageLocked(g, &s);
  }
  l->lock();
  return status;
}

Status BitSlicedIndex::AllocateStageLocked(const StageGeometry& g, Stage* s) {
  const uint64_t words =
      layout_.StageWords(uint64_t{g.slices} * g.slice_length);
  const uint64_t bytes =
      ColumnBytesLocked(layout_) + SlotBytes(layout_) + words * 8;
  if (bytes > max_bytes_) {
    return Status::InvalidArgument(
        "bit-sliced index: stage " + std::to_string(g.stage) + " needs " +
        std::to_string(words * 8) + " bytes, the index would need " +
        std::to_string(bytes) + ", above max_bytes " +
        std::to_string(max_bytes_) + " (BitSlicedIndex::Create)");
  }
  Words w = AllocateWords(words);
  if (!w) return OutOfMemory(words * 8);
  s->geometry = g;
  s->words = std::move(w);
  stages_in_use_.insert(
      std::upper_bound(stages_in_use_.begin(), stages_in_use_.end(), g.stage),
      g.stage);
  return Status::OK();
}

Status BitSlicedIndex::SetBits(uint32_t slot, uint32_t stage,
                               const ElementHash& h, uint64_t mask) {
  return ChangeBits(slot, stage, h, mask, /*set=*/true);
}

Status BitSlicedIndex::ClearBits(uint32_t slot, uint32_t stage,
                                 const ElementHash& h, uint64_t mask) {
  return ChangeBits(slot, stage, h, mask, /*set=*/false);
}

Status BitSlicedIndex::ChangeBits(uint32_t slot, uint32_t stage,
                                  const ElementHash& h, uint64_t mask,
                                  bool set) {
  std::shared_lock<std::shared_mutex> lock(layout_mutex_);
  if (slot >= slot_count_) {
    return Status::InvalidArgument("bit-sliced index: slot " +
                                   std::to_string(slot) + " is not in use");
  }
  BLOOMROUTE_RETURN_IF_ERROR(AcquireStage(stage, &lock));
  const Stage& s = (*stages_)[stage];
  const uint32_t k = s.geometry.slices;
  if (k < 64 && (mask >> k) != 0) {
    return Status::InvalidArgument(
        "bit-sliced index: mask names a slice beyond the " + std::to_string(k) +
        " of stage " + std::to_string(stage));
  }
  if (set) slot_stages_[slot].fetch_or(uint64_t{1} << stage, kRelaxed);
  for (uint64_t m = mask; m != 0; m &= m - 1) {
    const uint32_t j = static_cast<uint32_t>(__builtin_ctzll(m));
    const uint64_t pos =
        ProbePosition(h, s.geometry.first_probe + j, s.geometry.slice_length);
    const uint64_t at = layout_.Bit(s.Column(j, pos), slot);
    const uint64_t bit = uint64_t{1} << (at % 64);
    std::atomic<uint64_t>& word = s.Word(at);
    // Relaxed: guarantee (a) needs only coherence (header).
    if (set) {
      word.fetch_or(bit, kRelaxed);
    } else {
      word.fetch_and(~bit, kRelaxed);
    }
  }
  return Status::OK();
}

void BitSlicedIndex::BeginInstall(uint32_t slot) {
  generation_[slot].fetch_add(1, kRelaxed);  // odd: being installed
  installs_started_.fetch_add(1, kRelaxed);
  // Orders the two increments before every bit written below, for a reader
  // that reads one of those bits and then fences (Boehm 2012, section 5).
  std::atomic_thread_fence(std::memory_order_release);
}

void BitSlicedIndex::EndInstall(uint32_t slot) {
  generation_[slot].fetch_add(1, std::memory_order_release);  // even
  installs_finished_.fetch_add(1, std::memory_order_release);
}

Status BitSlicedIndex::Install(uint32_t slot, const OccupancyImage& image) {
  if (!(image.config() == config_)) {
    return Status::InvalidArgument(
        "bit-sliced index: the image's filter config is not the cluster's");
  }
  std::shared_lock<std::shared_mutex> lock(layout_mutex_);
  if (slot >= slot_count_) {
    return Status::InvalidArgument("bit-sliced index: slot " +
                                   std::to_string(slot) + " is not in use");
  }
  uint64_t image_stages = 0;
  for (const OccupancyStage& st : image.stages()) {
    BLOOMROUTE_RETURN_IF_ERROR(AcquireStage(st.geometry.stage, &lock));
    image_stages |= uint64_t{1} << st.geometry.stage;
  }
  const uint64_t touched = slot_stages_[slot].load(kRelaxed) | image_stages;
  BeginInstall(slot);
  for (uint32_t i : stages_in_use_) {
    if (((touched >> i) & 1) == 0) continue;
    const OccupancyStage* from = nullptr;
    if (i >= image.first_stage() && i < image.end_stage()) {
      from = &image.stages()[i - image.first_stage()];
    }
    CopyStage(slot, (*stages_)[i], from);
  }
  slot_stages_[slot].store(image_stages, kRelaxed);
  EndInstall(slot);
  return Status::OK();
}

void BitSlicedIndex::ClearSlot(uint32_t slot) {
  std::shared_lock<std::shared_mutex> lock(layout_mutex_);
  if (slot >= slot_count_) return;
  not_current_[slot / 64].fetch_or(SlotBit(slot), std::memory_order_release);
  const uint64_t touched = slot_stages_[slot].load(kRelaxed);
  BeginInstall(slot);
  for (uint32_t i : stages_in_use_) {
    if ((touched >> i) & 1) CopyStage(slot, (*stages_)[i], nullptr);
  }
  slot_stages_[slot].store(0, kRelaxed);
  EndInstall(slot);
}

void BitSlicedIndex::CopyStage(uint32_t slot, const Stage& stage,
                               const OccupancyStage* image) {
  // One pass, changing only the bits that differ: the install bracket, not
  // the order of the writes, keeps readers from a half-installed column.
  // Consecutive positions are S bits apart, a stride the hardware
  // prefetcher follows. (Locals: the atomics below would otherwise make
  // the compiler reload the stride and base every position.)
  const uint64_t m = stage.geometry.slice_length;
  const uint64_t stride = layout_.slots;
  std::atomic<uint64_t>* const words = stage.words.get();
  for (uint32_t j = 0; j < stage.geometry.slices; ++j) {
    uint64_t at = layout_.Bit(stage.Column(j, 0), slot);
    for (uint64_t p = 0; p < m; ++p, at += stride) {
      std::atomic<uint64_t>& word = words[at / 64];
      const uint64_t bit = uint64_t{1} << (at % 64);
      const bool want = image != nullptr && image->Test(j, p);
      const bool have = (word.load(kRelaxed) & bit) != 0;
      // Flips only our bit, which only this slot's (serialized) writers
      // change: a read-modify-write, as the seqlock argument needs.
      if (want != have) word.fetch_xor(bit, kRelaxed);
    }
  }
}

StatusOr<OccupancyImage> BitSlicedIndex::Extract(
    uint32_t slot, uint32_t first_stage, uint32_t end_stage,
    const std::vector<uint64_t>& elements) const {
  std::shared_lock<std::shared_mutex> lock(layout_mutex_);
  if (slot >= slot_count_) {
    return Status::InvalidArgument("bit-sliced index: slot " +
                                   std::to_string(slot) + " is not in use");
  }
  if (first_stage >= end_stage || end_stage > kStages ||
      elements.size() != end_stage - first_stage) {
    return Status::InvalidArgument(
        "bit-sliced index: extract needs a non-empty stage range within " +
        std::to_string(kStages) + " stages and one element count a stage");
  }
  std::vector<OccupancyStage> stages;
  for (uint32_t i = first_stage; i < end_stage; ++i) {
    OccupancyStage st;
    BLOOMROUTE_ASSIGN_OR_RETURN(st.geometry, StageGeometryFor(config_, i));
    st.elements = elements[i - first_stage];
    st.words.assign(st.geometry.slices * st.words_per_slice(), 0);
    if ((*stages_)[i].words) ExtractStage(slot, (*stages_)[i], &st);
    stages.push_back(std::move(st));
  }
  return OccupancyImage::FromStages(config_, first_stage, std::move(stages));
}

void BitSlicedIndex::ExtractStage(uint32_t slot, const Stage& stage,
                                  OccupancyStage* out) const {
  const uint64_t wps = out->words_per_slice();
  const uint64_t stride = layout_.slots;
  const std::atomic<uint64_t>* const words = stage.words.get();
  for (uint32_t j = 0; j < stage.geometry.slices; ++j) {
    uint64_t at = layout_.Bit(stage.Column(j, 0), slot);
    for (uint64_t p = 0; p < stage.geometry.slice_length; ++p, at += stride) {
      if ((words[at / 64].load(kRelaxed) >> (at % 64)) & 1) {
        out->words[j * wps + p / 64] |= uint64_t{1} << (p % 64);
      }
    }
  }
}

void BitSlicedIndex::Candidates(const std::vector<ElementHash>& conjunction,
                                std::vector<uint64_t>* slots_bitset) const {
  std::shared_lock<std::shared_mutex> lock(layout_mutex_);
  const uint32_t w = layout_.words;
  slots_bitset->assign(w, 0);
  if (w == 0) return;
  // Scratch: the not-current words, an element's and a stage's accumulator.
  uint64_t on_stack[3 * kStackWords];
  std::vector<uint64_t> on_heap;
  uint64_t* scratch = on_stack;
  if (w > kStackWords) {
    on_heap.resize(3 * w);
    scratch = on_heap.data();
  }
  uint64_t* out = slots_bitset->data();
  if (!ReadClean(conjunction, scratch, out)) {
    ReadAll(conjunction, scratch, out);
  }
  slots_bitset->resize((slot_count_ + 63) / 64);
  if (slot_count_ % 64 != 0) {
    slots_bitset->back() &= SlotBit(slot_count_) - 1;
  }
}

bool BitSlicedIndex::ReadClean(const std::vector<ElementHash>& conjunction,
                               uint64_t* scratch, uint64_t* out) const {
  const uint64_t finished = installs_finished_.load(std::memory_order_acquire);
  const uint64_t started = installs_started_.load(std::memory_order_acquire);
  if (started != finished) return false;  // an install is running
  ReadPass(conjunction, scratch, out);
  // Pairs with BeginInstall's release fence: had this pass read a bit an
  // install wrote after its started++, the load below would see it.
  std::atomic_thread_fence(std::memory_order_acquire);
  return installs_started_.load(kRelaxed) == started;
}

void BitSlicedIndex::ReadAll(const std::vector<ElementHash>& conjunction,
                             uint64_t* scratch, uint64_t* out) const {
  // The seqlock per slot: a slot whose generation is odd (being installed)
  // or moves during the pass is a candidate; every other slot's bits were
  // read clean (header, guarantee (c)).
  std::vector<uint32_t> before(slot_count_);
  for (uint32_t s = 0; s < slot_count_; ++s) {
    before[s] = generation_[s].load(std::memory_order_acquire);
  }
  ReadPass(conjunction, scratch, out);
  std::atomic_thread_fence(std::memory_order_acquire);
  for (uint32_t s = 0; s < slot_count_; ++s) {
    const uint32_t after = generation_[s].load(kRelaxed);
    if ((before[s] & 1) != 0 || after != before[s]) out[s / 64] |= SlotBit(s);
  }
}

void BitSlicedIndex::ReadPass(const std::vector<ElementHash>& conjunction,
                              uint64_t* scratch, uint64_t* out) const {
  const uint32_t w = layout_.words;
  uint64_t* not_current = scratch;
  uint64_t* element = scratch + w;
  uint64_t* stage_acc = scratch + 2 * w;
  // Acquire, before any column: guarantee (b).
  for (uint32_t i = 0; i < w; ++i) {
    not_current[i] = not_current_[i].load(std::memory_order_acquire);
  }
  std::fill_n(out, w, ~uint64_t{0});
  for (const ElementHash& h : conjunction) {
    MatchElement(h, element, stage_acc);
    uint64_t any = 0;
    for (uint32_t i = 0; i < w; ++i) any |= (out[i] &= element[i]);
    if (any == 0) break;  // no slot left for the other elements to remove
  }
  for (uint32_t i = 0; i < w; ++i) out[i] |= not_current[i];
}

void BitSlicedIndex::MatchElement(const ElementHash& h, uint64_t* element,
                                  uint64_t* stage_acc) const {
  const uint32_t w = layout_.words;
  const uint64_t mask = layout_.mask;
  std::fill_n(element, w, uint64_t{0});
  const std::atomic<uint64_t>* columns[64];
  uint32_t shifts[64];
  for (uint32_t stage : stages_in_use_) {
    const Stage& s = (*stages_)[stage];
    const uint32_t k = s.geometry.slices;
    // Prefetch all k columns first: their cache misses overlap, where the
    // AND below would otherwise wait for each in turn.
    for (uint32_t j = 0; j < k; ++j) {
      const uint64_t pos =
          ProbePosition(h, s.geometry.first_probe + j, s.geometry.slice_length);
      const uint64_t at = layout_.Bit(s.Column(j, pos), 0);
      columns[j] = &s.Word(at);
      shifts[j] = static_cast<uint32_t>(at % 64);
      for (uint32_t line = 0; line < w; line += 8) {
        __builtin_prefetch(columns[j] + line);
      }
    }
    std::fill_n(stage_acc, w, ~uint64_t{0});
    uint64_t any = 1;
    for (uint32_t j = 0; j < k && any != 0; ++j) {
      any = 0;
      for (uint32_t i = 0; i < w; ++i) {
        any |= (stage_acc[i] &=
                (columns[j][i].load(kRelaxed) >> shifts[j]) & mask);
      }
    }
    if (any == 0) continue;  // the stage rules every slot out
    for (uint32_t i = 0; i < w; ++i) element[i] |= stage_acc[i];
  }
}

uint64_t BitSlicedIndex::MemoryBytes() const {
  std::shared_lock<std::shared_mutex> lock(layout_mutex_);
  return sizeof(*this) + sizeof(std::array<Stage, kStages>) +
         stages_in_use_.capacity() * sizeof(uint32_t) +
         ColumnBytesLocked(layout_) + SlotBytes(layout_);
}

}  // namespace bloomroute::router::internal
