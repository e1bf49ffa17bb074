#include "thrift/internal/decode_budget.h"

#include <thrift/TApplicationException.h>

#include <functional>
#include <set>
#include <utility>

#include "common/status.h"
#include "thrift/gen-cpp/region_service_types.h"
#include "thrift/gen-cpp/router_service_types.h"
#include "thrift/status_conversion.h"

namespace bloomroute::thrift_internal {
namespace {

namespace at = apache::thrift;
using at::protocol::TType;

// The charge must bound what resize() allocates for a list of any struct of
// the IDL: every generated struct is at most kStructElementBytes.
template <typename... Structs>
constexpr bool AllFit() {
  return ((sizeof(Structs) <= BudgetedBinaryProtocol::kStructElementBytes) &&
          ...);
}
static_assert(
    AllFit<rpc::TIndexedColumn, rpc::TTableDescriptor, rpc::TRegionDescriptor,
           rpc::TColumnValue, rpc::TResult, rpc::TMutation, rpc::TCondition,
           rpc::TColumnIncrement, rpc::TMutationOutcome, rpc::TGet, rpc::TScan,
           rpc::TScanResult, rpc::TEqualityPredicate, rpc::TRangePredicate,
           rpc::TIndexQuery, rpc::TIndexQueryResult, rpc::TFilterOp,
           rpc::TWriteResult, rpc::TFilterSnapshot, rpc::TFilterOpsSince,
           rpc::TFilterImagePage, rpc::TStageStats, rpc::TFilterStatus,
           rpc::TIndexReport, rpc::TDeleteSpec, rpc::TTimeRange>(),
    "a RegionService struct outgrew kStructElementBytes");
// Every RouterService struct that is a list, set or map element. TScan
// (376 bytes) is left out on purpose: it is only ever an argument, made once
// per message, never resize()d by a claimed count.
static_assert(
    AllFit<rpc::client::TTimeRange, rpc::client::TColumn,
           rpc::client::TColumnValue, rpc::client::TColumnIncrement,
           rpc::client::TResult, rpc::client::TAuthorization,
           rpc::client::TCellVisibility, rpc::client::TGet, rpc::client::TPut,
           rpc::client::TDelete, rpc::client::TIncrement, rpc::client::TAppend,
           rpc::client::TMutation, rpc::client::TRowMutations,
           rpc::client::THRegionInfo, rpc::client::TServerName,
           rpc::client::THRegionLocation, rpc::client::TTableName,
           rpc::client::TColumnFamilyDescriptor, rpc::client::TTableDescriptor,
           rpc::client::TIndexedColumn, rpc::client::TIndexedTable,
           rpc::client::TTableSpec, rpc::client::TServerRef,
           rpc::client::TRegionLocation, rpc::client::TTableInfo,
           rpc::client::TEqualityPredicate, rpc::client::TIndexQuery,
           rpc::client::TRoutingInfo, rpc::client::TIndexResult,
           rpc::client::TCompactRow, rpc::client::TCompactRows,
           rpc::client::TStageStats, rpc::client::TClusterFilterConfig,
           rpc::client::TServerIndexStats, rpc::client::TServerStatus,
           rpc::client::TClusterStatus, rpc::client::TServerVerifyReport,
           rpc::client::TVerifyReport, rpc::client::TRegionOpResult,
           rpc::client::TBalanceStep, rpc::client::TOnlineLogRecord,
           rpc::client::TLogQueryFilter>(),
    "a RouterService struct outgrew kStructElementBytes");

// A std::set / std::map node beyond its value: three pointers and a color,
// rounded to the allocator's 16 bytes.
constexpr uint64_t kTreeNodeBytes = 48;
// std::string keeps up to 15 bytes inline (libstdc++); a longer one owns a
// heap block of length + 1, rounded up by the allocator.
constexpr uint32_t kInlineStringBytes = 15;
constexpr uint64_t kHeapBlockOverhead = 16;

// HBase's calls that declare TIOError alone (hbase_service.thrift; the
// handler serves them through ServeHBaseCall). Every other call of the
// router and region services declares TIllegalArgument too.
bool DeclaresIOErrorAlone(const std::string& method) {
  static const std::set<std::string, std::less<>> kCalls = {
      "exists",
      "existsAll",
      "get",
      "getMultiple",
      "put",
      "checkAndPut",
      "putMultiple",
      "deleteSingle",
      "deleteMultiple",
      "checkAndDelete",
      "increment",
      "append",
      "openScanner",
      "mutateRow",
      "getScannerResults",
      "getRegionLocation",
      "getAllRegionLocations",
      "checkAndMutate",
      "getTableDescriptor",
      "getTableDescriptors",
      "tableExists",
      "createTable",
      "deleteTable",
      "truncateTable",
      "enableTable",
      "disableTable",
      "isTableEnabled",
      "isTableDisabled",
      "isTableAvailable"};
  return kCalls.count(method) != 0;
}

// A container over the limit, answered as the generated processor answers a
// handler's exception: a REPLY whose result struct holds the call's declared
// exception (io at field 1, ia at field 2), made by the handlers' own
// conversion so that its message reads as theirs ("InvalidArgument: ...").
void WriteDeclaredException(const ContainerLimitExceeded& e,
                            at::protocol::TProtocol* out) {
  const Status status = Status::InvalidArgument(e.what());
  out->writeMessageBegin(e.method(), at::protocol::T_REPLY, e.seqid());
  out->writeStructBegin("result");
  try {
    if (DeclaresIOErrorAlone(e.method())) ThrowIfErrorAsIOError(status);
    ThrowIfError(status);
  } catch (const rpc::TIOError& io) {
    out->writeFieldBegin("io", at::protocol::T_STRUCT, 1);
    io.write(out);
    out->writeFieldEnd();
  } catch (const rpc::TIllegalArgument& ia) {
    out->writeFieldBegin("ia", at::protocol::T_STRUCT, 2);
    ia.write(out);
    out->writeFieldEnd();
  }
  out->writeFieldStop();
  out->writeStructEnd();
  out->writeMessageEnd();
}

class BudgetErrorProcessor : public at::TProcessor {
 public:
  explicit BudgetErrorProcessor(std::shared_ptr<at::TProcessor> inner)
      : inner_(std::move(inner)) {}

