package crypt

import (
	"bytes"
	"crypto/hkdf"
	stdhmac "crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"math/rand/v2"
	"testing"

	"golang.org/x/crypto/chacha20"
	"golang.org/x/crypto/chacha20poly1305"
	xpoly1305 "golang.org/x/crypto/poly1305" // deprecated for use, still the reference here
)

// Each primitive against the standard library's or golang.org/x/crypto's,
// for every length from 0 to maxLen: past the block boundaries of SHA-256
// (63, 64, 65, …), ChaCha20 (64) and Poly1305 (15, 16, 17, …) many times.
// The fuzz targets of fuzz_test.go do the same with inputs the fuzzer picks.

const maxLen = 1100

// filler returns a deterministic source of test bytes.
func filler(seed uint64) func(n int) []byte {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	return func(n int) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(r.Uint32())
		}
		return b
	}
}

// keyOf returns a 32-byte key: random, all zeros or all ones, by n, so
// that Poly1305's r and s reach their largest values too.
func keyOf(random func(int) []byte, n int) [KeySize]byte {
	switch n % 5 {
	case 0:
		return [KeySize]byte{}
	case 1:
		return [KeySize]byte(bytes.Repeat([]byte{0xff}, KeySize))
	}
	return [KeySize]byte(random(KeySize))
}

// messageOf returns n bytes, all 0xff every third time (the accumulator's
// largest blocks), else random.
func messageOf(random func(int) []byte, n int) []byte {
	if n%3 == 0 {
		return bytes.Repeat([]byte{0xff}, n)
	}
	return random(n)
}

func TestSHA256AgainstReference(t *testing.T) {
	random := filler(1)
	for n := range maxLen {
		data := random(n)
		if got, want := Sum256(data), sha256.Sum256(data); got != want {
			t.Fatalf("length %d: Sum256 = %x, want %x", n, got, want)
		}
		// The same message written in two pieces split anywhere.
		d := newDigest()
		cut := n / 3
		d.write(data[:cut])
		d.write(data[cut:])
		if got, want := d.sum(), sha256.Sum256(data); got != want {
			t.Fatalf("length %d split at %d: %x, want %x", n, cut, got, want)
		}
	}
}

func TestHMACAgainstReference(t *testing.T) {
	random := filler(2)
	for n := range maxLen {
		key, data := random(n%150), random(n)
		if got, want := HMAC(key, data), referenceHMAC(key, data); !bytes.Equal(got[:], want) {
			t.Fatalf("key %d, data %d bytes: HMAC = %x, want %x", len(key), n, got, want)
		}
	}
}

func TestHKDFAgainstReference(t *testing.T) {
	random := filler(3)
	for n := 1; n <= 255*Size; n += 37 {
		secret, info := random(n%100), string(random(n%40))
		salt := random(n % 90)
		if n%2 == 0 {
			salt = nil
		}
		want, err := hkdf.Key(sha256.New, secret, salt, info, n)
		if err != nil {
			t.Fatal(err)
		}
		if got := HKDF(secret, salt, info, n); !bytes.Equal(got, want) {
			t.Fatalf("length %d: HKDF = %x, want %x", n, got, want)
		}
	}
}

func TestChaCha20AgainstReference(t *testing.T) {
	random := filler(4)
	for n := range maxLen {
		key, nonce := keyOf(random, n), [12]byte(random(12))
		counter := uint32(n)
		if n%7 == 0 {
			counter = ^uint32(0) - 2 // near the counter's end; it wraps at n >= 192
		}
		src := random(n)
		got := make([]byte, n)
		xorKeyStream(got, src, chachaState(&key, counter, &nonce))
		want, ok := referenceChaCha20(key, nonce, counter, src)
		if ok && !bytes.Equal(got, want) {
			t.Fatalf("length %d, counter %d: %x, want %x", n, counter, got, want)
		}
	}
}

func TestHChaCha20AgainstReference(t *testing.T) {
	random := filler(5)
	for n := range 200 {
		key, nonce := keyOf(random, n), random(16)
		want, err := chacha20.HChaCha20(key[:], nonce)
		if err != nil {
			t.Fatal(err)
		}
		if got := hChaCha20(&key, nonce); !bytes.Equal(got[:], want) {
			t.Fatalf("HChaCha20 = %x, want %x", got, want)
		}
	}
}

func TestPoly1305AgainstReference(t *testing.T) {
	random := filler(6)
	for n := range maxLen {
		key, msg := keyOf(random, n/3), messageOf(random, n)
		if got, want := polySum(key[:], msg), referencePoly1305(key, msg); got != want {
			t.Fatalf("key %x, length %d: tag %x, want %x", key, n, got, want)
		}
	}
}

func TestAEADAgainstReference(t *testing.T) {
	random := filler(7)
	for n := range maxLen {
		key, nonce := keyOf(random, n), [NonceSize]byte(random(NonceSize))
		plain, ad := messageOf(random, n), random(n%70)
		checkAEAD(t, key, nonce, plain, ad)
		checkIETF(t, key, [12]byte(nonce[:12]), plain, ad)
	}
}

// Sealing in place (dst = plain[:0]) and opening in place give the same.
func TestAEADInPlace(t *testing.T) {
	random := filler(8)
	key, nonce := [KeySize]byte(random(KeySize)), [NonceSize]byte(random(NonceSize))
	plain, ad := random(300), random(20)
	want := Seal(nil, &key, &nonce, plain, ad)
	buf := make([]byte, len(plain), len(plain)+TagSize)
	copy(buf, plain)
	box := Seal(buf[:0], &key, &nonce, buf, ad)
	if !bytes.Equal(box, want) {
		t.Fatalf("in place: %x, want %x", box, want)
	}
	got, err := Open(box[:0], &key, &nonce, box, ad)
	if err != nil || !bytes.Equal(got, plain) {
		t.Fatalf("open in place: %x, %v", got, err)
	}
}

