#!/usr/bin/python3
"""A bloomroute client in Python: create a table, put rows, look them up.

Speaks HBase's Thrift2 API (createTable, putMultiple, openScanner,
getScannerRows) plus bloomroute's getByIndex. Uses the code Thrift generates
from thrift/router_service.thrift (and the hbase_service.thrift and
index_service.thrift it extends) at build time (into build/python) and
Debian's python3-thrift. From the source tree, with a
cluster running (e.g. `build/tools/bloomroute local --data /tmp/br --servers 2`):

    PYTHONPATH=build/python /usr/bin/python3 examples/python/geo_client.py \
        --router 127.0.0.1:9090

--router takes one router or a comma-separated list of a cluster's routers
(h1:9090,h2:9090): the client starts at one picked at random and moves to the
next when a router does not answer. A call is sent again to the next router
only when that is safe: when it never reached the first, or when it is
idempotent (reads, puts); creating the table is not sent again after a lost
reply. A scan whose router dies is opened again on another router right
after the last row received.

Against a router serving TLS, add --tls-ca with the cluster's CA certificate,
and either a client certificate (--tls-cert, --tls-key) or a token
(--token-file: the token on its first line), as `bloomroute cert` makes them.
"""
import argparse
import itertools
import logging
import random
import ssl
import sys

from thrift.protocol import TBinaryProtocol
from thrift.transport import TSocket, TSSLSocket, TTransport

from bloomroute.rpc.errors.ttypes import TIllegalArgument, TIOError
from bloomroute.rpc.hbase_service.ttypes import (
    TColumnFamilyDescriptor, TColumnValue, TPut, TScan, TTableDescriptor,
    TTableName)
from bloomroute.rpc.index_service.ttypes import TEqualityPredicate, TIndexQuery
from bloomroute.rpc.router_service import RouterService

TABLE = "geo_example"
# The table attribute that declares the indexed columns (family:qualifier,
# comma-separated).
INDEX_ATTRIBUTE = b"bloomroute.index"
CITIES = [  # row key, country code, feature code, name
    ("oslo", "NO", "PPLC", "Oslo"),
    ("bergen", "NO", "PPLA", "Bergen"),
    ("tromso", "NO", "PPLA", "Tromsø"),
    ("stockholm", "SE", "PPLC", "Stockholm"),
    ("gothenburg", "SE", "PPLA2", "Göteborg"),
    ("lyon", "FR", "PPLA", "Lyon"),
]


# The most routers --router may list, as for the bloomroute commands.
MAX_ROUTERS = 64

# The most a token file may hold, as for the bloomroute commands: a token is
# one line of 64 hex digits.
MAX_TOKEN_FILE_BYTES = 4096


class UsageError(Exception):
    """Options that do not go together, or a file that cannot be used."""


def read_token(path):
    """The first line of the token file, without trailing whitespace."""
    try:
        with open(path, "rb") as f:
            data = f.read(MAX_TOKEN_FILE_BYTES + 1)
    except OSError as e:
        raise UsageError(f"--token-file {path}: cannot read it: "
                         f"{e.strerror}") from e
    if len(data) > MAX_TOKEN_FILE_BYTES:
        raise UsageError(f"--token-file {path}: larger than "
                         f"{MAX_TOKEN_FILE_BYTES} bytes, the most a token "
                         "file may hold (its first line is the token)")
    token = data.split(b"\n", 1)[0].rstrip().decode("utf-8", "replace")
    if not token:
        raise UsageError(f"--token-file {path}: its first line is empty "
                         "(it should be the token)")
    return token


