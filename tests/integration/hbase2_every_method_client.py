#!/usr/bin/python3
"""Every method of HBase's Thrift2 API (THBaseService) over every transport.

The router's port serves the buffered and framed transports and HTTP POST,
each with the binary protocol (strict or not) and the compact protocol, told
apart per connection. For each of those nine kinds this calls every method
of THBaseService (thrift/hbase_service.thrift) with the Python code
generated from the IDL and checks each answer: the cells, rows, tables,
namespaces and regions returned, and the exception and its message where a
call, or a feature of its request, is refused. Each kind has a namespace
and tables of its own, and deletes them at its end. It also checks that it
called every method of the service, so a method added to the IDL fails it
until it is driven here. Without TLS, grant and revoke are kept and answer
true (the suite's secure run skips this script).

Over HTTP, Thrift's Python THttpClient opens a connection per call, and
without TLS a scanner belongs to the connection that opened it (as
documented); the HTTP kinds check that, and drive the scanner calls over one
kept-alive HTTP connection (as Java's THttpClient does).

    PYTHONPATH=build/python /usr/bin/python3 \\
        tests/integration/hbase2_every_method_client.py --router 127.0.0.1:9090

Prints one line per kind ("framed+binary: ok") and exits 0, or names the
first method and kind that failed and why and exits 1.
"""

import argparse
import sys
import time

from bloomroute.rpc.errors.ttypes import TIllegalArgument, TIOError
from bloomroute.rpc.hbase_service import THBaseService
from bloomroute.rpc.hbase_service.ttypes import (
    TAccessControlEntity, TAppend, TCellVisibility, TColumn,
    TColumnFamilyDescriptor, TColumnIncrement, TColumnValue, TCompareOperator,
    TDelete, TDeleteType, TGet, TIncrement, TLogQueryFilter, TMutation,
    TNamespaceDescriptor, TPermissionScope, TPut, TRowMutations, TScan,
    TServerName, TTableDescriptor, TTableName, TThriftServerType)

from hbase1_every_method_client import Caller, Failure
from thrift_kinds import open_protocol, run_every_kind

def open_client(address, transport_kind, protocol_kind, keep_alive=False):
    """An open THBaseService client and its transport."""
    protocol, transport = open_protocol(address, transport_kind,
                                        protocol_kind, keep_alive)
    return THBaseService.Client(protocol), transport


def service_methods():
    return sorted(m for m in dir(THBaseService.Iface) if not m.startswith("_"))


def cv(family, qualifier, value, timestamp=None):
    return TColumnValue(family=family, qualifier=qualifier, value=value,
                        timestamp=timestamp)


def values(result):
    """{b"f:q": value} of a TResult."""
    return {c.family + b":" + c.qualifier: c.value
            for c in result.columnValues}


def namespaces(c, ns):
    """The namespace calls; leaves `ns` created."""
    if ns in c("listNamespaces"):
        for name in c("getTableNamesByNamespace", ns):
            if c("isTableEnabled", name):
                c("disableTable", name)
            c("deleteTable", name)
        c("deleteNamespace", ns)
    c("createNamespace", TNamespaceDescriptor(name=ns,
                                              configuration={"k": "v1"}))
    c.refused(TIOError, [ns, "exists"], "createNamespace",
              TNamespaceDescriptor(name=ns))
    c("modifyNamespace", TNamespaceDescriptor(name=ns,
                                              configuration={"k": "v2"}))
    got = c("getNamespaceDescriptor", ns)
    c.check(got.name == ns and got.configuration == {"k": "v2"}, f"{got}")
    c.refused(TIOError, ["nope_" + ns], "getNamespaceDescriptor",
              "nope_" + ns)
    names = c("listNamespaces")
    c.check(ns in names and "default" in names and "hbase" in names,
            f"{names}")
    got = [d for d in c("listNamespaceDescriptors") if d.name == ns]
    c.check(len(got) == 1 and got[0].configuration == {"k": "v2"}, f"{got}")


