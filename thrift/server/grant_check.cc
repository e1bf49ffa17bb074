#include "thrift/server/grant_check.h"

#include <thrift/protocol/TProtocol.h>

#include <algorithm>
#include <map>
#include <utility>

#include "model/table_name.h"

namespace bloomroute::thrift_internal {
namespace {

namespace at = apache::thrift;
using at::protocol::TType;

// A name longer than this is no table or namespace (255 + 128 + ':').
constexpr int32_t kMaxScopeStringBytes = 4096;

// Where a method's arguments name its scope (grant_check.h).
enum class Shape {
  kTableBytes,       // field 1: the table's name
  kTableName,        // field 1: a TTableName
  kDescriptor,       // field 1: a struct whose field 1 is a TTableName
  kNewInNamespace,   // createTable: as kDescriptor, namespace scope only
  kSpecInNamespace,  // createIndexedTable: field 1's field 1 is the name
  kEntity,           // grant / revoke: a TAccessControlEntity
  // Thrift1 only.
  kNewTableBytes,     // createTable: field 1 names the new table
  kStructTableBytes,  // increment, append: field 1's field 1 is the name
};

const std::map<std::string, Shape>& Shapes() {
  static const auto* shapes = [] {
    auto* m = new std::map<std::string, Shape>();
    for (const char* method :
         {"put", "putMultiple", "deleteSingle", "deleteMultiple", "checkAndPut",
          "checkAndDelete", "checkAndMutate", "increment", "append",
          "mutateRow", "bulkLoad", "addIndex", "dropIndex", "verifyIndex"}) {
      (*m)[method] = Shape::kTableBytes;
    }
    for (const char* method :
         {"deleteTable", "truncateTable", "enableTable", "disableTable",
          "addColumnFamily", "deleteColumnFamily", "modifyColumnFamily"}) {
      (*m)[method] = Shape::kTableName;
    }
    (*m)["modifyTable"] = Shape::kDescriptor;
    (*m)["createTable"] = Shape::kNewInNamespace;
    (*m)["createIndexedTable"] = Shape::kSpecInNamespace;
    (*m)["grant"] = Shape::kEntity;
    (*m)["revoke"] = Shape::kEntity;
    return m;
  }();
  return *shapes;
}

// Hbase (thrift/hbase1_service.thrift). isTableEnabled, the reads and the
// scanner opens need only read, which every client has; they are listed
// so that the table is read the same way for every call that names one.
const std::map<std::string, Shape>& Thrift1Shapes() {
  static const auto* shapes = [] {
    auto* m = new std::map<std::string, Shape>();
    for (const char* method : {"enableTable",
                               "disableTable",
                               "isTableEnabled",
                               "getColumnDescriptors",
                               "getTableRegions",
                               "deleteTable",
                               "get",
                               "getVer",
                               "getVerTs",
                               "getRow",
                               "getRowWithColumns",
                               "getRowTs",
                               "getRowWithColumnsTs",
                               "getRows",
                               "getRowsWithColumns",
                               "getRowsTs",
                               "getRowsWithColumnsTs",
                               "mutateRow",
                               "mutateRowTs",
                               "mutateRows",
                               "mutateRowsTs",
                               "atomicIncrement",
                               "deleteAll",
                               "deleteAllTs",
                               "deleteAllRow",
                               "deleteAllRowTs",
                               "scannerOpenWithScan",
                               "scannerOpen",
                               "scannerOpenWithStop",
                               "scannerOpenWithPrefix",
                               "scannerOpenTs",
                               "scannerOpenWithStopTs",
                               "checkAndPut"}) {
      (*m)[method] = Shape::kTableBytes;
    }
    (*m)["createTable"] = Shape::kNewTableBytes;
    (*m)["increment"] = Shape::kStructTableBytes;
    (*m)["append"] = Shape::kStructTableBytes;
    (*m)["grant"] = Shape::kEntity;
    (*m)["revoke"] = Shape::kEntity;
    return m;
  }();
  return *shapes;
}

// Walks the struct at `in`: `field(id, type)` reads a field it wants and
// returns true; every other field is skipped in place.
template <typename Field>
void WalkStruct(at::protocol::TProtocol* in, Field&& field) {
  std::string ignored;
  in->readStructBegin(ignored);
  for (;;) {
    TType type = at::protocol::T_STOP;
    int16_t id = 0;
    in->readFieldBegin(ignored, type, id);
    if (type == at::protocol::T_STOP) break;
    if (!field(id, type)) SkipInPlace(in, type);
    in->readFieldEnd();
  }
  in->readStructEnd();
}

// What the generated readers keep of the fields read: a struct field sent
// twice is read into the same object again, so its parts accumulate, and a
// string sent twice keeps the last.
struct Parts {
  bool has_ns = false, has_qualifier = false;
  std::string ns, qualifier;  // a TTableName's
  bool has_scope = false, has_table = false, has_ns_name = false;
  int32_t scope = 0;  // a TAccessControlEntity's
  std::string table, ns_name;
};

void ReadTableName(at::protocol::TProtocol* in, Parts* p) {
  WalkStruct(in, [&](int16_t id, TType type) {
    if (type != at::protocol::T_STRING || (id != 1 && id != 2)) return false;
    in->readBinary(id == 1 ? p->ns : p->qualifier);
    (id == 1 ? p->has_ns : p->has_qualifier) = true;
    return true;
  });
}

void ReadEntity(at::protocol::TProtocol* in, Parts* p) {
  WalkStruct(in, [&](int16_t id, TType type) {
    if (id == 2 && type == at::protocol::T_I32) {
      in->readI32(p->scope);
      p->has_scope = true;
      return true;
    }
    if ((id != 5 && id != 6) || type != at::protocol::T_STRING) return false;
    in->readString(id == 5 ? p->table : p->ns_name);
    (id == 5 ? p->has_table : p->has_ns_name) = true;
    return true;
  });
}

// Reads the arguments of a call of `shape` into `p`: field 1 as the shape
// says, at each level.
void ReadArguments(at::protocol::TProtocol* in, Shape shape, Parts* p) {
  WalkStruct(in, [&](int16_t id, TType type) {
    if (id != 1) return false;
    if (shape == Shape::kTableBytes || shape == Shape::kNewTableBytes) {
      if (type != at::protocol::T_STRING) return false;  // the reader skips it
      in->readBinary(p->table);
      p->has_table = true;
      return true;
    }
    if (type != at::protocol::T_STRUCT) return false;
    if (shape == Shape::kTableName) {
      ReadTableName(in, p);
    } else if (shape == Shape::kEntity) {
      ReadEntity(in, p);
    } else {
      WalkStruct(in, [&](int16_t inner, TType inner_type) {
        if (inner != 1) return false;
        if (shape == Shape::kSpecInNamespace ||
            shape == Shape::kStructTableBytes) {
          if (inner_type != at::protocol::T_STRING) return false;
          in->readString(p->table);
          p->has_table = true;
        } else {
          if (inner_type != at::protocol::T_STRUCT) return false;
          ReadTableName(in, p);
        }
        return true;
      });
    }
    return true;
  });
}

// The scope `p` names as the handler takes it (thrift/conversion, and
// router_service_handler_grants.cc for an entity).
bool ScopeOf(Shape shape, const Parts& p, CallScope* out) {
  std::string table;
  switch (shape) {
    case Shape::kTableBytes:
    case Shape::kSpecInNamespace:
    case Shape::kNewTableBytes:
    case Shape::kStructTableBytes:
      if (!p.has_table) return false;
      table = CanonicalTableName(p.table);
      break;
    case Shape::kEntity:
      if (p.has_scope && p.scope == 1) {  // TPermissionScope.NAMESPACE
        if (!p.has_ns_name) return false;
        out->ns = p.ns_name;
        out->table.clear();
        return true;
      }
      if (!p.has_scope || p.scope != 0 || !p.has_table || p.table.empty()) {
        return false;
      }
      table = CanonicalTableName(p.table);
      break;
    default:  // a TTableName
      if (!p.has_qualifier) return false;
      table = JoinTableName(p.has_ns ? p.ns : std::string(), p.qualifier);
      break;
  }
  out->ns.assign(NamespaceOf(table));
  const bool namespace_only = shape == Shape::kNewInNamespace ||
                              shape == Shape::kSpecInNamespace ||
                              shape == Shape::kNewTableBytes;
  out->table = namespace_only ? std::string() : std::move(table);
  return true;
}

}  // namespace

bool ReadCallScope(const std::string& method, const uint8_t* frame, size_t size,
                   CallScope* out, GrantApi api) {
  const std::map<std::string, Shape>& shapes =
      api == GrantApi::kThrift1 ? Thrift1Shapes() : Shapes();
  auto shape = shapes.find(method);
  if (shape == shapes.end()) return false;
  const auto in = RequestFrameProtocol(frame, size, kMaxScopeStringBytes);
  CallHeader call;
  if (!ReadCallHeader(in.get(), &call) || call.method != method) return false;
  Parts parts;
  try {
    ReadArguments(in.get(), shape->second, &parts);
  } catch (const at::TException&) {
    return false;  // does not decode: the processor refuses it too
  }
  return ScopeOf(shape->second, parts, out);
}

Role RoleOfActions(std::string_view actions) {
  Role role = Role::kNone;
  for (char c : actions) {
    Role r = Role::kNone;
    if (c == 'R') r = Role::kRead;
    if (c == 'W') r = Role::kWrite;
    if (c == 'C' || c == 'A') r = Role::kAdmin;
    role = std::max(role, r);
  }
  return role;
}

Role GrantedOn(const std::vector<router::Grant>& grants,
               const std::string& user, const CallScope& scope) {
  Role role = Role::kNone;
  const auto [first, last] = router::GrantsOf(grants, user);
  for (auto g = first; g != last; ++g) {
    const bool covers = g->is_namespace()
                            ? g->ns == scope.ns
                            : (!scope.table.empty() && g->table == scope.table);
    if (covers) role = std::max(role, RoleOfActions(g->actions));
  }
  return role;
}

Role RouterGrantCheck::GrantedRole(const Identity& identity,
                                   const std::string& method,
                                   const uint8_t* frame, size_t size) const {
  const std::shared_ptr<const std::vector<router::Grant>> grants = source_();
  if (grants == nullptr) return Role::kNone;
  const auto [first, last] = router::GrantsOf(*grants, identity.user);
  if (first == last) return Role::kNone;  // most callers: nothing to read
  CallScope scope;
  if (!ReadCallScope(method, frame, size, &scope, api_)) return Role::kNone;
  return GrantedOn(*grants, identity.user, scope);
}

}  // namespace bloomroute::thrift_internal
