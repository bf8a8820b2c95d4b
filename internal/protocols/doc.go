// Package protocols runs the benchmark protocols of the seed experiments —
// the measurements that motivated the designs gcbench learns from — against
// gcbench's own building blocks, so their numbers can be reproduced beside
// the alternatives in one run:
//
//   - the ready-list protocol of Linux's stress-epoll (RunReadyList,
//     CompareReadyList): many producers, one consumer, jobs.MPSCList beside
//     a mutex-guarded list, with producers touching the list only when
//     their counter leaves zero (Transition) or on every event, as epoll's
//     ep_poll_callback does (Callback);
//   - the throughput and latency protocols of Akka.NET's DedicatedThreadPool
//     (RunPool, ComparePool): workerpool in every wake policy and backend,
//     per-job Enqueue and EnqueueBatch, beside a goroutine per item.
//
// Every comparison interleaves its contenders within each repetition (A B,
// then B A, …) so that drift on a shared machine hits them alike, and
// reports medians over repetitions and ratios between contenders measured
// in the same run. Absolute numbers depend on the machine; the ratios are
// what the seeds' claims are about.
//
// Every count is bounded (the Max* constants) and every product of counts
// is checked for overflow and bounded too, so that an accepted run can
// finish. Every run looks at its context at least every 1024 events, items
// or round trips and returns within milliseconds of a cancel; a cancelled
// comparison returns a partial report of its completed repetitions.
package protocols