def tables(c, ns, table):
    """The table calls; leaves `table` (families d and e, split at m)
    enabled and empty."""
    name = TTableName(ns=ns.encode(), qualifier=table)
    other = TTableName(ns=ns.encode(), qualifier=table + b"_other")
    c.check(c("getThriftServerType") == TThriftServerType.TWO, "not TWO")
    cluster = c("getClusterId")
    c.check(len(cluster) == 36 and cluster.count("-") == 4, f"{cluster!r}")
    c.check(c("tableExists", name) is False, "exists before createTable")
    c("createTable", TTableDescriptor(tableName=name, columns=[
        TColumnFamilyDescriptor(name=b"d"),
        TColumnFamilyDescriptor(name=b"e")]), [b"m"])
    c.refused(TIOError, ["exists"], "createTable",
              TTableDescriptor(tableName=name, columns=[
                  TColumnFamilyDescriptor(name=b"d")]), [])
    c.refused(TIOError, ["maxVersions"], "createTable", TTableDescriptor(
        tableName=other, columns=[TColumnFamilyDescriptor(
            name=b"d", maxVersions=3)]), [])
    c.check(c("tableExists", name) is True, "tableExists")
    c.check(c("tableExists", TTableName(ns=b"hbase", qualifier=b"meta")),
            "hbase:meta")
    c.check(c("isTableEnabled", name) is True, "isTableEnabled")
    c.check(c("isTableDisabled", name) is False, "isTableDisabled")
    c.check(c("isTableAvailable", name) is True, "isTableAvailable")
    c.check(c("isTableAvailableWithSplit", name, [b"m"]) is True,
            "available with its split")
    c.check(c("isTableAvailableWithSplit", name, [b"q"]) is False,
            "available with a split it does not have")
    desc = c("getTableDescriptor", name)
    c.check(desc.tableName == name and
            sorted(f.name for f in desc.columns) == [b"d", b"e"] and
            all(f.maxVersions == 1 for f in desc.columns), f"{desc}")
    c.refused(TIOError, ["NotFound"], "getTableDescriptor", other)
    got = c("getTableDescriptors", [name])
    c.check([d.tableName for d in got] == [name], f"{got}")
    pattern = ns + ":" + table.decode() + ".*"
    got = c("getTableDescriptorsByPattern", pattern, False)
    c.check([d.tableName for d in got] == [name], f"{got}")
    got = c("getTableNamesByPattern", pattern, False)
    c.check(got == [name], f"{got}")
    got = c("getTableNamesByPattern", pattern, True)
    c.check(got == [name], f"with system tables: {got}")
    # HBase 2.x's system tables, which tableExists says exist, are listed
    # with includeSysTables only.
    got = c("getTableNamesByPattern", "hbase:.*", True)
    c.check(got == [TTableName(ns=b"hbase", qualifier=b"meta"),
                    TTableName(ns=b"hbase", qualifier=b"namespace")],
            f"system tables: {got}")
    c.check(c("getTableNamesByPattern", "hbase:.*", False) == [],
            "system tables without includeSysTables")
    c.check(c("getTableNamesByNamespace", ns) == [name], "by namespace")
    got = c("getTableDescriptorsByNamespace", ns)
    c.check([d.tableName for d in got] == [name], f"{got}")
    c.refused(TIOError, [ns, "table"], "deleteNamespace", ns)
    # Families: add, modify, delete (online).
    c("addColumnFamily", name, TColumnFamilyDescriptor(name=b"x"))
    c("modifyColumnFamily", name, TColumnFamilyDescriptor(
        name=b"x", blockCacheEnabled=False))
    c.refused(TIOError, ["maxVersions"], "modifyColumnFamily", name,
              TColumnFamilyDescriptor(name=b"x", maxVersions=5))
    family = [f for f in c("getTableDescriptor", name).columns
              if f.name == b"x"]
    c.check(len(family) == 1 and family[0].blockCacheEnabled is False,
            f"{family}")
    c("deleteColumnFamily", name, b"x")
    families = [f.name for f in c("getTableDescriptor", name).columns]
    c.check(sorted(families) == [b"d", b"e"], f"{families}")
    c("modifyTable", TTableDescriptor(tableName=name, columns=[
        TColumnFamilyDescriptor(name=b"d"), TColumnFamilyDescriptor(name=b"e")],
        attributes={b"owner": b"every-method"}))
    desc = c("getTableDescriptor", name)
    c.check((desc.attributes or {}).get(b"owner") == b"every-method",
            f"{desc}")
    # Disable, enable, truncate.
    c("disableTable", name)
    c.check(c("isTableDisabled", name) is True, "not disabled")
    c.check(c("isTableEnabled", name) is False, "still enabled")
    c.refused(TIOError, ["disabled"], "get", name_bytes(name), TGet(row=b"a"))
    c("enableTable", name)
    c.check(c("isTableEnabled", name) is True, "not enabled again")
    c("put", name_bytes(name), TPut(row=b"t", columnValues=[
        cv(b"d", b"q", b"v")]))
    c("disableTable", name)
    c("truncateTable", name, True)
    c.check(c("isTableEnabled", name) is True,
            "enabled after truncateTable, as HBase")
    c.check(c("exists", name_bytes(name), TGet(row=b"t")) is False,
            "a row left by truncateTable")
    c.check(c("isTableAvailableWithSplit", name, [b"m"]) is True,
            "splits not preserved")
    return name


