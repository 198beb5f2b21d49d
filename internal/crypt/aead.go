package crypt

import (
	"encoding/binary"
	"errors"
	"slices"
)

// XChaCha20-Poly1305 (draft-irtf-cfrg-xchacha section 2.3): ChaCha20-Poly1305
// of RFC 8439 section 2.8 under a key derived with HChaCha20 from the key
// and the first 16 bytes of a 24-byte nonce, with the nonce's last 8 bytes
// after four zero bytes as its nonce. The long nonce is what lets callers
// pick nonces at random.

// NonceSize is the length of an XChaCha20-Poly1305 nonce, in bytes.
const NonceSize = 24

// ErrOpen is the error of Open: the key, nonce, additional data, ciphertext
// or tag is not what sealed the message. Which one, it does not say.
var ErrOpen = errors.New("message authentication failed")

// maxPlain is the longest message one key and nonce can encrypt: ChaCha20's
// 32-bit block counter, starting at 1, would wrap after it.
const maxPlain = (1<<32 - 1) * 64

// Seal appends to dst plain encrypted with XChaCha20-Poly1305 under key and
// nonce, followed by the 16-byte tag that authenticates it and ad, and
// returns the result. A nonce must not be used twice with one key; 24
// random bytes never are, in practice. dst may be plain[:0] to encrypt in
// place, but must not overlap plain otherwise.
func Seal(dst []byte, key *[KeySize]byte, nonce *[NonceSize]byte, plain, ad []byte) []byte {
	subkey, inner := xNonce(key, nonce)
	return sealIETF(dst, &subkey, &inner, plain, ad)
}

// Open checks box, as Seal made it from a message and ad, under key and
// nonce, and appends the message to dst. It returns ErrOpen, and appends
// nothing, when the check fails. dst may be box[:0] to decrypt in place,
// but must not overlap box otherwise.
func Open(dst []byte, key *[KeySize]byte, nonce *[NonceSize]byte, box, ad []byte) ([]byte, error) {
	subkey, inner := xNonce(key, nonce)
	return openIETF(dst, &subkey, &inner, box, ad)
}

// xNonce returns the ChaCha20 key and 12-byte nonce of an XChaCha20 key
// and nonce.
func xNonce(key *[KeySize]byte, nonce *[NonceSize]byte) (subkey [KeySize]byte, inner [12]byte) {
	copy(inner[4:], nonce[16:])
	return hChaCha20(key, nonce[:16]), inner
}

// sealIETF is Seal for ChaCha20-Poly1305 of RFC 8439 section 2.8: a
// 12-byte nonce, the message encrypted from block 1 on.
func sealIETF(dst []byte, key *[KeySize]byte, nonce *[12]byte, plain, ad []byte) []byte {
	if uint64(len(plain)) > maxPlain {
		panic("crypt: message too long for ChaCha20-Poly1305") // far beyond anything sealed here
	}
	out, tail := grow(dst, len(plain)+TagSize)
	cipher := tail[:len(plain)]
	xorKeyStream(cipher, plain, chachaState(key, 1, nonce))
	tag := aeadTag(key, nonce, cipher, ad)
	copy(tail[len(plain):], tag[:])
	return out
}

// openIETF is Open for ChaCha20-Poly1305; the tag is checked before
// anything is decrypted.
func openIETF(dst []byte, key *[KeySize]byte, nonce *[12]byte, box, ad []byte) ([]byte, error) {
	if len(box) < TagSize {
		return nil, ErrOpen
	}
	cipher, tag := box[:len(box)-TagSize], box[len(box)-TagSize:]
	want := aeadTag(key, nonce, cipher, ad)
	if !Equal(want[:], tag) {
		return nil, ErrOpen
	}
	out, tail := grow(dst, len(cipher))
	xorKeyStream(tail, cipher, chachaState(key, 1, nonce))
	return out, nil
}

// aeadTag is the tag of ChaCha20-Poly1305 (RFC 8439 section 2.8): Poly1305
// under the first 32 bytes of key stream block 0, over ad and the
// ciphertext, each padded to 16 bytes, then both lengths as 64-bit
// little-endian numbers.
func aeadTag(key *[KeySize]byte, nonce *[12]byte, cipher, ad []byte) [TagSize]byte {
	var block [64]byte
	s := chachaState(key, 0, nonce)
	keyBlock(&block, &s)
	p := newPoly1305(block[:32])
	p.write(ad, true)
	p.write(cipher, true)
	var lengths [16]byte
	binary.LittleEndian.PutUint64(lengths[0:], uint64(len(ad)))
	binary.LittleEndian.PutUint64(lengths[8:], uint64(len(cipher)))
	p.write(lengths[:], true)
	return p.sum()
}

// grow extends dst by n bytes and returns the whole and the new part.
func grow(dst []byte, n int) (whole, tail []byte) {
	whole = slices.Grow(dst, n)[:len(dst)+n]
	return whole, whole[len(dst):]
}
