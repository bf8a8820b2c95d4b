package trace

import (
	"bytes"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"
	"time"
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
		evBlock(0, rec{t: 10, seq: 0, kind: KindJobStart}, rec{t: 20, seq: 1, kind: KindJobEnd, payload: []byte("abc")}),
		evBlock(1, rec{t: 15, seq: 0, kind: KindEnqueue, arg: 65}, rec{t: 16, seq: 1, kind: KindWake}),
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
	b0 := evBlock(0, rec{t: 10, seq: 0, kind: KindJobStart})
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
		{"header only", hdr, ErrTruncated},
		{"truncated block header", good[:fileHeaderSize+20], ErrTruncated},
		{"truncated block body", good[:fileHeaderSize+blockHeaderSz+40], ErrTruncated},
		{"no end block", good[:len(good)-len(endBlock(endEntry{0, 5}, endEntry{1, 3}))], ErrTruncated},
		{"truncated end block", good[:len(good)-3], ErrTruncated},
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

// FuzzReader: arbitrary bytes never panic or loop; a trace that reads
// without error has consistent counts.
func FuzzReader(f *testing.F) {
	f.Add(goodFile())
	f.Add(cat(fileHeader(Version), endBlock()))
	f.Add(fileHeader(Version))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := Open(bytes.NewReader(data))
		if err != nil {
			return
		}
		var n uint64
		for {
			_, err := r.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				if !errors.Is(err, ErrCorrupt) && !errors.Is(err, ErrTruncated) {
					t.Fatalf("error %v wraps no sentinel", err)
				}
				return
			}
			n++
		}
		read, _ := r.Totals()
		if read != n {
			t.Fatalf("read %d events, counts say %d", n, read)
		}
		for _, c := range r.Counts() {
			if c.Read+c.Lost != c.Written {
				t.Fatalf("counts %+v inconsistent", c)
			}
		}
	})
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
	o, _ := NewObserver(s, 2)
	o.CollectionStart(1)
	o.Enqueued(3)
	for w := 0; w < 2; w++ {
		o.Woken(w)
		o.JobStart(w)
		o.JobEnd(w)
	}
	o.FutileWake(1)
	o.CollectionEnd(1)
	s.Close()
	files := map[string][]byte{"good": goodFile(), "session": real.Bytes(), "empty-end": cat(fileHeader(Version), endBlock())}
	for _, c := range badFiles() {
		files[strings.ReplaceAll(c.name, " ", "-")] = c.data
	}
	for name, data := range files {
		content := fmt.Sprintf("go test fuzz v1\n[]byte(%q)\n", data)
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
