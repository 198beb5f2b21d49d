package crypt

import (
	"bytes"
	"crypto/hkdf"
	"crypto/sha256"
	"testing"

	"golang.org/x/crypto/chacha20poly1305"
)

// The fuzz targets compare with the same references as the tests, on
// inputs the fuzzer picks; `make fuzz` runs them.

// FuzzHash: SHA-256 (whole and written in two pieces), HMAC-SHA256 and
// HKDF-SHA256.
func FuzzHash(f *testing.F) {
	f.Add([]byte("key"), []byte("abc"), uint16(1), uint16(32))
	f.Add(bytes.Repeat([]byte{0xaa}, 131), bytes.Repeat([]byte{'a'}, 64), uint16(63), uint16(8160))
	f.Add([]byte{}, bytes.Repeat([]byte{0}, 119), uint16(56), uint16(0))
	f.Fuzz(func(t *testing.T, key, data []byte, cut, length uint16) {
		if got, want := Sum256(data), sha256.Sum256(data); got != want {
			t.Fatalf("Sum256 = %x, want %x", got, want)
		}
		d := newDigest()
		c := int(cut) % (len(data) + 1)
		d.write(data[:c])
		d.write(data[c:])
		if got, want := d.sum(), sha256.Sum256(data); got != want {
			t.Fatalf("split at %d: %x, want %x", c, got, want)
		}
		if got, want := HMAC(key, data), referenceHMAC(key, data); !bytes.Equal(got[:], want) {
			t.Fatalf("HMAC = %x, want %x", got, want)
		}
		n := 1 + int(length)%(255*Size)
		want, err := hkdf.Key(sha256.New, key, data, string(data), n)
		if err != nil {
			t.Fatal(err)
		}
		if got := HKDF(key, data, string(data), n); !bytes.Equal(got, want) {
			t.Fatalf("HKDF of %d bytes = %x, want %x", n, got, want)
		}
	})
}

// FuzzPoly1305: the tag for any key and message, the corners of the
// arithmetic included (keys and blocks of all ones are among the seeds).
func FuzzPoly1305(f *testing.F) {
	ones := bytes.Repeat([]byte{0xff}, 64)
	f.Add(ones[:KeySize], ones)
	f.Add(make([]byte, KeySize), ones[:17])
	f.Add(unhex("85d6be7857556d337f4452fe42d506a80103808afb0db2fd4abff6af4149f51b"), []byte("Cryptographic Forum Research Group"))
	f.Fuzz(func(t *testing.T, key, msg []byte) {
		if len(key) < KeySize {
			return
		}
		k := [KeySize]byte(key)
		if got, want := polySum(k[:], msg), referencePoly1305(k, msg); got != want {
			t.Fatalf("tag = %x, want %x", got, want)
		}
	})
}

// FuzzAEAD: XChaCha20-Poly1305 seals as the reference does, each opens
// the other's box, and a box changed at any byte does not open.
func FuzzAEAD(f *testing.F) {
	f.Add(bytes.Repeat([]byte{7}, KeySize+NonceSize), []byte(sunscreen), []byte("PQRS"), uint16(0))
	f.Add(bytes.Repeat([]byte{0xff}, KeySize+NonceSize), []byte{}, []byte{}, uint16(3))
	f.Fuzz(func(t *testing.T, keyNonce, plain, ad []byte, at uint16) {
		if len(keyNonce) < KeySize+NonceSize {
			return
		}
		key, nonce := [KeySize]byte(keyNonce), [NonceSize]byte(keyNonce[KeySize:])
		checkAEAD(t, key, nonce, plain, ad)
		box := Seal(nil, &key, &nonce, plain, ad)
		i := int(at) % len(box)
		if got, err := Open(nil, &key, &nonce, flip(box, i), ad); err == nil {
			t.Fatalf("a box changed at byte %d of %d opens: %x", i, len(box), got)
		}
		ref, _ := chacha20poly1305.NewX(key[:])
		if _, err := ref.Open(nil, nonce[:], flip(box, i), ad); err == nil {
			t.Fatalf("the reference opens a box changed at byte %d", i)
		}
	})
}
