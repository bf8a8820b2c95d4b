// Package mpsc provides first-in first-out queues with many producers and
// one consumer, built of intrusive nodes:
//
//   - List is Dmitry Vyukov's intrusive MPSC node-based queue: a push is one
//     atomic swap and never blocks, the consumer never takes a lock.
//   - MutexList has the same API under one sync.Mutex: the baseline List is
//     compared with.
//
// Both implement Queue, so a program (or a benchmark) can switch between
// them. A producer owns its nodes: it embeds or preallocates a Node beside
// its record and pushes the node itself, so a push allocates nothing, and a
// node the consumer has popped may be pushed again at once (there is no
// memory reclamation and no ABA problem). This is the ready-list pattern of
// Linux's epoll (fs/eventpoll.c): many producers mark items ready, one
// consumer collects them.
//
// Guarantees, for both implementations: every push that returned before the
// consumer's PopAll began is visited by it; nodes pushed by one producer are
// popped in the order it pushed them; a node is popped exactly once per
// push. List adds one caveat, stated by PopStatus's Pending: a producer
// interrupted inside its push hides the nodes pushed after it until it
// resumes.
package mpsc
