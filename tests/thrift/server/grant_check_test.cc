// The router's grants as its AccessControl applies them (grant_check.h):
// the scope read from a request frame as the generated reader would take
// it, the letters' roles, and a grant's reach (its table, or every table
// of its namespace).
#include "thrift/server/grant_check.h"

#include <gtest/gtest.h>
#include <thrift/protocol/TBinaryProtocol.h>
#include <thrift/protocol/TCompactProtocol.h>
#include <thrift/transport/TBufferTransports.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace bloomroute::thrift_internal {
namespace {

namespace at = apache::thrift;
using Protocol = at::protocol::TProtocol;

// A request frame of `method` whose arguments `write` writes.
std::string Frame(const std::string& method,
                  const std::function<void(Protocol&)>& write,
                  bool compact = false) {
  auto buffer = std::make_shared<at::transport::TMemoryBuffer>();
  std::unique_ptr<Protocol> out;
  if (compact) {
    out = std::make_unique<at::protocol::TCompactProtocol>(buffer);
  } else {
    out = std::make_unique<at::protocol::TBinaryProtocol>(buffer);
  }
  out->writeMessageBegin(method, at::protocol::T_CALL, 3);
  out->writeStructBegin("args");
  write(*out);
  out->writeFieldStop();
  out->writeStructEnd();
  out->writeMessageEnd();
  return buffer->getBufferAsString();
}

void StringField(Protocol& out, int16_t id, const std::string& value) {
  out.writeFieldBegin("f", at::protocol::T_STRING, id);
  out.writeString(value);
  out.writeFieldEnd();
}

// Field `id`: a TTableName (ns only when `ns` is not null).
void TableNameField(Protocol& out, int16_t id, const char* ns,
                    const char* qualifier) {
  out.writeFieldBegin("f", at::protocol::T_STRUCT, id);
  out.writeStructBegin("TTableName");
  if (ns != nullptr) StringField(out, 1, ns);
  if (qualifier != nullptr) StringField(out, 2, qualifier);
  out.writeFieldStop();
  out.writeStructEnd();
  out.writeFieldEnd();
}

CallScope Scope(const std::string& method, const std::string& frame) {
  CallScope scope;
  EXPECT_TRUE(ReadCallScope(method,
                            reinterpret_cast<const uint8_t*>(frame.data()),
                            frame.size(), &scope));
  return scope;
}

bool HasScope(const std::string& method, const std::string& frame) {
  CallScope scope;
  return ReadCallScope(method, reinterpret_cast<const uint8_t*>(frame.data()),
                       frame.size(), &scope);
}

TEST(GrantCheckTest, ADataCallsTableIsItsLastFieldOne) {
  const std::string put = Frame("put", [](Protocol& out) {
    StringField(out, 1, "geo:a");
    StringField(out, 2, std::string(100000, 'v'));  // skipped in place
    StringField(out, 1, "default:t");               // the reader keeps this
  });
  const CallScope scope = Scope("put", put);
  EXPECT_EQ(scope.table, "t");
  EXPECT_EQ(scope.ns, "default");
  const std::string compact = Frame(
      "putMultiple", [](Protocol& out) { StringField(out, 1, "geo:a"); },
      /*compact=*/true);
  EXPECT_EQ(Scope("putMultiple", compact).table, "geo:a");
  EXPECT_EQ(Scope("putMultiple", compact).ns, "geo");
  // A skipped string is as long as the compact protocol says (an unsigned
  // varint, not readI32's zigzag one): what hides in it is no field.
  const std::string hidden = Frame(
      "put",
      [](Protocol& out) {
        StringField(out, 1, "geo:b");
        // At byte 20 (where a zigzag read of 40 would end): field 1 (long
        // form: a string, then the id zigzagged), 5 bytes, "geo:a".
        std::string inside(40, '\0');
        inside[20] = 0x08;
        inside[21] = 0x02;
        inside[22] = 0x05;
        inside.replace(23, 5, "geo:a");
        StringField(out, 2, inside);
      },
      /*compact=*/true);
  EXPECT_EQ(Scope("put", hidden).table, "geo:b");
  // A method without a scope, one whose frame names another method, and
  // arguments without the table name none.
  EXPECT_FALSE(HasScope("createNamespace", put));
  EXPECT_FALSE(HasScope("deleteSingle", put));
  EXPECT_FALSE(HasScope("put", Frame("put", [](Protocol&) {})));
  EXPECT_FALSE(HasScope("put", put.substr(0, put.size() / 2)));
}

TEST(GrantCheckTest, ATableNameAccumulatesAsTheGeneratedReaderDoes) {
  // Sent twice: the second struct is read into the first, so its ns stays.
  const std::string frame = Frame("deleteTable", [](Protocol& out) {
    TableNameField(out, 1, "geo", "a");
    TableNameField(out, 1, nullptr, "b");
  });
  EXPECT_EQ(Scope("deleteTable", frame).table, "geo:b");
  const std::string plain = Frame("enableTable", [](Protocol& out) {
    TableNameField(out, 1, nullptr, "geo:a");  // the router client's form
  });
  EXPECT_EQ(Scope("enableTable", plain).table, "geo:a");
  EXPECT_FALSE(HasScope("enableTable", Frame("enableTable", [](Protocol& out) {
                          TableNameField(out, 1, "geo", nullptr);
                        })));
  // createTable: the new table's namespace alone.
  const std::string create = Frame("createTable", [](Protocol& out) {
    out.writeFieldBegin("desc", at::protocol::T_STRUCT, 1);
    out.writeStructBegin("TTableDescriptor");
    TableNameField(out, 1, "geo", "c");
    out.writeFieldStop();
    out.writeStructEnd();
    out.writeFieldEnd();
  });
  EXPECT_EQ(Scope("createTable", create).ns, "geo");
  EXPECT_EQ(Scope("createTable", create).table, "");
  EXPECT_EQ(
      Scope("modifyTable", Frame("modifyTable",
                                 [&](Protocol& out) {
                                   out.writeFieldBegin(
                                       "desc", at::protocol::T_STRUCT, 1);
                                   out.writeStructBegin("TTableDescriptor");
                                   TableNameField(out, 1, "geo", "c");
                                   out.writeFieldStop();
                                   out.writeStructEnd();
                                   out.writeFieldEnd();
                                 }))
          .table,
      "geo:c");
}

std::string Entity(int32_t scope, const char* table, const char* ns) {
  return Frame("grant", [&](Protocol& out) {
    out.writeFieldBegin("info", at::protocol::T_STRUCT, 1);
    out.writeStructBegin("TAccessControlEntity");
    StringField(out, 1, "bob");
    out.writeFieldBegin("scope", at::protocol::T_I32, 2);
    out.writeI32(scope);
    out.writeFieldEnd();
    StringField(out, 4, "RW");
    if (table != nullptr) StringField(out, 5, table);
    if (ns != nullptr) StringField(out, 6, ns);
    out.writeFieldStop();
    out.writeStructEnd();
    out.writeFieldEnd();
  });
}

TEST(GrantCheckTest, AGrantsScopeIsItsTableOrItsNamespace) {
  CallScope s = Scope("grant", Entity(0, "geo:a", "apps"));
  EXPECT_EQ(s.table, "geo:a");
  EXPECT_EQ(s.ns, "geo");
  s = Scope("grant", Entity(1, "geo:a", "apps"));
  EXPECT_EQ(s.table, "");
  EXPECT_EQ(s.ns, "apps");
  EXPECT_FALSE(HasScope("grant", Entity(1, "geo:a", nullptr)));
  EXPECT_FALSE(HasScope("grant", Entity(0, nullptr, "apps")));
  EXPECT_FALSE(HasScope("grant", Entity(7, "geo:a", "apps")));
}

// HBase's Thrift1 API (thrift/hbase1_service.thrift): the table is field 1
// as bytes, or field 1 of increment's TIncrement and append's TAppend;
// createTable's the new table's namespace alone.
TEST(GrantCheckTest, Thrift1CallsNameTheirTableInFieldOne) {
  auto scope = [](const std::string& method, const std::string& frame) {
    CallScope out;
    EXPECT_TRUE(ReadCallScope(method,
                              reinterpret_cast<const uint8_t*>(frame.data()),
                              frame.size(), &out, GrantApi::kThrift1))
        << method;
    return out;
  };
  const std::string mutate = Frame("mutateRow", [](Protocol& out) {
    StringField(out, 1, "geo:a");
    StringField(out, 2, "row");
  });
  EXPECT_EQ(scope("mutateRow", mutate).table, "geo:a");
  EXPECT_EQ(scope("mutateRow", mutate).ns, "geo");
  const std::string create =
      Frame("createTable", [](Protocol& out) { StringField(out, 1, "geo:c"); });
  EXPECT_EQ(scope("createTable", create).ns, "geo");
  EXPECT_EQ(scope("createTable", create).table, "");
  for (const char* method : {"increment", "append"}) {
    const std::string frame = Frame(method, [](Protocol& out) {
      out.writeFieldBegin("arg", at::protocol::T_STRUCT, 1);
      out.writeStructBegin("TIncrement");
      StringField(out, 2, "row");
      StringField(out, 1, "t");
      out.writeFieldStop();
      out.writeStructEnd();
      out.writeFieldEnd();
    });
    EXPECT_EQ(scope(method, frame).table, "t") << method;
    EXPECT_EQ(scope(method, frame).ns, "default") << method;
  }
  EXPECT_EQ(scope("grant", Entity(0, "geo:a", nullptr)).table, "geo:a");
  // Thrift2's methods are not Thrift1's, and the other way round; Thrift1's
  // createTable names its table as bytes, not in a descriptor.
  CallScope none;
  const std::string put =
      Frame("put", [](Protocol& out) { StringField(out, 1, "geo:b"); });
  EXPECT_FALSE(ReadCallScope("put",
                             reinterpret_cast<const uint8_t*>(put.data()),
                             put.size(), &none, GrantApi::kThrift1));
  EXPECT_FALSE(HasScope("createTable", create));
  const std::string increment = Frame(
      "atomicIncrement", [](Protocol& out) { StringField(out, 1, "geo:a"); });
  EXPECT_EQ(scope("atomicIncrement", increment).table, "geo:a");
  EXPECT_FALSE(HasScope("atomicIncrement", increment));
}

TEST(GrantCheckTest, LettersGiveRolesAndGrantsReachTheirScope) {
  EXPECT_EQ(RoleOfActions(""), Role::kNone);
  EXPECT_EQ(RoleOfActions("X"), Role::kNone);
  EXPECT_EQ(RoleOfActions("RX"), Role::kRead);
  EXPECT_EQ(RoleOfActions("RW"), Role::kWrite);
  EXPECT_EQ(RoleOfActions("C"), Role::kAdmin);
  EXPECT_EQ(RoleOfActions("A"), Role::kAdmin);
  const std::vector<router::Grant> grants = {
      *router::MakeGrant("amy", "", "geo:a", "A"),
      *router::MakeGrant("bob", "geo", "", "W"),
      *router::MakeGrant("bob", "", "geo:b", "A"),
  };
  EXPECT_EQ(GrantedOn(grants, "bob", {"geo", "geo:a"}), Role::kWrite);
  EXPECT_EQ(GrantedOn(grants, "bob", {"geo", "geo:b"}), Role::kAdmin);
  EXPECT_EQ(GrantedOn(grants, "bob", {"geo", ""}), Role::kWrite);
  EXPECT_EQ(GrantedOn(grants, "bob", {"apps", "apps:a"}), Role::kNone);
  EXPECT_EQ(GrantedOn(grants, "amy", {"geo", ""}), Role::kNone);
  EXPECT_EQ(GrantedOn(grants, "carl", {"geo", "geo:a"}), Role::kNone);

  RouterGrantCheck check([&] {
    return std::make_shared<const std::vector<router::Grant>>(grants);
  });
  const std::string put =
      Frame("put", [](Protocol& out) { StringField(out, 1, "geo:b"); });
  const auto* bytes = reinterpret_cast<const uint8_t*>(put.data());
  EXPECT_EQ(
      check.GrantedRole(Identity{"bob", Role::kRead}, "put", bytes, put.size()),
      Role::kAdmin);
  EXPECT_EQ(check.GrantedRole(Identity{"carl", Role::kRead}, "put", bytes,
                              put.size()),
            Role::kNone);
}

}  // namespace
}  // namespace bloomroute::thrift_internal
