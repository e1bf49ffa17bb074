// BitSlicedIndex: the occupancy bits of every region server's filter, laid
// out side by side so that one routing decision reads a few words per probe
// instead of probing each server's filter in turn.
//
// Every server's scalable split counting Bloom filter follows one ladder of
// stages (StageGeometryFor(config, i): k_i slices of m_i slots, probe numbers
// first_probe_i + j). As in BitFunnel's bit-sliced signatures and SeqAn's
// interleaved Bloom filter, the index keeps for each ladder stage i, slice j
// and slot position p one *column* of S bits, where S is the slot capacity:
// bit s of the column is server slot s's occupancy bit (i, j, p). A slot is
// the router's name for one server's replica. Up to 32 slots, S is the next
// power of two (1, 2, 4, 8, 16 or 32) and columns are packed side by side in
// 64-bit words (a column never straddles a word, as S divides 64); above,
// S is a multiple of 64 and a column is W = S / 64 whole words. One
// description (ColumnLayout) places every column for every path.
//
// Cost of a lookup (conjunction of elements), per element: for every stage
// in use, AND of the element's k_i columns (all prefetched; the AND stops as
// soon as it is all zero, which for a value absent everywhere happens after
// about log2(S) + 1 columns at fill 1/2), OR over the stages; then AND
// across the elements, OR the slots that are not current, restricted to the
// slots in use. So a predicate costs sum_i k_i reads of W words
// (2 cache lines a column at 1,024 slots; one word, shifted and masked, up
// to 32 slots) where per-server probing costs up to N * sum_i k_i
// scattered bit reads.
//
// Memory: sum_i ceil(k_i * m_i * S / 64) * 8 bytes for the stages in use
// (exactly the servers' occupancy bits when the slot count is S), plus per
// slot of capacity one not-current bit, a 32-bit install generation and a
// 64-bit stage mask. At 1 to 32 servers this is at most twice the servers'
// bits (S < 2N), where 64-slot columns cost 64 / N times them.
//
// Concurrency. Candidates() and Extract() may run concurrently with each
// other and with SetBits, ClearBits, Install, ClearSlot and SetCurrent of
// any slots, without per-slot locks. Writers of one slot (SetBits, ClearBits,
// Install, ClearSlot, SetCurrent of that slot) must be serialized by the
// caller; writers of different slots may run concurrently. EnsureSlots and
// the first use of a stage take `layout_mutex_` exclusively (rare); every
// other method holds it shared. In a narrow layout one word holds several
// columns of a slot as well as other slots' bits; nothing below depends on
// which bits share a word, only on every change being a read-modify-write.
// Guarantees:
//  (a) Bits written by SetBits (relaxed fetch_or on atomic words) are seen by
//      every Candidates that happens after SetBits returns (e.g. through the
//      acknowledgement of the write): write-read coherence; later changes of
//      the same word are read-modify-writes of other bits, which keep ours.
//  (b) SetCurrent(slot, true) clears the not-current bit with release;
//      Candidates loads the not-current words with acquire before it reads
//      any column, so a reader that sees the slot current also sees every
//      bit written before SetCurrent (e.g. an Install).
//  (c) A concurrent Candidates never sees a half-installed column: Install
//      and ClearSlot are bracketed by a seqlock (Boehm, "Can seqlocks get
//      along with programming language memory models?", 2012), with global
//      counters installs_started_ / installs_finished_ and a per-slot
//      generation (odd while the slot is being installed). Writer: gen++,
//      started++, atomic_thread_fence(release), the bit read-modify-writes
//      (relaxed), then gen++ and finished++ with release. Reader: f =
//      finished (acquire), s = started (acquire), reads (relaxed),
//      atomic_thread_fence(acquire), s' = started (relaxed). If s == f == s'
//      the read was clean: every install counted in f finished and is
//      visible (release/acquire through the RMW release sequence of
//      finished), and if the reader had read any word value written by an
//      install not counted in s, the fence pair would make that install's
//      started++ visible to s', so s' != s. Otherwise the reader reads every
//      slot's generation before (acquire) and after (after the fence) a
//      second pass and names as candidates the slots whose generation was odd
//      or moved: the same argument, per slot. Only read-modify-writes change
//      column words outside EnsureSlots (which excludes readers), so every
//      later value of a word is in the release sequence the fences need.
//      The element of a slot being installed is thus never missed, whatever
//      stage it is in before and after, and installs cost readers at most a
//      second pass, never a wait.
//
// Thread sanitizer note: GCC 12 rejects std::atomic_thread_fence under
// -fsanitize=thread (-Werror=tsan), and TSan does not model fences, so it
// cannot check the seqlock's ordering; built with -Wno-tsan the tests run
// clean under it (column words are atomics, the stage table and slot count
// are touched only under layout_mutex_). The ordering argument above is the
// proof; bit_sliced_index_test shows misses when the seqlock is removed.
//
// Usage:
//   auto index = BitSlicedIndex::Create(cluster_config).value();
//   (void)index->EnsureSlots(servers);
//   (void)index->Install(slot, OccupancyImage::Of(filter));
//   index->SetCurrent(slot, true);
//   std::vector<uint64_t> slots;
//   index->Candidates({HashElement(table, column, "NO")}, &slots);
#ifndef BLOOMROUTE_ROUTER_INTERNAL_BIT_SLICED_INDEX_H_
#define BLOOMROUTE_ROUTER_INTERNAL_BIT_SLICED_INDEX_H_

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <shared_mutex>
#include <vector>