  bool process(std::shared_ptr<at::protocol::TProtocol> in,
               std::shared_ptr<at::protocol::TProtocol> out,
               void* connection_context) override {
    try {
      return inner_->process(in, out, connection_context);
    } catch (const DecodeBudgetExceeded& e) {
      Answer(e, out.get());
      throw;  // the rest of the frame is unread: close the connection
    }
  }

 private:
  static void Answer(const DecodeBudgetExceeded& e,
                     at::protocol::TProtocol* out) {
    try {
      if (const auto* over = dynamic_cast<const ContainerLimitExceeded*>(&e)) {
        WriteDeclaredException(*over, out);
      } else {
        at::TApplicationException reply(
            at::TApplicationException::PROTOCOL_ERROR, e.what());
        out->writeMessageBegin(e.method(), at::protocol::T_EXCEPTION,
                               e.seqid());
        reply.write(out);
        out->writeMessageEnd();
      }
      out->getTransport()->writeEnd();
      out->getTransport()->flush();
    } catch (const std::exception&) {
      // The client went away: closing the connection is all that is left.
    }
  }

  const std::shared_ptr<at::TProcessor> inner_;
};

}  // namespace

MessageBudget::MessageBudget(uint64_t budget_bytes, int32_t container_limit,
                             std::string limit_name)
    : budget_(budget_bytes),
      container_limit_(
          container_limit > 0 ? static_cast<uint32_t>(container_limit) : 0),
      limit_name_(std::move(limit_name)) {}

uint64_t MessageBudget::ElementBytes(TType type) {
  switch (type) {
    case at::protocol::T_BOOL:
    case at::protocol::T_BYTE:
      return 1;
    case at::protocol::T_I16:
      return 2;
    case at::protocol::T_I32:
      return 4;
    case at::protocol::T_I64:
    case at::protocol::T_DOUBLE:
      return 8;
    case at::protocol::T_STRING:
      return sizeof(std::string);
    case at::protocol::T_STRUCT:
      return kStructElementBytes;
    case at::protocol::T_LIST:
    case at::protocol::T_SET:
    case at::protocol::T_MAP:
      return 48;  // a std::map / std::set object; a vector is 24
    default:
      return 0;
  }
}

void MessageBudget::Reset() {
  charged_ = 0;
  method_.clear();
  seqid_ = 0;
}

void MessageBudget::Begin(const std::string& method, int32_t seqid) {
  method_ = method;
  seqid_ = seqid;
}

void MessageBudget::Charge(uint64_t bytes, const char* what, uint32_t entries) {
  if (bytes <= budget_ - charged_) {  // charged_ <= budget_ always
    charged_ += bytes;
    return;
  }
  throw DecodeBudgetExceeded(
      "the message decodes to more than its budget of " +
          std::to_string(budget_) + " bytes in memory (" + limit_name_ +
          "): " + what +
          (entries > 0 ? " of " + std::to_string(entries) + " entries" : "") +
          " needs " + std::to_string(bytes) + " bytes after " +
          std::to_string(charged_),
      method_, seqid_);
}

void MessageBudget::CheckEntries(uint32_t entries, const char* what) const {
  if (container_limit_ == 0 || entries <= container_limit_) return;
  throw ContainerLimitExceeded(
      std::string(what) + " of " + std::to_string(entries) +
          " entries: at most " + std::to_string(container_limit_) +
          " entries per list, set or map",
      method_, seqid_);
}

void MessageBudget::List(TType elem_type, uint32_t size) {
  CheckEntries(size, "a list");
  Charge(uint64_t{size} * ElementBytes(elem_type), "a list", size);
}

void MessageBudget::Set(TType elem_type, uint32_t size) {
  CheckEntries(size, "a set");
  Charge(uint64_t{size} * (ElementBytes(elem_type) + kTreeNodeBytes), "a set",
         size);
}

void MessageBudget::Map(TType key_type, TType value_type, uint32_t size) {
  CheckEntries(size, "a map");
  Charge(uint64_t{size} * (ElementBytes(key_type) + ElementBytes(value_type) +
                           kTreeNodeBytes),
         "a map", size);
}

void MessageBudget::String(int32_t size) {
  if (size > static_cast<int32_t>(kInlineStringBytes)) {
    Charge(static_cast<uint64_t>(size) + kHeapBlockOverhead, "a string", 0);
  }
}

BudgetedBinaryProtocol::BudgetedBinaryProtocol(
    std::shared_ptr<at::transport::TTransport> transport, uint64_t budget_bytes,
    int32_t container_limit, std::string limit_name)
    : BudgetedReads(
          std::move(transport),
          MessageBudget(budget_bytes, container_limit, std::move(limit_name))) {
  setStrict(/*strict_read=*/true, /*strict_write=*/true);
}

uint32_t BudgetedBinaryProtocol::readString(std::string& str) {
  int32_t size = 0;
  const uint32_t read = readI32(size);
  // A negative size is refused by readStringBody.
  budget_.String(size);
  return read + readStringBody(str, size);
}

uint32_t BudgetedBinaryProtocol::readBinary(std::string& str) {
  return readString(str);
}

BudgetedCompactProtocol::BudgetedCompactProtocol(
    std::shared_ptr<at::transport::TTransport> transport, uint64_t budget_bytes,
    int32_t container_limit, int32_t string_limit, std::string limit_name)
    : BudgetedReads(
          std::move(transport),
          MessageBudget(budget_bytes, container_limit, std::move(limit_name))) {
  string_limit_ = string_limit;
}

uint32_t BudgetedCompactProtocol::readString(std::string& str) {
  return readBinary(str);
}

// TCompactProtocolT::readBinary, charged before its buffer is made (its
// length is a varint that cannot be read twice).
uint32_t BudgetedCompactProtocol::readBinary(std::string& str) {
  int32_t size = 0;
  const uint32_t read = readVarint32(size);
  if (size < 0) {
    throw at::protocol::TProtocolException(
        at::protocol::TProtocolException::NEGATIVE_SIZE);
  }
  if (string_limit_ > 0 && size > string_limit_) {
    throw at::protocol::TProtocolException(
        at::protocol::TProtocolException::SIZE_LIMIT);
  }
  budget_.String(size);
  str.resize(static_cast<size_t>(size));
  if (size > 0) {
    trans_->readAll(reinterpret_cast<uint8_t*>(str.data()),
                    static_cast<uint32_t>(size));
  }
  return read + static_cast<uint32_t>(size);
}

BudgetedBinaryProtocolFactory::BudgetedBinaryProtocolFactory(
    uint64_t budget_bytes, int32_t container_limit, std::string limit_name)
    : budget_(budget_bytes),
      container_limit_(container_limit),
      limit_name_(std::move(limit_name)) {}

std::shared_ptr<at::protocol::TProtocol>
BudgetedBinaryProtocolFactory::getProtocol(
    std::shared_ptr<at::transport::TTransport> transport) {
  return std::make_shared<BudgetedBinaryProtocol>(
      std::move(transport), budget_, container_limit_, limit_name_);
}

std::shared_ptr<at::TProcessor> AnswerDecodeBudgetErrors(
    std::shared_ptr<at::TProcessor> processor) {
  return std::make_shared<BudgetErrorProcessor>(std::move(processor));
}

}  // namespace bloomroute::thrift_internal
