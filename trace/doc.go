// Package trace records events from many goroutines into per-writer buffers
// under a global byte budget, streams them to an io.Writer in a checked,
// versioned binary format, reads that format back and exports it to Chrome
// trace-event JSON (which Perfetto and chrome://tracing open).
//
// An event is a kind, an argument and an optional payload, stamped with
// its writer, its writer's sequence number and a time. What a kind and its
// argument mean is the caller's business: trace stores and returns them,
// Summarize counts events per kind, and ExportChrome lays them out on
// tracks as a caller's ChromeMapping says (WriterTracks, one track per
// writer, knows no kind at all).
//
// What it guarantees:
//
//   - A writer never waits for the reader. An event that finds no buffer
//     under the budget is dropped, but it still consumes its writer's
//     sequence number, so events read + events lost = events written, per
//     writer, exactly.
//   - With the Lockless policy a writer refused by the budget takes no lock
//     (EventPipe's buffer reservation, see Policy); Locked is the design it
//     replaced, kept for comparison.
//   - Buffers live off the Go heap by default, and a drained buffer's
//     budget is released.
//   - A file cut short reads to its last complete block; corrupt input is
//     an error, never a panic.
//
// The buffer manager, after .NET EventPipe's, is described at Session;
// ExampleExportChrome and ExampleSummarize show a session end to end.
//
// # File format, version 1
//
// All integers are little-endian. A file is a 32-byte header followed by
// blocks; the last block is an end block, and nothing follows it.
//
//	file header (32 bytes)
//	  0  [8]byte  magic "GCBTRACE"
//	  8  uint16   version (1)
//	 10  uint16   header size (32)
//	 12  uint32   flags (0)
//	 16  int64    session start, Unix nanoseconds (event times are offsets from it)
//	 24  uint32   reserved (0)
//	 28  uint32   CRC-32C (Castagnoli) of bytes 0..28
//
//	block header (40 bytes), then `length` bytes of body
//	  0  [4]byte  tag: "EVTS" (events) or "ENDS" (end of stream)
//	  4  uint32   writer id (EVTS) or 0 (ENDS)
//	  8  uint64   first sequence number in the block (EVTS) or 0
//	 16  uint64   last sequence number in the block (EVTS) or 0
//	 24  uint32   number of events (EVTS) or of writer entries (ENDS)
//	 28  uint32   body length in bytes (a multiple of 8, at most MaxBlockBody)
//	 32  uint32   reserved (0)
//	 36  uint32   CRC-32C of header bytes 0..36 followed by the body
//
//	EVTS body: `count` event records of one writer, sequence numbers
//	strictly increasing from first to last, times non-decreasing:
//	  0  int64    time, nanoseconds since the session start (monotonic clock)
//	  8  uint64   sequence number (the writer's, counting dropped events too)
//	 16  uint64   argument (meaning depends on the kind)
//	 24  uint16   kind (non-zero)
//	 26  uint16   reserved (0)
//	 28  uint32   payload length (at most MaxPayload)
//	 32  payload, then zero padding to a multiple of 8 bytes
//
//	ENDS body: `count` entries of 16 bytes, writer ids strictly increasing:
//	  0  uint32   writer id
//	  4  uint32   reserved (0)
//	  8  uint64   events the writer attempted (its next sequence number)
//
// Within a writer, blocks appear in sequence order; a gap between one
// block's last sequence number and the next block's first (or below a
// block's range, or before the writer's count in the end block) is the
// number of events that writer lost. Each flush of the batch reader emits
// its events merged by time; an event whose writer was interrupted by the
// flush's seal is emitted by the next flush, so time order is exact within
// a flush and per writer, and approximate across flush boundaries. The
// EventPipe reader groups each window's events by writer; time order is
// exact per writer only.
//
// A session that does not finish (a killed process, a full disk) leaves a
// file without its end block, possibly cut inside a block. Every block is
// checked by itself, so such a file still reads up to its last complete
// block; the Reader then reports it as truncated, and the counts it gives
// are lower bounds (see WriterCounts).
//
// Sequence numbers and counts are checked without wrap-around: a block
// whose last sequence number is 2^64−1 is corrupt (its writer's count of
// attempted events, last+1, would not fit a uint64), and so is an end
// block whose counts add up beyond 2^64−1.
package trace
