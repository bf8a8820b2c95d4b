package heap_test

import (
	"fmt"

	"github.com/gcbench/gcbench/heap"
)

// A minor collection by hand: an old object refers to a nursery object
// through the write barrier; the collection promotes it and updates the
// slot, and the reachable graph's checksum is unchanged.
func Example() {
	h, err := heap.New(heap.Config{MajorHeap: 1 << 20, LOS: 1 << 20, Nursery: heap.MinNursery, Roots: 16, Seed: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer h.Close()

	old, _ := h.AllocMajor(heap.ObjectSize(2, 16), 2)
	h.WriteRoot(0, old)
	young, _ := h.AllocNursery(heap.ObjectSize(0, 40), 0)
	h.WriteRef(old, 1, young) // marks the slot's card
	before, _ := h.Verify(heap.VerifyOptions{})

	h.PrepareCards()
	p := h.NewPromoter()
	cards := h.ScanBlockCards(0, h.ScanBlocks(), p) + h.ScanLOSCards(0, h.ScanLOSObjects(), p) + h.ScanRootCards(p)
	p.Drain()
	p.Release()
	h.ResetNursery()

	after, err := h.Verify(heap.VerifyOptions{AfterMinor: true})
	objects, bytes := p.TakeCounts()
	fmt.Println("dirty cards:", cards, "promoted:", objects, "objects,", bytes, "bytes")
	fmt.Println("slot now in:", h.SpaceOf(h.Ref(old, 1)), "verify:", err, "same graph:", before == after)
	// Output:
	// dirty cards: 1 promoted: 1 objects, 56 bytes
	// slot now in: major verify: <nil> same graph: true
}
