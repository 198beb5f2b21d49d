package crypt

import (
	"encoding/binary"
	"math/bits"
)

// SHA-256, FIPS 180-4 sections 4.1.2, 5 and 6.2.

// Size is the length of a SHA-256 digest and of an HMAC-SHA256, in bytes.
const Size = 32

// blockSize is SHA-256's block: 512 bits.
const blockSize = 64

// sha256Init is the initial hash value H(0) (section 5.3.3): the first 32
// bits of the fractional parts of the square roots of the first 8 primes.
var sha256Init = [8]uint32{
	0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
}

// sha256K are the round constants (section 4.2.2): the first 32 bits of the
// fractional parts of the cube roots of the first 64 primes.
var sha256K = [64]uint32{
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
	0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
	0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
	0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
	0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
	0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
	0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
	0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
}

// Sum256 returns the SHA-256 digest of data.
func Sum256(data []byte) [Size]byte {
	d := newDigest()
	d.write(data)
	return d.sum()
}

// digest is a SHA-256 computation in progress: what HMAC needs to hash
// its padded key and the message without joining them first.
type digest struct {
	h       [8]uint32       // the intermediate hash value
	buf     [blockSize]byte // the start of an incomplete block
	n       int             // bytes in buf
	written uint64          // bytes written in all
}

func newDigest() digest {
	return digest{h: sha256Init}
}

// write hashes p, keeping what does not fill a block for later.
func (d *digest) write(p []byte) {
	d.written += uint64(len(p))
	if d.n > 0 {
		k := copy(d.buf[d.n:], p)
		d.n += k
		p = p[k:]
		if d.n < blockSize {
			return
		}
		d.block(d.buf[:])
		d.n = 0
	}
	for len(p) >= blockSize {
		d.block(p[:blockSize])
		p = p[blockSize:]
	}
	d.n = copy(d.buf[:], p)
}

// sum pads the message (section 5.1.1: a 1 bit, zeros up to 56 bytes into
// a block, the length in bits as 64 bits big-endian) and returns the
// digest. d is spent afterwards.
func (d *digest) sum() [Size]byte {
	length := d.written * 8
	var pad [blockSize + 8]byte
	pad[0] = 0x80
	n := 1 + (55-d.n)&(blockSize-1) // bytes that take d.n to 56 mod 64
	binary.BigEndian.PutUint64(pad[n:], length)
	d.write(pad[:n+8])
	var out [Size]byte
	for i, v := range d.h {
		binary.BigEndian.PutUint32(out[4*i:], v)
	}
	return out
}

// block runs the compression function (section 6.2.2) over one block.
func (d *digest) block(p []byte) {
	var w [64]uint32 // the message schedule
	for t := range 16 {
		w[t] = binary.BigEndian.Uint32(p[4*t:])
	}
	for t := 16; t < 64; t++ {
		w[t] = smallSigma1(w[t-2]) + w[t-7] + smallSigma0(w[t-15]) + w[t-16]
	}
	a, b, c, dd, e, f, g, h := d.h[0], d.h[1], d.h[2], d.h[3], d.h[4], d.h[5], d.h[6], d.h[7]
	for t := range 64 {
		t1 := h + bigSigma1(e) + (e&f ^ ^e&g) + sha256K[t] + w[t]
		t2 := bigSigma0(a) + (a&b ^ a&c ^ b&c)
		h, g, f, e, dd, c, b, a = g, f, e, dd+t1, c, b, a, t1+t2
	}
	d.h[0] += a
	d.h[1] += b
	d.h[2] += c
	d.h[3] += dd
	d.h[4] += e
	d.h[5] += f
	d.h[6] += g
	d.h[7] += h
}

// The functions of section 4.1.2; ROTR^n is a rotation left by -n.

func bigSigma0(x uint32) uint32 {
	return bits.RotateLeft32(x, -2) ^ bits.RotateLeft32(x, -13) ^ bits.RotateLeft32(x, -22)
}

func bigSigma1(x uint32) uint32 {
	return bits.RotateLeft32(x, -6) ^ bits.RotateLeft32(x, -11) ^ bits.RotateLeft32(x, -25)
}

func smallSigma0(x uint32) uint32 {
	return bits.RotateLeft32(x, -7) ^ bits.RotateLeft32(x, -18) ^ x>>3
}

func smallSigma1(x uint32) uint32 {
	return bits.RotateLeft32(x, -17) ^ bits.RotateLeft32(x, -19) ^ x>>10
}
