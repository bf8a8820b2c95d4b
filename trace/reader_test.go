package trace

import (
	"bytes"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"math/bits"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"
	"time"
	"unicode"
)

// Hand-made files: a builder that writes correct checksums around
// whatever (possibly inconsistent) content a test asks for.

type rec struct {
	t         int64
	seq, arg  uint64
	kind      Kind
	payload   []byte
	resv      uint16
	plenDelta int // added to the encoded payload length
}

func fileHeader(version uint16) []byte {
	h := encodeFileHeader(1_700_000_000_000_000_000)
	le.PutUint16(h[8:], version)
	le.PutUint32(h[28:], crc32.Checksum(h[:28], castagnoli))
	return h[:]
}

func encodeRecs(recs []rec) []byte {
	var body []byte
	for _, r := range recs {
		b := make([]byte, recordSize(len(r.payload)))
		putRecord(b, r.t, r.seq, r.arg, r.kind, r.payload)
		le.PutUint16(b[26:], r.resv)
		le.PutUint32(b[28:], uint32(len(r.payload)+r.plenDelta))
		body = append(body, b...)
	}
	return body
}

// block encodes a block with a correct checksum; edit may change the
// header before the checksum is computed.
func block(tag [4]byte, writer uint32, first, last uint64, count int, body []byte, edit func(*blockHeader)) []byte {
	h := blockHeader{tag: tag, writer: writer, first: first, last: last, count: uint32(count), length: uint32(len(body))}
	if edit != nil {
		edit(&h)
	}
	var raw [blockHeaderSz]byte
	h.encode(&raw)
	le.PutUint32(raw[36:], blockCRC(&raw, body))
	return append(raw[:], body...)
}

func evBlock(writer uint32, recs ...rec) []byte {
	return block(tagEvents, writer, recs[0].seq, recs[len(recs)-1].seq, len(recs), encodeRecs(recs), nil)
}

type endEntry struct {
	id      uint32
	written uint64
}

func endBlock(entries ...endEntry) []byte {
	body := make([]byte, endEntrySize*len(entries))
	for i, e := range entries {
		le.PutUint32(body[i*endEntrySize:], e.id)
		le.PutUint64(body[i*endEntrySize+8:], e.written)
	}
	return block(tagEnd, 0, 0, 0, len(entries), body, nil)
}

func cat(parts ...[]byte) []byte { return bytes.Join(parts, nil) }

// goodFile: writer 0 wrote seq 0..4 and lost 2 and 4; writer 1 wrote 3
// events, lost the last.
func goodFile() []byte {
	return cat(fileHeader(Version),
		evBlock(0, rec{t: 10, seq: 0, kind: kindBegin}, rec{t: 20, seq: 1, kind: kindEnd, payload: []byte("abc")}),
		evBlock(1, rec{t: 15, seq: 0, kind: kindMark, arg: 65}, rec{t: 16, seq: 1, kind: kindOther}),
		evBlock(0, rec{t: 30, seq: 3, kind: KindUser + 1, payload: []byte("0123456789")}),
		endBlock(endEntry{0, 5}, endEntry{1, 3}))
}

func TestReadHandMadeFile(t *testing.T) {
	evs, r := readAll(t, goodFile())
	if len(evs) != 5 {
		t.Fatalf("read %d events, want 5", len(evs))
	}
	if e := evs[4]; e.Writer != 0 || e.Seq != 3 || e.Kind != KindUser+1 || string(e.Payload) != "0123456789" || e.Time != 30 {
		t.Fatalf("last event %+v", e)
	}
	want := []WriterCounts{{0, 3, 2, 5}, {1, 2, 1, 3}}
	got := r.Counts()
	if len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Fatalf("counts %+v, want %+v", got, want)
	}
}

