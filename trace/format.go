package trace

import (
	"encoding/binary"
	"hash/crc32"
)

// Format constants; see the package documentation for the layout.
const (
	Magic          = "GCBTRACE"
	Version        = 1
	fileHeaderSize = 32
	blockHeaderSz  = 40
	recordHeaderSz = 32
	endEntrySize   = 16

	// MaxPayload is the largest event payload; a larger event is dropped
	// (and counted as lost).
	MaxPayload = 64 << 10
	// MaxBlockBody bounds a block's body so that a reader never allocates
	// more than this on the word of an untrusted length field.
	MaxBlockBody = 16 << 20
)

var (
	tagEvents  = [4]byte{'E', 'V', 'T', 'S'}
	tagEnd     = [4]byte{'E', 'N', 'D', 'S'}
	castagnoli = crc32.MakeTable(crc32.Castagnoli)
	le         = binary.LittleEndian
)

// recordSize is the encoded size of an event with an n-byte payload.
func recordSize(n int) int { return recordHeaderSz + (n+7)&^7 }

// putRecord encodes an event into dst, which is exactly recordSize bytes.
// Padding is left as is: buffers start zeroed and are never reused.
func putRecord(dst []byte, t int64, seq, arg uint64, kind Kind, payload []byte) {
	_ = dst[recordHeaderSz-1]
	le.PutUint64(dst[0:], uint64(t))
	le.PutUint64(dst[8:], seq)
	le.PutUint64(dst[16:], arg)
	le.PutUint16(dst[24:], uint16(kind))
	le.PutUint16(dst[26:], 0)
	le.PutUint32(dst[28:], uint32(len(payload)))
	copy(dst[recordHeaderSz:], payload)
}

// blockHeader is the decoded form of a block header.
type blockHeader struct {
	tag         [4]byte
	writer      uint32
	first, last uint64
	count       uint32
	length      uint32
	reserved    uint32
	crc         uint32
}

func (h *blockHeader) encode(dst *[blockHeaderSz]byte) {
	copy(dst[0:4], h.tag[:])
	le.PutUint32(dst[4:], h.writer)
	le.PutUint64(dst[8:], h.first)
	le.PutUint64(dst[16:], h.last)
	le.PutUint32(dst[24:], h.count)
	le.PutUint32(dst[28:], h.length)
	le.PutUint32(dst[32:], h.reserved)
	le.PutUint32(dst[36:], h.crc)
}

func (h *blockHeader) decode(src *[blockHeaderSz]byte) {
	copy(h.tag[:], src[0:4])
	h.writer = le.Uint32(src[4:])
	h.first = le.Uint64(src[8:])
	h.last = le.Uint64(src[16:])
	h.count = le.Uint32(src[24:])
	h.length = le.Uint32(src[28:])
	h.reserved = le.Uint32(src[32:])
	h.crc = le.Uint32(src[36:])
}

// blockCRC is the checksum stored in a block: header bytes 0..36, then body.
func blockCRC(hdr *[blockHeaderSz]byte, body []byte) uint32 {
	return crc32.Update(crc32.Update(0, castagnoli, hdr[:36]), castagnoli, body)
}

// encodeFileHeader returns the 32-byte file header for a session started
// at startUnixNano.
func encodeFileHeader(startUnixNano int64) [fileHeaderSize]byte {
	var h [fileHeaderSize]byte
	copy(h[0:8], Magic)
	le.PutUint16(h[8:], Version)
	le.PutUint16(h[10:], fileHeaderSize)
	le.PutUint32(h[12:], 0)
	le.PutUint64(h[16:], uint64(startUnixNano))
	le.PutUint32(h[24:], 0)
	le.PutUint32(h[28:], crc32.Checksum(h[:28], castagnoli))
	return h
}
