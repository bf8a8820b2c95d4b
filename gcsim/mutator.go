package gcsim

import (
	"context"
	"errors"
	"fmt"

	"github.com/gcbench/gcbench/heap"
)

// mutator is the untimed, seeded, deterministic program whose garbage the
// simulated collector collects. Every choice it makes depends only on its
// random generator and on the reachable graph's shape (which slots are nil,
// which objects are large), never on addresses, so the same seed gives the
// same graph under every dispatch mode, worker count and backend.
//
// Root slots are split three ways: the first three quarters hold the old
// generation built by heap.Populate (never overwritten, so the seed's live
// heap stays live), then roots/64 "handles" holding the churning large
// objects, then "stack" roots that published objects overwrite.
//
// Stores into old objects go to a uniform sample of the initial old
// generation, only fill nil slots (overwriting would cut random subtrees off
// the old generation) and are remembered in a ring of BarrierStores×Lifetime
// slots; a slot is cleared when the ring comes round to it (after about
// Lifetime fills divided by the share of stores that go to old objects), so
// the survivors of a collection die some collections later and the old
// generation reaches a steady state.
type mutator struct {
	h      *heap.Heap
	cfg    MutatorConfig
	rng    *heap.Rand
	recent [256]heap.Addr // ring of recent nursery objects
	nrec   int

	baseRoots, handles int
	undo               []undoEntry // ring of filled slots, cleared when the ring comes round
	nundo              int

	// sample is a uniform sample of the initial old generation's objects
	// with slots (heap.PopulateConfig.Sample). Those objects never die: the
	// mutator only fills their nil slots and clears what it filled. Their
	// addresses are the same under every mode and worker count, since they
	// were placed before the first collection.
	sample []heap.Addr
}

// sampleSize is the number of old objects the mutator stores into: enough
// that thousands of stores per fill land on thousands of cards.
const sampleSize = 1 << 18

// undoEntry is a slot the mutator filled: object and slot index. The object
// may have died and its memory been reused since; clearing checks that an
// object with that many slots still starts there.
type undoEntry struct {
	obj  heap.Addr
	slot int32
}

func newMutator(h *heap.Heap, cfg MutatorConfig, seed uint64) mutator {
	roots := h.NumRoots()
	handles := max(1, roots/64)
	return mutator{
		h: h, cfg: cfg, rng: heap.NewRand(seed ^ 0x5bd1e995),
		baseRoots: roots * 3 / 4, handles: handles,
		undo:   make([]undoEntry, max(1, cfg.BarrierStores*cfg.Lifetime)),
		sample: make([]heap.Addr, sampleSize),
	}
}

// meanSmallObject is the mean size of heap.Rand.SmallShape's mix:
// 0.70·72 + 0.25·576 + 0.05·4512 ≈ 420 bytes.
const meanSmallObject = 420

// fillPoll is how many objects fill allocates between looks at its
// context: about 400 KiB of nursery, a fraction of a millisecond.
const fillPoll = 1024

// fill allocates into the nursery until it is full: new objects link to
// recent nursery objects and to old objects, and every step-th object is
// published: stored into stack roots, large objects and old objects through
// the write barrier. It looks at ctx every fillPoll objects, as a nursery
// can be gigabytes.
func (m *mutator) fill(ctx context.Context) error {
	h, r := m.h, m.rng
	// Count in objects rather than bytes, so that published objects follow
	// the size mix (the object crossing a byte mark tends to be a large one).
	step := max(1, int(h.Config().Nursery/meanSmallObject)/m.cfg.Published)
	storesPer := m.cfg.BarrierStores / m.cfg.Published
	extra := m.cfg.BarrierStores % m.cfg.Published
	published := 0
	m.recent, m.nrec = [256]heap.Addr{}, 0
	for {
		size, nrefs := r.SmallShape()
		x, err := h.AllocNursery(size, nrefs)
		if errors.Is(err, heap.ErrNurseryFull) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("mutator: %w", err)
		}
		for s := 0; s < nrefs; s++ {
			switch p := r.Float64(); {
			case p < m.cfg.NurseryLinks:
				if y := m.recent[r.Intn(len(m.recent))]; y != heap.Nil {
					h.WriteRef(x, s, y)
				}
			case p < m.cfg.NurseryLinks+m.cfg.OldLinks:
				if y := m.old(); y != heap.Nil {
					h.WriteRef(x, s, y)
				}
			}
		}
		m.recent[m.nrec%len(m.recent)] = x
		m.nrec++
		if m.nrec%fillPoll == 0 && ctx.Err() != nil {
			return fmt.Errorf("mutator interrupted: %w", ctx.Err())
		}
		if m.nrec%step == 0 && published < m.cfg.Published {
			n := storesPer
			if published < extra {
				n++
			}
			published++
			for range n {
				m.store(x)
			}
		}
	}
}

