// Package seal turns small records into opaque strings that only the holder
// of a secret can read or forge, and back. It is the one place that holds the
// gateway's keys: each purpose (a code, an access token, a client
// registration, …) gets its own key, derived from the secret with keyed
// BLAKE2b, so that a record sealed for one purpose never opens as another.
// Records are sealed with NaCl's secretbox (XSalsa20 and Poly1305), which is
// constant-time in software (wasm has no AES instructions) and takes random
// 24-byte nonces, so nothing needs counting or storing.
//
// The primitives are audited ones, golang.org/x/crypto's secretbox and
// BLAKE2b, with nonces from the runtime's random source (package random).
// None of them is the standard library's: any of its crypto packages links
// Go's FIPS 140 module into the wasm (about 110 KB of gzip and 60 ms of
// every cold start). A sealed record has one spelling only, so that a
// record spent once cannot be spent again written another way.
package seal

import (
	"crypto/subtle"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"sync"
	"time"

	"golang.org/x/crypto/blake2b"
	"golang.org/x/crypto/nacl/secretbox"

	"github.com/memos-mcp-edge/memos-mcp-edge/internal/random"
)

// Errors of Open. They say nothing of why a forged record failed.
var (
	ErrInvalid = errors.New("not a valid sealed record")
	ErrExpired = errors.New("the sealed record has expired")
)

// Keys seal and open records under a current secret and, for rotation, a
// previous one that still opens (but never seals).
type Keys struct {
	secrets [][]byte // the keys of derivation, current first

	mu   sync.Mutex
	keys map[string]*[keySize]byte // by secret index, kind and purpose
}

// keySize is the size of every derived key: secretbox's, and BLAKE2b-256's
// output.
const keySize = 32

// New returns Keys for secret, and previous when it is not empty. Each must
// be base64 or hex of at least MinSecretBytes random bytes (CheckSecret).
func New(secret, previous string) (*Keys, error) {
	k := &Keys{keys: map[string]*[keySize]byte{}}
	for i, s := range []string{secret, previous} {
		if i > 0 && s == "" {
			break
		}
		b, err := decodeSecret(s)
		if err != nil {
			return nil, err
		}
		k.secrets = append(k.secrets, derivationKey(b))
	}
	return k, nil
}

// derivationKey is the key BLAKE2b derives the others with: the secret's
// decoded bytes, or their BLAKE2b-256 when they are more than the 64 bytes
// a BLAKE2b key may be (as HMAC hashes a key longer than its block).
func derivationKey(secret []byte) []byte {
	if len(secret) <= blake2b.Size {
		return secret
	}
	sum := blake2b.Sum256(secret)
	return sum[:]
}

// key returns the key of kind ("record" or "mac") and purpose under secret
// i, derived once: BLAKE2b-256 keyed with the secret, of the info string.
// That frames the two apart: kind is one of two fixed words without a NUL,
// and the purpose follows the first NUL. The version is in the info, so a
// record of another version never opens under this one's keys.
func (k *Keys) key(i int, kind, purpose string) *[keySize]byte {
	name := string(rune('0'+i)) + kind + "\x00" + purpose
	k.mu.Lock()
	defer k.mu.Unlock()
	if key, ok := k.keys[name]; ok {
		return key
	}
	key := new([keySize]byte)
	copy(key[:], keyedSum(k.secrets[i], "memos-mcp-edge seal v3 "+kind+"\x00"+purpose))
	k.keys[name] = key
	return key
}

// keyedSum is BLAKE2b-256 of data under key, a MAC and a PRF.
func keyedSum(key []byte, data string) []byte {
	h, err := blake2b.New256(key)
	if err != nil {
		panic("seal: " + err.Error()) // only for a key over 64 bytes, which derivationKey rules out
	}
	h.Write([]byte(data))
	return h.Sum(nil)
}

// version is the first byte of every sealed record, so that the format can
// change without old records being misread. The nonce follows it, then the
// box: the Poly1305 tag and the encrypted expiry and record. Version 1
// authenticated the purpose only and took its keys from the secret's text;
// version 2 sealed with XChaCha20-Poly1305 under HKDF-SHA256 keys and
// authenticated the version byte as additional data. Version 3 has no
// additional data: the version and the purpose are in the key.
const version = 3

// nonceSize is the size of secretbox's nonce.
const nonceSize = 24

// overhead is what sealing adds to a record, before base64: the version
// byte, the nonce, the expiry and the tag.
const overhead = 1 + nonceSize + 8 + secretbox.Overhead

// Seal returns record sealed for purpose, valid until expires, as base64url
// text without padding.
func (k *Keys) Seal(purpose string, record []byte, expires time.Time) string {
	plain := binary.BigEndian.AppendUint64(make([]byte, 0, 8+len(record)), uint64(expires.Unix()))
	plain = append(plain, record...)
	out := make([]byte, 1+nonceSize, overhead+len(record))
	out[0] = version
	var nonce [nonceSize]byte
	random.Read(nonce[:])
	copy(out[1:], nonce[:])
	out = secretbox.Seal(out, plain, &nonce, k.key(0, "record", purpose))
	return encoding.EncodeToString(out)
}

// Open returns the record sealed for purpose in s, if it was sealed under
// one of the keys and has not expired at now.
func (k *Keys) Open(purpose, s string, now time.Time) ([]byte, error) {
	raw, ok := decode(s)
	if !ok || len(raw) < overhead || raw[0] != version {
		return nil, ErrInvalid
	}
	var nonce [nonceSize]byte
	copy(nonce[:], raw[1:])
	box := raw[1+nonceSize:]
	for i := range k.secrets {
		plain, ok := secretbox.Open(nil, box, &nonce, k.key(i, "record", purpose))
		if !ok {
			continue
		}
		if now.Unix() >= int64(binary.BigEndian.Uint64(plain)) {
			return nil, ErrExpired
		}
		return plain[8:], nil
	}
	return nil, ErrInvalid
}

// MAC returns a base64url keyed BLAKE2b-256 of data under purpose's key: a
// value derived from data that only the secret's holder can compute, such
// as a confidential client's secret derived from its registration.
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
	return keyedSum(k.key(i, "mac", purpose)[:], data)
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