def name_bytes(name):
    return name.ns + b":" + name.qualifier


def rows_and_cells(c, t):
    """The row calls on table `t` (bytes "ns:table")."""
    c("put", t, TPut(row=b"a", columnValues=[cv(b"d", b"q", b"1"),
                                             cv(b"e", b"r", b"2")]))
    c.refused(TIOError, ["cellVisibility"], "put", t, TPut(
        row=b"a", columnValues=[cv(b"d", b"q", b"x")],
        cellVisibility=TCellVisibility(expression="secret")))
    c("putMultiple", t, [
        TPut(row=b"b", columnValues=[cv(b"d", b"q", b"10")]),
        TPut(row=b"n", columnValues=[cv(b"d", b"q", b"20", 1000)]),
        TPut(row=b"z", columnValues=[cv(b"d", b"q", b"30")])])
    got = c("get", t, TGet(row=b"a"))
    c.check(got.row == b"a" and values(got) == {b"d:q": b"1", b"e:r": b"2"},
            f"{got}")
    got = c("get", t, TGet(row=b"nowhere"))
    c.check(not got.row and got.columnValues == [], f"{got}")
    got = c("get", t, TGet(row=b"a", columns=[TColumn(family=b"e")]))
    c.check(values(got) == {b"e:r": b"2"}, f"{got}")
    c.refused(TIOError, ["maxVersions"], "get", t, TGet(row=b"a",
                                                       maxVersions=2))
    c.refused(TIOError, ["filterBytes"], "get", t, TGet(
        row=b"a", filterBytes=b"\x00"))
    c.check(c("exists", t, TGet(row=b"b")) is True, "exists b")
    c.check(c("exists", t, TGet(row=b"nowhere")) is False, "exists nowhere")
    blob = bytes(range(256)) * 40  # every byte, in a few reads
    c("put", t, TPut(row=b"\x00\xffbin", columnValues=[
        cv(b"d", b"\x00q\xff", blob)]))
    got = c("get", t, TGet(row=b"\x00\xffbin"))
    c.check(got.row == b"\x00\xffbin" and
            values(got) == {b"d:\x00q\xff": blob}, "binary row and value")
    c("deleteSingle", t, TDelete(row=b"\x00\xffbin"))
    c.check(c("exists", t, TGet(row=b"\x00\xffbin")) is False, "deleted")
    got = c("existsAll", t, [TGet(row=b"nowhere"), TGet(row=b"z")])
    c.check(got == [False, True], f"{got}")
    got = c("getMultiple", t, [TGet(row=b"z"), TGet(row=b"nowhere"),
                               TGet(row=b"n")])
    c.check([(r.row or b"", values(r)) for r in got] ==
            [(b"z", {b"d:q": b"30"}), (b"", {}), (b"n", {b"d:q": b"20"})],
            f"{got}")
    got = c("get", t, TGet(row=b"n"))
    c.check([x.timestamp for x in got.columnValues] == [1000], f"{got}")
    # Checks and mutations.
    c.check(c("checkAndPut", t, b"a", b"d", b"q", b"wrong", TPut(
        row=b"a", columnValues=[cv(b"d", b"q", b"x")])) is False,
        "checkAndPut on a wrong value")
    c.check(c("checkAndPut", t, b"a", b"d", b"q", b"1", TPut(
        row=b"a", columnValues=[cv(b"d", b"q", b"11")])) is True,
        "checkAndPut on the value")
    c.check(values(c("get", t, TGet(row=b"a")))[b"d:q"] == b"11", "d:q")
    c.check(c("checkAndDelete", t, b"a", b"e", b"r", b"wrong", TDelete(
        row=b"a", columns=[TColumn(family=b"e")])) is False,
        "checkAndDelete on a wrong value")
    c.check(c("checkAndDelete", t, b"a", b"e", b"r", b"2", TDelete(
        row=b"a", columns=[TColumn(family=b"e")],
        deleteType=TDeleteType.DELETE_FAMILY)) is True,
        "checkAndDelete on the value")
    c.check(values(c("get", t, TGet(row=b"a"))) == {b"d:q": b"11"}, "e gone")
    # HBase compares the value given to the cell's: "10" LESS than "11".
    c.check(c("checkAndMutate", t, b"a", b"d", b"q",
              TCompareOperator.LESS, b"10", TRowMutations(
                  row=b"a", mutations=[
                      TMutation(put=TPut(row=b"a", columnValues=[
                          cv(b"d", b"m", b"mutated")]))])) is True,
            "checkAndMutate")
    c.check(c("checkAndMutate", t, b"a", b"d", b"q",
              TCompareOperator.GREATER, b"10", TRowMutations(
                  row=b"a", mutations=[
                      TMutation(put=TPut(row=b"a", columnValues=[
                          cv(b"d", b"m", b"no")]))])) is False,
            "checkAndMutate that fails")
    c("mutateRow", t, TRowMutations(row=b"a", mutations=[
        TMutation(deleteSingle=TDelete(row=b"a", columns=[
            TColumn(family=b"d", qualifier=b"m")])),
        TMutation(put=TPut(row=b"a", columnValues=[cv(b"d", b"p", b"P")]))]))
    c.check(values(c("get", t, TGet(row=b"a"))) ==
            {b"d:q": b"11", b"d:p": b"P"}, "mutateRow")
    got = c("increment", t, TIncrement(row=b"c", columns=[
        TColumnIncrement(family=b"d", qualifier=b"n", amount=5)]))
    c.check(values(got) == {b"d:n": (5).to_bytes(8, "big")}, f"{got}")
    got = c("increment", t, TIncrement(row=b"c", columns=[
        TColumnIncrement(family=b"d", qualifier=b"n", amount=-2)]))
    c.check(values(got) == {b"d:n": (3).to_bytes(8, "big")}, f"{got}")
    got = c("append", t, TAppend(row=b"a", columns=[cv(b"d", b"p", b"+")]))
    c.check(values(got) == {b"d:p": b"P+"}, f"{got}")
    # Deletes.
    time.sleep(0.01)  # past the increments' stamps (a millisecond ahead)
    c("deleteSingle", t, TDelete(row=b"c"))
    c.check(c("exists", t, TGet(row=b"c")) is False, "deleteSingle")
    c.refused(TIOError, ["DELETE_FAMILY_VERSION"], "deleteSingle", t,
              TDelete(row=b"a", columns=[TColumn(family=b"d", timestamp=1)],
                      deleteType=TDeleteType.DELETE_FAMILY_VERSION))
    got = c("deleteMultiple", t, [TDelete(row=b"b"), TDelete(row=b"nowhere")])
    c.check(got == [], f"not applied: {got}")
    got = c("existsAll", t, [TGet(row=b"b"), TGet(row=b"a")])
    c.check(got == [False, True], f"{got}")


