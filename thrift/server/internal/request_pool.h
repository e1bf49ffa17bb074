// RequestPool: the frame loop's (frame_loop.h) admission of requests and its
// workers. It bounds what requests and replies hold, queues what must wait,
// and runs whole requests on `threads` workers:
//   - request memory (as Kafka's queued.max.request.bytes): once a frame's
//     header has arrived its declared size is reserved from a pool of
//     max_buffered_request_bytes shared by every connection, before any of
//     its body is read (Reserve). A connection the pool cannot hold waits in
//     a FIFO queue and is not read; GrantWaiting() serves the queue from its
//     head up to the first frame that does not fit, so a large frame is not
//     overtaken forever by small ones. The reservation is released when the
//     frame is freed (FreeFrame: by the worker once its call is done, or when
//     the connection closes). A frame's buffer grows with the bytes that
//     arrived (GrowFrame), never past its declared size, so memory held is
//     at most what is reserved. A buffered (unframed) message declares no
//     size: its reader reserves more (Reserve again, with a larger
//     frame_bytes) ahead of its bytes, and waits in the same queue when the
//     pool cannot hold it, keeping what it reserved.
//   - reply memory: a reply is counted (its buffer's allocated size) from the
//     end of its call (HoldReply) until its last byte is sent or its
//     connection closes (ReleaseReply).
//   - calls: a whole frame waits in arrival order (Enqueue) until a worker is
//     free and the replies held are within max_buffered_reply_bytes
//     (StartCalls); at most `threads` calls are on the workers at once, so
//     replies hold at most the bound plus `threads` replies.
// No deadlock: a waiting connection keeps its request deadline (from its
// first byte), so a reservation held by a reading connection (or by a
// buffered message waiting to grow) lasts at most request_timeout_ms and
// one held by a call at most the handler's run; the
// pool is at least max_frame_bytes, so any legal frame fits once the frames
// before it are gone; replies are released by the I/O thread, which starts
// the waiting calls in the same round.
//
// A connection on the workers (State::kRunning, from StartCalls until
// TakeFinished returns it) belongs to the worker that runs it.
//
// Thread-safety: the I/O thread calls everything but FreeFrame, HoldReply
// and ReleaseReply, which the thread that holds the connection calls (a
// worker after its call, or once it sent the reply itself); the byte counts are
// atomics, read by the stats from any thread. The queues are the I/O thread's
// alone; the hand-over to and from the workers is under the HandOffPool's mutex
// (hand_off_pool.h).
#ifndef BLOOMROUTE_THRIFT_SERVER_INTERNAL_REQUEST_POOL_H_
#define BLOOMROUTE_THRIFT_SERVER_INTERNAL_REQUEST_POOL_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <vector>

#include "thrift/server/internal/connection.h"
#include "thrift/server/internal/hand_off_pool.h"
#include "thrift/server/thrift_server.h"

namespace bloomroute::thrift_internal {

class RequestPool {
 public:
  // Starts options.threads workers: each runs `run(c)` for a connection
  // StartCalls() handed over, then calls `done()` (which must wake the I/O
  // thread, which then calls TakeFinished()) when `run` returned true or
  // the I/O thread wants to be woken for every call (ArmWakeUps).
  RequestPool(const ServerOptions& options,
              std::function<bool(Connection&)> run, std::function<void()> done);
  RequestPool(const RequestPool&) = delete;
  RequestPool& operator=(const RequestPool&) = delete;

  // Reserves c's declared frame size (c.frame_bytes: what it did not
  // reserve yet; an unframed message reserves more as it grows) and makes
  // room for its next bytes; or, when the pool cannot hold it or others
  // wait already, queues c (c.waiting_for_pool) and returns false: nothing
  // more is to be read from c until GrantWaiting() reserves it.
  bool Reserve(const ConnectionPtr& c);
  // Reserves for the waiting connections in the order they began to wait,
  // up to the first that does not fit; skips closed ones.
  void GrantWaiting();
  // Makes room for `need` bytes of c's frame: the capacity grows at most
  // twofold and never past c.frame_bytes (std::vector::reserve allocates
  // exactly), counted as held.
  void GrowFrame(Connection& c, size_t need);
  // Frees c's frame and releases what it held and reserved. The thread that
  // holds c; a worker then wakes the I/O thread (`done`), which grants the
  // bytes released.
  void FreeFrame(Connection& c);

  // Counts c's reply (its buffer's allocated size) until ReleaseReply().
  void HoldReply(Connection& c);
  // Frees c's reply and stops counting it. The thread that holds c.
  void ReleaseReply(Connection& c);

  // Queues c's whole frame (c.waiting_for_call) behind those that arrived
  // before it, and starts what may start.
  void Enqueue(const ConnectionPtr& c);
  // Hands waiting frames to the workers in arrival order while a worker is
  // free and the replies held are within max_buffered_reply_bytes; a started
  // connection is State::kRunning. Skips closed ones.
  void StartCalls();
  // The connections whose calls ran since the last call, in the order they
  // finished; the I/O thread holds them again.
  std::vector<ConnectionPtr> TakeFinished();
  // Whole frames waiting for a worker.
  size_t queued_calls() const { return call_waiters_.size(); }
  // Before the I/O thread sleeps: asks the workers to wake it after every
  // call when `owner_waits` or when frames wait for a worker or for the
  // pool (a call's end frees both), and otherwise only after calls that
  // need it (RequestPool's `run` returned true). True when calls finished
  // that TakeFinished() has not returned: the I/O thread must not sleep.
  bool ArmWakeUps(bool owner_waits);

  // Lets the calls running finish, drops those not started and joins the
  // workers; forgets the queues. Idempotent.
  void Stop();

  // The request frames and replies held now and at most (thrift_server.h).
  // Any thread.
  RequestBufferStats request_stats() const;
  ReplyBufferStats reply_stats() const;

 private:
  // Reserves c's frame unless the pool cannot hold it; only the I/O thread
  // adds to reserved_bytes_, so what it read can only have shrunk by the
  // time it adds.
  bool TryReserve(Connection& c);

  const uint32_t threads_;
  const uint64_t max_request_bytes_;
  const uint64_t max_reply_bytes_;

  // Request frame memory: raised by the I/O thread only, lowered by whoever
  // frees a frame (a worker after its call, or the I/O thread).
  std::atomic<uint64_t> held_bytes_{0};
  std::atomic<uint64_t> peak_held_bytes_{0};  // written by the I/O thread
  std::atomic<uint64_t> reserved_bytes_{0};
  std::atomic<uint64_t> pool_waits_{0};
  // Reply memory: raised by a worker when its call ends, lowered by the I/O
  // thread when the reply is sent or its connection closes.
  std::atomic<uint64_t> held_reply_bytes_{0};
  std::atomic<uint64_t> peak_reply_bytes_{0};
  std::atomic<uint64_t> largest_reply_bytes_{0};
  std::atomic<uint64_t> reply_waits_{0};

  // The I/O thread's alone: connections waiting for the pool, in the order
  // they began to wait; whole frames not yet handed to a worker, in the
  // order they arrived; calls handed to the workers and not yet taken back
  // (at most threads_).
  std::deque<ConnectionPtr> pool_waiters_;
  std::deque<ConnectionPtr> call_waiters_;
  uint32_t calls_in_flight_ = 0;

  // Last: its threads stop (in its destructor) before the rest goes.
  HandOffPool<ConnectionPtr> workers_;
};

}  // namespace bloomroute::thrift_internal

#endif  // BLOOMROUTE_THRIFT_SERVER_INTERNAL_REQUEST_POOL_H_
