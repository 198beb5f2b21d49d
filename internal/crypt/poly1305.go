package crypt

import (
	"encoding/binary"
	"math/bits"
)

// Poly1305 (RFC 8439 section 2.5): the message's 16-byte blocks, each with
// a 1 appended, are the coefficients of a polynomial evaluated at r modulo
// the prime p = 2^130 - 5; the tag is that value plus s, modulo 2^128.
//
// Numbers below 2^130 and a little more are held in three 64-bit limbs
// (h0 + h1·2^64 + h2·2^128); every step is the same sequence of
// multiplications and additions whatever the values, so the time taken
// says nothing about the key or the message.

// TagSize is the length of a Poly1305 tag, and so the overhead of
// XChaCha20-Poly1305, in bytes.
const TagSize = 16

// poly1305 is a tag computation in progress.
type poly1305 struct {
	r0, r1     uint64 // r, clamped: r0, r1 < 2^60 and r1 a multiple of 4
	s0, s1     uint64
	h0, h1, h2 uint64 // the accumulator; h2 stays below 16
}

// newPoly1305 takes r and s from the one-time key (section 2.5.1): r is
// clamped, clearing the top 4 bits of bytes 3, 7, 11, 15 and the low 2
// bits of bytes 4, 8, 12.
func newPoly1305(key []byte) poly1305 {
	return poly1305{
		r0: binary.LittleEndian.Uint64(key[0:]) & 0x0ffffffc0fffffff,
		r1: binary.LittleEndian.Uint64(key[8:]) & 0x0ffffffc0ffffffc,
		s0: binary.LittleEndian.Uint64(key[16:]),
		s1: binary.LittleEndian.Uint64(key[24:]),
	}
}

// block adds the 16-byte block m and hibit·2^128 to the accumulator (hibit
// is 1 but for a plain message's short last block) and multiplies it by r.
func (p *poly1305) block(m []byte, hibit uint64) {
	var c uint64
	p.h0, c = bits.Add64(p.h0, binary.LittleEndian.Uint64(m[0:]), 0)
	p.h1, c = bits.Add64(p.h1, binary.LittleEndian.Uint64(m[8:]), c)
	p.h2 += c + hibit
	p.mulR()
}

// mulR sets h to h·r modulo p, not fully reduced.
//
// The product, with h2 < 16 and r0, r1 < 2^60, is below 2^256 and fits in
// four limbs m0..m3. Since 2^130 = 5 (mod p), the part above 2^130, c, is
// folded back as 5c = 4c + c; 4c is that part with its bits in place
// (m2 without its low 2 bits, and m3), c the same shifted right by 2.
// The result is below 2^131: h2 stays small.
func (p *poly1305) mulR() {
	h0, h1, h2, r0, r1 := p.h0, p.h1, p.h2, p.r0, p.r1

	t0hi, t0lo := bits.Mul64(h0, r0)
	t1hi, t1lo := add128(mul128(h0, r1), mul128(h1, r0))
	t2hi, t2lo := add128(mul128(h1, r1), [2]uint64{0, h2 * r0})
	t3 := h2 * r1

	m0 := t0lo
	m1, c := bits.Add64(t0hi, t1lo, 0)
	m2, c := bits.Add64(t1hi, t2lo, c)
	m3 := t2hi + t3 + c

	p.h0, p.h1, p.h2 = m0, m1, m2&3
	p.add(m2&^3, m3)
	p.add(m2>>2|m3<<62, m3>>2)
}

// add adds lo + hi·2^64 to the accumulator.
func (p *poly1305) add(lo, hi uint64) {
	var c uint64
	p.h0, c = bits.Add64(p.h0, lo, 0)
	p.h1, c = bits.Add64(p.h1, hi, c)
	p.h2 += c
}

// mul128 returns a·b as its high and low halves.
func mul128(a, b uint64) [2]uint64 {
	hi, lo := bits.Mul64(a, b)
	return [2]uint64{hi, lo}
}

// add128 returns a + b, high and low halves; the callers' sums stay far
// below 2^128.
func add128(a, b [2]uint64) (hi, lo uint64) {
	lo, c := bits.Add64(a[1], b[1], 0)
	hi, _ = bits.Add64(a[0], b[0], c)
	return hi, lo
}

// write adds m. Its last block, when short, is padded with zeros: as a
// full block for the AEAD construction (section 2.8), or, for a plain
// Poly1305 message, after a 1 byte that takes the place of the 2^128 bit.
func (p *poly1305) write(m []byte, aead bool) {
	for len(m) >= TagSize {
		p.block(m[:TagSize], 1)
		m = m[TagSize:]
	}
	if len(m) == 0 {
		return
	}
	var last [TagSize]byte
	copy(last[:], m)
	if aead {
		p.block(last[:], 1)
		return
	}
	last[len(m)] = 1
	p.block(last[:], 0)
}

// sum returns the tag: h reduced modulo p, plus s, modulo 2^128.
func (p *poly1305) sum() [TagSize]byte {
	// Fold what lies above 2^130 back once more (h < 2^131, so c is 0 or
	// 1): h is then below 2^130 + 5, less than 2p.
	c := p.h2 >> 2
	p.h2 &= 3
	p.add(c*5, 0)

	// h - p = h + 5 - 2^130: take it when h + 5 reaches 2^130, selecting
	// with a mask rather than a branch.
	g0, c := bits.Add64(p.h0, 5, 0)
	g1, c := bits.Add64(p.h1, 0, c)
	g2 := p.h2 + c
	mask := -(g2 >> 2) // all ones when h >= p
	h0 := p.h0&^mask | g0&mask
	h1 := p.h1&^mask | g1&mask

	var tag [TagSize]byte
	h0, c = bits.Add64(h0, p.s0, 0)
	h1, _ = bits.Add64(h1, p.s1, c)
	binary.LittleEndian.PutUint64(tag[0:], h0)
	binary.LittleEndian.PutUint64(tag[8:], h1)
	return tag
}