def tls_context(args):
    """An ssl.SSLContext for the TLS options, or None without --tls-ca.

    TLS 1.2 or later; the router's certificate must chain to --tls-ca and name
    the host dialled (check_hostname); --tls-cert and --tls-key are presented
    when given."""
    if not args.tls_ca:
        if args.tls_cert or args.tls_key:
            raise UsageError("--tls-cert and --tls-key need --tls-ca "
                             "(the cluster's CA)")
        if args.token_file:
            raise UsageError("--token-file needs --tls-ca: a token must not "
                             "travel in the clear")
        return None
    if bool(args.tls_cert) != bool(args.tls_key):
        raise UsageError("--tls-cert needs --tls-key" if args.tls_cert
                         else "--tls-key needs --tls-cert")
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)  # verifies, checks names
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    for option, path in (("--tls-ca", args.tls_ca),
                         ("--tls-cert", args.tls_cert),
                         ("--tls-key", args.tls_key)):
        if path:
            try:
                open(path, "rb").close()
            except OSError as e:
                raise UsageError(f"{option} {path}: cannot read it: "
                                 f"{e.strerror}") from e
    try:
        context.load_verify_locations(cafile=args.tls_ca)
        if args.tls_cert:
            context.load_cert_chain(args.tls_cert, args.tls_key)
    except ssl.SSLError as e:
        raise UsageError(f"cannot load the TLS files: {e}") from e
    return context


class _ConnectFailure(logging.Handler):
    """Keeps the reason python3-thrift's TSocket logs (at INFO, with the
    exception) when a connection or a TLS handshake fails, which its
    exception leaves out; while attached it also keeps the library's own
    log lines off stderr, so a failure is one line (ours)."""

    def __init__(self):
        super().__init__(logging.INFO)
        self.reason = None

    def emit(self, record):
        if record.exc_info and record.exc_info[1] is not None:
            self.reason = str(record.exc_info[1])


def open_transport(transport):
    """transport.open(), with the reason of a failure in its exception."""
    log = logging.getLogger("thrift.transport.TSocket")
    failure = _ConnectFailure()
    level = log.level
    log.addHandler(failure)
    log.setLevel(logging.INFO)
    try:
        transport.open()
    except TTransport.TTransportException as e:
        if not failure.reason:
            raise
        raise TTransport.TTransportException(
            type=e.type, message=f"{e.message}: {failure.reason}") from e
    finally:
        log.removeHandler(failure)
        log.setLevel(level)


def connect(address, context=None, token=None):
    """A RouterService client over framed binary Thrift, as the router speaks;
    over TLS with `context`, then authenticated with `token` when given."""
    host, _, port = address.rpartition(":")
    if not host or not port.isdigit():
        raise ValueError(f"--router {address!r}: expected HOST:PORT")
    host = host.strip("[]")
    if context is None:
        socket = TSocket.TSocket(host, int(port))
    else:
        # The context checks the router's name during the handshake, so the
        # library's own check after it (a deprecated ssl function) is not
        # needed.
        socket = TSSLSocket.TSSLSocket(host, int(port), ssl_context=context,
                                       server_hostname=host,
                                       validate_callback=lambda cert, h: None)
    socket.setTimeout(30000)  # milliseconds
    transport = TTransport.TFramedTransport(socket)
    client = RouterService.Client(TBinaryProtocol.TBinaryProtocol(transport))
    open_transport(transport)
    if token is not None:
        client.authenticate(token)
    return client, transport


def parse_routers(text):
    """--router's list: "HOST:PORT[,HOST:PORT...]", each entry checked."""
    routers, seen = [], set()
    for entry in (e.strip() for e in text.split(",")):
        if not entry:
            raise UsageError(f"--router {text!r}: an entry is empty")
        host, _, port = entry.rpartition(":")
        if not host or not port.isdigit() or not 1 <= int(port) <= 65535:
            raise UsageError(f"--router: {entry!r} is not HOST:PORT with a "
                             "port in 1..65535")
        key = (host.strip("[]").lower(), int(port))
        if key in seen:
            raise UsageError(f"--router: {entry!r} is listed twice")
        seen.add(key)
        routers.append(entry)
    if len(routers) > MAX_ROUTERS:
        raise UsageError(f"--router: more than {MAX_ROUTERS} routers")
    return routers