// TestReaderReportsReadErrorAfterEndBlock: an I/O error while checking
// that nothing follows the end block is that error, not a corrupt trace.
func TestReaderReportsReadErrorAfterEndBlock(t *testing.T) {
	errDisk := errors.New("disk on fire")
	r, err := Open(io.MultiReader(bytes.NewReader(goodFile()), iotest.ErrReader(errDisk)))
	if err != nil {
		t.Fatal(err)
	}
	for range 100 {
		if _, err = r.Next(); err != nil {
			break
		}
	}
	if !errors.Is(err, errDisk) || errors.Is(err, ErrCorrupt) {
		t.Fatalf("got %v, want the read error and not ErrCorrupt", err)
	}
}

type badFile struct {
	name string
	data []byte
	want error
}

// badFiles is the table of hand-made corruptions.
func badFiles() []badFile {
	good := goodFile()
	hdr := fileHeader(Version)
	b0 := evBlock(0, rec{t: 10, seq: 0, kind: kindBegin})
	end1 := endBlock(endEntry{0, 1})
	flip := func(b []byte, i int) []byte { c := bytes.Clone(b); c[i] ^= 0x40; return c }
	return []badFile{
		{"empty", nil, ErrTruncated},
		{"not a trace", []byte("PK\x03\x04 this is a zip file, not a trace at all"), ErrNotTrace},
		{"short garbage", []byte("GCX"), ErrNotTrace},
		{"magic only", []byte(Magic), ErrTruncated},
		{"future version", cat(fileHeader(2), b0, end1), ErrVersion},
		{"version zero", cat(fileHeader(0), b0, end1), ErrVersion},
		{"header checksum", flip(good, 17), ErrCorrupt},
		{"body bit flip", flip(good, fileHeaderSize+blockHeaderSz+9), ErrCorrupt},
		{"block header bit flip", flip(good, fileHeaderSize+5), ErrCorrupt},
		{"checksum bit flip", flip(good, fileHeaderSize+37), ErrCorrupt},
		{"unknown tag", cat(hdr, block([4]byte{'J', 'U', 'N', 'K'}, 0, 0, 0, 1, encodeRecs([]rec{{kind: 1}}), nil), end1), ErrCorrupt},
		{"length not a multiple of 8", cat(hdr, block(tagEvents, 0, 0, 0, 1, append(encodeRecs([]rec{{kind: 1}}), 0, 0, 0), nil), end1), ErrCorrupt},
		{"length beyond MaxBlockBody", cat(hdr, block(tagEvents, 0, 0, 0, 1, nil, func(h *blockHeader) { h.length = MaxBlockBody + 8 })), ErrCorrupt},
		{"reserved header field", cat(hdr, block(tagEvents, 0, 0, 0, 1, encodeRecs([]rec{{kind: 1}}), func(h *blockHeader) { h.reserved = 1 }), end1), ErrCorrupt},
		{"zero events", cat(hdr, block(tagEvents, 0, 0, 0, 0, nil, nil), end1), ErrCorrupt},
		{"count exceeds body", cat(hdr, block(tagEvents, 0, 0, 5, 5, encodeRecs([]rec{{kind: 1}}), nil), end1), ErrCorrupt},
		{"count below records", cat(hdr, block(tagEvents, 0, 0, 1, 1, encodeRecs([]rec{{seq: 0, kind: 1}, {seq: 1, kind: 1}}), nil), endBlock(endEntry{0, 2})), ErrCorrupt},
		{"range too small for count", cat(hdr, block(tagEvents, 0, 0, 0, 2, encodeRecs([]rec{{seq: 0, kind: 1}, {seq: 1, kind: 1}}), nil), end1), ErrCorrupt},
		{"inverted range", cat(hdr, block(tagEvents, 0, 5, 1, 1, encodeRecs([]rec{{seq: 5, kind: 1}}), nil), end1), ErrCorrupt},
		{"first seq mismatch", cat(hdr, block(tagEvents, 0, 1, 1, 1, encodeRecs([]rec{{seq: 0, kind: 1}}), nil), endBlock(endEntry{0, 2})), ErrCorrupt},
		{"last seq mismatch", cat(hdr, block(tagEvents, 0, 0, 3, 2, encodeRecs([]rec{{seq: 0, kind: 1}, {seq: 1, kind: 1}}), nil), endBlock(endEntry{0, 4})), ErrCorrupt},
		{"seq repeats in block", cat(hdr, block(tagEvents, 0, 0, 1, 2, encodeRecs([]rec{{seq: 0, kind: 1}, {seq: 0, kind: 1}}), nil), endBlock(endEntry{0, 2})), ErrCorrupt},
		{"seq beyond block", cat(hdr, block(tagEvents, 0, 0, 1, 2, encodeRecs([]rec{{seq: 0, kind: 1}, {seq: 7, kind: 1}}), nil), endBlock(endEntry{0, 8})), ErrCorrupt},
		{"seq goes back across blocks", cat(hdr, b0, b0, end1), ErrCorrupt},
		{"time goes back", cat(hdr, evBlock(0, rec{t: 50, seq: 0, kind: 1}, rec{t: 40, seq: 1, kind: 1}), endBlock(endEntry{0, 2})), ErrCorrupt},
		{"negative time", cat(hdr, evBlock(0, rec{t: -1, seq: 0, kind: 1}), end1), ErrCorrupt},
		{"kind zero", cat(hdr, evBlock(0, rec{seq: 0, kind: 0}), end1), ErrCorrupt},
		{"record reserved field", cat(hdr, evBlock(0, rec{seq: 0, kind: 1, resv: 9}), end1), ErrCorrupt},
		{"payload overruns block", cat(hdr, evBlock(0, rec{seq: 0, kind: 1, payload: []byte("x"), plenDelta: 100}), end1), ErrCorrupt},
		{"payload beyond MaxPayload", cat(hdr, evBlock(0, rec{seq: 0, kind: 1, plenDelta: MaxPayload + 1}), end1), ErrCorrupt},
		{"bytes after last record", cat(hdr, block(tagEvents, 0, 0, 0, 1, append(encodeRecs([]rec{{kind: 1}}), make([]byte, 8)...), nil), end1), ErrCorrupt},
		{"end block misses a writer", cat(hdr, b0, evBlock(3, rec{seq: 0, kind: 1}), end1), ErrCorrupt},
		{"end count below read", cat(hdr, evBlock(0, rec{seq: 0, kind: 1}, rec{seq: 1, kind: 1}), end1), ErrCorrupt},
		{"end ids not increasing", cat(hdr, b0, endBlock(endEntry{0, 1}, endEntry{0, 1})), ErrCorrupt},
		{"end entry reserved", cat(hdr, b0, block(tagEnd, 0, 0, 0, 1, func() []byte { b := endBlock(endEntry{0, 1})[blockHeaderSz:]; b[5] = 1; return b }(), nil)), ErrCorrupt},
		{"end length mismatch", cat(hdr, b0, block(tagEnd, 0, 0, 0, 2, endBlock(endEntry{0, 1})[blockHeaderSz:], nil)), ErrCorrupt},
		{"data after end", cat(good, []byte{0}), ErrCorrupt},
		{"block after end", cat(good, b0), ErrCorrupt},
		// Sequence numbers and counts that only wrap-around arithmetic accepts.
		{"seq 2^64-1 with 0 written", seqMaxEndZero(), ErrCorrupt},
		{"seq 2^64-1 with 2^64-1 written", cat(hdr, evBlock(0, rec{seq: math.MaxUint64, kind: 1}), endBlock(endEntry{0, math.MaxUint64})), ErrCorrupt},
		{"range ends at 2^64-1", cat(hdr, evBlock(0, rec{seq: math.MaxUint64 - 1, kind: 1}, rec{seq: math.MaxUint64, kind: 1}), endBlock(endEntry{0, math.MaxUint64})), ErrCorrupt},
		{"written sum overflows", cat(hdr, b0, endBlock(endEntry{0, 1 << 63}, endEntry{1, 1 << 63})), ErrCorrupt},
		{"lost sum overflows", cat(hdr, endBlock(endEntry{0, math.MaxUint64}, endEntry{7, 1})), ErrCorrupt},
		{"written below read in end block", cat(hdr, evBlock(0, rec{seq: 0, kind: 1}, rec{seq: 1, kind: 1}, rec{seq: 2, kind: 1}), endBlock(endEntry{0, 1})), ErrCorrupt},
		// Cut traces whose surviving bytes are already wrong are corrupt, not cut.
		{"cut header with unknown tag", cat(hdr, b0, []byte("JUNKJUNK")), ErrCorrupt},
		{"cut header with bad length", cat(hdr, b0, block(tagEvents, 0, 1, 1, 1, nil, func(h *blockHeader) { h.length = 7 })[:34]), ErrCorrupt},
		{"cut body with bad record", cat(hdr, evBlock(0, rec{seq: 0, kind: 1}, rec{seq: 1, kind: 0}, rec{seq: 2, kind: 1})[:blockHeaderSz+2*recordHeaderSz+8]), ErrCorrupt},
		{"cut body going back in time", cat(hdr, b0, evBlock(0, rec{t: 5, seq: 1, kind: 1}, rec{t: 20, seq: 2, kind: 1})[:blockHeaderSz+recordHeaderSz+8]), ErrCorrupt},
		{"cut body whose records end early", cat(hdr, block(tagEvents, 0, 0, 0, 1, append(encodeRecs([]rec{{kind: 1}}), make([]byte, 64)...), nil)[:blockHeaderSz+recordHeaderSz+8]), ErrCorrupt},
		{"cut end block with bad entry", cat(hdr, b0, func() []byte { b := endBlock(endEntry{0, 1}, endEntry{0, 1}, endEntry{1, 0}); return b[:len(b)-8] }()), ErrCorrupt},
	}
}

