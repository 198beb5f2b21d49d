package crypt

import (
	"encoding/binary"
	"math/bits"
)

// ChaCha20 (RFC 8439 sections 2.1 to 2.4) and HChaCha20
// (draft-irtf-cfrg-xchacha section 2.2).

// KeySize is the length of a ChaCha20 key, and so of an XChaCha20-Poly1305
// key, in bytes.
const KeySize = 32

// The first row of every state: "expand 32-byte k", little-endian.
const sigma0, sigma1, sigma2, sigma3 = 0x61707865, 0x3320646e, 0x79622d32, 0x6b206574

// quarterRound is the quarter round of section 2.1.
func quarterRound(a, b, c, d uint32) (uint32, uint32, uint32, uint32) {
	a += b
	d = bits.RotateLeft32(d^a, 16)
	c += d
	b = bits.RotateLeft32(b^c, 12)
	a += b
	d = bits.RotateLeft32(d^a, 8)
	c += d
	b = bits.RotateLeft32(b^c, 7)
	return a, b, c, d
}

// rounds applies ChaCha20's 20 rounds to s: ten times a column round and
// a diagonal round (section 2.3). The words live in local variables while
// the rounds run, which the compiler keeps in registers.
func rounds(s *[16]uint32) {
	x0, x1, x2, x3, x4, x5, x6, x7 := s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7]
	x8, x9, x10, x11, x12, x13, x14, x15 := s[8], s[9], s[10], s[11], s[12], s[13], s[14], s[15]
	for range 10 {
		x0, x4, x8, x12 = quarterRound(x0, x4, x8, x12)
		x1, x5, x9, x13 = quarterRound(x1, x5, x9, x13)
		x2, x6, x10, x14 = quarterRound(x2, x6, x10, x14)
		x3, x7, x11, x15 = quarterRound(x3, x7, x11, x15)
		x0, x5, x10, x15 = quarterRound(x0, x5, x10, x15)
		x1, x6, x11, x12 = quarterRound(x1, x6, x11, x12)
		x2, x7, x8, x13 = quarterRound(x2, x7, x8, x13)
		x3, x4, x9, x14 = quarterRound(x3, x4, x9, x14)
	}
	*s = [16]uint32{x0, x1, x2, x3, x4, x5, x6, x7, x8, x9, x10, x11, x12, x13, x14, x15}
}

// newState returns the state of section 2.3 for key, the first block
// counter and nonce, or HChaCha20's when tail is the 16-byte nonce in
// place of counter and nonce.
func newState(key *[KeySize]byte, tail []byte) [16]uint32 {
	s := [16]uint32{0: sigma0, 1: sigma1, 2: sigma2, 3: sigma3}
	for i := range 8 {
		s[4+i] = binary.LittleEndian.Uint32(key[4*i:])
	}
	for i := range 4 {
		s[12+i] = binary.LittleEndian.Uint32(tail[4*i:])
	}
	return s
}

// chachaState returns the ChaCha20 state of key and a 12-byte nonce at
// block counter.
func chachaState(key *[KeySize]byte, counter uint32, nonce *[12]byte) [16]uint32 {
	var tail [16]byte
	binary.LittleEndian.PutUint32(tail[:], counter)
	copy(tail[4:], nonce[:])
	return newState(key, tail[:])
}

// keyBlock writes the block of state s to out: the rounds' result added
// to s word by word (section 2.3), serialized little-endian.
func keyBlock(out *[64]byte, s *[16]uint32) {
	x := *s
	rounds(&x)
	for i := range x {
		binary.LittleEndian.PutUint32(out[4*i:], x[i]+s[i])
	}
}

// xorKeyStream sets dst to src XOR the key stream of s, starting with the
// block counter of s (section 2.4). dst must be as long as src; they may
// overlap only exactly.
func xorKeyStream(dst, src []byte, s [16]uint32) {
	var block [64]byte
	for len(src) > 0 {
		keyBlock(&block, &s)
		n := min(len(src), len(block))
		for i := range n {
			dst[i] = src[i] ^ block[i]
		}
		dst, src = dst[n:], src[n:]
		s[12]++
	}
}

// hChaCha20 derives a key from key and the first 16 bytes of an extended
// nonce: the rounds run over a state with the nonce in place of counter
// and nonce, and words 0-3 and 12-15 of the result, without the addition
// of ChaCha20's block function, are the new key.
func hChaCha20(key *[KeySize]byte, nonce []byte) [KeySize]byte {
	s := newState(key, nonce[:16])
	rounds(&s)
	var out [KeySize]byte
	for i := range 4 {
		binary.LittleEndian.PutUint32(out[4*i:], s[i])
		binary.LittleEndian.PutUint32(out[16+4*i:], s[12+i])
	}
	return out
}