#include "common/statusor.h"
#include "index/element_hash.h"
#include "index/occupancy_image.h"
#include "index/scalable_split_counting_bloom_filter.h"

namespace bloomroute::router::internal {

class BitSlicedIndex {
 public:
  // The most slots an index holds (the bound of EnsureSlots).
  static constexpr uint32_t kMaxSlots = 1u << 16;
  // Default bound on MemoryBytes(): 64 GiB.
  static constexpr uint64_t kDefaultMaxBytes = uint64_t{64} << 30;

  // An index with no slots for the cluster's filter config, allocating at
  // most `max_bytes` (columns and per-slot arrays; EnsureSlots and the first
  // use of a stage fail with InvalidArgument naming max_bytes rather than
  // pass it). InvalidArgument when the config is invalid.
  static StatusOr<std::unique_ptr<BitSlicedIndex>> Create(
      const SscbfConfig& config, uint64_t max_bytes = kDefaultMaxBytes);
  ~BitSlicedIndex();
  BitSlicedIndex(const BitSlicedIndex&) = delete;
  BitSlicedIndex& operator=(const BitSlicedIndex&) = delete;

  // Puts slots [0, slots) in use (never fewer than before). New slots are
  // empty and not current. Growing past the capacity re-lays every stage to
  // the smallest capacity holding `slots`: the next power of two up to 32,
  // else the next multiple of 64 (exclusive; copies every bit).
  // InvalidArgument, changing nothing, above kMaxSlots.
  [[nodiscard]] Status EnsureSlots(uint32_t slots);
  uint32_t slot_count() const;

  // A slot not current is a candidate of every lookup. Release on true.
  // Does nothing for a slot not in use.
  void SetCurrent(uint32_t slot, bool current);
  bool IsCurrent(uint32_t slot) const;

  // Sets (clears) the slot's occupancy bits of `h` in ladder stage `stage`
  // named by `mask`: bit j <=> slice j, as SSCBF Insert / Remove report
  // them. Allocates the stage on first use. InvalidArgument, changing
  // nothing, for a slot not in use, a stage whose geometry cannot be built,
  // or a mask bit >= k_stage.
  [[nodiscard]] Status SetBits(uint32_t slot, uint32_t stage,
                               const ElementHash& h, uint64_t mask);
  [[nodiscard]] Status ClearBits(uint32_t slot, uint32_t stage,
                                 const ElementHash& h, uint64_t mask);

  // Replaces every bit of the slot (all stages) with the image's; does not
  // change whether the slot is current. InvalidArgument, changing nothing,
  // when image.config() is not the index's config or the slot is not in use.
  [[nodiscard]] Status Install(uint32_t slot, const OccupancyImage& image);
  // Marks the slot not current, then zeroes its bits (as an install).
  void ClearSlot(uint32_t slot);

  // The slot's bits in ladder stages [first_stage, end_stage) as an image;
  // `elements[i]` is the element count of stage first_stage + i (the index
  // keeps no counts). InvalidArgument for a slot not in use, an empty or
  // unbuildable range or a count vector of another size; Corruption as
  // OccupancyImage::FromStages (e.g. counts that do not fit the bits).
  StatusOr<OccupancyImage> Extract(uint32_t slot, uint32_t first_stage,
                                   uint32_t end_stage,
                                   const std::vector<uint64_t>& elements) const;

  // The slots in use that may hold every element of `conjunction`, or are
  // not current, as a bitset of ceil(slot_count() / 64) words (bit s of word
  // s / 64; bits past slot_count() zero). An empty conjunction gives every
  // slot in use. See the header comment for the guarantees under writes.
  void Candidates(const std::vector<ElementHash>& conjunction,
                  std::vector<uint64_t>* slots_bitset) const;

  // Everything the index allocated: columns, bitsets, bookkeeping.
  uint64_t MemoryBytes() const;
  const SscbfConfig& config() const { return config_; }

 private:
  static constexpr uint32_t kStages =
      ScalableSplitCountingBloomFilter::kMaxStages;
  // Slots (in words) whose lookup scratch lives on the stack.
  static constexpr uint32_t kStackWords = 32;
  static constexpr std::memory_order kRelaxed = std::memory_order_relaxed;