// TestCutHeaderIsJudgedAsAWholeOne: a block header that breaks a rule of
// the format is ErrCorrupt from the byte where the fields the rule reads
// are whole, not a clean cut until its last byte arrives.
func TestCutHeaderIsJudgedAsAWholeOne(t *testing.T) {
	hdr := fileHeader(Version)
	b0 := evBlock(0, rec{t: 10, seq: 0, kind: kindBegin}) // writer 0 then expects sequence ≥ 1
	body := encodeRecs([]rec{{seq: 1, kind: 1}})
	for _, c := range []struct {
		name   string
		header []byte
		from   int // bytes of the header from which the rule can be judged
	}{
		{"tag that begins no tag", []byte("EVX"), 3},
		{"zero events", block(tagEvents, 0, 1, 1, 0, nil, nil), 28},
		{"count cannot fit the length", block(tagEvents, 0, 1, 5, 5, body, nil), 32},
		{"inverted range", block(tagEvents, 0, 5, 1, 1, body, nil), 24},
		{"range too small for count", block(tagEvents, 0, 1, 1, 2, body, nil), 28},
		{"last sequence 2^64-1", block(tagEvents, 0, 1, math.MaxUint64, 1, body, nil), 24},
		{"sequence goes back", block(tagEvents, 0, 0, 0, 1, body, nil), 16},
		{"end block with a writer", block(tagEnd, 7, 0, 0, 0, nil, nil), 8},
	} {
		for k := c.from; k <= min(len(c.header), blockHeaderSz-1); k++ {
			if err := readErr(cat(hdr, b0, c.header[:k])); !errors.Is(err, ErrCorrupt) {
				t.Errorf("%s, header cut after %d bytes: %v, want ErrCorrupt", c.name, k, err)
			}
		}
	}
}