// Open refuses any change to what Seal made or to what it was sealed with,
// and appends nothing when it does.
func TestOpenRefusesTampering(t *testing.T) {
	random := filler(9)
	key, nonce := [KeySize]byte(random(KeySize)), [NonceSize]byte(random(NonceSize))
	plain, ad := random(100), random(12)
	box := Seal(nil, &key, &nonce, plain, ad)
	otherKey, otherNonce := key, nonce
	otherKey[31] ^= 0x80
	otherNonce[23] ^= 1
	for _, tc := range []struct {
		name    string
		key     [KeySize]byte
		nonce   [NonceSize]byte
		box, ad []byte
	}{
		{"ciphertext", key, nonce, flip(box, 0), ad},
		{"ciphertext end", key, nonce, flip(box, len(plain)-1), ad},
		{"tag", key, nonce, flip(box, len(box)-1), ad},
		{"tag start", key, nonce, flip(box, len(plain)), ad},
		{"truncated", key, nonce, box[:len(box)-1], ad},
		{"extended", key, nonce, append(bytes.Clone(box), 0), ad},
		{"tag only", key, nonce, box[len(plain):], ad},
		{"too short", key, nonce, box[:TagSize-1], ad},
		{"empty", key, nonce, nil, ad},
		{"additional data", key, nonce, box, flip(ad, 3)},
		{"no additional data", key, nonce, box, nil},
		{"key", otherKey, nonce, box, ad},
		{"nonce", key, otherNonce, box, ad},
		{"nonce start", key, [NonceSize]byte(flip(nonce[:], 0)), box, ad},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Open([]byte("kept"), &tc.key, &tc.nonce, tc.box, tc.ad)
			if err != ErrOpen || got != nil {
				t.Errorf("Open = %q, %v; want nil, ErrOpen", got, err)
			}
		})
	}
}

func TestEqualAgainstReference(t *testing.T) {
	for _, tc := range [][2]string{{"", ""}, {"a", "a"}, {"a", "b"}, {"ab", "a"}, {"", "a"}, {"abc", "abd"}, {"xbc", "abc"}} {
		a, b := []byte(tc[0]), []byte(tc[1])
		if got, want := Equal(a, b), subtle.ConstantTimeCompare(a, b) == 1; got != want {
			t.Errorf("Equal(%q, %q) = %v, want %v", a, b, got, want)
		}
	}
}

// flip returns b with the lowest bit of byte i changed.
func flip(b []byte, i int) []byte {
	c := bytes.Clone(b)
	c[i] ^= 1
	return c
}

// polySum is a plain Poly1305 tag of msg under key.
func polySum(key, msg []byte) [TagSize]byte {
	p := newPoly1305(key)
	p.write(msg, false)
	return p.sum()
}

func referenceHMAC(key, data []byte) []byte {
	h := stdhmac.New(sha256.New, key)
	h.Write(data)
	return h.Sum(nil)
}

func referencePoly1305(key [KeySize]byte, msg []byte) [TagSize]byte {
	var tag [TagSize]byte
	xpoly1305.Sum(&tag, msg, &key)
	return tag
}

// referenceChaCha20 encrypts src from block counter on; ok is false when
// the counter would wrap, which x/crypto refuses (and panics on).
func referenceChaCha20(key [KeySize]byte, nonce [12]byte, counter uint32, src []byte) (out []byte, ok bool) {
	if uint64(counter)+uint64(len(src)+63)/64 > 1<<32 {
		return nil, false
	}
	c, err := chacha20.NewUnauthenticatedCipher(key[:], nonce[:])
	if err != nil {
		panic(err)
	}
	c.SetCounter(counter)
	out = make([]byte, len(src))
	c.XORKeyStream(out, src)
	return out, true
}

// checkAEAD seals with both implementations, compares, and opens each
// one's box with the other.
func checkAEAD(t *testing.T, key [KeySize]byte, nonce [NonceSize]byte, plain, ad []byte) {
	t.Helper()
	ref, err := chacha20poly1305.NewX(key[:])
	if err != nil {
		t.Fatal(err)
	}
	got, want := Seal(nil, &key, &nonce, plain, ad), ref.Seal(nil, nonce[:], plain, ad)
	if !bytes.Equal(got, want) {
		t.Fatalf("plain %d, ad %d bytes: Seal = %x, want %x", len(plain), len(ad), got, want)
	}
	if opened, err := Open(nil, &key, &nonce, want, ad); err != nil || !bytes.Equal(opened, plain) {
		t.Fatalf("plain %d, ad %d bytes: Open of the reference's box = %x, %v", len(plain), len(ad), opened, err)
	}
	if opened, err := ref.Open(nil, nonce[:], got, ad); err != nil || !bytes.Equal(opened, plain) {
		t.Fatalf("plain %d, ad %d bytes: the reference's Open of our box = %x, %v", len(plain), len(ad), opened, err)
	}
}

// checkIETF compares ChaCha20-Poly1305 with a 12-byte nonce.
func checkIETF(t *testing.T, key [KeySize]byte, nonce [12]byte, plain, ad []byte) {
	t.Helper()
	ref, err := chacha20poly1305.New(key[:])
	if err != nil {
		t.Fatal(err)
	}
	if got, want := sealIETF(nil, &key, &nonce, plain, ad), ref.Seal(nil, nonce[:], plain, ad); !bytes.Equal(got, want) {
		t.Fatalf("plain %d, ad %d bytes: sealIETF = %x, want %x", len(plain), len(ad), got, want)
	}
}