class ReplyLost(Exception):
    """A call that is not idempotent was sent and its reply lost."""


class Routers:
    """The routers of --router. Calls go to the current router, which starts
    at one picked at random (so that clients spread over the list); when it
    does not answer, the call moves on to the next router: always when the
    request never left (no connection), and after a lost reply only when the
    call is idempotent. A router's declared error (TIOError,
    TIllegalArgument) is its answer and is not sent elsewhere."""

    def __init__(self, addresses, context=None, token=None):
        self.addresses = addresses
        self.context, self.token = context, token
        self.current = random.randrange(len(addresses))
        self.client = self.transport = None

    def address(self):
        return self.addresses[self.current]

    def open(self):
        """Connects to the current router or the next that answers."""
        failures = []
        for _ in self.addresses:
            try:
                self.client, self.transport = connect(
                    self.address(), self.context, self.token)
                return self.client
            except TTransport.TTransportException as e:
                failures.append(f"{self.address()}: {e}")
                self.current = (self.current + 1) % len(self.addresses)
        raise TTransport.TTransportException(message="; ".join(failures))

    def lost(self, client):
        """Drops `client`'s connection after a failure; the next call goes
        to the next router."""
        if client is self.client:
            self.transport.close()
            self.client = self.transport = None
            self.current = (self.current + 1) % len(self.addresses)

    def close(self):
        if self.transport is not None:
            self.transport.close()

    def call(self, name, fn, idempotent=True, check="look"):
        """fn(client) on the current router, moving on as the class says."""
        failures = []
        for _ in self.addresses:
            if self.client is None:
                try:
                    self.open()
                except TTransport.TTransportException as e:
                    failures.append(str(e))
                    break
            client, address = self.client, self.address()
            try:
                return fn(client)
            except TTransport.TTransportException as e:
                self.lost(client)
                if not idempotent:
                    raise ReplyLost(
                        f"router {address}: {name}: the connection was lost "
                        "after the request was sent; it may have been "
                        f"applied: {check} before retrying ({e})") from e
                failures.append(f"{address}: {e}")
        raise TTransport.TTransportException(
            message=f"no router answered {name}: " + "; ".join(failures))


def create_table(routers):
    """Creates the table with two indexed columns, or reuses it."""
    name = TTableName(qualifier=TABLE.encode())
    if routers.call("tableExists", lambda c: c.tableExists(name)):
        print(f"table {TABLE} exists; reusing it")
        return
    desc = TTableDescriptor(
        tableName=name, columns=[TColumnFamilyDescriptor(name=b"d")],
        attributes={INDEX_ATTRIBUTE: b"d:cc,d:feature"})
    # Not idempotent: sent again it would fail as a table that exists.
    routers.call("createTable", lambda c: c.createTable(desc, [b"h", b"p"]),
                 idempotent=False, check="list the tables")
    regions = routers.call(
        "getAllRegionLocations",
        lambda c: c.getAllRegionLocations(TABLE.encode()))
    print(f"created table {TABLE} with {len(regions)} regions")


def put_cities(routers):
    puts = [TPut(row=key.encode(),
                 columnValues=[TColumnValue(b"d", b"cc", cc.encode()),
                               TColumnValue(b"d", b"feature", feature.encode()),
                               TColumnValue(b"d", b"name", name.encode())])
            for key, cc, feature, name in CITIES]
    # A put writes the same cells again: idempotent.
    routers.call("putMultiple", lambda c: c.putMultiple(TABLE.encode(), puts))
    print(f"put {len(puts)} rows")


def cells_of(row):
    """A row's cells as {"family:qualifier": value}."""
    return {f"{c.family.decode()}:{c.qualifier.decode()}": c.value.decode()
            for c in row.columnValues}