// seqMaxEndZero is a crafted trace: one event with sequence
// number 2^64−1 and an end block saying its writer wrote 0 events, which
// wrap-around arithmetic read as 1 read + 18446744073709551615 lost = 0
// written.
func seqMaxEndZero() []byte {
	return cat(fileHeader(Version), evBlock(0, rec{t: 1, seq: math.MaxUint64, kind: 1}), endBlock(endEntry{0, 0}))
}

type cutFile struct {
	name   string
	data   []byte
	events int            // events read before io.EOF
	counts []WriterCounts // Counts() after io.EOF
	at     int64          // where the trace is cut
}

// cutFiles: traces that end early, read as far as their complete blocks.
func cutFiles() []cutFile {
	good := goodFile()
	hdr := fileHeader(Version)
	b0 := evBlock(0, rec{t: 10, seq: 0, kind: kindBegin}, rec{t: 20, seq: 1, kind: kindEnd, payload: []byte("abc")})
	b1 := evBlock(1, rec{t: 15, seq: 0, kind: kindMark, arg: 65}, rec{t: 16, seq: 1, kind: kindOther})
	b2 := evBlock(0, rec{t: 30, seq: 3, kind: KindUser + 1, payload: []byte("0123456789")})
	after := func(blocks ...[]byte) int64 { return int64(len(cat(append([][]byte{hdr}, blocks...)...))) }
	all := []WriterCounts{{0, 3, 1, 4}, {1, 2, 0, 2}} // seq 2 of writer 0 is a gap below 3
	return []cutFile{
		{"header only", hdr, 0, []WriterCounts{}, fileHeaderSize},
		{"truncated block header", good[:fileHeaderSize+20], 0, []WriterCounts{}, fileHeaderSize},
		{"truncated block body", good[:fileHeaderSize+blockHeaderSz+40], 0, []WriterCounts{}, fileHeaderSize},
		{"second block cut", good[:after(b0)+blockHeaderSz+8], 2, []WriterCounts{{0, 2, 0, 2}}, after(b0)},
		{"no end block", good[:after(b0, b1, b2)], 5, all, after(b0, b1, b2)},
		{"end block header cut", good[:after(b0, b1, b2)+39], 5, all, after(b0, b1, b2)},
		{"truncated end block", good[:len(good)-3], 5, all, after(b0, b1, b2)},
		{"record header complete, payload cut", cat(hdr, b0, b2[:blockHeaderSz+recordHeaderSz+2]), 2, []WriterCounts{{0, 2, 0, 2}}, after(b0)},
		{"2^64-2 read, no end block", cat(hdr, evBlock(0, rec{seq: math.MaxUint64 - 1, kind: 1})), 1,
			[]WriterCounts{{0, 1, math.MaxUint64 - 1, math.MaxUint64}}, after(evBlock(0, rec{seq: math.MaxUint64 - 1, kind: 1}))},
	}
}

