// Package seal turns small records into opaque strings that only the holder
// of a secret can read or forge, and back. It is the one place that holds the
// gateway's keys: each purpose (a code, an access token, a client
// registration, …) gets its own key, derived from the secret with
// HKDF-SHA256, so that a record sealed for one purpose never opens as
// another. Records are sealed with XChaCha20-Poly1305, which is constant-time
// in software (wasm has no AES instructions) and takes random 24-byte nonces,
// so nothing needs counting or storing. The primitives are internal/crypt's.
package seal

import (
	"encoding/base64"
	"encoding/binary"
	"errors"
	"sync"
	"time"

	"github.com/memos-mcp-edge/memos-mcp-edge/internal/crypt"
)

// MinSecretLen is the shortest secret accepted: 32 bytes, such as the 44
// characters of `openssl rand -base64 32`.
const MinSecretLen = 32

// Errors of Open. They say nothing of why a forged record failed.
var (
	ErrInvalid = errors.New("not a valid sealed record")
	ErrExpired = errors.New("the sealed record has expired")
)

// Keys seal and open records under a current secret and, for rotation, a
// previous one that still opens (but never seals).
type Keys struct {
	secrets [][]byte // current first

	mu      sync.Mutex
	derived map[string]*[crypt.KeySize]byte // by secret index and purpose
}

// New returns Keys for secret, and previous when it is not empty.
func New(secret, previous string) (*Keys, error) {
	k := &Keys{derived: map[string]*[crypt.KeySize]byte{}}
	for i, s := range []string{secret, previous} {
		if i > 0 && s == "" {
			break
		}
		if len(s) < MinSecretLen {
			return nil, errors.New("a sealing secret must be at least 32 bytes long")
		}
		k.secrets = append(k.secrets, []byte(s))
	}
	return k, nil
}

// key returns the key of purpose under secret i, derived once.
func (k *Keys) key(i int, purpose string) *[crypt.KeySize]byte {
	name := string(rune('0'+i)) + purpose
	k.mu.Lock()
	defer k.mu.Unlock()
	if key, ok := k.derived[name]; ok {
		return key
	}
	key := (*[crypt.KeySize]byte)(crypt.HKDF(k.secrets[i], nil, "memos-mcp-edge seal v1 "+purpose, crypt.KeySize))
	k.derived[name] = key
	return key
}

// version is the first byte of every sealed record, so that the format can
// change without old records being misread. The nonce follows it, then the
// encrypted record and its tag.
const version = 1

// overhead is what sealing adds to a record, before base64: the version
// byte, the nonce, the expiry and the tag.
const overhead = 1 + crypt.NonceSize + 8 + crypt.TagSize

// Seal returns record sealed for purpose, valid until expires, as base64url
// text without padding.
func (k *Keys) Seal(purpose string, record []byte, expires time.Time) string {
	plain := binary.BigEndian.AppendUint64(make([]byte, 0, 8+len(record)), uint64(expires.Unix()))
	plain = append(plain, record...)
	out := make([]byte, 1+crypt.NonceSize, overhead+len(record))
	out[0] = version
	nonce := (*[crypt.NonceSize]byte)(out[1:])
	crypt.Random(nonce[:])
	out = crypt.Seal(out, k.key(0, purpose), nonce, plain, []byte(purpose))
	return base64.RawURLEncoding.EncodeToString(out)
}

// Open returns the record sealed for purpose in s, if it was sealed under
// one of the keys and has not expired at now.
func (k *Keys) Open(purpose, s string, now time.Time) ([]byte, error) {
	raw, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil || len(raw) < overhead || raw[0] != version {
		return nil, ErrInvalid
	}
	nonce, box := (*[crypt.NonceSize]byte)(raw[1:]), raw[1+crypt.NonceSize:]
	for i := range k.secrets {
		plain, err := crypt.Open(nil, k.key(i, purpose), nonce, box, []byte(purpose))
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
	mac := k.mac(0, purpose, data)
	return base64.RawURLEncoding.EncodeToString(mac[:])
}

// CheckMAC reports whether mac is data's MAC under any of the keys, in
// constant time.
func (k *Keys) CheckMAC(purpose, data, mac string) bool {
	got, err := base64.RawURLEncoding.DecodeString(mac)
	if err != nil {
		return false
	}
	ok := false
	for i := range k.secrets {
		want := k.mac(i, purpose, data)
		ok = crypt.Equal(got, want[:]) || ok
	}
	return ok
}

func (k *Keys) mac(i int, purpose, data string) [crypt.Size]byte {
	return crypt.HMAC(k.key(i, "mac "+purpose)[:], []byte(data))
}