def regions(c, t):
    location = c("getRegionLocation", t, b"a", False)
    c.check(location.regionInfo.endKey == b"m" and
            not location.regionInfo.startKey and
            location.serverName.hostName and location.serverName.port > 0,
            f"{location}")
    location = c("getRegionLocation", t, b"q", True)
    c.check(location.regionInfo.startKey == b"m" and
            not location.regionInfo.endKey, f"{location}")
    got = c("getAllRegionLocations", t)
    c.check([(r.regionInfo.startKey or b"", r.regionInfo.endKey or b"")
             for r in got] == [(b"", b"m"), (b"m", b"")], f"{got}")
    c.check(all(r.regionInfo.tableName == t for r in got), f"{got}")
    c.refused(TIOError, ["NotFound"], "getAllRegionLocations", t + b"_nope")


def scanners(c, t):
    """The scanner calls over rows a, n, z."""
    scanner = c("openScanner", t, TScan(caching=10))
    got = c("getScannerRows", scanner, 2, 1)
    c.check([r.row for r in got] == [b"a", b"n"], f"{got}")
    got = c("getScannerRows", scanner, 2, 1)  # the same batch again
    c.check([r.row for r in got] == [b"a", b"n"], f"repeat: {got}")
    got = c("getScannerRows", scanner, 2, 2)
    c.check([r.row for r in got] == [b"z"], f"{got}")
    c.refused(TIllegalArgument, ["3"], "getScannerRows", scanner, 2, 7)
    c("closeScanner", scanner)
    c.refused(TIllegalArgument, ["NotFound"], "getScannerRows", scanner, 1, 0)
    c.refused(TIllegalArgument, ["NotFound"], "closeScanner", scanner)
    scanner = c("openScanner", t, TScan(
        reversed=True, filterString=b"ValueFilter(=, 'binary:20')"))
    got = c("getScannerRows", scanner, 10, 0)
    c.check([(r.row, values(r)) for r in got] == [(b"n", {b"d:q": b"20"})],
            f"{got}")
    c("closeScanner", scanner)


