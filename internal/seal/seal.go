// Package seal turns small records into opaque strings that only the holder
// of a secret can read or forge, and back. It is the one place that holds the
// gateway's keys: each purpose (a code, an access token, a client
// registration, …) gets its own key, derived from the secret with
// HKDF-SHA256, so that a record sealed for one purpose never opens as
// another. Records are sealed with XChaCha20-Poly1305, which is constant-time
// in software (wasm has no AES instructions) and takes random 24-byte nonces,
// so nothing needs counting or storing.
//
// The primitives are audited ones: golang.org/x/crypto's XChaCha20-Poly1305,
// the standard library's HKDF, HMAC and SHA-256, and nonces from crypto/rand
// (in the Worker, the runtime's own random source). A sealed record has one
// spelling only, so that a record spent once cannot be spent again written
// another way.
package seal

import (
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"sync"
	"time"

	"golang.org/x/crypto/chacha20poly1305"
)

// Errors of Open. They say nothing of why a forged record failed.
var (
	ErrInvalid = errors.New("not a valid sealed record")
	ErrExpired = errors.New("the sealed record has expired")
)

// Keys seal and open records under a current secret and, for rotation, a
// previous one that still opens (but never seals).
type Keys struct {
	secrets [][]byte // decoded, current first

	mu      sync.Mutex
	aeads   map[string]cipher.AEAD // by secret index and purpose
	macKeys map[string][]byte      // by secret index and purpose
}

// New returns Keys for secret, and previous when it is not empty. Each must
// be base64 or hex of at least MinSecretBytes random bytes (CheckSecret).
func New(secret, previous string) (*Keys, error) {
	k := &Keys{aeads: map[string]cipher.AEAD{}, macKeys: map[string][]byte{}}
	for i, s := range []string{secret, previous} {
		if i > 0 && s == "" {
			break
		}
		b, err := decodeSecret(s)
		if err != nil {
			return nil, err
		}
		k.secrets = append(k.secrets, b)
	}
	return k, nil
}

// derive returns the key of kind ("record" or "mac") and purpose under
// secret i. The info string frames the two apart: kind is one of two fixed
// words without a NUL, and the purpose follows the first NUL.
func (k *Keys) derive(i int, kind, purpose string) []byte {
	key, err := hkdf.Key(sha256.New, k.secrets[i], nil, "memos-mcp-edge seal v2 "+kind+"\x00"+purpose, chacha20poly1305.KeySize)
	if err != nil {
		// hkdf.Key fails only for a key longer than 255 hashes, or, in
		// FIPS 140-only mode, for a secret under 14 bytes: New refuses
		// secrets under 32.
		panic("seal: " + err.Error())
	}
	return key
}

// aead returns the cipher of purpose under secret i, made once.
func (k *Keys) aead(i int, purpose string) cipher.AEAD {
	name := string(rune('0'+i)) + purpose
	k.mu.Lock()
	defer k.mu.Unlock()
	if a, ok := k.aeads[name]; ok {
		return a
	}
	a, err := chacha20poly1305.NewX(k.derive(i, "record", purpose))
	if err != nil {
		panic("seal: " + err.Error()) // only for a key of the wrong length
	}
	k.aeads[name] = a
	return a
}

// macKey returns the HMAC key of purpose under secret i, derived once.
func (k *Keys) macKey(i int, purpose string) []byte {
	name := string(rune('0'+i)) + purpose
	k.mu.Lock()
	defer k.mu.Unlock()
	if key, ok := k.macKeys[name]; ok {
		return key
	}
	key := k.derive(i, "mac", purpose)
	k.macKeys[name] = key
	return key
}

// version is the first byte of every sealed record, so that the format can
// change without old records being misread. The nonce follows it, then the
// encrypted record and its tag. Version 1 authenticated the purpose only and
// took its keys from the secret's text; version 2 authenticates the version
// byte too and takes its keys from the secret's decoded bytes.
const version = 2

// overhead is what sealing adds to a record, before base64: the version
// byte, the nonce, the expiry and the tag.
const overhead = 1 + chacha20poly1305.NonceSizeX + 8 + chacha20poly1305.Overhead

// additionalData is what a record's tag authenticates besides the record:
// its version byte, then the purpose. The version byte has a fixed length,
// so the two cannot be read apart another way.
func additionalData(v byte, purpose string) []byte {
	return append([]byte{v}, purpose...)
}

// Seal returns record sealed for purpose, valid until expires, as base64url
// text without padding.
func (k *Keys) Seal(purpose string, record []byte, expires time.Time) string {
	plain := binary.BigEndian.AppendUint64(make([]byte, 0, 8+len(record)), uint64(expires.Unix()))
	plain = append(plain, record...)
	out := make([]byte, 1+chacha20poly1305.NonceSizeX, overhead+len(record))
	out[0] = version
	nonce := out[1:]
	rand.Read(nonce) // never fails: without randomness the program ends
	out = k.aead(0, purpose).Seal(out, nonce, plain, additionalData(version, purpose))
	return encoding.EncodeToString(out)
}

// Open returns the record sealed for purpose in s, if it was sealed under
// one of the keys and has not expired at now.
func (k *Keys) Open(purpose, s string, now time.Time) ([]byte, error) {
	raw, ok := decode(s)
	if !ok || len(raw) < overhead || raw[0] != version {
		return nil, ErrInvalid
	}
	nonce, box := raw[1:1+chacha20poly1305.NonceSizeX], raw[1+chacha20poly1305.NonceSizeX:]
	ad := additionalData(raw[0], purpose)
	for i := range k.secrets {
		plain, err := k.aead(i, purpose).Open(nil, nonce, box, ad)
		if err != nil {
			continue
		}
		if now.Unix() >= int64(binary.BigEndian.Uint64(plain)) {
			return nil, ErrExpired
		}
		return plain[8:], nil
	}
	return nil, ErrInvalid
}

// MAC returns a base64url HMAC-SHA256 of data under purpose's key: a value
// derived from data that only the secret's holder can compute, such as a
// confidential client's secret derived from its registration.
func (k *Keys) MAC(purpose, data string) string {
	return encoding.EncodeToString(k.mac(0, purpose, data))
}

// CheckMAC reports whether mac is data's MAC under any of the keys, in
// constant time.
func (k *Keys) CheckMAC(purpose, data, mac string) bool {
	got, ok := decode(mac)
	if !ok {
		return false
	}
	match := 0
	for i := range k.secrets {
		match |= subtle.ConstantTimeCompare(got, k.mac(i, purpose, data))
	}
	return match == 1
}

func (k *Keys) mac(i int, purpose, data string) []byte {
	h := hmac.New(sha256.New, k.macKey(i, purpose))
	h.Write([]byte(data))
	return h.Sum(nil)
}

// encoding is the text form of sealed records and MACs: base64url without
// padding, decoded strictly (the unused bits of the last character must be
// zero).
var encoding = base64.RawURLEncoding.Strict()

// decode reads text written by encoding, and only that: Go's base64
// decoders skip '\r' and '\n', so every character is checked against the
// alphabet first. Each sealed record then has exactly one spelling.
func decode(s string) ([]byte, bool) {
	for i := 0; i < len(s); i++ {
		if c := s[i]; !('A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-' || c == '_') {
			return nil, false
		}
	}
	b, err := encoding.DecodeString(s)
	return b, err == nil
}
