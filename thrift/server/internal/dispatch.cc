#include "thrift/server/internal/dispatch.h"

#include <thrift/TOutput.h>
#include <thrift/protocol/TBinaryProtocol.h>
#include <thrift/protocol/TCompactProtocol.h>

#include <exception>
#include <utility>

#include "thrift/internal/decode_budget.h"

namespace bloomroute::thrift_internal {
namespace {

namespace at = apache::thrift;

// The bytes a reply starts with, for its transport's framing
// (Connection::ReplyPrefixBytes; SealReply fills them in): a reply goes out
// in one buffer, in as few sends and TLS records as its size allows.
constexpr uint8_t kPrefixPlaceholder[kHttpReplyHeadRoom] = {};

bool IsCompact(const Connection& c) {
  return !c.frame.empty() && IsCompactMessage(c.frame[0]);
}

// The outcome of a call access control answered itself (`verdict` not
// kPass): a refusal, or authenticate's answer; "" when it passed.
std::string RefusalOutcome(AccessControl::Verdict verdict,
                           const std::string& method,
                           const Identity& identity) {
  if (verdict == AccessControl::Verdict::kPass) return "";
  if (method == "authenticate" && identity.role != Role::kNone) return "ok";
  return "permission_denied";
}

}  // namespace

CallDispatcher::CallDispatcher(std::string name, const ServerOptions& options,
                               std::shared_ptr<at::TConfiguration> config,
                               std::shared_ptr<const AccessControl> access,
                               std::shared_ptr<CallThrottle> throttle,
                               ServerMetrics* metrics)
    : name_(std::move(name)),
      decoded_budget_(options.DecodedBudget()),
      config_(std::move(config)),
      access_(std::move(access)),
      throttle_(std::move(throttle)),
      metrics_(metrics) {}

std::shared_ptr<at::transport::TMemoryBuffer> CallDispatcher::Run(
    Connection& c) const {
  auto output = std::make_shared<at::transport::TMemoryBuffer>();
  output->write(kPrefixPlaceholder,
                static_cast<uint32_t>(c.ReplyPrefixBytes()));
  bool ok = false;
  ServerMetrics::Call call(metrics_, c.frame.data(), c.frame.size());
  std::string outcome;  // empty: the handler's (ServeCall)
  try {
    ok = Process(c, call.method(), output, &outcome);
  } catch (const DecodeBudgetExceeded&) {
    // The processor (AnswerDecodeBudgetErrors) wrote the client an
    // exception naming the budget: send it, then close.
    ok = true;
    c.close_after_reply = true;
    outcome = "decoded_bytes";
    metrics_->Refused("decoded_bytes");
  } catch (const at::TException&) {
    outcome = "malformed";
    // Bytes that do not decode: the connection closes, nothing is logged
    // (a client could fill the log).
  } catch (const std::exception& e) {
    outcome = "error";
    at::GlobalOutput.printf("%s: a call failed: %s", name_.c_str(), e.what());
  }
  if (ok) call.SetReplyBytes(output->available_read() - c.ReplyPrefixBytes());
  call.Finish(outcome, access_ != nullptr ? &c.identity : nullptr,
              [&c] { return c.PeerAddress(); });
  return ok ? output : nullptr;
}

bool CallDispatcher::Process(
    Connection& c, const std::string& method,
    const std::shared_ptr<at::transport::TMemoryBuffer>& output,
    std::string* outcome) const {
  auto input = std::make_shared<at::transport::TMemoryBuffer>(
      c.frame.data(), static_cast<uint32_t>(c.frame.size()),
      at::transport::TMemoryBuffer::OBSERVE, config_);
  // Strings are bounded by the frame (the memory buffer holds no more);
  // what a frame decodes into is bounded by the budget
  // (thrift/internal/decode_budget.h). The reply is in the request's
  // protocol; binary requests may be strict or not (wire_transport.h).
  std::shared_ptr<at::protocol::TProtocol> in;
  std::shared_ptr<at::protocol::TProtocol> out;
  if (IsCompact(c)) {
    in = std::make_shared<BudgetedCompactProtocol>(
        input, decoded_budget_, ServerOptions::kMaxContainerElements,
        static_cast<int32_t>(c.frame.size()), "--max-decoded-bytes");
    out = std::make_shared<at::protocol::TCompactProtocol>(output);
  } else {
    auto binary = std::make_shared<BudgetedBinaryProtocol>(
        input, decoded_budget_, ServerOptions::kMaxContainerElements,
        "--max-decoded-bytes");
    binary->setStrict(/*strict_read=*/false, /*strict_write=*/true);
    in = std::move(binary);
    out = std::make_shared<at::protocol::TBinaryProtocol>(output);
  }
  std::unique_ptr<CallThrottle::Ticket> ticket;
  const AccessControl::Verdict verdict =
      Admit(c, method, out.get(), &ticket, outcome);
  if (verdict != AccessControl::Verdict::kPass) {
    // Refused, or a token refused: a caller that may call nothing gets
    // one answer, then its connection closes.
    if (MayCallNothing(c.identity)) c.close_after_reply = true;
    return verdict == AccessControl::Verdict::kAnswered;
  }
  ScopedCaller caller(access_ != nullptr ? &c.identity : nullptr);
  const bool ok = c.processor->process(in, out, nullptr);
  if (ticket != nullptr) {
    throttle_->Settle(*ticket, output->available_read() - c.ReplyPrefixBytes());
  }
  return ok;
}

AccessControl::Verdict CallDispatcher::Admit(
    Connection& c, const std::string& method, at::protocol::TProtocol* out,
    std::unique_ptr<CallThrottle::Ticket>* ticket, std::string* outcome) const {
  AccessControl::Verdict verdict = AccessControl::Verdict::kPass;
  if (access_ != nullptr) {
    verdict =
        access_->Intercept(c.frame.data(), c.frame.size(), &c.identity, out);
    *outcome = RefusalOutcome(verdict, method, c.identity);
  }
  if (verdict == AccessControl::Verdict::kPass && throttle_ != nullptr) {
    verdict = throttle_->Admit(c.frame.data(), c.frame.size(), c.identity, out,
                               ticket);
    if (verdict != AccessControl::Verdict::kPass) *outcome = "throttled";
  }
  return verdict;
}

}  // namespace bloomroute::thrift_internal
