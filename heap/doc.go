// Package heap is the memory that gcbench's simulated garbage collector works
// on: a generational heap whose bytes live off the Go heap, in anonymous
// mmap'd memory, so that the simulated collector's scans and copies are real
// memory traffic over real layouts and the host Go collector neither owns nor
// scans any of it. Close returns the memory to the kernel with munmap.
//
// It guarantees that parallel promoters copy each nursery object exactly
// once (a CAS installs the forwarding address), that nothing is allocated
// on the Go heap per object, that a full heap is an error rather than a
// crash, and that Verify's checksum of the reachable graph does not depend
// on where objects were copied, so it is equal across modes, worker counts
// and backends for one seed. Example builds a heap, runs a minor
// collection by hand and verifies it.
//
// # Address space
//
// A Heap is one reserved address space. A simulated address (Addr) is a byte
// offset into it, and 0 is nil. The spaces are laid out one after another:
//
//	[guard page][roots][nursery][major heap][large-object space]
//
// so telling which space an address belongs to is a few comparisons (SpaceOf).
// Memory is touched lazily: reserving a 3.5 GiB heap costs nothing until
// objects are written.
//
// # Objects
//
// An object is a 16-byte header followed by its reference slots (8 bytes
// each) and its payload bytes; sizes are multiples of 8. Header word 0 is the
// forwarding word: 0 for an ordinary object, the new address once a nursery
// object has been promoted (installed with a compare-and-swap so parallel
// copiers agree on exactly one copy), and bit 0 is the mark bit during a major
// collection. Header word 1 holds the size (low 32 bits) and the number of
// reference slots (high 32 bits); a free slot in a major block has word 1 = 0
// and word 0 = the next free slot. Payload bytes are filled from the heap's
// seed and the object's allocation sequence number, so content survives a
// copy visibly and the verifier's checksum can detect a changed byte.
//
// # Spaces
//
// The major heap is an array of 16 KiB blocks. A block holds objects of one
// size class (see SizeClasses) at a fixed stride, has its own free list and a
// has-references flag. Blocks are handed out whole, under one lock, to
// allocation buffers: the mutator's and one inside each collector worker's
// Promoter, so promotion allocates without any lock per object.
//
// The large-object space (LOS) holds objects larger than MaxSmallObject
// (8000 bytes, SGen's SGEN_MAX_SMALL_OBJ_SIZE), each page-aligned, listed in
// an array (SGen's sgen_los_object_array_list) so that a collection job can
// take a contiguous slice of it.
//
// The nursery is bump-allocated (4 MiB by default, SGen's default) and is
// emptied by every minor collection: all of its survivors are promoted.
//
// The roots area is an array of reference slots registered with the card
// table (SGen's write-barrier roots).
//
// # Card table and write barrier
//
// One card byte covers CardSize (512) bytes of the roots, the major heap and
// the LOS: 32 cards per major block. WriteRef and WriteRoot store a
// reference and, when the stored value is a nursery address and the slot is
// not, mark the slot's card. PrepareCards, at the start of a minor
// collection, copies the cards to a shadow table and clears them; the
// scanning helpers (ScanBlockCards, ScanLOSCards, ScanRootCards) read only
// the shadow, so the live table is free for the next mutator phase.
//
// # Minor collections
//
// A minor collection is PrepareCards, then any partition of the scanning
// helpers over the block and LOS ranges (each slot belongs to exactly one
// block, LOS object or root, so disjoint ranges never share a slot), each
// feeding a per-worker Promoter, then Promoter.Drain, Promoter.Release for
// every promoter and ResetNursery. A Promoter copies a nursery object into
// its own allocation buffer, installs the forwarding address with a CAS on
// the original's header (the loser returns its copy to its buffer and uses
// the winner's address), updates the slot and pushes the copy on its own
// gray stack; Drain scans the copies, so everything reachable from a dirty
// card is promoted. Promotion never allocates on the Go heap per object.
//
// Races: during a minor collection the shared words are the forwarding words
// of nursery objects, accessed only with sync/atomic. Promotion buffers never
// take a block whose cards are dirty in the current collection, so no block
// is both scanned by a card job and written by a promoter; block metadata is
// handed between goroutines under the block-list lock. (The race detector
// does not see mmap'd memory at all; the Go-heap metadata it does see is
// kept race-free by the same rules.)
//
// # Major collections and verification
//
// MajorCollect marks from the roots and sweeps unmarked objects to their
// blocks' free lists (empty blocks return to the shared list, dead large
// objects return their pages). Verify checks that every reachable reference
// points to a valid object start, optionally that nothing points into the
// nursery after a minor collection, and returns a checksum of the reachable
// graph — structure and payload, in a canonical breadth-first order from the
// roots — that does not depend on where objects were copied. Both work with
// an off-heap scratch stack, so they do not allocate on the Go heap either.
//
// # Cancellation
//
// The whole-heap phases, which take seconds on a heap of gigabytes, have
// variants that take a context (PopulateContext, MajorCollectContext,
// VerifyContext) and look at it after about every MiB of work, so they stop
// within milliseconds of its end. An interrupted population or verification
// leaves a usable heap; an interrupted major collection leaves one that can
// only be closed (ErrInterrupted). Nothing in a minor collection looks at a
// context: it is the timed pause.
package heap
