package seal

import (
	"crypto/hkdf"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/chacha20poly1305"
)

// Records and MACs are what they were when seal used the standard library
// and golang.org/x/crypto, byte for byte: the tokens, codes and client
// registrations issued before the gateway had its own primitives keep
// working, and a deployment can go back. The old code is kept here, as it
// was, to seal and open with.

func oldKey(secret, purpose string) []byte {
	key, err := hkdf.Key(sha256.New, []byte(secret), nil, "memos-mcp-edge seal v1 "+purpose, chacha20poly1305.KeySize)
	if err != nil {
		panic(err)
	}
	return key
}

func oldSeal(secret, purpose string, record []byte, expires time.Time) string {
	aead, err := chacha20poly1305.NewX(oldKey(secret, purpose))
	if err != nil {
		panic(err)
	}
	plain := binary.BigEndian.AppendUint64(make([]byte, 0, 8+len(record)), uint64(expires.Unix()))
	plain = append(plain, record...)
	out := make([]byte, 1+aead.NonceSize(), 1+aead.NonceSize()+len(plain)+aead.Overhead())
	out[0] = version
	rand.Read(out[1:])
	out = aead.Seal(out, out[1:], plain, []byte(purpose))
	return base64.RawURLEncoding.EncodeToString(out)
}

// oldOpen returns the record and its expiry.
func oldOpen(secret, purpose, s string) ([]byte, int64, bool) {
	raw, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil || len(raw) < 1+chacha20poly1305.NonceSizeX+8+chacha20poly1305.Overhead || raw[0] != version {
		return nil, 0, false
	}
	aead, err := chacha20poly1305.NewX(oldKey(secret, purpose))
	if err != nil {
		panic(err)
	}
	plain, err := aead.Open(nil, raw[1:1+chacha20poly1305.NonceSizeX], raw[1+chacha20poly1305.NonceSizeX:], []byte(purpose))
	if err != nil {
		return nil, 0, false
	}
	return plain[8:], int64(binary.BigEndian.Uint64(plain)), true
}

func oldMAC(secret, purpose, data string) string {
	h := hmac.New(sha256.New, oldKey(secret, "mac "+purpose))
	h.Write([]byte(data))
	return base64.RawURLEncoding.EncodeToString(h.Sum(nil))
}

func TestOldRecordsOpen(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	expires := now.Add(time.Hour)
	k := mustKeys(t, secretA, "")
	rotated := mustKeys(t, secretB, secretA)
	for _, purpose := range []string{"client", "consent", "code", "access", "refresh"} {
		for _, n := range []int{0, 1, 15, 16, 17, 63, 64, 65, 300, 2000} {
			record := []byte(strings.Repeat("r", n))
			old := oldSeal(secretA, purpose, record, expires)
			for name, keys := range map[string]*Keys{"current": k, "previous": rotated} {
				if got, err := keys.Open(purpose, old, now); err != nil || string(got) != string(record) {
					t.Errorf("%s, %d bytes, %s secret: Open of an old record = %q, %v", purpose, n, name, got, err)
				}
			}
			got, exp, ok := oldOpen(secretA, purpose, k.Seal(purpose, record, expires))
			if !ok || string(got) != string(record) || exp != expires.Unix() {
				t.Errorf("%s, %d bytes: the old code opens a new record as %q, %d, %v", purpose, n, got, exp, ok)
			}
			if _, _, ok := oldOpen(secretA, "not "+purpose, k.Seal(purpose, record, expires)); ok {
				t.Errorf("%s: the old code opens a new record for another purpose", purpose)
			}
		}
	}
}

func TestOldMACsMatch(t *testing.T) {
	k := mustKeys(t, secretA, "")
	rotated := mustKeys(t, secretB, secretA)
	for _, purpose := range []string{"client secret", "registration"} {
		for _, data := range []string{"", "client-1", strings.Repeat("https://example.com/", 20)} {
			old := oldMAC(secretA, purpose, data)
			if got := k.MAC(purpose, data); got != old {
				t.Errorf("%s of %q: MAC = %s, the old code's %s", purpose, data, got, old)
			}
			if !rotated.CheckMAC(purpose, data, old) {
				t.Errorf("%s of %q: an old MAC is refused under the previous secret", purpose, data)
			}
		}
	}
}