def scanner_results(c, t):
    got = c("getScannerResults", t, TScan(startRow=b"b", limit=5), 10)
    c.check([r.row for r in got] == [b"n", b"z"], f"{got}")
    got = c("getScannerResults", t, TScan(), 1)
    c.check([r.row for r in got] == [b"a"], f"{got}")


def admin(c, ns, t):
    entity = TAccessControlEntity(
        username="everymethod", scope=TPermissionScope.TABLE, actions="R",
        tableName=t.decode())
    c.check(c("grant", entity) is True, "grant")
    c.check(c("revoke", entity) is True, "revoke")
    c.check(c("grant", TAccessControlEntity(
        username="everymethod", scope=TPermissionScope.NAMESPACE,
        actions="RW", nsName=ns)) is True, "namespace grant")
    c.check(c("revoke", TAccessControlEntity(
        username="everymethod", scope=TPermissionScope.NAMESPACE,
        actions="RW", nsName=ns)) is True, "namespace revoke")
    c.refused(TIOError, ["tableName"], "grant", TAccessControlEntity(
        username="everymethod", scope=TPermissionScope.TABLE, actions="R"))
    # (Python's generated structs are not hashable: a list stands for the
    # set, written the same way.)
    got = c("getSlowLogResponses", [TServerName(hostName="any")],
            TLogQueryFilter(limit=5))
    c.check(isinstance(got, list) and len(got) <= 5, f"{got}")
    c.refused(TIOError, ["limit"], "getSlowLogResponses", set(),
              TLogQueryFilter(limit=-1))
    got = c("clearSlowLogResponses", set())
    c.check(isinstance(got, list) and all(x is True for x in got), f"{got}")
    got = c("getSlowLogResponses", set(), TLogQueryFilter())
    c.check(got == [], f"after clearSlowLogResponses: {got}")


def cleanup(c, ns, name):
    c("disableTable", name)
    c("deleteTable", name)
    c.check(c("tableExists", name) is False, "deleted table exists")
    c("deleteNamespace", ns)
    c.check(ns not in c("listNamespaces"), "deleted namespace listed")


def per_call_http_scanner(c, t):
    """Over THttpClient (a connection per call) without TLS a scanner ends
    with the call that opened it, as documented (docs/hbase-compatibility.md,
    scanners); HBase's Thrift2 server keeps scanners server-wide, and over
    TLS any connection of the same user reads it."""
    scanner = c("openScanner", t, TScan())
    c.refused(TIllegalArgument, ["is not open"], "getScannerRows", scanner,
              10, 0)


def run_kind(address, name, transport_kind, protocol_kind):
    """Returns the methods called; raises Failure."""
    ns = "every2_" + name.replace("+", "_")
    try:
        client, transport = open_client(address, transport_kind,
                                        protocol_kind)
    except Exception as e:  # pylint: disable=broad-except
        raise Failure("connect", f"{type(e).__name__}: {e}") from e
    c = Caller(client)
    try:
        namespaces(c, ns)
        table = tables(c, ns, b"t")
        t = name_bytes(table)
        rows_and_cells(c, t)
        regions(c, t)
        scanner_results(c, t)
        if transport_kind == "http":
            per_call_http_scanner(c, t)
            keep_alive, keep_alive_transport = open_client(
                address, transport_kind, protocol_kind, keep_alive=True)
            try:
                scanners(Caller(keep_alive, like=c), t)
            finally:
                keep_alive_transport.close()
        else:
            scanners(c, t)
        admin(c, ns, t)
        cleanup(c, ns, table)
    except Failure:
        raise
    except Exception as e:  # a Thrift error or a broken connection
        raise Failure(c.method, f"{type(e).__name__}: {e}") from e
    finally:
        transport.close()
    return c.called


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--router", required=True, help="HOST:PORT")
    args = parser.parse_args()
    return run_every_kind(args.router, run_kind, service_methods(), Failure)


if __name__ == "__main__":
    sys.exit(main())
