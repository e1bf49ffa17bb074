// Test helper: GET over HTTP or HTTPS from a server's operators' endpoint,
// by URL as its start-up line prints it ("..., status on
// http://127.0.0.1:PORT/status"). HTTPS presents `tls`'s client
// certificate (when given) and trusts its CA.
#ifndef BLOOMROUTE_TESTS_INTEGRATION_HTTP_GET_H_
#define BLOOMROUTE_TESTS_INTEGRATION_HTTP_GET_H_

#include <arpa/inet.h>
#include <netinet/in.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdlib>
#include <memory>
#include <string>

#include "thrift/server/security.h"

namespace bloomroute::testing {

struct HttpAnswer {
  int status = 0;  // 0: no answer
  std::string body;
};

// The base URL ("http://127.0.0.1:PORT") in a start-up line; "" if none.
inline std::string StatusUrlBase(const std::string& line) {
  const std::string marker = "status on ";
  const size_t at = line.find(marker);
  if (at == std::string::npos) return "";
  const size_t end = line.find("/status", at);
  return line.substr(at + marker.size(), end - at - marker.size());
}

inline HttpAnswer HttpGet(const std::string& base, const std::string& path,
                          const TlsOptions* tls = nullptr) {
  HttpAnswer answer;
  const bool https = base.rfind("https://", 0) == 0;
  const int port = std::atoi(base.c_str() + base.rfind(':') + 1);
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
  if (connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)) != 0) {
    close(fd);
    return answer;
  }
  std::unique_ptr<SSL_CTX, decltype(&SSL_CTX_free)> ctx(nullptr, SSL_CTX_free);
  std::unique_ptr<SSL, decltype(&SSL_free)> ssl(nullptr, SSL_free);
  if (https) {
    ctx.reset(SSL_CTX_new(TLS_client_method()));
    if (tls != nullptr && tls->enabled()) {
      SSL_CTX_load_verify_locations(ctx.get(), tls->ca_file.c_str(), nullptr);
      SSL_CTX_use_certificate_chain_file(ctx.get(), tls->cert_file.c_str());
      SSL_CTX_use_PrivateKey_file(ctx.get(), tls->key_file.c_str(),
                                  SSL_FILETYPE_PEM);
      SSL_CTX_set_verify(ctx.get(), SSL_VERIFY_PEER, nullptr);
    }
    ssl.reset(SSL_new(ctx.get()));
    SSL_set_fd(ssl.get(), fd);
    if (SSL_connect(ssl.get()) != 1) {
      close(fd);
      return answer;
    }
  }
  const std::string request = "GET " + path +
                              " HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                              "Connection: close\r\n\r\n";
  if (https) {
    SSL_write(ssl.get(), request.data(), static_cast<int>(request.size()));
  } else {
    (void)!write(fd, request.data(), request.size());
  }
  std::string raw;
  char buf[16384];
  for (;;) {
    const int n = https ? SSL_read(ssl.get(), buf, sizeof(buf))
                        : static_cast<int>(read(fd, buf, sizeof(buf)));
    if (n <= 0) break;
    raw.append(buf, static_cast<size_t>(n));
  }
  close(fd);
  const size_t space = raw.find(' ');
  const size_t head_end = raw.find("\r\n\r\n");
  if (space == std::string::npos || head_end == std::string::npos) {
    return answer;
  }
  answer.status = std::atoi(raw.c_str() + space + 1);
  answer.body = raw.substr(head_end + 4);
  return answer;
}

}  // namespace bloomroute::testing

#endif  // BLOOMROUTE_TESTS_INTEGRATION_HTTP_GET_H_