// store puts the nursery object x into an old slot through the write barrier.
func (m *mutator) store(x heap.Addr) {
	h, r := m.h, m.rng
	p := r.Float64()
	if p < m.cfg.RootShare {
		stack := m.baseRoots + m.handles
		h.WriteRoot(stack+r.Intn(h.NumRoots()-stack), x)
		return
	}
	if p < m.cfg.RootShare+m.cfg.LOSShare {
		if l := h.Root(m.baseRoots + r.Intn(m.handles)); h.SpaceOf(l) == heap.SpaceLOS && h.NumRefs(l) > 0 {
			h.WriteRef(l, r.Intn(h.NumRefs(l)), x)
			return
		}
	}
	// A sampled object may have no nil slot left: try a few.
	for range 4 {
		o := m.old()
		if o == heap.Nil {
			continue
		}
		n := h.NumRefs(o)
		for k, slot := 0, r.Intn(n); k < min(n, 8); k, slot = k+1, (slot+1)%n {
			if h.Ref(o, slot) == heap.Nil {
				m.forget()
				h.WriteRef(o, slot, x)
				m.undo[m.nundo%len(m.undo)] = undoEntry{o, int32(slot)}
				m.nundo++
				return
			}
		}
	}
}

// forget clears the slot filled len(undo) stores ago, if its object still exists.
func (m *mutator) forget() {
	if m.nundo < len(m.undo) {
		return
	}
	h := m.h
	e := m.undo[m.nundo%len(m.undo)]
	if h.IsObject(e.obj) && int(e.slot) < h.NumRefs(e.obj) {
		h.WriteRef(e.obj, int(e.slot), heap.Nil)
	}
}

// trimSample drops the sample's unused tail (a small heap has fewer objects).
func (m *mutator) trimSample() {
	for i, a := range m.sample {
		if a == heap.Nil {
			m.sample = m.sample[:i]
			return
		}
	}
}

// old returns a random object of the initial old generation (or Nil).
func (m *mutator) old() heap.Addr {
	if len(m.sample) == 0 {
		return heap.Nil
	}
	return m.sample[m.rng.Intn(len(m.sample))]
}

// largeObject is one large allocation the mutator has drawn: its size and
// the handle root it replaces.
type largeObject struct{ size, root int }

// drawLarge draws the next large object. It is drawn once, however many
// tries its allocation takes: whether the LOS is full depends on when
// major collections ran, which depends on the worker count and on how a
// mode packed promoted objects, and a second draw after a full LOS would
// make every later choice, and so the graph, depend on them too.
func (m *mutator) drawLarge() largeObject {
	size := heap.MaxSmallObject + 8 + 8*m.rng.Intn((m.cfg.MaxLargeObject-heap.MaxSmallObject)/8)
	return largeObject{size: size, root: m.baseRoots + m.rng.Intn(m.handles)}
}

// allocLarge allocates o into its handle root, replacing (and so killing)
// the previous one. It returns heap.ErrLOSFull (wrapped) when the LOS has
// no room.
func (m *mutator) allocLarge(o largeObject) error {
	l, err := m.h.AllocLOS(o.size, (o.size-heap.HeaderSize)/heap.SlotSize/2)
	if err != nil {
		return err
	}
	m.h.WriteRoot(o.root, l)
	return nil
}