def lookup(routers, **where):
    """getByIndex for the AND of column = value; prints rows and routing."""
    query = TIndexQuery(predicates=[
        TEqualityPredicate(b"d", column.encode(), value.encode())
        for column, value in where.items()])
    result = routers.call("getByIndex", lambda c: c.getByIndex(TABLE, query))
    shown = " AND ".join(f"d:{c} = {v}" for c, v in where.items())
    print(f"getByIndex {shown}: {len(result.rows)} rows")
    for row in result.rows:
        print(f"  {row.row.decode()}: {cells_of(row)}")
    r = result.routing
    print(f"  routing: {len(r.serversAsked)} of {r.serversInCluster} servers "
          f"asked {[s.address for s in r.serversAsked]}, "
          f"{len(r.serversWithRows)} had rows")


def scan(routers, batch=4):
    """Every row in key order, through a scanner, `batch` rows a call.

    A scanner belongs to the router (and connection) that opened it: its
    calls go there. callSeq numbers the calls (1, 2, ...): a call repeated
    with the same number after a lost reply gets the same rows again. When
    the scanner's router dies, the scan is opened again on another router
    right after the last row received, so each row is seen once."""
    keys = []
    reopens = 0
    while True:
        start = keys[-1].encode() + b"\0" if keys else b""
        client, scanner = routers.call(
            "openScanner",
            lambda c: (c, c.openScanner(TABLE.encode(), TScan(startRow=start))))
        try:
            for call_seq in itertools.count(1):
                rows = client.getScannerRows(scanner, batch, call_seq)
                if not rows:
                    break
                keys.extend(row.row.decode() for row in rows)
                reopens = 0
        except TTransport.TTransportException:
            routers.lost(client)  # the scanner went with its router
            reopens += 1
            if reopens > len(routers.addresses):
                raise
            continue
        try:
            client.closeScanner(scanner)
        except TTransport.TTransportException:
            routers.lost(client)
        break
    print(f"scan: {len(keys)} rows: {' '.join(keys)}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--router", default="127.0.0.1:9090",
                        metavar="HOST:PORT[,HOST:PORT...]",
                        help="the bloomroute router, or a comma-separated "
                        "list of a cluster's routers")
    parser.add_argument("--tls-ca", metavar="FILE",
                        help="the cluster's CA certificate (PEM): connect "
                        "over TLS to a router it signed")
    parser.add_argument("--tls-cert", metavar="FILE",
                        help="a client certificate (PEM) to present")
    parser.add_argument("--tls-key", metavar="FILE",
                        help="the private key of --tls-cert (PEM)")
    parser.add_argument("--token-file", metavar="FILE",
                        help="authenticate with the token on this file's "
                        "first line (needs --tls-ca)")
    args = parser.parse_args()
    try:
        addresses = parse_routers(args.router)
        context = tls_context(args)
        token = read_token(args.token_file) if args.token_file else None
    except UsageError as e:
        parser.error(str(e))
    routers = Routers(addresses, context, token)
    try:
        routers.open()
    except TTransport.TTransportException as e:
        over = " over TLS" if context else ""
        print(f"geo_client: cannot reach the router{over}: {e}",
              file=sys.stderr)
        return 1
    except (TIOError, TIllegalArgument) as e:
        print(f"geo_client: authentication refused: {e.message}",
              file=sys.stderr)
        return 1
    try:
        create_table(routers)
        put_cities(routers)
        lookup(routers, cc="NO")
        lookup(routers, cc="SE", feature="PPLC")
        scan(routers)
    except TIllegalArgument as e:
        print(f"geo_client: rejected: {e.message}", file=sys.stderr)
        return 1
    except TIOError as e:
        print(f"geo_client: failed: {e.message}", file=sys.stderr)
        return 1
    except ReplyLost as e:
        print(f"geo_client: {e}", file=sys.stderr)
        return 1
    except TTransport.TTransportException as e:
        print(f"geo_client: connection lost: {e}", file=sys.stderr)
        return 1
    finally:
        routers.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