  struct Stage;
  // Where the slots' bits sit, the one description every path uses. The
  // capacity S is a power of two up to 32 (narrow) or a multiple of 64
  // (wide). Column n of a stage (n = j * m_i + p) is bits [n * S, (n + 1) *
  // S) of the stage's words, slot s at bit n * S + s: narrow columns lie side
  // by side in a word (S divides 64, so none straddles a word), a wide column
  // is S / 64 whole words. Word i < `words` of column n's slot bitset is
  // (stage_word[n * S / 64 + i] >> (n * S % 64)) & mask; when wide the
  // shift is 0 and the mask all ones.
  struct ColumnLayout {
    uint32_t slots = 0;  // S
    uint32_t words = 0;  // ceil(S / 64): a column's, and a slot bitset's
    uint64_t mask = 0;   // the low min(S, 64) bits
    // The smallest layout holding `slots`: S = 2^ceil(log2 slots) up to 32
    // slots, else slots rounded up to a multiple of 64.
    static ColumnLayout For(uint32_t slots);
    // Words of a stage of `columns` columns.
    uint64_t StageWords(uint64_t columns) const {
      return (columns * slots + 63) / 64;
    }
    // The bit of slot `slot` in column `column` (word bit / 64, bit % 64).
    uint64_t Bit(uint64_t column, uint32_t slot) const {
      return column * slots + slot;
    }
  };
  struct AlignedDelete {
    void operator()(std::atomic<uint64_t>* p) const;
  };
  using Words = std::unique_ptr<std::atomic<uint64_t>[], AlignedDelete>;

  BitSlicedIndex(const SscbfConfig& config, uint64_t max_bytes);

  // Zeroed words on cache-line boundaries; null when allocation fails.
  static Words AllocateWords(uint64_t n);
  static Status OutOfMemory(uint64_t bytes);
  // Bytes of the per-slot arrays for a layout.
  static uint64_t SlotBytes(const ColumnLayout& layout);
  // Bytes of the columns of the stages in use in a layout.
  uint64_t ColumnBytesLocked(const ColumnLayout& layout) const;
  // Copies everything to `layout`. Needs layout_mutex_ exclusively.
  Status RelayLocked(const ColumnLayout& layout);
  static void RelayStage(const ColumnLayout& from, const ColumnLayout& to,
                         const Stage& stage, std::atomic<uint64_t>* words);
  // Makes sure the stage is allocated; `l` holds layout_mutex_ shared and
  // holds it again on return (it is dropped to allocate).
  Status AcquireStage(uint32_t stage, std::shared_lock<std::shared_mutex>* l);
  Status AllocateStageLocked(const StageGeometry& g, Stage* s);
  Status ChangeBits(uint32_t slot, uint32_t stage, const ElementHash& h,
                    uint64_t mask, bool set);
  void BeginInstall(uint32_t slot);
  void EndInstall(uint32_t slot);
  // Makes the slot's bits of `stage` those of `image` (zero when null).
  void CopyStage(uint32_t slot, const Stage& stage,
                 const OccupancyStage* image);
  void ExtractStage(uint32_t slot, const Stage& stage,
                    OccupancyStage* out) const;
  // The lookup's passes; `scratch` holds 3 * W words, `out` W words.
  bool ReadClean(const std::vector<ElementHash>& conjunction, uint64_t* scratch,
                 uint64_t* out) const;
  void ReadAll(const std::vector<ElementHash>& conjunction, uint64_t* scratch,
               uint64_t* out) const;
  void ReadPass(const std::vector<ElementHash>& conjunction, uint64_t* scratch,
                uint64_t* out) const;
  void MatchElement(const ElementHash& h, uint64_t* element,
                    uint64_t* stage_acc) const;

  const SscbfConfig config_;
  const uint64_t max_bytes_;

  // Guards the layout: layout_, slot_count_, the stage table, the
  // per-slot arrays' pointers. Held shared by every other method, which
  // change only atomic words.
  mutable std::shared_mutex layout_mutex_;
  ColumnLayout layout_;      // capacity S = layout_.slots
  uint32_t slot_count_ = 0;  // slots in use, <= S
  std::unique_ptr<std::array<Stage, kStages>> stages_;
  std::vector<uint32_t> stages_in_use_;  // allocated stages, ascending
  std::unique_ptr<std::atomic<uint64_t>[]> not_current_;  // layout_.words
  std::unique_ptr<std::atomic<uint32_t>[]> generation_;   // S
  // Per slot, the stages where it may have bits (so that Install and
  // ClearSlot skip the others).
  std::unique_ptr<std::atomic<uint64_t>[]> slot_stages_;  // S
  std::atomic<uint64_t> installs_started_{0};
  std::atomic<uint64_t> installs_finished_{0};
};

}  // namespace bloomroute::router::internal

#endif  // BLOOMROUTE_ROUTER_INTERNAL_BIT_SLICED_INDEX_H_
