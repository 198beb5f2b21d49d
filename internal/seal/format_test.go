package seal

import (
	"crypto/hkdf"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"testing"
	"time"

	"golang.org/x/crypto/blake2b"
	"golang.org/x/crypto/chacha20poly1305"
	"golang.org/x/crypto/nacl/secretbox"
)

// The record format, built here by hand from its description: version 3,
// a random 24-byte nonce, then NaCl's secretbox of the expiry and the
// record, under a key that is BLAKE2b-256 keyed with the secret's decoded
// bytes of "memos-mcp-edge seal v3 record", a NUL and the purpose.

// handKey derives a key as the format says, from the secret and info.
func handKey(t *testing.T, secret []byte, info string) *[32]byte {
	t.Helper()
	h, err := blake2b.New256(secret)
	if err != nil {
		t.Fatal(err)
	}
	h.Write([]byte(info))
	var key [32]byte
	copy(key[:], h.Sum(nil))
	return &key
}

// handSeal seals record with key, writing v as the version byte.
func handSeal(key *[32]byte, v byte, record []byte, expires time.Time) string {
	plain := binary.BigEndian.AppendUint64(nil, uint64(expires.Unix()))
	plain = append(plain, record...)
	var nonce [24]byte
	rand.Read(nonce[:])
	out := append([]byte{v}, nonce[:]...)
	return base64.RawURLEncoding.EncodeToString(secretbox.Seal(out, plain, &nonce, key))
}

// sealV2 seals as version 2 did: XChaCha20-Poly1305 under an HKDF-SHA256
// key, the version byte and the purpose authenticated.
func sealV2(t *testing.T, secret []byte, purpose string, record []byte, expires time.Time) string {
	t.Helper()
	key, err := hkdf.Key(sha256.New, secret, nil, "memos-mcp-edge seal v2 record\x00"+purpose, chacha20poly1305.KeySize)
	if err != nil {
		t.Fatal(err)
	}
	aead, err := chacha20poly1305.NewX(key)
	if err != nil {
		t.Fatal(err)
	}
	plain := binary.BigEndian.AppendUint64(nil, uint64(expires.Unix()))
	plain = append(plain, record...)
	out := make([]byte, 1+chacha20poly1305.NonceSizeX)
	out[0] = 2
	rand.Read(out[1:])
	return base64.RawURLEncoding.EncodeToString(aead.Seal(out, out[1:], plain, append([]byte{2}, purpose...)))
}

func TestFormat(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	expires := now.Add(time.Hour)
	record := []byte(`{"g":"grant-1"}`)
	k := mustKeys(t, secretA, "")
	decoded, err := base64.StdEncoding.DecodeString(secretA)
	if err != nil {
		t.Fatal(err)
	}
	v3 := handKey(t, decoded, "memos-mcp-edge seal v3 record\x00code")
	for _, tc := range []struct {
		name   string
		sealed string
		err    error // nil: opens as record
	}{
		{name: "version 3 as described", sealed: handSeal(v3, 3, record, expires)},
		{name: "version byte 2", sealed: handSeal(v3, 2, record, expires), err: ErrInvalid},
		{name: "version byte 4", sealed: handSeal(v3, 4, record, expires), err: ErrInvalid},
		{name: "key of another version", sealed: handSeal(handKey(t, decoded, "memos-mcp-edge seal v2 record\x00code"), 3, record, expires), err: ErrInvalid},
		{name: "key of another purpose", sealed: handSeal(handKey(t, decoded, "memos-mcp-edge seal v3 record\x00token"), 3, record, expires), err: ErrInvalid},
		{name: "key of the MAC", sealed: handSeal(handKey(t, decoded, "memos-mcp-edge seal v3 mac\x00code"), 3, record, expires), err: ErrInvalid},
		{name: "key from the secret's text", sealed: handSeal(handKey(t, []byte(secretA), "memos-mcp-edge seal v3 record\x00code"), 3, record, expires), err: ErrInvalid},
		{name: "expired", sealed: handSeal(v3, 3, record, now), err: ErrExpired},
		// What the gateway sealed before version 3: such codes and tokens
		// no longer open, once (docs/releases.md says so).
		{name: "version 2 record", sealed: sealV2(t, decoded, "code", record, expires), err: ErrInvalid},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := k.Open("code", tc.sealed, now)
			if tc.err == nil && (err != nil || string(got) != string(record)) {
				t.Errorf("Open = %q, %v; want %q", got, err, record)
			}
			if tc.err != nil && !errors.Is(err, tc.err) {
				t.Errorf("Open = %q, %v; want %v", got, err, tc.err)
			}
		})
	}
	// And the other way: what Seal writes opens by the description.
	raw, err := base64.RawURLEncoding.DecodeString(k.Seal("code", record, expires))
	if err != nil || raw[0] != 3 || len(raw) != 1+24+secretbox.Overhead+8+len(record) {
		t.Fatalf("sealed record %x, %v: want version byte 3 and %d bytes", raw, err, 1+24+secretbox.Overhead+8+len(record))
	}
	var nonce [24]byte
	copy(nonce[:], raw[1:])
	plain, ok := secretbox.Open(nil, raw[25:], &nonce, v3)
	if !ok || string(plain[8:]) != string(record) || int64(binary.BigEndian.Uint64(plain)) != expires.Unix() {
		t.Errorf("by the description, the sealed record opens as %q, %v", plain, ok)
	}
}

// A secret of more than 64 bytes, which no BLAKE2b key may be, keys the
// derivation with its BLAKE2b-256.
func TestFormatLongSecret(t *testing.T) {
	long := make([]byte, 96)
	rand.Read(long)
	k := mustKeys(t, base64.StdEncoding.EncodeToString(long), "")
	sum := blake2b.Sum256(long)
	now := time.Unix(1_800_000_000, 0)
	sealed := handSeal(handKey(t, sum[:], "memos-mcp-edge seal v3 record\x00code"), 3, []byte("r"), now.Add(time.Minute))
	if got, err := k.Open("code", sealed, now); err != nil || string(got) != "r" {
		t.Errorf("Open = %q, %v", got, err)
	}
}

// MACs are keyed BLAKE2b-256 under a key of their own, derived like the
// records'.
func TestMACFormat(t *testing.T) {
	k := mustKeys(t, secretA, "")
	decoded, _ := base64.StdEncoding.DecodeString(secretA)
	key := handKey(t, decoded, "memos-mcp-edge seal v3 mac\x00client secret")
	h, _ := blake2b.New256(key[:])
	h.Write([]byte("client-1"))
	if got, want := k.MAC("client secret", "client-1"), base64.RawURLEncoding.EncodeToString(h.Sum(nil)); got != want {
		t.Errorf("MAC = %s, by the description %s", got, want)
	}
}
