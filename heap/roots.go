package heap

// NumRoots is the number of root slots.
func (h *Heap) NumRoots() int { return h.cfg.Roots }

// RootAddr is the address of root slot i.
func (h *Heap) RootAddr(i int) Addr { return h.rootsBase + Addr(i)*SlotSize }

// Root returns root slot i.
func (h *Heap) Root(i int) Addr { return Addr(*h.word(h.RootAddr(i))) }

// WriteRoot stores val into root slot i through the write barrier: a
// nursery value marks the root's card (SGen's write-barrier roots).
func (h *Heap) WriteRoot(i int, val Addr) { h.storeSlot(h.RootAddr(i), val) }