// TestReaderRejectsBadFiles: every corruption is an error wrapping the
// right sentinel, never a panic and never a silent success.
func TestReaderRejectsBadFiles(t *testing.T) {
	for _, c := range badFiles() {
		t.Run(c.name, func(t *testing.T) {
			err := readErr(c.data)
			if !errors.Is(err, c.want) {
				t.Fatalf("got %v, want an error wrapping %v", err, c.want)
			}
			if err.Error() == c.want.Error() {
				t.Fatalf("error %q does not say where or what", err)
			}
			t.Log(err)
		})
	}
}

// TestSeqMaxEndZero: seqMaxEndZero's crafted trace is corrupt, at the byte
// offset of the block that holds sequence number 2^64−1.
func TestSeqMaxEndZero(t *testing.T) {
	err := readErr(seqMaxEndZero())
	if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), fmt.Sprintf("at byte %d:", fileHeaderSize)) {
		t.Fatalf("got %v, want ErrCorrupt at byte %d", err, fileHeaderSize)
	}
}

// TestReaderReadsCutFiles: a trace that ends early reads as far as its
// complete blocks, then io.EOF; Truncation says where it was cut, and the
// counts are those of the complete blocks.
func TestReaderReadsCutFiles(t *testing.T) {
	for _, c := range cutFiles() {
		t.Run(c.name, func(t *testing.T) {
			r, err := Open(bytes.NewReader(c.data))
			if err != nil {
				t.Fatal(err)
			}
			n := 0
			for ; ; n++ {
				if _, err = r.Next(); err != nil {
					break
				}
			}
			if err != io.EOF || n != c.events {
				t.Fatalf("read %d events then %v, want %d then io.EOF", n, err, c.events)
			}
			if _, again := r.Next(); again != io.EOF {
				t.Fatalf("Next after io.EOF: %v", again)
			}
			cut := r.Truncation()
			if !r.Truncated() || !errors.Is(cut, ErrTruncated) || !strings.Contains(cut.Error(), fmt.Sprintf("at byte %d:", c.at)) {
				t.Fatalf("Truncated %v, Truncation %v: want a cut at byte %d", r.Truncated(), cut, c.at)
			}
			if fmt.Sprint(r.Counts()) != fmt.Sprint(c.counts) {
				t.Fatalf("counts %+v, want %+v", r.Counts(), c.counts)
			}
			checkCounts(t, r, uint64(n))
			t.Log(cut)
		})
	}
}

