#include "thrift/server/access_control.h"

#include <sys/stat.h>
#include <thrift/TConfiguration.h>
#include <thrift/protocol/TBinaryProtocol.h>
#include <thrift/protocol/TCompactProtocol.h>
#include <thrift/transport/TBufferTransports.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <mutex>
#include <sstream>
#include <utility>

#include "thrift/gen-cpp/errors_types.h"
#include "thrift/server/internal/wire_transport.h"

namespace bloomroute::thrift_internal {
namespace {

namespace at = apache::thrift;
using at::protocol::TType;

// A method name or a token longer than this is no request of ours.
constexpr int32_t kMaxHeaderStringBytes = 4096;
constexpr char kAuthenticate[] = "authenticate";

// RouterService (thrift/router_service.thrift). Methods not listed need
// kAdmin. Keep in step with the IDL: thrift/server/security.h says what each
// role is for.
std::map<std::string, Role> RouterNeeds() {
  std::map<std::string, Role> needs;
  for (const char* m :
       {// HBase's reads and table metadata.
        "exists", "existsAll", "get", "getMultiple", "openScanner",
        "getScannerRows", "closeScanner", "getScannerResults",
        "getRegionLocation", "getAllRegionLocations", "getTableDescriptor",
        "getTableDescriptors", "tableExists", "isTableEnabled",
        "isTableDisabled", "isTableAvailable", "getThriftServerType",
        "getTableNamesByPattern", "getTableDescriptorsByPattern",
        "isTableAvailableWithSplit", "getClusterId",
        // HBase's namespace metadata, as its table metadata.
        "getNamespaceDescriptor", "listNamespaceDescriptors", "listNamespaces",
        "getTableNamesByNamespace", "getTableDescriptorsByNamespace",
        // bloomroute's.
        "getByIndex", "getByIndexMultiple", "countByIndex", "getIndexStats",
        "getClusterStatus", "listTables", "describeTable", "getIndexStatus",
        "getClusterMembers"}) {
    needs[m] = Role::kRead;
  }
  for (const char* m : {"put", "putMultiple", "deleteSingle", "deleteMultiple",
                        "checkAndPut", "checkAndDelete", "checkAndMutate",
                        "increment", "append", "mutateRow", "bulkLoad"}) {
    needs[m] = Role::kWrite;
  }
  for (const char* m :
       {"createTable", "createIndexedTable", "deleteTable", "truncateTable",
        "enableTable", "disableTable", "verifyIndex", "addIndex", "dropIndex",
        // Namespace DDL, as table DDL.
        "createNamespace", "modifyNamespace", "deleteNamespace",
        // Online schema changes.
        "modifyTable", "addColumnFamily", "modifyColumnFamily",
        "deleteColumnFamily",
        // What is where: each counts every row it reports.
        "listServers", "listRegions",
        // Membership.
        "addServer", "setServerAddress", "removeServer",
        // Region operations.
        "moveRegion", "splitRegion", "mergeRegions", "balance",
        "decommissionServer",
        // Quotas: HBase's set_quota and list_quotas need its admin.
        "setQuota", "listQuotas",
        // The online slow log (who called what): HBase's admin too.
        "getSlowLogResponses", "clearSlowLogResponses",
        // Grants: admin, or A on the grant's scope (grant_check.h).
        "grant", "revoke"}) {
    needs[m] = Role::kAdmin;
  }
  return needs;
}

// Hbase, HBase's Thrift1 API (thrift/hbase1_service.thrift): each method
// as its Thrift2 counterpart. Methods not listed need kAdmin.
std::map<std::string, Role> Hbase1Needs() {
  std::map<std::string, Role> needs;
  for (const char* m :
       {// Table metadata.
        "isTableEnabled", "getTableNames", "getTableNamesWithIsTableEnabled",
        "getColumnDescriptors", "getTableRegions", "getRegionInfo",
        "getThriftServerType", "getClusterId",
        // Reads.
        "get", "getVer", "getVerTs", "getRow", "getRowWithColumns", "getRowTs",
        "getRowWithColumnsTs", "getRows", "getRowsWithColumns", "getRowsTs",
        "getRowsWithColumnsTs",
        // Scanners.
        "scannerOpenWithScan", "scannerOpen", "scannerOpenWithStop",
        "scannerOpenWithPrefix", "scannerOpenTs", "scannerOpenWithStopTs",
        "scannerGet", "scannerGetList", "scannerClose"}) {
    needs[m] = Role::kRead;
  }
  for (const char* m :
       {"mutateRow", "mutateRowTs", "mutateRows", "mutateRowsTs",
        "atomicIncrement", "deleteAll", "deleteAllTs", "deleteAllRow",
        "deleteAllRowTs", "increment", "incrementRows", "append",
        "checkAndPut"}) {
    needs[m] = Role::kWrite;
  }
  for (const char* m :
       {"enableTable", "disableTable", "createTable", "deleteTable", "compact",
        "majorCompact",
        // Grants: admin, or A on the grant's scope (grant_check.h).
        "grant", "revoke"}) {
    needs[m] = Role::kAdmin;
  }
  return needs;
}

bool IsLowerHex(const std::string& s) {
  for (char c : s) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

StatusOr<std::string> ReadBounded(const std::string& path) {
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) {
    return Status::InvalidArgument("--token-file " + path + ": " +
                                   std::strerror(errno));
  }
  if (static_cast<uint64_t>(st.st_size) > kMaxTokenFileBytes) {
    return Status::InvalidArgument(
        "--token-file " + path + " holds " + std::to_string(st.st_size) +
        " bytes, over the limit of " + std::to_string(kMaxTokenFileBytes));
  }
  std::ifstream in(path, std::ios::binary);
  std::string text(kMaxTokenFileBytes + 1, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  if (in.bad()) {
    return Status::InvalidArgument("--token-file " + path + ": cannot read");
  }
  text.resize(static_cast<size_t>(in.gcount()));
  if (text.size() > kMaxTokenFileBytes) {
    return Status::InvalidArgument("--token-file " + path +
                                   " grew past the limit of " +
                                   std::to_string(kMaxTokenFileBytes));
  }
  return text;
}

// Writes a reply to `name` that throws TIOError with `status`'s text.
void WriteDenied(at::protocol::TProtocol* out, const std::string& name,
                 int32_t seqid, const Status& status) {
  WriteIOErrorReply(out, name, seqid, status.ToString(), /*can_retry=*/false);
}

// The void success reply of `name`.
void WriteVoidReply(at::protocol::TProtocol* out, const std::string& name,
                    int32_t seqid) {
  out->writeMessageBegin(name, at::protocol::T_REPLY, seqid);
  out->writeStructBegin("result");
  out->writeFieldStop();
  out->writeStructEnd();
  out->writeMessageEnd();
  out->getTransport()->writeEnd();
  out->getTransport()->flush();
}

// authenticate's token (field 1), or "" when absent.
std::string ReadToken(at::protocol::TProtocol* in) {
  std::string token;
  std::string ignored;
  in->readStructBegin(ignored);
  for (;;) {
    TType type = at::protocol::T_STOP;
    int16_t id = 0;
    in->readFieldBegin(ignored, type, id);
    if (type == at::protocol::T_STOP) break;
    if (id == 1 && type == at::protocol::T_STRING) {
      in->readString(token);
    } else {
      in->skip(type);
    }
    in->readFieldEnd();
  }
  in->readStructEnd();
  in->readMessageEnd();
  return token;
}

}  // namespace

std::unique_ptr<at::protocol::TProtocol> RequestFrameProtocol(
    const uint8_t* frame, size_t size, int32_t string_limit) {
  // The whole frame may be read (Thrift's default would stop at 100 MB).
  const int whole = static_cast<int>(
      std::max<size_t>(size, at::TConfiguration::DEFAULT_MAX_MESSAGE_SIZE));
  auto buffer = std::make_shared<at::transport::TMemoryBuffer>(
      const_cast<uint8_t*>(frame), static_cast<uint32_t>(size),
      at::transport::TMemoryBuffer::OBSERVE,
      std::make_shared<at::TConfiguration>(whole, whole));
  if (size > 0 && IsCompactMessage(frame[0])) {
    return std::make_unique<at::protocol::TCompactProtocol>(
        std::move(buffer), string_limit, /*container_limit=*/0);
  }
  return std::make_unique<at::protocol::TBinaryProtocol>(
      std::move(buffer), string_limit, /*container_limit=*/0,
      /*strict_read=*/false, /*strict_write=*/true);
}

namespace {
// Nesting SkipInPlace follows at most (Thrift's own skip allows 64).
constexpr int kMaxSkipDepth = 64;

// A string's length as the processor's reader takes it: a big-endian i32
// in the binary protocol; in the compact protocol an unsigned varint of at
// most 10 bytes cast to i32 (TCompactProtocol::readVarint32). readI32
// would read a compact length as a zigzag varint, half of it, and the walk
// would go on inside the string, where a client could hide fields the
// processor never sees.
int32_t ReadStringLength(at::protocol::TProtocol* in) {
  if (dynamic_cast<at::protocol::TCompactProtocol*>(in) == nullptr) {
    int32_t bytes = 0;
    in->readI32(bytes);
    return bytes;
  }
  uint64_t value = 0;
  for (int i = 0; i < 10; ++i) {
    uint8_t byte = 0;
    in->getTransport()->readAll(&byte, 1);
    value |= static_cast<uint64_t>(byte & 0x7f) << (7 * i);
    if ((byte & 0x80) == 0) return static_cast<int32_t>(value);
  }
  throw at::protocol::TProtocolException(
      at::protocol::TProtocolException::INVALID_DATA);
}
}  // namespace

void SkipInPlace(at::protocol::TProtocol* in, at::protocol::TType type,
                 int depth) {
  using at::protocol::TProtocolException;
  namespace p = at::protocol;
  if (depth > kMaxSkipDepth) {
    throw TProtocolException(TProtocolException::DEPTH_LIMIT);
  }
  std::string ignored;
  p::TType key = p::T_STOP, value = p::T_STOP;
  uint32_t n = 0;
  switch (type) {
    case p::T_STRING: {
      const int32_t bytes = ReadStringLength(in);
      if (bytes < 0)
        throw TProtocolException(TProtocolException::NEGATIVE_SIZE);
      in->getTransport()->consume(static_cast<uint32_t>(bytes));
      return;
    }
    case p::T_STRUCT:
      in->readStructBegin(ignored);
      for (;;) {
        int16_t id = 0;
        in->readFieldBegin(ignored, value, id);
        if (value == p::T_STOP) break;
        SkipInPlace(in, value, depth + 1);
        in->readFieldEnd();
      }
      in->readStructEnd();
      return;
    case p::T_LIST:
    case p::T_SET:
      if (type == p::T_LIST) {
        in->readListBegin(value, n);
      } else {
        in->readSetBegin(value, n);
      }
      if (n > 0 && (value == p::T_STOP || value == p::T_VOID)) {
        throw TProtocolException(TProtocolException::INVALID_DATA);
      }
      for (uint32_t i = 0; i < n; ++i) SkipInPlace(in, value, depth + 1);
      return;
    case p::T_MAP:
      in->readMapBegin(key, value, n);
      if (n > 0 && (key == p::T_STOP || key == p::T_VOID ||
                    value == p::T_STOP || value == p::T_VOID)) {
        throw TProtocolException(TProtocolException::INVALID_DATA);
      }
      for (uint32_t i = 0; i < n; ++i) {
        SkipInPlace(in, key, depth + 1);
        SkipInPlace(in, value, depth + 1);
      }
      return;
    default:
      in->skip(type);  // a fixed-size value
      return;
  }
}

bool ReadCallHeader(at::protocol::TProtocol* in, CallHeader* out) {
  try {
    in->readMessageBegin(out->method, out->type, out->seqid);
  } catch (const at::TException&) {
    return false;
  }
  return out->type == at::protocol::T_CALL ||
         out->type == at::protocol::T_ONEWAY;
}

void WriteIOErrorReply(at::protocol::TProtocol* out, const std::string& method,
                       int32_t seqid, const std::string& message,
                       bool can_retry) {
  rpc::TIOError error;
  error.__set_message(message);
  if (can_retry) error.__set_canRetry(true);
  out->writeMessageBegin(method, at::protocol::T_REPLY, seqid);
  out->writeStructBegin("result");
  out->writeFieldBegin("io", at::protocol::T_STRUCT, 1);
  error.write(out);
  out->writeFieldEnd();
  out->writeFieldStop();
  out->writeStructEnd();
  out->writeMessageEnd();
  out->getTransport()->writeEnd();
  out->getTransport()->flush();
}

AccessControl::AccessControl(std::map<std::string, Role> needs,
                             Role default_need, bool admits_tokens)
    : needs_(std::move(needs)),
      default_need_(default_need),
      admits_tokens_(admits_tokens) {}

std::shared_ptr<const AccessControl> AccessControl::ForRegionService() {
  return std::shared_ptr<const AccessControl>(
      new AccessControl({}, Role::kNode, /*admits_tokens=*/false));
}

std::shared_ptr<const AccessControl> AccessControl::ForHbase1Service(
    std::shared_ptr<const GrantCheck> grants) {
  std::shared_ptr<AccessControl> access(
      new AccessControl(Hbase1Needs(), Role::kAdmin, /*admits_tokens=*/false));
  access->grants_ = std::move(grants);
  return access;
}

StatusOr<std::shared_ptr<AccessControl>> AccessControl::ForRouterService(
    const std::string& token_file, std::shared_ptr<const GrantCheck> grants) {
  std::shared_ptr<AccessControl> access(
      new AccessControl(RouterNeeds(), Role::kAdmin, /*admits_tokens=*/true));
  access->grants_ = std::move(grants);
  if (token_file.empty()) return access;
  BLOOMROUTE_ASSIGN_OR_RETURN(access->tokens_, ReadTokenFile(token_file));
  return access;
}

Status AccessControl::ReloadTokens(const std::string& token_file) {
  if (!admits_tokens_) {
    return Status::InvalidArgument("this service takes no tokens");
  }
  Tokens tokens;
  if (!token_file.empty()) {
    BLOOMROUTE_ASSIGN_OR_RETURN(tokens, ReadTokenFile(token_file));
  }
  std::unique_lock<std::shared_mutex> lock(tokens_mu_);
  tokens_.swap(tokens);
  return Status::OK();
}

size_t AccessControl::token_count() const {
  std::shared_lock<std::shared_mutex> lock(tokens_mu_);
  return tokens_.size();
}

Identity AccessControl::TokenIdentity(const std::string& token_hash) const {
  std::shared_lock<std::shared_mutex> lock(tokens_mu_);
  auto it = tokens_.find(token_hash);
  return it == tokens_.end() ? Identity() : it->second;
}

StatusOr<AccessControl::Tokens> AccessControl::ReadTokenFile(
    const std::string& token_file) {
  Tokens tokens;
  BLOOMROUTE_ASSIGN_OR_RETURN(std::string text, ReadBounded(token_file));
  std::istringstream lines(text);
  std::string line;
  for (int number = 1; std::getline(lines, line); ++number) {
    const std::string where =
        "--token-file " + token_file + " line " + std::to_string(number);
    std::istringstream fields(line);
    std::string hash, role_name, user, extra;
    if (!(fields >> hash) || hash[0] == '#') continue;
    if (!(fields >> role_name >> user) || (fields >> extra)) {
      return Status::InvalidArgument(where +
                                     ": not \"<sha256> <role> <user>\"");
    }
    if (hash.size() != 64 || !IsLowerHex(hash)) {
      return Status::InvalidArgument(
          where + ": the hash is not 64 lowercase hex digits");
    }
    StatusOr<Role> role = ParseRole(role_name);
    if (!role.ok() || IsNodeRole(*role)) {
      return Status::InvalidArgument(where + ": role \"" + role_name +
                                     "\" is not read, write or admin");
    }
    if (!tokens.emplace(hash, Identity{user, *role, hash}).second) {
      return Status::InvalidArgument(where + ": the hash is given twice");
    }
  }
  return tokens;
}

Role RouterCallRole(const std::string& method) {
  static const std::map<std::string, Role>* needs =
      new std::map<std::string, Role>(RouterNeeds());
  auto it = needs->find(method);
  return it == needs->end() ? Role::kAdmin : it->second;
}

Role Hbase1CallRole(const std::string& method) {
  static const std::map<std::string, Role>* needs =
      new std::map<std::string, Role>(Hbase1Needs());
  auto it = needs->find(method);
  return it == needs->end() ? Role::kAdmin : it->second;
}

bool AccessControl::MayCallAnything(const Identity& identity) const {
  if (identity.role == Role::kNone) return false;
  if (RoleAllows(identity.role, default_need_)) return true;
  for (const auto& [method, need] : needs_) {
    if (RoleAllows(identity.role, need)) return true;
  }
  return false;
}

bool AccessControl::GrantsAllow(const Identity& identity,
                                const std::string& method, Role need,
                                const uint8_t* frame, size_t size) const {
  // Grants raise a client's role; a machine's identity, or none, gets
  // nothing from them.
  if (grants_ == nullptr || identity.role == Role::kNone ||
      IsNodeRole(identity.role) || IsNodeRole(need)) {
    return false;
  }
  return RoleAllows(grants_->GrantedRole(identity, method, frame, size), need);
}

Role AccessControl::Needed(const std::string& method) const {
  auto it = needs_.find(method);
  return it == needs_.end() ? default_need_ : it->second;
}

AccessControl::Verdict AccessControl::Intercept(
    const uint8_t* frame, size_t size, Identity* identity,
    at::protocol::TProtocol* out) const {
  CallHeader call;
  const auto in = RequestFrameProtocol(frame, size, kMaxHeaderStringBytes);
  if (!ReadCallHeader(in.get(), &call)) return Verdict::kClose;
  const std::string& name = call.method;
  const at::protocol::TMessageType type = call.type;
  const int32_t seqid = call.seqid;
  try {
    if (admits_tokens_ && name == kAuthenticate) {
      const std::string token = ReadToken(in.get());
      *identity = TokenIdentity(TokenHash(token));
      if (identity->role == Role::kNone) {
        WriteDenied(out, name, seqid,
                    Status::PermissionDenied("authenticate: unknown token"));
      } else {
        WriteVoidReply(out, name, seqid);
      }
      return Verdict::kAnswered;
    }
  } catch (const at::TException&) {
    return Verdict::kClose;
  }
  // A token's identity holds while the token is in the file: one removed
  // (the file reloaded) or given another role takes effect here.
  if (!identity->token_hash.empty()) {
    *identity = TokenIdentity(identity->token_hash);
  }
  const Role need = Needed(name);
  if (RoleAllows(identity->role, need) ||
      GrantsAllow(*identity, name, need, frame, size)) {
    return Verdict::kPass;
  }
  // A refused oneway call has no reply to carry the refusal, and a client
  // that sends them could keep its connection (and a slot of
  // --max-connections) forever: it is closed, as a refused caller that may
  // call nothing is after its one answer.
  if (type == at::protocol::T_ONEWAY) return Verdict::kClose;
  std::string who = identity->role == Role::kNone
                        ? std::string("the caller is not authenticated")
                        : "the caller " + identity->user + " has role " +
                              RoleName(identity->role);
  if (identity->role == Role::kNone && admits_tokens_) {
    who += " (give a client certificate or a token)";
  }
  WriteDenied(out, name, seqid,
              Status::PermissionDenied(name + " needs role " + RoleName(need) +
                                       "; " + who));
  return Verdict::kAnswered;
}

namespace {
thread_local const Identity* current_caller = nullptr;
}  // namespace

const Identity* CurrentCaller() { return current_caller; }

ScopedCaller::ScopedCaller(const Identity* caller) : previous_(current_caller) {
  current_caller = caller;
}

ScopedCaller::~ScopedCaller() { current_caller = previous_; }

}  // namespace bloomroute::thrift_internal
