package seal

import (
	"crypto/hkdf"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"testing"
	"time"

	"golang.org/x/crypto/chacha20poly1305"
)

// The record format, built here by hand from its description: version 2,
// a random 24-byte nonce, then XChaCha20-Poly1305 of the expiry and the
// record, under a key derived with HKDF-SHA256 from the secret's decoded
// bytes, authenticating the version byte followed by the purpose.

// handKey derives a key as the format says, from ikm and info.
func handKey(t *testing.T, ikm []byte, info string) []byte {
	t.Helper()
	key, err := hkdf.Key(sha256.New, ikm, nil, info, chacha20poly1305.KeySize)
	if err != nil {
		t.Fatal(err)
	}
	return key
}

// handSeal seals record with key, writing v as the version byte and
// authenticating ad.
func handSeal(t *testing.T, key []byte, v byte, ad, record []byte, expires time.Time) string {
	t.Helper()
	aead, err := chacha20poly1305.NewX(key)
	if err != nil {
		t.Fatal(err)
	}
	plain := binary.BigEndian.AppendUint64(nil, uint64(expires.Unix()))
	plain = append(plain, record...)
	out := make([]byte, 1+chacha20poly1305.NonceSizeX)
	out[0] = v
	rand.Read(out[1:])
	return base64.RawURLEncoding.EncodeToString(aead.Seal(out, out[1:], plain, ad))
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
	v2 := handKey(t, decoded, "memos-mcp-edge seal v2 record\x00code")
	for _, tc := range []struct {
		name   string
		sealed string
		err    error // nil: opens as record
	}{
		{name: "version 2 as described", sealed: handSeal(t, v2, 2, []byte("\x02code"), record, expires)},
		{name: "version byte not authenticated", sealed: handSeal(t, v2, 2, []byte("code"), record, expires), err: ErrInvalid},
		{name: "another version byte authenticated", sealed: handSeal(t, v2, 2, []byte("\x01code"), record, expires), err: ErrInvalid},
		{name: "version byte 1 written and authenticated", sealed: handSeal(t, v2, 1, []byte("\x01code"), record, expires), err: ErrInvalid},
		{name: "version byte 3 written and authenticated", sealed: handSeal(t, v2, 3, []byte("\x03code"), record, expires), err: ErrInvalid},
		// What the gateway sealed before: the key from the secret's text,
		// the purpose alone authenticated. Such tokens no longer open.
		{name: "version 1 record", sealed: handSeal(t, handKey(t, []byte(secretA), "memos-mcp-edge seal v1 code"), 1, []byte("code"), record, expires), err: ErrInvalid},
		{name: "key from the secret's text", sealed: handSeal(t, handKey(t, []byte(secretA), "memos-mcp-edge seal v2 record\x00code"), 2, []byte("\x02code"), record, expires), err: ErrInvalid},
		{name: "key of the MAC", sealed: handSeal(t, handKey(t, decoded, "memos-mcp-edge seal v2 mac\x00code"), 2, []byte("\x02code"), record, expires), err: ErrInvalid},
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
	if err != nil || raw[0] != 2 {
		t.Fatalf("sealed record %x, %v: want version byte 2", raw, err)
	}
	aead, _ := chacha20poly1305.NewX(v2)
	plain, err := aead.Open(nil, raw[1:1+chacha20poly1305.NonceSizeX], raw[1+chacha20poly1305.NonceSizeX:], []byte("\x02code"))
	if err != nil || string(plain[8:]) != string(record) || int64(binary.BigEndian.Uint64(plain)) != expires.Unix() {
		t.Errorf("by the description, the sealed record opens as %q, %v", plain, err)
	}
}

// MACs are HMAC-SHA256 under a key of their own, derived like the records'.
func TestMACFormat(t *testing.T) {
	k := mustKeys(t, secretA, "")
	decoded, _ := base64.StdEncoding.DecodeString(secretA)
	h := hmac.New(sha256.New, handKey(t, decoded, "memos-mcp-edge seal v2 mac\x00client secret"))
	h.Write([]byte("client-1"))
	if got, want := k.MAC("client secret", "client-1"), base64.RawURLEncoding.EncodeToString(h.Sum(nil)); got != want {
		t.Errorf("MAC = %s, by the description %s", got, want)
	}
}