// TestEveryPrefixReads cuts a hand-made and a real trace at every byte:
// each prefix reads without error, returns exactly the events of the
// blocks it holds whole, and is truncated unless it is the whole file.
func TestEveryPrefixReads(t *testing.T) {
	for name, data := range map[string][]byte{"hand-made": goodFile(), "session": observedSession(t)} {
		ends := blockEnds(t, data)
		for k := fileHeaderSize; k <= len(data); k++ {
			n, r, err := readEvents(t, data[:k])
			if err != nil {
				t.Fatalf("%s cut at %d of %d bytes: %v", name, k, len(data), err)
			}
			want, at := eventsBefore(ends, k)
			if k < len(data) && (n != want || !r.Truncated() || r.cutAt != at) {
				t.Fatalf("%s cut at %d: %d events, truncated %v at %d; want %d events cut at %d", name, k, n, r.Truncated(), r.cutAt, want, at)
			}
			if k == len(data) && (r.Truncated() || n != want) {
				t.Fatalf("%s whole: %d events, truncated %v", name, n, r.Truncated())
			}
			checkCounts(t, r, n)
		}
	}
}

// blockEnd is where a block ends and how many events it holds.
type blockEnd struct {
	end    int
	events uint64
}

// blockEnds walks a valid trace's block headers.
func blockEnds(t *testing.T, data []byte) []blockEnd {
	var out []blockEnd
	for off := fileHeaderSize; off < len(data); {
		var h blockHeader
		h.decode((*[blockHeaderSz]byte)(data[off:]))
		off += blockHeaderSz + int(h.length)
		if h.tag == tagEnd {
			h.count = 0
		}
		out = append(out, blockEnd{off, uint64(h.count)})
	}
	if len(out) == 0 || out[len(out)-1].end != len(data) {
		t.Fatalf("blocks %v do not tile %d bytes", out, len(data))
	}
	return out
}

// eventsBefore counts the events of the blocks that end by byte k, and
// returns the end of the last of them.
func eventsBefore(ends []blockEnd, k int) (uint64, int64) {
	n, at := uint64(0), int64(fileHeaderSize)
	for _, b := range ends {
		if b.end > k {
			break
		}
		n, at = n+b.events, int64(b.end)
	}
	return n, at
}

// readErr reads data to the end and returns the first error other than
// io.EOF (nil for a valid trace). It checks that a reader stays failed.
func readErr(data []byte) error {
	r, err := Open(bytes.NewReader(data))
	if err != nil {
		return err
	}
	for i := 0; ; i++ {
		_, err := r.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			if _, again := r.Next(); again != err {
				return errors.New("reader did not stay failed")
			}
			return err
		}
		if i > len(data) {
			return errors.New("more events than bytes")
		}
	}
}

// FuzzReader: arbitrary bytes never panic or loop; a trace that reads to
// io.EOF has counts that add up without wrap-around; and cutting a
// readable trace short only truncates it, never makes it corrupt.
func FuzzReader(f *testing.F) {
	addReaderSeeds(f)
	f.Fuzz(checkTrace)
}

// FuzzReaderRecords is FuzzReader with every checksum made right before
// the read: a mutation inside a block then reaches the checks of its
// records, its sequence numbers and the end block's counts, which a wrong
// checksum stops FuzzReader's mutations short of. It starts from
// FuzzReader's corpus.
func FuzzReaderRecords(f *testing.F) {
	addReaderSeeds(f)
	files, _ := filepath.Glob(filepath.Join("testdata", "fuzz", "FuzzReader", "*"))
	for _, name := range files {
		if data, ok := corpusBytes(f, name); ok {
			f.Add(data)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) { checkTrace(t, fixChecksums(data)) })
}

func addReaderSeeds(f *testing.F) {
	f.Add(goodFile())
	f.Add(cat(fileHeader(Version), endBlock()))
	f.Add(fileHeader(Version))
	f.Add(seqMaxEndZero())
}

// corpusBytes reads a `go test fuzz v1` file of one []byte.
func corpusBytes(f *testing.F, name string) ([]byte, bool) {
	b, err := os.ReadFile(name)
	if err != nil {
		f.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[1], "[]byte(") {
		return nil, false
	}
	s, err := strconv.Unquote(strings.TrimSuffix(strings.TrimPrefix(lines[1], "[]byte("), ")"))
	if err != nil {
		f.Fatalf("%s: %v", name, err)
	}
	return []byte(s), true
}

// fixChecksums returns data with the file header's checksum and every
// whole block's made right.
func fixChecksums(data []byte) []byte {
	out := bytes.Clone(data)
	if len(out) < fileHeaderSize {
		return out
	}
	le.PutUint32(out[28:], crc32.Checksum(out[:28], castagnoli))
	for off := fileHeaderSize; off+blockHeaderSz <= len(out); {
		hdr := (*[blockHeaderSz]byte)(out[off : off+blockHeaderSz])
		n := int(le.Uint32(hdr[28:]))
		end := off + blockHeaderSz + n
		if n > MaxBlockBody || end > len(out) {
			break
		}
		le.PutUint32(hdr[36:], blockCRC(hdr, out[off+blockHeaderSz:end]))
		off = end
	}
	return out
}

// checkTrace reads data and, if it is a trace, checks the counts it
// reports, and that two of its prefixes read as truncated traces with no
// more events.
func checkTrace(t *testing.T, data []byte) {
	n, r, err := readEvents(t, data)
	if err != nil {
		return
	}
	checkCounts(t, r, n)
	if len(data) <= fileHeaderSize {
		return
	}
	// Two prefixes per input: one just short, one picked by the content.
	for _, k := range []int{len(data) - 1, fileHeaderSize + int(crc32.ChecksumIEEE(data))%(len(data)-fileHeaderSize)} {
		m, rk, err := readEvents(t, data[:k])
		switch {
		case err != nil:
			t.Fatalf("prefix of %d of %d bytes: %v", k, len(data), err)
		case !rk.Truncated() || !errors.Is(rk.Truncation(), ErrTruncated):
			t.Fatalf("prefix of %d of %d bytes: not truncated (%v)", k, len(data), rk.Truncation())
		case m > n:
			t.Fatalf("prefix of %d of %d bytes: %d events, the whole had %d", k, len(data), m, n)
		}
		checkCounts(t, rk, m)
	}
}

// readEvents reads data to io.EOF and returns the number of events. A
// failure must wrap the right sentinel: Next never reports ErrTruncated,
// and a bytes.Reader has no I/O errors, so it is ErrCorrupt.
func readEvents(t *testing.T, data []byte) (uint64, *Reader, error) {
	t.Helper()
	r, err := Open(bytes.NewReader(data))
	if err != nil {
		if !errors.Is(err, ErrNotTrace) && !errors.Is(err, ErrVersion) && !errors.Is(err, ErrCorrupt) && !errors.Is(err, ErrTruncated) {
			t.Fatalf("Open error %v wraps no sentinel", err)
		}
		return 0, nil, err
	}
	var n uint64
	for {
		_, err := r.Next()
		if err == io.EOF {
			return n, r, nil
		}
		if err != nil {
			if !errors.Is(err, ErrCorrupt) || errors.Is(err, ErrTruncated) {
				t.Fatalf("Next error %v does not wrap ErrCorrupt alone", err)
			}
			return n, r, err
		}
		n++
	}
}

// checkCounts checks a reader at io.EOF against the n events it returned,
// with arithmetic that cannot wrap (so a wrapped count cannot pass).
func checkCounts(t *testing.T, r *Reader, n uint64) {
	t.Helper()
	var read, lost, c1, c2 uint64
	for i, c := range r.Counts() {
		if c.Read > c.Written || c.Lost != c.Written-c.Read {
			t.Fatalf("counts %+v: read + lost ≠ written", c)
		}
		if i > 0 && c.Writer <= r.Counts()[i-1].Writer {
			t.Fatalf("counts not sorted by writer: %+v", r.Counts())
		}
		read, c1 = bits.Add64(read, c.Read, 0)
		lost, c2 = bits.Add64(lost, c.Lost, 0)
		if c1|c2 != 0 {
			t.Fatalf("counts %+v add up beyond 2^64−1", r.Counts())
		}
	}
	if gotRead, gotLost := r.Totals(); gotRead != read || gotLost != lost || read != n {
		t.Fatalf("Totals %d read %d lost; counts sum to %d and %d; Next returned %d events", gotRead, gotLost, read, lost, n)
	}
}

// TestWriteFuzzCorpus regenerates testdata/fuzz/FuzzReader from the bad
// files above and one real session; run with GCBENCH_WRITE_CORPUS=1.
func TestWriteFuzzCorpus(t *testing.T) {
	if os.Getenv("GCBENCH_WRITE_CORPUS") == "" {
		t.Skip("set GCBENCH_WRITE_CORPUS=1 to regenerate the seed corpus")
	}
	dir := filepath.Join("testdata", "fuzz", "FuzzReader")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	var real bytes.Buffer
	s, _ := NewSession(&real, Options{FlushInterval: time.Millisecond})
	for w := range 2 {
		wr, _ := s.NewWriter()
		wr.Write(kindBegin, uint64(w), nil)
		wr.Write(kindMark, uint64(w), []byte("payload"))
		wr.Write(kindEnd, uint64(w), nil)
	}
	s.Close()
	files := map[string][]byte{"good": goodFile(), "session": real.Bytes(), "empty-end": cat(fileHeader(Version), endBlock())}
	// File names keep to letters, digits and '-' so that every system can hold them.
	fileName := func(s string) string {
		return strings.Map(func(r rune) rune {
			if r > unicode.MaxASCII || !unicode.IsLetter(r) && !unicode.IsDigit(r) {
				return '-'
			}
			return r
		}, s)
	}
	for _, c := range badFiles() {
		files[fileName(c.name)] = c.data
	}
	for _, c := range cutFiles() {
		files["cut-"+fileName(c.name)] = c.data
	}
	for name, data := range files {
		content := fmt.Sprintf("go test fuzz v1\n[]byte(%q)\n", data)
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
